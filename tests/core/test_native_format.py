"""``clean_text`` finds format characters with the extension's scan (``PlainPath`` over
``delimiters.FORMAT_CHARS``) before it runs the regular expression: the same text out as the regular
expression alone, on random text, text full of format characters and a lone surrogate."""

from __future__ import annotations

import sys

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from cite_core._sources import delimiters

FORMAT = st.sampled_from(delimiters.FORMAT_CHARS)


def test_the_format_characters_are_those_of_the_class() -> None:
    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    assert delimiters._FORMAT.findall(every) == list(delimiters.FORMAT_CHARS)


@given(st.lists(st.text(max_size=20) | FORMAT, max_size=30).map("".join))
@example("plain “quoted” text — no format character")
@example("soft\u00adhyphen, zero\u200bwidth, tag \U000e0041 and bidi \u202e")
@example("a lone surrogate \ud800 then \u200b")
def test_format_characters_are_stripped_as_the_regular_expression_strips_them(text: str) -> None:
    assert delimiters._strip_format(text) == delimiters._FORMAT.sub("", text)


def test_the_scan_runs_where_the_extension_is_built() -> None:
    if delimiters.NATIVE is None:
        pytest.skip("the pure-Python implementation runs: the regular expression alone")
    assert delimiters._FORMAT_SCAN is not None
    assert delimiters._FORMAT_SCAN("ab\u200bc") == 2 and delimiters._FORMAT_SCAN("abc") == 3
