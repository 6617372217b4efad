"""A LlamaIndex ReActAgent that searches twice and answers with one reference list covering both calls.

Runs offline as is: embedded Qdrant in memory, hashing embeddings and a scripted fake LLM that plays
the agent (two tool calls, then an answer citing the numbers the tool showed).

    python examples/llamaindex_agent.py

The tool shows the retrieved sources numbered by one CitationSession, so a source keeps its number
across calls; session.parse(final_answer) gives a cited Response whose references cover every call.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from llama_index.core.agent.workflow import ReActAgent
from llama_index.core.llms import CompletionResponse, CompletionResponseGen, CustomLLM, LLMMetadata

sys.path.insert(0, str(Path(__file__).resolve().parent))
from llamaindex_qdrant import make_index

from llamaindex_cite import CitationSession, cited_query_engine_tool

QUESTION = "How did the harbour of Kessby change, and what happened to the fish market?"

ACTION = 'Thought: {}\nAction: kessby\nAction Input: {{"input": "{}"}}'
SCRIPT = [
    ACTION.format("I need the harbour history.", "harbour dredged steamers"),
    ACTION.format("Now the fish market.", "fish market quay herring"),
    (
        "Thought: I can answer without using any more tools.\nAnswer: The harbour was dredged in 1931 so "
        "that steamers could dock [1]. The fish market moved to the new quay in 1933 [3]."
    ),
]


class ScriptedLLM(CustomLLM):
    """Plays the agent: returns the scripted turns in order (use a real LLM in practice)."""

    turns: list[str]

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=8000, num_output=256, model_name="scripted")

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self.turns.pop(0))

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        text = self.turns.pop(0)
        return (CompletionResponse(text=text[: i + 1], delta=c) for i, c in enumerate(text))


async def main() -> None:
    index = make_index()
    session = CitationSession()
    tool = cited_query_engine_tool(
        index.as_query_engine(similarity_top_k=2, llm=ScriptedLLM(turns=[])),
        name="kessby",
        description="Searches the Kessby village archive. Cite what you use with its [n] number.",
        session=session,
    )
    agent = ReActAgent(tools=[tool], llm=ScriptedLLM(turns=list(SCRIPT)))
    final = await agent.run(user_msg=QUESTION)
    cited = session.parse(str(final))
    print(cited)
    print("References:")
    for ref in cited.metadata["cited_answer"].references:
        print(f"  [{ref.number}] {ref.source.label}")  # the numbers the agent saw and wrote
    print("Sources the agent saw:", ", ".join(f"[{s.number}] {s.label}" for s in session.sources))


if __name__ == "__main__":
    argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    ).parse_args()
    asyncio.run(main())
