"""Safe Markdown (the default): the XSS corpus through common Markdown renderers into chromium."""

from __future__ import annotations

import pytest

from cite_core import number_sources, parse_answer
from cite_core._render.markdown import escape_model_markdown

from .markdown_renderers import TRAP, audit, executed, renderers
from .xss_corpus import MARKDOWN_PAYLOADS, PAYLOADS, payload_answer

ALL = PAYLOADS + MARKDOWN_PAYLOADS
RENDERERS = renderers()
needs_renderer = pytest.mark.skipif(
    not RENDERERS, reason="no Markdown renderer installed (the test extra has them)"
)


def test_raw_html_and_script_links_in_model_text_are_neutralised() -> None:
    sources = number_sources([{"text": "The sky is blue.", "title": "Sky", "url": "https://example.org/sky"}])
    text = (
        "The sky is blue [1]. <img src=x onerror=alert(1)> [a](javascript:alert(1)) "
        "[b](https://example.org/b) <https://example.org/c> `a < b` and 3 < 4"
        "\n\n[r]: javascript:alert(1)\n[1]: https://evil.example/"
    )
    md = parse_answer(text, sources).to_markdown()
    body = md.split("\n\n**References**")[0]
    assert "<img" not in body and "&lt;img src=x onerror=alert(1)>" in body
    assert "[a&#93;(javascript:alert(1))" in body
    assert "[b](https://example.org/b)" in body  # the model's http(s) links stay links
    assert "<https://example.org/c>" not in body and "&lt;https://example.org/c>" in body
    assert "3 < 4" in body  # a < that opens nothing is left alone
    assert "[r&#93;: javascript:" in body
    assert "The sky is blue [\\[1\\]](#ref-1)." in body
    assert '1. <a id="ref-1"></a>[Sky](https://example.org/sky)' in md


def test_definitions_of_numbers_cannot_hijack_plain_markers() -> None:
    text = "Claim [1].\n\n[1]: https://evil.example/\n[site]: https://example.org/\n[x]: data:text/html"
    assert escape_model_markdown(text) == (
        "Claim [1].\n\n[1&#93;: https://evil.example/\n[site]: https://example.org/\n[x&#93;: data:text/html"
    )


def test_unsafe_mode_copies_the_model_text() -> None:
    sources = number_sources(["The sky is blue."])
    answer = parse_answer("The sky is blue <b>really</b> [1].", sources)
    assert "<b>really</b>" in answer.to_markdown(safe=False)
    assert "&lt;b>really&lt;/b>" in answer.to_markdown()


def test_notes_are_shown_in_markdown() -> None:
    sources = number_sources(["The grass is green.", "The sky is blue."])
    answer = parse_answer(
        "The grass is green [1] and whales sing [2] [9].\n\nSources:\n[1] a\n[2] b", sources
    )
    md = answer.to_markdown(lang="es")
    notes = [line for line in md.splitlines() if line.startswith("> ")]
    assert len(notes) == 3 and "\\[9\\]" in notes[0] and "**Referencias**" in md
    assert md.index("> ") < md.index("**Referencias**")
    assert "\n\n\n" not in md


@needs_renderer
@pytest.mark.parametrize("name", sorted(RENDERERS))
def test_rendered_markdown_has_no_live_markup(name: str) -> None:
    html = RENDERERS[name](payload_answer(ALL).to_markdown())
    lowered = html.lower()
    assert "<script" not in lowered and "javascript:" not in lowered.replace("&quot;", '"').split("href=")[0]
    for attr in ("onerror=", "onload=", "onfocus=", "ontoggle=", "onclick=", "onmouseover="):
        assert f"<img src=x {attr}" not in lowered


@pytest.mark.browser
@needs_renderer
def test_corpus_through_every_renderer_runs_nothing_in_chromium(browser, artifacts) -> None:  # type: ignore[no-untyped-def]
    trap = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": TRAP})
    try:
        for style in ("links", "footnotes", "plain"):
            markdown = payload_answer(ALL).to_markdown(style=style)  # type: ignore[arg-type]
            for name, render in RENDERERS.items():
                result = audit(browser, artifacts / f"md-{name}-{style}.html", render(markdown))
                assert not executed(result), (name, style, result)
    finally:
        browser.execute_cdp_cmd(
            "Page.removeScriptToEvaluateOnNewDocument", {"identifier": trap["identifier"]}
        )
        browser.get("about:blank")


@pytest.mark.browser
@needs_renderer
def test_the_audit_sees_unsafe_markdown(browser, artifacts) -> None:  # type: ignore[no-untyped-def]
    """The check above can fail: the same corpus without the safe mode runs script in every renderer."""
    trap = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": TRAP})
    try:
        markdown = payload_answer(ALL).to_markdown(safe=False)
        for name, render in RENDERERS.items():
            assert executed(audit(browser, artifacts / f"md-unsafe-{name}.html", render(markdown))), name
    finally:
        browser.execute_cdp_cmd(
            "Page.removeScriptToEvaluateOnNewDocument", {"identifier": trap["identifier"]}
        )
        browser.get("about:blank")
