"""The XSS corpus against the HTML and Markdown renderers, without a browser."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cite_core import number_sources, parse_answer, safe_url
from cite_core._render import PAGE_STYLE, SCRIPT, STYLE, content_security_policy, render_html
from cite_core._render.reveal import reveal_invisible

from .htmlcheck import check_html
from .xss_corpus import PAYLOADS, payload_answer


def test_corpus_is_large_enough() -> None:
    assert len(PAYLOADS) >= 50
    assert len(set(PAYLOADS)) == len(PAYLOADS)


@pytest.fixture(scope="module")
def answer():  # type: ignore[no-untyped-def]
    return payload_answer()


@pytest.mark.parametrize("full_page", [False, True])
@pytest.mark.parametrize("script", [True, False])
def test_corpus_renders_no_markup_of_its_own(answer, full_page: bool, script: bool) -> None:  # type: ignore[no-untyped-def]
    markup = render_html(answer, full_page=full_page, script=script, title=PAYLOADS[0])
    report = check_html(markup, extra_styles=(PAGE_STYLE,))
    assert report.problems == []
    assert report.scripts == ([SCRIPT] if script else [])
    assert report.styles.count(STYLE) == 1
    # every href is one of ours (#...) or a vetted http(s) URL from source metadata
    assert all(h.startswith(("#", "http://", "https://")) for h in report.hrefs)


def test_payloads_are_shown_as_text(answer) -> None:  # type: ignore[no-untyped-def]
    report = check_html(render_html(answer))
    shown = " ".join("".join(report.text).split())
    for payload in PAYLOADS:  # as text, invisible characters shown (\x01 as ‹U+0001›)
        assert " ".join(reveal_invisible(payload).split()) in shown, payload


def test_only_http_urls_become_links(answer) -> None:  # type: ignore[no-untyped-def]
    report = check_html(render_html(answer))
    external = [h for h in report.hrefs if not h.startswith("#")]
    expected = {safe_url(p) for p in PAYLOADS} - {None}
    # each link is a vetted URL with the cited sentence as a text fragment (after the URL's own fragment)
    assert {h.partition(":~:")[0].removesuffix("#") for h in external} == expected
    assert expected  # the corpus has tricky http(s) URLs that must stay links, escaped
    for href in external:
        assert href.startswith(("http://", "https://")) and ":~:text=" in href


def test_model_text_never_makes_a_link() -> None:
    sources = number_sources([{"text": "The sky is blue.", "title": "Sky"}])
    answer = parse_answer(
        "The sky is blue [1](https://evil.example/). See [here](https://evil.example/).", sources
    )
    markup = render_html(answer)
    assert "evil.example" not in "".join(check_html(markup).hrefs)
    assert check_html(markup).problems == []


def test_full_page_csp_allows_only_our_inline_code(answer) -> None:  # type: ignore[no-untyped-def]
    markup = render_html(answer, full_page=True)
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', markup)
    assert csp is not None
    policy = csp.group(1).replace("&#x27;", "'")
    assert "default-src 'none'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert content_security_policy().split("; ")[2] in policy  # the script hash
    assert markup.count("<script>") == 1


def test_id_prefix_is_validated() -> None:
    answer = parse_answer("Sky [1].", number_sources(["Sky is blue."]))
    assert 'id="mine"' in render_html(answer, id_prefix="mine")
    with pytest.raises(ValueError):
        render_html(answer, id_prefix='x" onclick="alert(1)')


@pytest.mark.parametrize("payload", PAYLOADS)
def test_markdown_escapes_metadata(payload: str) -> None:
    sources = number_sources(
        [{"text": f"Claim text {payload} here.", "title": payload, "url": payload, "author": payload}]
    )
    answer = parse_answer("Claim text here [1].", sources)
    for style in ("links", "footnotes", "plain"):
        md = answer.to_markdown(style=style)  # type: ignore[arg-type]
        refs = md.split("\n\n", 1)[1]
        # no raw HTML from metadata: every < is escaped (ours is only the ref anchor)
        assert "<" not in refs.replace('<a id="ref-1"></a>', "").replace("\\<", "")
        links = re.findall(r"\]\(([^)]*)\)", refs)
        for link in links:
            assert link.startswith(("http://", "https://", "#")), link


def test_markdown_styles() -> None:
    sources = number_sources(
        [
            {
                "text": "The grass is green.",
                "title": "Grass [draft]",
                "url": "https://example.org/g",
                "author": "A_B",
            },
            {"text": "The sky is blue.", "title": "Sky", "url": "javascript:alert(1)"},
        ]
    )
    answer = parse_answer("Grass is green [1]. The sky is blue [2]. Code `x[1]` stays.", sources)
    links = answer.to_markdown()
    assert "Grass is green [\\[1\\]](#ref-1)." in links
    assert "`x&#91;1&#93;`" in links  # brackets in code too: renderers disagree about what is code
    assert (
        '1. <a id="ref-1"></a>[Grass &#91;draft&#93;]'
        "(https://example.org/g#:~:text=The%20grass%20is%20green.), A&#95;B — “The grass is green.”"
    ) in links
    assert "javascript" not in links
    foot = answer.to_markdown(style="footnotes")
    assert "Grass is green [^1]." in foot and "[^2]: Sky — “The sky is blue.” &#160;" in foot
    assert "`x&#91;1&#93;`" in foot
    plain = answer.to_markdown(style="plain", heading="Sources")
    assert "**Sources**" in plain and "1. [Grass &#91;draft&#93;](https://example.org/g#:~:text=" in plain


@settings(max_examples=150, deadline=None)
@given(
    title=st.text(max_size=40),
    url=st.text(max_size=40) | st.sampled_from(PAYLOADS) | st.just('https://ok.example/a?b=<c>&d="e"'),
    body=st.text(min_size=1, max_size=60),
    answer_text=st.text(max_size=60),
)
def test_arbitrary_strings_stay_text(title: str, url: str, body: str, answer_text: str) -> None:
    if not body.strip():
        body = "x" + body
    sources = number_sources(
        [
            {
                "text": body,
                "title": title.strip() or None,
                "url": url.strip() or None,
                "author": title.strip() or None,
            }
        ]
    )
    answer = parse_answer(answer_text + " [1]", sources)
    for full_page in (False, True):
        markup = render_html(answer, full_page=full_page, title=title or "t")
        assert check_html(markup, extra_styles=(PAGE_STYLE,)).problems == []
