"""The contract's data types, shaped like Anthropic's Citations API: every stage reads or builds them."""
