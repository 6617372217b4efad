"""verify(answer, judge): one call per answer, validated JSON, one retry, reported never guessed; every
kind of judge (LangChain-like, LlamaIndex-like, a function, an NLI cross-encoder) duck-typed."""

from __future__ import annotations

import asyncio
import json
from typing import Any, ClassVar

import pytest

from cite_core import (
    ArgumentError,
    Verdict,
    Verification,
    averify,
    number_sources,
    parse_answer,
    render_html,
    render_markdown,
    render_terminal,
    verify,
)
from cite_core._answer.prompt_verify import VERIFY_SYSTEM_PROMPT, MalformedReply, parse_verdicts

SOURCES = number_sources(
    [
        {"text": "Most goose eggs take from 28 to 35 days to hatch.", "title": "Geese"},
        {"text": "Paris is the capital of France.", "title": "France"},
    ]
)
TEXT = "Goose eggs take 28 to 32 days [1]. Paris is the French capital [2]."
GOOD = {
    "claims": [
        {"id": 1, "verdict": "contradicted", "reason": "the source says 28 to 35 days"},
        {"id": 2, "verdict": "supported", "reason": "stated"},
    ]
}


def answer() -> Any:
    return parse_answer(TEXT, SOURCES)


class Recorder:
    """A plain-function judge replying from a script, recording the prompts."""

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.replies.pop(0)


def test_one_call_for_the_whole_answer_and_the_verdicts_land_on_the_claims() -> None:
    judge = Recorder(json.dumps(GOOD))
    checked = verify(answer(), judge)
    assert len(judge.prompts) == 1
    prompt = judge.prompts[0]
    assert VERIFY_SYSTEM_PROMPT in prompt
    assert '<claim id="1">Goose eggs take 28 to 32 days</claim>' in prompt
    assert 'source="[1] Geese">Most goose eggs take from 28 to 35 days to hatch.</passage>' in prompt
    assert [c.verdict.level for c in checked.claims if c.verdict] == ["contradicted", "supported"]
    assert checked.claims[0].verdict == Verdict(level="contradicted", reason="the source says 28 to 35 days")
    assert checked.verification == Verification(
        judge="callable:Recorder", claims=2, calls=1, verdicts=tuple(checked.verdicts)
    )
    assert checked.verification.ok
    assert answer().verification is None and answer().verdicts == [None, None]  # the original is untouched


def test_a_malformed_reply_is_asked_again_once() -> None:
    judge = Recorder("Looks fine to me.", "```json\n" + json.dumps(GOOD) + "\n```")
    checked = verify(answer(), judge)
    assert len(judge.prompts) == 2
    assert "could not be read: no JSON object" in judge.prompts[1]
    assert "Your reply:\nLooks fine to me." in judge.prompts[1]
    assert checked.verification is not None and checked.verification.calls == 2
    assert [v.level for v in checked.verdicts if v] == ["contradicted", "supported"]


def test_a_second_bad_reply_is_reported_and_nothing_is_guessed() -> None:
    half = json.dumps({"claims": [GOOD["claims"][0]]})
    checked = verify(answer(), Recorder(half, half))
    verification = checked.verification
    assert verification is not None and not verification.ok and verification.calls == 2
    assert "no entry for claim(s) 2" in (verification.problem or "")
    assert checked.verdicts == [None, None]
    for render in (render_markdown, render_terminal, render_html):
        assert "Not verified" in render(checked)


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("nothing", "no JSON object"),
        ("{not json}", "invalid JSON"),
        ('{"verdicts": []}', 'no "claims" list'),
        ('{"claims": [1, 2]}', "not an object"),
        ('{"claims": [{"id": 3, "verdict": "supported"}]}', "not a claim number 1..2"),
        ('{"claims": [{"id": 1, "verdict": "supported"}, {"id": 1, "verdict": "supported"}]}', "two entries"),
        ('{"claims": [{"id": 1, "verdict": "true"}, {"id": 2, "verdict": "supported"}]}', "not one of"),
        ('{"claims": [{"id": true, "verdict": "supported"}]}', "not a claim number"),
    ],
)
def test_replies_are_validated(reply: str, problem: str) -> None:
    with pytest.raises(MalformedReply, match=problem):
        parse_verdicts(reply, 2)


def test_verdict_spellings_ids_as_strings_and_long_reasons_are_read() -> None:
    reply = {
        "claims": [
            {"id": "1", "verdict": "Partially supported", "reason": "x " * 400},
            {"id": 2, "verdict": "not-supported"},
        ]
    }
    first, second = parse_verdicts("Here it is: " + json.dumps(reply) + " Done.", 2)
    assert first.level == "partially_supported" and len(first.reason) == 300 and first.reason.endswith("…")
    assert second == Verdict(level="not_supported", reason="")


class ChatLike:
    """Shaped like a LangChain chat model: invoke / ainvoke over role messages, a message back."""

    class Message:
        def __init__(self, content: Any) -> None:
            self.content = content

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def invoke(self, messages: Any) -> Any:
        self.seen.append(messages)
        return self.Message([{"type": "text", "text": json.dumps(GOOD)}])

    async def ainvoke(self, messages: Any) -> Any:
        return self.invoke(messages)


