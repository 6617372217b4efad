"""What a citation costs was cut without changing what it gives (issue 34, docs/benchmarks.md "The cost
of a citation"): each shortcut against the reference it stands for, in either mode (with the extension
and under CITE_PURE_PYTHON=1).

Run longer with ``HYPOTHESIS_PROFILE=long`` (10,000 examples per property).
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from cite_core import CitedAnswer, number_sources, parse_answer
from cite_core._locate.localize import Corpus
from cite_core._locate.scoring import ClaimTerms, TermStats
from cite_core._schema.citations import citation_for_span
from cite_core._schema.events import _ANSWER_FIELDS, cited_answer, marker_group, reference
from cite_core._schema.models import MarkerGroup, Reference, Source
from cite_core._schema.utf16 import _ASTRAL, has_astral, source_utf16, source_utf16_span
from cite_core._sources.terms import analyze
from cite_core._stream.claims import _HEADING, _LIST_NUMBER, claim_follows, claim_terms, precedes_its_claim

SOURCES = number_sources(["The grass is green. The sky is blue.", "Hydrogen fuses into helium in the Sun."])

PIECES = [
    *"The bridges were opened in 1932 by Sydney's council according to the report".split(),
    *("Ñandú", "café", "ΣΟΦΙΑΣ", "中文", "日本語", "\U0001f600", "—", "“q”", "\ud800", "x_y", "a-b"),
    *(" ", "\t", "\n", ".", ",", ":", "1.", "a)", "###", "**", "Some sources", "As noted in", "e.g."),
]
TEXT = st.lists(st.sampled_from(PIECES), min_size=1, max_size=12).map(" ".join) | st.text(
    min_size=1, max_size=40
)


@given(TEXT)
@example("x")
@example("The grass")
@example("Ñandú runs")
@example("1932 \ud800")
def test_a_claims_terms_are_analyzes(text: str) -> None:
    assert tuple(claim_terms(text)) == tuple(analyze(text))
    reference = bool(_LIST_NUMBER.fullmatch(text) or _HEADING.fullmatch(text)) or (
        text[-1] not in ".!?。！？" and (len(analyze(text)) < 2 or claim_follows(text))
    )  # the check as it was: claim_follows asked again for a list number and a heading
    assert precedes_its_claim(text) == precedes_its_claim(text, analyze) == reference


@given(TEXT)
def test_the_corpus_keeps_the_terms_it_gives_for_the_citation(text: str) -> None:
    corpus = Corpus(SOURCES)
    assert corpus.claim_terms(text) == tuple(analyze(text))
    kept = corpus._claims[text]
    corpus.cite(SOURCES[0], text, reference=1)
    assert corpus._claims[text] is kept  # the citation read the same analysis, not a second one


def _same(built: BaseModel, validated: BaseModel) -> None:
    assert built == validated and type(built) is type(validated)
    assert built.__dict__ == validated.__dict__ and list(built.__dict__) == list(validated.__dict__)
    assert built.model_fields_set == validated.model_fields_set
    assert built.__pydantic_private__ == validated.__pydantic_private__
    assert built.__pydantic_extra__ == validated.__pydantic_extra__
    assert built.model_dump_json() == validated.model_dump_json() and repr(built) == repr(validated)
    assert built.model_dump(exclude_unset=True) == validated.model_dump(exclude_unset=True)


def test_answer_builders_equal_validated_models() -> None:
    answer = parse_answer("The sky is blue [1]. Hydrogen fuses [2][9].", SOURCES)
    citations = answer.citations
    block = answer.content[2]
    group = block.marker_groups[0]
    _same(
        marker_group([1], citations[:1], " ", ","),
        MarkerGroup(numbers=[1], citations=citations[:1], lead=" ", tail=","),
    )
    _same(marker_group([2, 1], [], "", ""), MarkerGroup(numbers=[2, 1], citations=[], lead="", tail=""))
    _same(
        group, MarkerGroup(numbers=group.numbers, citations=group.citations, lead=group.lead, tail=group.tail)
    )
    _same(reference(2, SOURCES[1]), Reference(number=2, source=SOURCES[1]))
    assert reference(2, SOURCES[1]).source is SOURCES[1]  # as validation keeps it
    values = {
        "text": answer.text,
        "content": answer.content,
        "references": answer.references,
        "invalid_markers": ["[9]"],
        "removed_reference_list": None,
        "unsupported_threshold": 0.25,
        "reasoning": "",
        "stopped_in_reasoning": False,
        "truncated": True,
    }
    built = cited_answer(*values.values())
    _same(built, CitedAnswer(**values))
    assert built.verification is None and built.left_out == [] and built.no_model_asked is None
    fields = {name: getattr(answer, name) for name in values}
    _same(answer, CitedAnswer(**fields))  # the parser's own answer, built without validation


class _Source(Source):
    """A caller's own subclass: validation decides what a reference keeps of it."""


