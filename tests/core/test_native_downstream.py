"""Native answers (``from_native``) downstream: rendering, ``verify``, calibration, and one numbering in a
``CitationSession`` when native and ``[n]`` answers alternate."""

from __future__ import annotations

import json
from typing import Any

from cite_core import (
    CitationSession,
    calibrate_flag,
    from_native,
    number_sources,
    render_html,
    render_markdown,
    render_terminal,
    verify,
)
from tests.core.native_payloads import SENTENCES, TOKYO, check_native, gemini, user_sources


def test_rendering_shows_markers_quotes_and_references() -> None:
    answer = from_native(gemini(), number_sources(user_sources()))
    html = render_html(answer)
    assert html.count('class="cite-marker') == 4
    assert "“東京は日本の首都です。”" in html and "https://example.org/tokyo" in html
    markdown = render_markdown(answer)
    assert markdown.startswith(f"{SENTENCES[0]} [\\[1\\]](#ref-1)")
    assert "https://example.org/paris" in markdown
    # the invalid index is noted (a backslash escape, readable in a terminal), never linked
    assert "> Markers that pointed at no source were removed: \\[8\\]\n" in markdown
    assert "#ref-8" not in markdown and "[8]" not in markdown
    assert "東京は日本の首都です。 [2]" in render_terminal(answer)


def test_unverified_references_say_so_in_every_renderer() -> None:
    answer = from_native(gemini())
    for shown in (render_html(answer), render_markdown(answer), render_terminal(answer)):
        assert "not checked against the source" in shown
    assert "no se comprobó" in render_markdown(answer, lang="es")


def test_verify_judges_native_claims_against_the_located_passages() -> None:
    answer = from_native(gemini(), number_sources(user_sources()))
    prompts: list[str] = []

    def judge(prompt: str) -> str:
        prompts.append(prompt)
        verdicts = [{"id": i + 1, "verdict": "supported"} for i in range(len(answer.claims))]
        return json.dumps({"claims": verdicts})

    checked = verify(answer, judge)
    assert len(prompts) == 1 and 'Tokyo">東京は日本の首都です。</passage>' in prompts[0]
    assert [c.verdict.level for c in checked.claims if c.verdict] == ["supported"] * 3


def test_calibration_sets_the_flag_threshold_of_a_native_answer() -> None:
    examples = [
        (f"Fact {i} holds in town {i}.", f"Town {i} has fact {i}. It holds in town {i}.", True)
        for i in range(12)
    ] + [(f"Rivers {i} flow north.", f"Mountains {i} are tall and cold.", False) for i in range(12)]
    calibration = calibrate_flag(examples, folds=3)
    answer = from_native(gemini(), number_sources(user_sources()), calibration=calibration)
    assert answer.unsupported_threshold == calibration.threshold
    default = from_native(gemini(), number_sources(user_sources()))
    assert answer.content == default.content and default.unsupported_threshold != calibration.threshold


def _perplexity(text: str, urls: list[str]) -> dict[str, Any]:
    return {"choices": [{"message": {"role": "assistant", "content": text}}], "citations": urls}


def test_session_keeps_one_numbering_when_native_and_marker_answers_alternate() -> None:
    session = CitationSession()
    paris, vienna, tokyo = session.add(user_sources())
    assert (paris.number, vienna.number, tokyo.number) == (1, 2, 3)
    first = session.parse("東京は日本の首都です [3]。")
    assert [r.number for r in first.references] == [3]
    # Gemini cites Vienna (a source of the session: keeps 2) and a web page the session lacks (gets 4)
    payload = gemini()
    meta = payload["candidates"][0]["groundingMetadata"]
    meta["groundingChunks"][2] = {"web": {"uri": "https://example.org/seine", "title": "Seine"}}
    native = session.from_native(payload)
    check_native_numbers = [(r.number, r.title) for r in native.references]
    assert check_native_numbers == [(2, "Vienna cafés"), (3, "Tokyo"), (4, "Seine")]
    assert native.text.endswith("🌊. [4][2]")
    assert [s.number for s in session.sources] == [1, 2, 3, 4]
    # a new retrieval goes after the web page; a [n] answer may cite the web page by its number
    (louvre,) = session.add([{"text": "The Louvre is in Paris.", "title": "Louvre"}])
    assert louvre.number == 5
    third = session.parse("The Louvre is in Paris [5]. The Seine [4]. Cafés [2].")
    shown = [(r.number, r.title) for r in third.references]
    assert shown == [(5, "Louvre"), (4, "Seine"), (2, "Vienna cafés")]
    # Perplexity citing the same web page and the Louvre's source: the session's numbers again
    again = session.from_native(
        _perplexity("Seine [1]. Louvre [2].", ["https://example.org/seine", "https://example.org/none"])
    )
    assert [r.number for r in again.references] == [4, 6]
    assert [s.number for s in session.sources] == [1, 2, 3, 4, 5, 6]
    check_native(native, renumbered=False)
    assert TOKYO in session.sources[2].text