class CompletionLike:
    """Shaped like a LlamaIndex LLM: complete / acomplete of a prompt, a response with ``text``."""

    class Response:
        def __init__(self, text: str) -> None:
            self.text = text

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def complete(self, prompt: str) -> Any:
        self.prompts.append(prompt)
        return self.Response(json.dumps(GOOD))

    async def acomplete(self, prompt: str) -> Any:
        return self.complete(prompt)


def test_a_chat_model_gets_system_and_user_messages() -> None:
    judge = ChatLike()
    checked = verify(answer(), judge)
    [messages] = judge.seen
    assert [m["role"] for m in messages] == ["system", "user"]
    assert checked.verification is not None and checked.verification.judge == "langchain:ChatLike"
    assert asyncio.run(averify(answer(), judge)).verdicts == checked.verdicts


def test_a_completion_model_gets_one_prompt() -> None:
    judge = CompletionLike()
    checked = verify(answer(), judge)
    assert len(judge.prompts) == 1 and judge.prompts[0].startswith(VERIFY_SYSTEM_PROMPT)
    assert checked.verification is not None and checked.verification.judge == "llamaindex:CompletionLike"
    assert asyncio.run(averify(answer(), judge)).verdicts == checked.verdicts


def test_async_functions_are_awaited_by_averify_and_refused_by_verify() -> None:
    async def judge(prompt: str) -> str:
        return json.dumps(GOOD)

    checked = asyncio.run(averify(answer(), judge))
    assert [v.level for v in checked.verdicts if v] == ["contradicted", "supported"]
    with pytest.raises(ArgumentError, match="averify"):
        verify(answer(), judge)


class TinyCrossEncoder:
    """Stands in for sentence_transformers.CrossEncoder with an NLI head: predict over (premise,
    hypothesis) pairs, logits in the order its config names (no weights, no torch)."""

    class Config:
        id2label: ClassVar[dict[int, str]] = {0: "contradiction", 1: "entailment", 2: "neutral"}

    def __init__(self) -> None:
        self.config = self.Config()
        self.calls: list[list[tuple[str, str]]] = []

    def predict(self, pairs: list[tuple[str, str]]) -> list[list[float]]:
        self.calls.append(pairs)
        out = []
        for premise, hypothesis in pairs:
            if "32" in hypothesis and "35" in premise:
                out.append([4.0, -2.0, 0.0])  # contradiction
            elif "capital" in premise:
                out.append([-3.0, 5.0, 0.0])  # entailment
            else:
                out.append([-1.0, 0.5, 1.0])  # neutral, some entailment
        return out


def test_a_cross_encoder_scores_every_pair_in_one_call() -> None:
    judge = TinyCrossEncoder()
    checked = verify(answer(), judge)
    assert len(judge.calls) == 1
    assert judge.calls[0][0] == (
        "Most goose eggs take from 28 to 35 days to hatch.",
        "Goose eggs take 28 to 32 days",
    )
    first, second = checked.verdicts
    assert first is not None and first.level == "contradicted" and first.reason.startswith("NLI: entailment")
    assert (
        second is not None and second.level == "supported" and second.score is not None and second.score > 0.9
    )
    assert checked.verification is not None and checked.verification.judge == "cross-encoder:TinyCrossEncoder"
    assert asyncio.run(averify(answer(), judge)).verdicts == checked.verdicts


def test_a_neutral_pair_is_partly_or_not_supported_by_its_entailment() -> None:
    sources = number_sources(["Ducks swim in the pond."])
    checked = verify(parse_answer("Ducks are birds [1].", sources), TinyCrossEncoder())
    [verdict] = checked.verdicts
    assert verdict is not None and verdict.level == "partially_supported"  # entailment 0.34 >= 0.25


def test_a_single_score_cross_encoder_is_read_as_a_probability() -> None:
    class Scorer:
        def predict(self, pairs: list[tuple[str, str]]) -> list[float]:
            return [0.9, 0.1]

    assert [v.level for v in verify(answer(), Scorer()).verdicts if v] == ["supported", "not_supported"]


def test_a_cross_encoder_giving_the_wrong_number_of_scores_is_reported() -> None:
    class Short:
        def predict(self, pairs: list[tuple[str, str]]) -> list[float]:
            return [0.9]

    checked = verify(answer(), Short())
    assert checked.verdicts == [None, None] and "1 scores for 2 claims" in (
        checked.verification.problem or ""
    )


def test_an_answer_without_citations_calls_nobody() -> None:
    judge = Recorder()
    checked = verify(parse_answer("No citations here.", SOURCES), judge)
    assert judge.prompts == [] and checked.verification == Verification(
        judge="callable:Recorder", claims=0, calls=0
    )


def test_bad_arguments_get_a_clear_error() -> None:
    with pytest.raises(ArgumentError, match="CitedAnswer"):
        verify("text", Recorder())  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="judge must be"):
        verify(answer(), 42)


def test_every_renderer_shows_the_verdicts() -> None:
    checked = verify(answer(), Recorder(json.dumps(GOOD)))
    for render in (render_markdown, render_terminal, render_html):
        shown = render(checked)
        assert "contradicted" in shown and "the source says 28 to 35 days" in shown, render
    assert "contradicha" in render_markdown(checked, lang="es")
    assert "与来源矛盾" in render_terminal(checked, lang="zh")
    assert "contradicted" not in render_markdown(answer())
