"""Safe Markdown (the default): the XSS corpus through common Markdown renderers into chromium."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from cite_core import number_sources, parse_answer, render_markdown
from cite_core._render.markdown import escape_model_markdown

from .markdown_renderers import TRAP, audit, executed, non_http_links, renderers
from .xss_corpus import (
    ATTRIBUTE_PAYLOADS,
    MARKDOWN_PAYLOADS,
    MARKDOWN_PAYLOADS_2,
    PAYLOADS,
    payload_answer,
    title_only_answer,
)

ALL = PAYLOADS + MARKDOWN_PAYLOADS + MARKDOWN_PAYLOADS_2 + ATTRIBUTE_PAYLOADS
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
    assert "&#91;a&#93;(javascript:alert(1))" in body
    assert "[b](https://example.org/b)" in body  # the model's http(s) links stay links
    assert "<https://example.org/c>" not in body and "&lt;https://example.org/c>" in body
    assert "3 < 4" in body  # a < that opens nothing is left alone
    assert "&#91;r&#93;: javascript:" in body
    assert "The sky is blue [\\[1\\]](#ref-1)." in body
    assert '1. <a id="ref-1"></a>[Sky](https://example.org/sky#:~:text=The%20sky%20is%20blue.)' in md


def test_model_text_can_open_no_bracket_construct() -> None:
    """Every bracket of the model's text is escaped, wherever it stands (definitions in a quote or a
    list item, with a ``^`` label, an escaped ``]`` or a label over two lines): no construct to miss."""
    text = (
        "Claim [1].\n\n[1]: https://evil.example/\n> [r]: javascript:x\n- [r]: javascript:x\n"
        "[^r]: javascript:x\n[r\\]]: javascript:x\n[r\nx]: javascript:x\n![i](data:x)"
    )
    escaped = escape_model_markdown(text)
    assert "[" not in escaped and "]" not in escaped
    assert escaped.count("&#91;") == text.count("[") and escaped.count("&#93;") == text.count("]")
    # only a link to an absolute http(s) URL is kept, rebuilt from its parts
    assert escape_model_markdown(
        "see [docs](https://example.org/a b) or [docs](https://example.org/a_(b))"
    ) == ("see &#91;docs&#93;(https://example.org/a b) or &#91;docs&#93;(https://example.org/a_(b))")
    assert (
        escape_model_markdown("[*docs*](https://example.org/a?b=1&c=2)")
        == "[*docs*](https://example.org/a?b=1&c=2)"
    )
    assert escape_model_markdown("![x](https://example.org/i.png) \\[x](https://example.org/)") == (
        "!&#91;x&#93;(https://example.org/i.png) \\&#91;x&#93;(https://example.org/)"
    )


@pytest.mark.parametrize("style", ["links", "footnotes", "plain"])
def test_a_target_after_our_marker_is_not_a_link(style: str) -> None:
    """``[1](javascript:alert(1))``: the parser takes ``[1]`` but not the target (nested parentheses);
    what follows our marker cannot continue it as a link, image or definition."""
    sources = number_sources(["The sky is blue."])
    for text in (
        "Sky [1](javascript:alert(1)).",
        "Sky [1]\n[1]:javascript:alert(1) is true.",
        "Sky ![1](javascript:x)",
    ):
        md = parse_answer(text, sources).to_markdown(style=style)  # type: ignore[arg-type]
        body = md.split("\n\n")[0]
        assert "](javascript" not in body and "]:javascript" not in body and "![" not in body, body
        assert "&#40;javascript" in body or "&#58;javascript" in body or "&#33;" in body


def test_metadata_opens_no_construct() -> None:
    """Titles and authors: no link, HTML or autolink (cmark-gfm's autolink ate the backslash of ``\\<``)."""
    from cite_core._render.markdown import escape_metadata_markdown

    title = "https://a.b/<img src=x onerror=alert(1)> [x](javascript:y) www.evil.example `c` *e*"
    escaped = escape_metadata_markdown(title)
    for opener in ("<", "[", "]", "(", ")", "`", "*", "https:/", "www."):
        assert opener not in escaped, opener
    assert escaped.startswith("https&#58;//a.b/&#60;img src=x onerror=alert&#40;1&#41;&#62;")


LABEL = "[x](javascript:alert(1)) <img src=x onerror=alert(1)> `c`"
"""A printed page label is the document's text: a PDF sets its own."""


@pytest.mark.parametrize("page", [3, None], ids=["physical page", "label only"])
def test_a_page_label_opens_no_construct(page: int | None) -> None:
    item = {"text": "Kessby's harbour was dredged in 1931.", "page_label": LABEL, "document_id": "b.pdf"}
    sources = number_sources([{**item, "page": page} if page else item])
    answer = parse_answer("The harbour was dredged in 1931 [1].", sources)
    for style in ("links", "footnotes"):
        line = answer.to_markdown(style=style).splitlines()[-1]
        assert "p. " in line, line  # the label is shown...
        for opener in ("<", "[x", "](", "`"):  # ...and opens nothing
            assert opener not in line.split("p. ", 1)[1], (style, line)
        for name, render in RENDERERS.items():
            html = render(answer.to_markdown(style=style))
            assert "<img" not in html and "javascript:" not in html.split("p. ", 1)[0], name
            assert all(href.startswith("#") for href in re.findall(r'(?:href|src)="([^"]*)"', html)), name


def test_footnote_entries_are_never_link_definitions() -> None:
    """Style ``footnotes``, no author, no url, no quote: read without the footnotes extension,
    ``[^1]: //evil.example`` would make every ``[^1]`` a link to evil.example."""
    for title in ("//evil.example", "javascript:alert(1)", 'x "y"', "x 'y'", "x (y)"):
        sources = number_sources([{"text": "The sky is blue.", "title": title}])
        md = parse_answer("Sky [1].", sources).to_markdown(style="footnotes")
        line = md.splitlines()[-1]
        assert line.startswith("[^1]: ") and line.endswith(" &#160;"), line


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
    # "\[9\]", not "&#91;9&#93;": notes are read as raw Markdown too (cite ask --markdown in a terminal)
    assert len(notes) == 3 and notes[0].endswith(": \\[9\\]") and "**Referencias**" in md
    assert "&#" not in "".join(notes)
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
            for kind, answer in (("all", payload_answer(ALL)), ("titles", title_only_answer(ALL))):
                markdown = answer.to_markdown(style=style)  # type: ignore[arg-type]
                for name, render in RENDERERS.items():
                    result = audit(browser, artifacts / f"md-{name}-{style}-{kind}.html", render(markdown))
                    assert not executed(result), (name, style, kind, result)
                    assert not non_http_links(result), (name, style, kind, result["links"])
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


class _Targets(HTMLParser):
    """Every ``href`` and ``src`` of real elements (not of text that looks like markup)."""

    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.targets += [v or "" for k, v in attrs if k in ("href", "src")]


@pytest.mark.parametrize("name", sorted(renderers()))
def test_with_file_links_every_link_is_http_a_local_file_or_ours(name: str) -> None:
    """The corpus in every field (a path in ``source``), file links on: each renderer's links go to an
    http(s) URL, a ``file:///`` URL with no host, or a ``#`` of the page; no script element."""
    parser = _Targets()
    parser.feed(renderers()[name](render_markdown(payload_answer(), file_links=True)))
    files = [t for t in parser.targets if t.startswith("file:")]
    # markdown-it's validateLink refuses every file: link in every set-up (it shows the Markdown as text,
    # plugins do not change it); the others follow it
    assert bool(files) is (not name.startswith("markdown-it"))
    assert all(t.startswith("file:///") and not t.startswith("file:////") for t in files)
    others = [t for t in parser.targets if not t.startswith(("file:///", "#"))]
    assert all(re.match(r"https?://[^/\s]", t) for t in others), others
    assert "script" not in parser.tags and "img" not in parser.tags


def test_attribute_lists_and_protocol_relative_targets_are_escaped() -> None:
    """``{`` and ``}`` open attribute lists (python-markdown's attr_list, markdown-it's attrs), ``//host``
    is a protocol-relative link under markdown-it's linkify: written as character references."""
    escaped = escape_model_markdown("*x*{: onclick=alert(1) } see //evil.example/x, https://ok.example/a")
    assert "{" not in escaped and "}" not in escaped and "&#123;: onclick=alert(1) &#125;" in escaped
    assert "&#47;/evil.example/x" in escaped and "https://ok.example/a" in escaped
    assert escape_model_markdown("a // comment") == "a // comment"  # no host after it: kept


def test_protocol_relative_targets_in_quotes_paths_and_notes_are_escaped() -> None:
    """Quoted passages, paths and notes are escaped readably (``\\[8\\]``), but a ``//host`` in them is a
    character reference as in metadata: markdown-it's linkify linked the quote's ``//evil.example/x``."""
    source = {"text": "Stated at //evil.example/x here.", "title": "T", "path": "//evil.example/share/a.md"}
    answer = parse_answer("Stated [1]. Gone [8].", number_sources([source]))
    md = render_markdown(answer, file_links=True)
    assert "“Stated at &#47;/evil.example/x here.”" in md
    assert ", &#47;/evil.example/share/a.md" in md
    assert "\\[8\\]" in md and "//evil" not in md
