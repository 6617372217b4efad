"""How much of a LlamaIndex prompt ``CitePostprocessor``'s citation instructions may take.

The instructions go into the query the engine's synthesizer sees, and LlamaIndex's ``compact`` and
``refine`` size their context chunks by what the prompt (query included) leaves of the LLM's context
window. So they are fitted to that: cite_core's instructions when they leave at least half of the
room for the sources, the brief ones when those leave some, else an error saying what does not fit.
"""

from __future__ import annotations

from typing import Any

from llama_index.core.indices import prompt_helper
from llama_index.core.prompts.default_prompts import DEFAULT_REFINE_PROMPT_TMPL
from llama_index.core.response_synthesizers import refine
from llama_index.core.settings import Settings
from llama_index.core.utils import get_tokenizer

from cite_core import TokenBudgetError, brief_citation_instructions, citation_instructions

__all__ = ["fitted_instructions"]

_PADDING = getattr(refine, "DEFAULT_RESPONSE_PADDING_SIZE", 0) + prompt_helper.DEFAULT_PADDING
"""What LlamaIndex's compact and refine keep free besides the answer (500 + 5 since 0.14; 5 before)."""


def fitted_instructions(count: int, query: str, llm: Any = None) -> str:
    """The citation instructions for ``count`` sources that fit beside ``query`` in ``llm``'s context
    window (``llm`` default: ``Settings.llm`` when one was set); cite_core's full ones when no LLM is
    known. Raises ``TokenBudgetError`` when not even the brief ones leave room for a source."""
    full = citation_instructions(count)
    meta = getattr(llm if llm is not None else getattr(Settings, "_llm", None), "metadata", None)
    window, answer = getattr(meta, "context_window", None), getattr(meta, "num_output", None)
    if not isinstance(window, int) or not isinstance(answer, int):
        return full
    tokens = get_tokenizer()
    prompt = DEFAULT_REFINE_PROMPT_TMPL.format(query_str=query, existing_answer="", context_msg="")
    room = window - max(answer, 0) - len(tokens(prompt)) - _PADDING
    brief = brief_citation_instructions(count)
    if room - len(tokens(full)) >= room / 2:
        return full
    if room - len(tokens(brief)) > 0:
        return brief
    raise TokenBudgetError(
        f"CitePostprocessor: the citation instructions ({len(tokens(brief))} tokens, brief) do not fit "
        f"the prompt: the LLM's context_window={window} less num_output={answer}, the question and "
        f"LlamaIndex's prompt and padding leave {room} tokens. Use an LLM with a larger context window, "
        "or CitePostprocessor(instruct=False) with CitePostprocessor.instructions(n) in your own "
        "text_qa_template"
    )
