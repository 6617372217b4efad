"""``prompt_style="statements"`` in ``CiteQueryEngine``: numbered sentences in the prompt, cited back."""

from __future__ import annotations

from llama_index.core.schema import NodeWithScore, TextNode

from llamaindex_cite import CiteQueryEngine

from .conftest import ListRetriever, ReplayLLM

TERNS = "Arctic terns arrive in May. They leave in August."
EIDERS = "Eiders nest on the skerries. Their down is collected."
REPLY = (
    "<statement>Terns come in May.<cite>[0-0]</cite></statement> "
    "<statement>Eider down is collected.<cite>[3-3]</cite></statement>"
)


def _engine(streaming: bool) -> tuple[CiteQueryEngine, ReplayLLM]:
    nodes = [
        NodeWithScore(node=TextNode(text=t, id_=f"n{i}"), score=1.0) for i, t in enumerate((TERNS, EIDERS))
    ]
    llm = ReplayLLM(default=REPLY)
    engine = CiteQueryEngine(
        retriever=ListRetriever(nodes), llm=llm, prompt_style="statements", streaming=streaming
    )
    return engine, llm


def test_statements_style_whole_and_streaming() -> None:
    engine, llm = _engine(False)
    response = engine.query("When do birds come?")
    assert "<C0>Arctic terns arrive in May." in llm.prompts[0] and "<C3>Their down" in llm.prompts[0]
    assert str(response) == "Terns come in May.[1] Eider down is collected.[2]"
    cited = response.metadata["cited_answer"].citations
    assert [c.cited_text for c in cited] == ["Arctic terns arrive in May.", "Their down is collected."]
    streaming, _ = _engine(True)
    streamed = streaming.query("When do birds come?")
    assert "".join(streamed.response_gen) == str(response)
