"""Every reply a judge can give ends as verdicts or as ``Verification.problem``, never a built-in
exception (issue 33 item 5): ids written with superscript digits or 5,000 digits, JSON nested
thousands deep, huge numbers, a cross-encoder returning something other than rows of scores."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cite_core import averify, number_sources, parse_answer, verify

SOURCES = number_sources(
    ["Most goose eggs take from 28 to 35 days to hatch.", "Paris is the capital of France."]
)
ANSWER = parse_answer("Goose eggs take 28 to 32 days [1]. Paris is the French capital [2].", SOURCES)


def _checked(reply: Any) -> Any:
    """The answer verified by a judge that always gives ``reply``; the problem or the verdicts."""
    checked = verify(ANSWER, lambda prompt: reply)
    assert checked.verification is not None
    problem = checked.verification.problem
    assert problem is None or len(problem) < 600  # an error message never formats an unbounded value
    if problem is None:
        assert all(v is not None for v in checked.verdicts)
    return checked


def _entries(*ids: Any) -> str:
    return json.dumps({"claims": [{"id": i, "verdict": "supported", "reason": "ok"} for i in ids]})


HOSTILE_REPLIES = {
    "a superscript digit id": _entries("\u00b2", 1),
    "an Arabic-Indic digit id": _entries("\u0661", 2),
    "a 5,000 digit id in a string": _entries("9" * 5000, 1),
    "a 5,000 digit id": '{"claims": [{"id": ' + "9" * 5000 + ', "verdict": "supported"}]}',
    "nested 100,000 deep": '{"claims": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "objects nested 50,000 deep": '{"claims": [' + '{"a":' * 50_000 + "1" + "}" * 50_000 + "]}",
    "a float id": _entries(1.0, 2.0),
    "a huge float": '{"claims": [{"id": 1e999, "verdict": "supported"}]}',
    "a verdict that is a 1 MB string": json.dumps({"claims": [{"id": 1, "verdict": "x" * 1_000_000}]}),
    "a verdict that is a nested list": json.dumps({"claims": [{"id": 1, "verdict": [[[[["a"]]]]]}]}),
    "a fence and newlines": "```json\n" + "\n" * 20_000 + "```",
    "a fence around the JSON": "```json\n" + _entries(1, 2) + "\n```",
    "braces only": "}" * 1000 + "{" * 1000,
    "not an object": "[1, 2, 3]",
    "null": "null",
}


@pytest.mark.parametrize("reply", HOSTILE_REPLIES.values(), ids=HOSTILE_REPLIES.keys())
def test_a_hostile_reply_is_verdicts_or_a_problem(reply: str) -> None:
    _checked(reply)
    asyncio.run(averify(ANSWER, lambda prompt: reply))


def test_a_superscript_digit_id_is_a_problem_not_a_value_error() -> None:
    checked = _checked(_entries("\u00b2", 1))
    assert "the id '²'" in (checked.verification.problem or "")


def test_a_fenced_reply_is_still_read() -> None:
    assert [v.level for v in _checked("```json\n" + _entries(1, 2) + "\n```").verdicts] == ["supported"] * 2


class _Reply:
    def __init__(self, content: Any) -> None:
        self.content = content


@pytest.mark.parametrize(
    "reply",
    [
        None,
        5,
        10**5000,
        b"{}",
        _Reply([{"text": 10**5000}, {"text": None}, 7, {"type": "image"}]),
        _Reply([[["deep"]]]),
        _Reply({"claims": []}),
        object(),
    ],
    ids=["none", "int", "huge-int", "bytes", "odd-blocks", "nested-blocks", "dict", "object"],
)
def test_a_reply_that_is_not_text_is_a_problem(reply: Any) -> None:
    assert _checked(reply).verification.problem is not None


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["id", "verdict", "claims", "reason"]), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=200)
@given(data=JSONISH, prefix=st.text(max_size=5))
def test_any_json_reply_is_verdicts_or_a_problem(data: Any, prefix: str) -> None:
    _checked(prefix + json.dumps(data) + prefix)
    _checked(prefix + json.dumps({"claims": data}))


class _Encoder:
    def __init__(self, rows: Any) -> None:
        self.rows = rows

    def predict(self, pairs: list[tuple[str, str]]) -> Any:
        return self.rows


class _Raises:
    def __iter__(self) -> Any:
        raise TypeError("not iterable after all")


CROSS_ENCODER_RETURNS = {
    "none": None,
    "an int": 3,
    "a str": "ab",
    "a dict": {"a": 1, "b": 2},
    "rows of str": [["a", "b", "c"], ["d", "e", "f"]],
    "rows of None": [None, None],
    "ragged rows": [[0.1, 0.9], [0.5]],
    "empty rows": [[], []],
    "nested rows": [[[0.1]], [[0.2]]],
    "huge ints": [10**5000, 2],
    "nan": [float("nan"), 0.5],
    "infinite": [[float("inf"), 0.0, 1.0], [0.0, 1.0, 0.0]],
    "booleans": [True, False],
    "an iterable that raises": _Raises(),
}


@pytest.mark.parametrize("rows", CROSS_ENCODER_RETURNS.values(), ids=CROSS_ENCODER_RETURNS.keys())
def test_a_cross_encoder_returning_other_shapes_is_a_problem(rows: Any) -> None:
    checked = verify(ANSWER, _Encoder(rows))
    assert checked.verification is not None and checked.verification.problem is not None
    assert checked.verdicts == [None, None]
    assert len(checked.verification.problem) < 300