def test_answer_builders_validate_what_the_parser_did_not_make() -> None:
    own = _Source.model_validate(SOURCES[0].model_dump())
    _same(reference(1, own), Reference(number=1, source=own))
    with pytest.raises(ValidationError):
        reference(0, SOURCES[0])  # not a display number: refused as validation refuses it
    nine = ("x", [], [], [], None, 1, "", False, False)  # an int threshold: validated, as a float
    validated = CitedAnswer(**dict(zip(_ANSWER_FIELDS, nine)))
    _same(cited_answer(*nine), validated)  # type: ignore[arg-type]
    assert type(cited_answer(*nine).unsupported_threshold) is float  # type: ignore[arg-type]


@pytest.mark.parametrize("starts", [(0, None), (None, 40), (0, 40), (None, None)])
def test_a_citation_is_in_document_coordinates_when_every_chunk_knew_its_start(
    starts: tuple[int | None, ...],
) -> None:
    parts = ("First part here.", "Second part.")
    items = [
        {"text": text, "document_id": "d", **({} if start is None else {"start_index": start})}
        for text, start in zip(parts, starts)
    ]
    (source,) = number_sources(items)
    expected = "document" if source.document_coordinates else "source"
    assert expected == ("document" if None not in starts else "source")
    for index, segment in enumerate(source.segments):
        citation = citation_for_span(
            source, segment.start, segment.end, reference=1, support=0.5, segment=index
        )
        assert citation.coordinates == expected  # type: ignore[union-attr]
        start = segment.doc_start if expected == "document" else segment.start
        assert citation.start_char_index == start  # type: ignore[union-attr]


class _LazyFrequencies(dict[str, int]):
    """Document frequencies read through an overridden ``get`` (a mapping the compiled call must not read
    as a plain dict)."""

    def get(self, key: str, default: object = None) -> int:  # type: ignore[override]
        return 3 if key == analyze("grass")[0] else 0


def test_frequencies_read_through_their_own_get_are_analysed_in_python() -> None:
    stats = TermStats.from_units([["grass", "green"], ["sky"]])
    lazy = TermStats(stats.units, _LazyFrequencies(), stats.avg_len)  # type: ignore[arg-type]
    claim = ClaimTerms.from_text("The grass is green", lazy)
    assert claim == ClaimTerms.of(analyze("The grass is green"), lazy)
    assert dict(claim.weights)[analyze("grass")[0]] == lazy.idf_by_df[3]  # its get was asked


UTF16_TEXT = st.text(
    alphabet=st.sampled_from(
        ["a", " ", ".", "é", "中", "\U0001f600", "\U00020bb7", "\ud800", "\udfff", "\uffff"]
    ),
    max_size=30,
)


@given(UTF16_TEXT)
@example("\ud83d\ude00")  # a surrogate pair as two code points: no astral character
def test_a_text_has_an_astral_character_where_the_search_finds_one(text: str) -> None:
    assert has_astral(text) == (_ASTRAL.search(text) is not None)


@given(UTF16_TEXT.filter(lambda t: "\ud800" not in t and "\udfff" not in t), st.data())
def test_a_spans_utf16_offsets_are_each_offsets(text: str, data: st.DataObject) -> None:
    (source,) = number_sources([text + " x."])
    end = data.draw(st.integers(0, len(source.text)))
    start = data.draw(st.integers(0, end))
    assert source_utf16_span(source, start, end) == (source_utf16(source, start), source_utf16(source, end))
    assert source_utf16(source, end) == len(source.text[:end].encode("utf-16-le")) // 2
