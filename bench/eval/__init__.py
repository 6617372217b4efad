"""Citation-quality evaluation on external data (``python -m bench.eval``); see docs/quality.md."""
