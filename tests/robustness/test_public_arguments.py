"""Every public function checks its arguments at the boundary: a wrong type or value is a ``CiteError``
(an ``ArgumentError`` naming the argument), never a built-in error from deep inside, a hang, or a result
built from a misread argument (a ``str`` as ``sources`` read as one source per character)."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import cite_core as c
from cite_core import ArgumentError, CiteError

SOURCES = c.number_sources(["The grass is green. The sky is blue.", {"text": "Paris is big.", "title": "P"}])
ANSWER = c.parse_answer("The grass is green [1].", SOURCES)
CONTENT = [
    {
        "type": "text",
        "text": "Grass.",
        "citations": [
            {
                "type": "char_location",
                "cited_text": "The grass is green.",
                "document_index": 0,
                "start_char_index": 0,
                "end_char_index": 19,
            }
        ],
    }
]

GEMINI = {
    "candidates": [
        {
            "content": {"parts": [{"text": "The grass is green."}]},
            "groundingMetadata": {
                "groundingChunks": [{"web": {"uri": "https://example.org", "title": "Grass"}}],
                "groundingSupports": [{"segment": {"endIndex": 19}, "groundingChunkIndices": [0]}],
            },
        }
    ]
}

# each public function that takes arguments: the function, its arguments, and valid values for those
# it needs (the others keep their defaults)
PUBLIC: dict[str, tuple[Callable[..., Any], list[str], dict[str, Any]]] = {
    "analyze": (c.analyze, ["text"], {"text": "grass"}),
    "answer_notes": (c.answer_notes, ["answer", "lang", "extractive", "dropped"], {"answer": ANSWER}),
    "attribute": (
        c.attribute,
        ["answer_text", "sources", "threshold", "max_sources", "margin", "embeddings"],
        {"answer_text": "The grass is green.", "sources": SOURCES},
    ),
    "build_messages": (
        c.build_messages,
        ["question", "sources", "style", "max_tokens", "encoding", "system_template", "user_template"]
        + ["on_overflow", "warn_dropped"],
        {"question": "Why?", "sources": SOURCES},
    ),
    "build_prompt": (
        c.build_prompt,
        ["question", "sources", "style", "max_tokens", "system_template", "user_template", "on_overflow"],
        {"question": "Why?", "sources": SOURCES},
    ),
    "citation_instructions": (c.citation_instructions, ["count", "style", "template"], {"count": 2}),
    "condense_question_messages": (
        c.condense_question_messages,
        ["question", "history"],
        {"question": "And then?", "history": [{"role": "user", "content": "Hi"}]},
    ),
    "content_security_policy": (c.content_security_policy, ["script", "extra_styles"], {}),
    "extractive_answer": (
        c.extractive_answer,
        ["question", "sources", "max_sentences"],
        {"question": "grass?", "sources": SOURCES},
    ),
    "format_sources": (c.format_sources, ["sources", "style"], {"sources": SOURCES}),
    "from_anthropic_content": (
        c.from_anthropic_content,
        ["content", "sources", "unsupported_threshold", "search_result_blocks", "strict"],
        {"content": CONTENT, "sources": SOURCES},
    ),
    "from_native": (
        c.from_native,
        ["response", "sources", "unsupported_threshold", "display_numbers", "first_new", "calibration"],
        {"response": GEMINI},
    ),
    "detect_provider": (c.detect_provider, ["response"], {"response": GEMINI}),
    "to_ai_sdk_stream": (c.to_ai_sdk_stream, ["items", "sources", "message_id"], {"items": [ANSWER]}),
    "ato_ai_sdk_stream": (c.ato_ai_sdk_stream, ["items", "sources", "message_id"], {"items": [ANSWER]}),
    "get_encoding": (c.get_encoding, ["name"], {}),
    "number_sources": (c.number_sources, ["items", "merge", "start"], {"items": ["a"]}),
    "page_from_metadata": (
        c.page_from_metadata,
        ["metadata", "keys"],
        {"metadata": {"page": 1}, "keys": {"page": 1}},
    ),
    "pdf_pages": (c.pdf_pages, ["pdf"], {"pdf": b"%PDF-1.4"}),
    "refuse_options": (
        c.refuse_options,
        ["entry", "given", "elsewhere"],
        {"entry": "CitePostprocessor", "given": {"verify": True}, "elsewhere": {"judge": "the engine"}},
    ),
    "parse_answer": (
        c.parse_answer,
        [
            "text",
            "sources",
            "unsupported_threshold",
            "embeddings",
            "style",
            "display_numbers",
            "first_new",
            "calibration",
            "reasoning",
        ],
        {"text": "Grass [1].", "sources": SOURCES},
    ),
    "CitationStream": (
        c.CitationStream,
        [
            "sources",
            "unsupported_threshold",
            "display",
            "embeddings",
            "style",
            "display_numbers",
            "first_new",
            "calibration",
        ],
        {"sources": SOURCES},
    ),
    "AnthropicCitationStream": (
        c.AnthropicCitationStream,
        ["sources", "unsupported_threshold", "display", "search_result_blocks", "strict"],
        {"sources": SOURCES},
    ),
    "CitationSession": (c.CitationSession, ["merge"], {}),
    "render_html": (
        c.render_html,
        [
            "answer",
            "full_page",
            "title",
            "lang",
            "id_prefix",
            "script",
            "style",
            "references_open",
            "notes",
            "file_links",
        ],
        {"answer": ANSWER},
    ),
    "render_markdown": (
        c.render_markdown,
        ["answer", "style", "heading", "quotes", "safe", "lang", "notes", "file_links"],
        {"answer": ANSWER},
    ),
    "reference_entries": (c.reference_entries, ["answer", "file_links"], {"answer": ANSWER}),
    "render_terminal": (
        c.render_terminal,
        ["answer", "color", "lang", "notes", "references"],
        {"answer": ANSWER},
    ),
    "rescore": (
        c.rescore,
        ["answer", "scorer", "threshold"],
        {"answer": ANSWER, "scorer": lambda pairs: [0.5 for _ in pairs], "threshold": 0.5},
    ),
    "safe_url": (c.safe_url, ["url"], {"url": "https://example.org"}),
    "split_sentences": (c.split_sentences, ["text"], {"text": "A. B."}),
    "cite_structured": (
        c.cite_structured,
        ["obj", "sources", "unsupported_threshold", "embeddings", "style"],
        {"obj": {"a": "Grass [1]."}, "sources": SOURCES},
    ),
    "brief_citation_instructions": (c.brief_citation_instructions, ["count"], {"count": 2}),
    "verify": (c.verify, ["answer", "judge"], {"answer": ANSWER, "judge": lambda prompt: "{}"}),
    "averify": (c.averify, ["answer", "judge"], {"answer": ANSWER, "judge": lambda prompt: "{}"}),
    "source_key": (c.source_key, ["source"], {"source": SOURCES[0]}),
    "calibrate_flag": (
        c.calibrate_flag,
        ["examples", "max_false_flags", "folds", "embeddings"],
        {
            "examples": [
                ("The grass is green.", "The grass is green.", True),
                ("Mars is red.", "Paris.", False),
            ]
            * 12
        },
    ),
    "strip_controls": (c.strip_controls, ["text"], {"text": "a"}),
    "to_anthropic_documents": (c.to_anthropic_documents, ["sources", "citations"], {"sources": SOURCES}),
    "token_counter": (c.token_counter, ["encoding"], {}),
    "embedding_scorer": (c.embedding_scorer, ["embed"], {"embed": lambda texts: [[1.0] for _ in texts]}),
}

WRONG = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.integers(min_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.complex_numbers(max_magnitude=2),
    st.binary(max_size=6),
    st.text(max_size=6),
    st.sampled_from(["\ud800", "x\udfff", "Thegrass"]),
    st.lists(st.integers(), max_size=3),
    st.lists(st.none() | st.text(max_size=3) | st.binary(max_size=3), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers() | st.none(), max_size=2),
    st.tuples(st.integers()),
    st.builds(object),
)
"""Values of the wrong type (or range) for most arguments: None, numbers, huge ints, bytes, lists,
lone surrogates, objects."""


def _nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


CYCLIC: list[Any] = []
CYCLIC.append(CYCLIC)
CYCLIC_DICT: dict[str, Any] = {}
CYCLIC_DICT["a"] = CYCLIC_DICT
MAX_MESSAGE = 400
"""An error message never formats an unbounded value (the bounded repr of ``cite_core._args.shown``)."""


def _call(name: str, argument: str, value: Any) -> None:
    function, _, valid = PUBLIC[name]
    result = function(**{**valid, argument: value})
    if inspect.iscoroutine(result):
        asyncio.run(result)
    if name == "to_ai_sdk_stream":
        list(result)  # a stream: the events are read as it is
    if inspect.isasyncgen(result):  # ato_ai_sdk_stream: its arguments are read as it starts

        async def read() -> None:
            async for _ in result:
                pass

        asyncio.run(read())
    if name == "token_counter":
        result("some text")  # the counter is where a wrong encoding would fail
    elif name == "embedding_scorer":
        result([("a claim", "a cited text")])


CASES = [(name, argument) for name, (_, arguments, _) in PUBLIC.items() for argument in arguments]


def test_every_public_function_that_takes_arguments_is_covered() -> None:
    functions = {n for n in c.__all__ if inspect.isfunction(getattr(c, n))}
    classes = {"CitationStream", "AnthropicCitationStream", "CitationSession"}
    taking_nothing = {"clear_caches", "tool_citation_instructions"}
    assert functions - taking_nothing | classes == set(PUBLIC)


@pytest.mark.parametrize(("name", "argument"), CASES)
@settings(max_examples=30)
@given(value=WRONG)
@example(value=None)
@example(value="\ud800")
@example(value=10**100)
@example(value=b"x")
@example(value=[None])
def test_a_wrong_argument_raises_only_cite_errors(name: str, argument: str, value: Any) -> None:
    _only_cite_errors(name, argument, value)


UNBOUNDED = {
    "an int of 5,000 digits": 10**5000,  # int -> str refuses more than 4,300 digits
    "a negative int of 6,000 digits": -(2**20000),
    "2**4000": 2**4000,  # a float cannot hold it
    "a list holding a huge int": [10**5000],
    "a dict holding a huge int": {"a": 10**5000},
    "a str of 100,000 characters": "x" * 100_000,
    "a list nested 5,000 deep": _nested(5_000),  # repr() of it raises RecursionError
    "a cyclic list": CYCLIC,
    "a cyclic dict": CYCLIC_DICT,
}
"""Values no error message may format whole (plain parameters: hypothesis would try to print them)."""


@pytest.mark.parametrize("value", UNBOUNDED.values(), ids=UNBOUNDED.keys())
@pytest.mark.parametrize(("name", "argument"), CASES)
def test_a_huge_deep_or_cyclic_argument_raises_only_cite_errors(name: str, argument: str, value: Any) -> None:
    _only_cite_errors(name, argument, value)


def _only_cite_errors(name: str, argument: str, value: Any) -> None:
    try:
        _call(name, argument, value)
    except CiteError as exc:
        assert len(str(exc)) < MAX_MESSAGE, f"{name}({argument}=...): a message of {len(str(exc))} characters"
        if not isinstance(exc, ArgumentError):
            return  # SourceError, PromptError... (e.g. a list of one None as sources: "item 0: ...")
        # names the argument, or the part of it that is wrong (a content block, a citation)
        named = (argument, "style", "content block", "citation", "event")
        assert any(n in str(exc) for n in named), f"{name}: {exc}"


def _session() -> c.CitationSession:
    session = c.CitationSession()
    session.add(["The grass is green."])
    return session


METHODS: dict[str, Callable[[Any], Any]] = {
    "CitationSession.add": lambda v: _session().add(v),
    "CitationSession.items_for": lambda v: _session().items_for(v),
    "CitationSession.format": lambda v: _session().format(v),
    "CitationSession.parse": lambda v: _session().parse(v),
    "CitationSession.named_numbers": lambda v: _session().named_numbers(v),
    "CitationStream.feed": lambda v: c.CitationStream(SOURCES).feed(v),
    "CitationStream.feed_reasoning": lambda v: c.CitationStream(SOURCES).feed_reasoning(v),
    "CitationStream.events": lambda v: list(c.CitationStream(SOURCES).events(v)),
    "AnthropicCitationStream.feed": lambda v: c.AnthropicCitationStream(SOURCES).feed(v),
    "AnthropicCitationStream.feed(citation)": lambda v: c.AnthropicCitationStream(SOURCES).feed(
        {"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": v}}
    ),
    "CitationSession.remember": lambda v: _session().remember(v),
    "CitationSession.remember(entry)": lambda v: _session().remember([v]),
    "CitationSession.remember(number)": lambda v: _session().remember([{"number": v, "key": "k"}]),
    "CitationSession.rewrite": lambda v: _session().rewrite("A [1].", v, SOURCES),
    "CitationSession.rewrite(sources)": lambda v: _session().rewrite("A [1].", [], v),
    "CitationSession.display_numbers": lambda v: _session().display_numbers(v),
    "CitationSession.restore": lambda v: _session().restore(v),
    "CitationSession.from_messages": c.CitationSession.from_messages,
    "CitationSession.from_messages(message)": lambda v: c.CitationSession.from_messages([v]),
    "CitedAnswer.to_markdown(style)": lambda v: ANSWER.to_markdown(style=v),
    "search_result_blocks": lambda v: c.from_anthropic_content(CONTENT, SOURCES, search_result_blocks=v),
    "search_result_blocks[0]": lambda v: c.from_anthropic_content(CONTENT, SOURCES, search_result_blocks=[v]),
    "search_result_blocks[0][0]": lambda v: c.from_anthropic_content(
        CONTENT, SOURCES, search_result_blocks=[[v]]
    ),
    "number_sources(score)": lambda v: c.number_sources([{"text": "a", "score": v}]),
    "embeddings returning": lambda v: c.parse_answer(
        "The grass is green [1].", SOURCES, embeddings=lambda t: v
    ),
    "embeddings returning rows": lambda v: c.parse_answer(
        "The grass is green [1].", SOURCES, embeddings=lambda texts: [v for _ in texts]
    ),
    "embedding_scorer returning": lambda v: c.embedding_scorer(lambda t: v)([("a claim", "a text")]),
    "rescore scorer returning": lambda v: c.rescore(ANSWER, lambda pairs: v, threshold=0.5),
}


@pytest.mark.parametrize("method", METHODS)
@settings(max_examples=30)
@given(value=WRONG)
def test_a_wrong_argument_to_a_method_raises_only_cite_errors(method: str, value: Any) -> None:
    _method_only_cite_errors(method, value)


@pytest.mark.parametrize("value", UNBOUNDED.values(), ids=UNBOUNDED.keys())
@pytest.mark.parametrize("method", METHODS)
def test_a_huge_deep_or_cyclic_argument_to_a_method_raises_only_cite_errors(method: str, value: Any) -> None:
    _method_only_cite_errors(method, value)


def _method_only_cite_errors(method: str, value: Any) -> None:
    try:  # any other error (TypeError, AttributeError...) fails the test
        METHODS[method](value)
    except CiteError as exc:
        assert len(str(exc)) < MAX_MESSAGE


@pytest.mark.parametrize("sources", ["Thegrass", "x" * 1_000_000, b"The grass", {"text": "The grass"}])
@pytest.mark.parametrize("entry", ["parse_answer", "CitationStream", "attribute", "build_messages"])
def test_a_str_bytes_or_dict_as_sources_is_an_argument_error_at_once(entry: str, sources: Any) -> None:
    start = time.process_time()
    with pytest.raises(ArgumentError, match="sources must be a sequence"):
        _call(entry, "sources", sources)
    assert time.process_time() - start < 1.0  # decided without reading the 1 MB str


def test_parse_answer_with_a_str_as_sources_makes_no_source_per_character() -> None:
    with pytest.raises(ArgumentError, match="got str 'Thegrass'"):
        c.parse_answer("The grass [1].", "Thegrass")  # type: ignore[arg-type]


@pytest.mark.parametrize("cited", [5, 1.5, ["The grass"], b"The grass", {"a": 1}])
def test_from_anthropic_content_with_a_cited_text_that_is_not_a_str(cited: Any) -> None:
    content = [{**CONTENT[0], "citations": [{**CONTENT[0]["citations"][0], "cited_text": cited}]}]
    with pytest.raises(ArgumentError, match="cited_text must be a str"):
        c.from_anthropic_content(content, SOURCES)
    # strict=False reads what it can: the citation's indices, without the unreadable text
    answer = c.from_anthropic_content(content, SOURCES, strict=False)
    assert [x.cited_text for x in answer.citations] == ["The grass is green."]


def test_the_error_names_the_argument() -> None:
    with pytest.raises(ArgumentError, match="max_sentences must be an integer"):
        c.extractive_answer("grass?", SOURCES, max_sentences=None)  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="unsupported_threshold must be a finite number"):
        c.parse_answer("x", SOURCES, unsupported_threshold=10**400)
    with pytest.raises(ArgumentError, match="question contains a lone surrogate"):
        c.build_messages("why\ud800?", SOURCES)
    with pytest.raises(ArgumentError, match=r"notes\[0\] must be one of the notes"):
        c.render_markdown(ANSWER, notes=["a note"])  # type: ignore[list-item]


@given(st.text(max_size=80) | st.sampled_from(["\ud800[1]", "[1:999]", "<CIT chunk_id='1' sentences='0'>"]))
def test_model_text_never_makes_the_parser_raise(text: str) -> None:
    c.parse_answer(text, SOURCES)
    stream = c.CitationStream(SOURCES)
    stream.feed(text)
    stream.finish()


def test_the_bounded_repr_of_what_an_error_shows() -> None:
    from cite_core._args import shown

    assert shown(10**5000) == "an int of about 5001 digits" and shown(-(10**40)).startswith("an int of about")
    assert shown(12) == "12" and shown(True) == "True" and shown(1.5) == "1.5"
    assert shown("x" * 1000) == repr("x" * 40) + "…" and shown(b"ab") == "b'ab'"
    assert shown(_nested(5_000)) == "list" and shown(CYCLIC_DICT) == "dict"


def test_the_wrong_arguments_the_attack_run_found_are_named() -> None:
    with pytest.raises(
        c.SourceError, match="'score' must be a finite number, got an int of about 1205 digits"
    ):
        c.number_sources([{"text": "a", "score": 2**4000}])
    with pytest.raises(
        ArgumentError, match="style must be one of 'links', 'footnotes', 'plain', got str 'bogus'"
    ):
        ANSWER.to_markdown(style="bogus")  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match=r"references\[0\] must be a mapping"):
        _session().remember([5])  # type: ignore[list-item]
    with pytest.raises(ArgumentError, match=r"references\[0\] has the number an int of about"):
        _session().remember([{"number": 10**5000, "key": "k"}])
    with pytest.raises(ArgumentError, match=r"search_result_blocks\[0\]\[0\] must be a \(start, end\) pair"):
        c.from_anthropic_content(CONTENT, SOURCES, search_result_blocks=[[(-5, "a")]])  # type: ignore[list-item]
    with pytest.raises(CiteError, match="the embedding model returned 5, not a list of vectors"):
        c.parse_answer("The grass is green [1].", SOURCES, embeddings=lambda texts: 5)
    with pytest.raises(CiteError, match="the embedding model's vector 0 holds other than numbers"):
        c.parse_answer("The grass is green [1].", SOURCES, embeddings=lambda texts: [["a"] for _ in texts])
    with pytest.raises(CiteError, match="vectors differ in length"):
        c.parse_answer(
            "The grass is green [1].",
            SOURCES,
            embeddings=lambda texts: [[1.0] * (i + 1) for i in range(len(texts))],
        )
    with pytest.raises(CiteError, match="the scorer returned 5, not a list of scores"):
        c.rescore(ANSWER, lambda pairs: 5, threshold=0.5)  # type: ignore[arg-type,return-value]
