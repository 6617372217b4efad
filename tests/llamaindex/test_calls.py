"""Sources that do not fit one call: compact and refine keep every label and one numbering across calls."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any

from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.llms import CompletionResponse, CompletionResponseGen, CustomLLM, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore, TextNode

from llamaindex_cite import CiteQueryEngine, CiteSynthesizer
from tests.llamaindex.conftest import ListRetriever

TEXTS = [f"Fact {i} holds: " + " ".join(f"word{i}x{j}" for j in range(60)) + "." for i in range(6)]
LABEL = re.compile(r'<source number="(\d+)"')


class ScriptedLLM(CustomLLM):
    """Answers each call with the next scripted answer (streamed one character at a time); records prompts."""

    script: list[str] = Field(default_factory=list, description="The answers, one per call, in order.")
    context_window: int = Field(default=1000, description="Reported context window.")
    _prompts: list[str] = PrivateAttr(default_factory=list)
    _streamed: list[int] = PrivateAttr(default_factory=list)

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=self.context_window, num_output=200, model_name="scripted")

    def _answer(self, prompt: str) -> str:
        self._prompts.append(prompt)
        return self.script[min(len(self._prompts), len(self.script)) - 1]

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self._answer(prompt))

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        answer = self._answer(prompt)
        self._streamed.append(len(self._prompts))

        def gen() -> Iterator[CompletionResponse]:
            for i, char in enumerate(answer):
                yield CompletionResponse(text=answer[: i + 1], delta=char)

        return gen()


def nodes() -> list[NodeWithScore]:
    return [NodeWithScore(node=TextNode(text=t, id_=f"n{i}"), score=1 - i / 10) for i, t in enumerate(TEXTS)]


def labels(prompt: str) -> list[int]:
    return [int(n) for n in LABEL.findall(prompt)]


COMPACT = [
    "Fact 0 holds [1]. Fact 1 holds [2].",
    "Fact 0 holds [1]. Fact 3 holds [4].",
    "Fact 5 holds [6]. Fact 0 holds [1]. Fact 3 holds [4].",
]


def test_compact_packs_every_source_into_few_calls_with_one_numbering(caplog):
    """Issue 12 item 1: later calls saw no labels (label counts per call [2, 0]); sources were dropped."""
    caplog.set_level(logging.WARNING)
    llm = ScriptedLLM(script=COMPACT)
    synthesizer = CiteSynthesizer(llm=llm)
    response = RetrieverQueryEngine(ListRetriever(nodes()), response_synthesizer=synthesizer).query("Facts?")
    per_call = [labels(p) for p in llm._prompts]
    assert len(per_call) == 3 and all(per_call)  # every call shows labels
    assert [n for call in per_call for n in call] == [1, 2, 3, 4, 5, 6]  # global, in order, each once
    for earlier, prompt in zip(COMPACT, llm._prompts[1:]):
        assert earlier in prompt  # the refine prompt keeps the earlier answer's [n] markers
    assert str(response) == "Fact 5 holds [1]. Fact 0 holds [2]. Fact 3 holds [3]."
    assert [n.node.node_id for n in response.source_nodes] == ["n5", "n0", "n3"]
    assert [n.node.metadata["source_number"] for n in response.source_nodes] == [6, 1, 4]
    citations = response.metadata["cited_answer"].citations
    assert [c.cited_text for c in citations] == [TEXTS[5], TEXTS[0], TEXTS[3]]
    assert response.metadata["llm_calls"] == 3 and response.metadata["dropped_sources"] == []
    assert len(response.metadata["sources"]) == 6
    assert not [r for r in caplog.records if "dropped" in r.getMessage()]  # every source was shown


def test_compact_streams_the_last_call_one_character_at_a_time():
    llm = ScriptedLLM(script=COMPACT)
    engine = CiteQueryEngine(retriever=ListRetriever(nodes()), llm=llm, streaming=True)
    response = engine.query("Facts?")
    tokens = list(response.response_gen)
    assert llm._streamed == [3]  # the earlier calls are whole; the last one streams
    assert "".join(tokens) == str(response) == "Fact 5 holds [1]. Fact 0 holds [2]. Fact 3 holds [3]."
    assert len(tokens) > 30 and max(len(t) for t in tokens) <= 4  # as the model wrote them, renumbered
    assert [n.node.node_id for n in response.source_nodes] == ["n5", "n0", "n3"]


async def test_compact_async():
    llm = ScriptedLLM(script=COMPACT)
    response = await CiteQueryEngine(retriever=ListRetriever(nodes()), llm=llm).aquery("Facts?")
    assert [labels(p) for p in llm._prompts] == [[1, 2], [3, 4], [5, 6]]
    assert str(response) == "Fact 5 holds [1]. Fact 0 holds [2]. Fact 3 holds [3]."


def test_refine_shows_one_source_per_call_and_carries_the_answer():
    script = [f"Fact 0 holds [1]. Fact {k} holds [{k + 1}]." for k in range(6)]
    llm = ScriptedLLM(script=script, context_window=8000)
    response = CiteQueryEngine(retriever=ListRetriever(nodes()), llm=llm, response_mode="refine").query(
        "Facts?"
    )
    assert [labels(p) for p in llm._prompts] == [[1], [2], [3], [4], [5], [6]]
    assert all(script[k] in llm._prompts[k + 1] for k in range(5))
    assert str(response) == "Fact 0 holds [1]. Fact 5 holds [2]."
    assert [n.node.node_id for n in response.source_nodes] == ["n0", "n5"]


def test_single_drops_the_lowest_ranked_whole():
    llm = ScriptedLLM(script=["Fact 0 holds [1]."])
    response = CiteQueryEngine(retriever=ListRetriever(nodes()), llm=llm, response_mode="single").query("Q?")
    shown, dropped = response.metadata["sources"], response.metadata["dropped_sources"]
    assert len(llm._prompts) == 1 and labels(llm._prompts[0]) == [1, 2]
    assert [s.number for s in dropped] == [3, 4, 5, 6] and len(shown) == 2
    assert [n.node.node_id for n in response.metadata["dropped_nodes"]] == ["n2", "n3", "n4", "n5"]


def test_a_source_too_big_for_one_call_is_shown_in_part_with_its_label():
    big = "The big source begins here. " + " ".join(f"Sentence {j} of the big source." for j in range(300))
    retrieved = [NodeWithScore(node=TextNode(text=big, id_="big")), *nodes()[:1]]
    llm = ScriptedLLM(script=["The big source begins here [1].", "It begins [1]. Fact 0 holds [2]."])
    response = CiteQueryEngine(retriever=ListRetriever(retrieved), llm=llm).query("Q?")
    assert [labels(p) for p in llm._prompts] == [[1], [2]]
    (cut,) = response.metadata["truncated_sources"]
    assert cut.text == big and big.startswith(response.metadata["sources"][0].text)
    assert len(response.metadata["sources"][0].text) < len(big)
    assert "Sentence 299" not in llm._prompts[0]
    assert str(response) == "It begins [1]. Fact 0 holds [2]."


def test_when_nothing_fits_beside_the_answer_it_is_final_and_the_rest_dropped(caplog):
    long_answer = "Fact 0 holds [1]. " + " ".join(f"Detail{j} of fact zero." for j in range(150)) + " [2]"
    llm = ScriptedLLM(script=[long_answer, "never asked"])
    response = CiteQueryEngine(retriever=ListRetriever(nodes()), llm=llm, streaming=True).query("Facts?")
    assert "".join(response.response_gen) == str(response)
    assert len(llm._prompts) == 1 and response.metadata["llm_calls"] == 1
    assert [s.number for s in response.metadata["dropped_sources"]] == [3, 4, 5, 6]
    assert [n.node.node_id for n in response.source_nodes] == ["n0", "n1"]
    assert [r.getMessage() for r in caplog.records if r.name == "llamaindex_cite"] == [
        "token budget: 4 source(s) not shown to the model (numbers 3, 4, 5, 6)"
    ]


def test_the_not_shown_warning_is_one_short_line_with_a_count(caplog):
    """Every number of thousands of sources not shown was written out: a 16-28 KB log line."""
    long_answer = "Fact 0 holds [1]. " + " ".join(f"Detail{j} of fact zero." for j in range(150)) + " [2]"
    texts = [f"Fact {i} holds: " + " ".join(f"word{i}x{j}" for j in range(60)) + "." for i in range(40)]
    many = [NodeWithScore(node=TextNode(text=t, id_=f"m{i}"), score=1 - i / 100) for i, t in enumerate(texts)]
    llm = ScriptedLLM(script=[long_answer, "never asked"])
    CiteQueryEngine(retriever=ListRetriever(many), llm=llm, streaming=True).query("Facts?").get_response()
    [message] = [r.getMessage() for r in caplog.records if r.name == "llamaindex_cite"]
    assert message.endswith("(numbers 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 and 28 more)") and len(message) < 120
