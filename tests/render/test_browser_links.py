"""Reference links in headless Debian chromium: the CLI's page opens a PDF at the cited page, and a web
source's text fragment scrolls to the cited sentence."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from cite_cli.__main__ import main
from cite_core import number_sources, parse_answer, reference_entries, render_html
from tests.cli.conftest import PDF_PAGES, SKY, minimal_pdf

from .test_browser import _load, _wait

pytestmark = pytest.mark.browser

SHORT = "The well-known result, cheap & fast, holds."
LONG = "Text fragments find a long sentence by its first words and its last words, as a start-end range."
MARKED = "- **Bold** claims read from a [Markdown copy](https://example.org/md) match too."
FILLER = "".join(f"<p>Filler paragraph {i} says nothing about the subject at all.</p>" for i in range(120))
ARTICLE = (
    '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Article</title></head><body>'
    f"{FILLER}<p id='short'>{SHORT.replace('&', '&amp;')}</p>{FILLER}<p id='long'>{LONG}</p>{FILLER}"
    "<ul id='marked'><li><b>Bold</b> claims read from a <a href='#x'>Markdown copy</a> match too.</li></ul>"
    f"{FILLER}"
    "</body></html>"
)


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A static server on 127.0.0.1 for the files of a temporary folder."""
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "article.html").write_text(ARTICLE, encoding="utf-8")

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", folder
    finally:
        httpd.shutdown()
        httpd.server_close()


def _opened_url(browser, link) -> str:  # type: ignore[no-untyped-def]
    """Click ``link`` (``target=_blank``), switch to the tab it opened and return its URL."""
    before = set(browser.window_handles)
    link.click()
    assert _wait(lambda: len(browser.window_handles) > len(before))
    [tab] = set(browser.window_handles) - before
    browser.switch_to.window(tab)
    _wait(lambda: browser.current_url not in ("", "about:blank"))
    return str(browser.current_url)


def _close_tab(browser, home: str) -> None:  # type: ignore[no-untyped-def]
    browser.close()
    browser.switch_to.window(home)


def test_the_cli_page_opens_the_pdf_at_the_cited_page(  # type: ignore[no-untyped-def]
    browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("CITE_MODEL", "CITE_BASE_URL", "CITE_API_KEY", "CITE_QDRANT_URL", "CITE_DENSE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "optics.pdf").write_bytes(minimal_pdf(PDF_PAGES))
    (tmp_path / "docs" / "sky.txt").write_text(SKY, encoding="utf-8")
    assert main(["ingest", "docs", "--quiet"]) == 0
    assert main(["ask", "When did Rayleigh describe the scattering of light?", "--html", "answer.html"]) == 0

    browser.get((tmp_path / "answer.html").as_uri())
    _wait(lambda: browser.execute_script("return document.readyState") == "complete")
    home = browser.current_window_handle
    titles = browser.find_elements("css selector", ".cite-ref-list a.cite-ref-title")
    [optics] = [t for t in titles if t.text == "optics"]
    opened = _opened_url(browser, optics)
    try:
        target, _, fragment = opened.partition("#")
        assert fragment == "page=2"  # the cited page
        assert target == (tmp_path / "docs" / "optics.pdf").as_uri()
        assert (tmp_path / "docs" / "optics.pdf").is_file()
    finally:
        _close_tab(browser, home)


def _in_view(browser, element_id: str) -> bool:  # type: ignore[no-untyped-def]
    return bool(
        browser.execute_script(
            "var r=document.getElementById(arguments[0]).getBoundingClientRect();"
            "return window.scrollY > 0 && r.top >= 0 && r.bottom <= window.innerHeight",
            element_id,
        )
    )


def test_a_text_fragment_link_scrolls_to_the_cited_sentence(  # type: ignore[no-untyped-def]
    browser, site: tuple[str, Path], artifacts: Path
) -> None:
    base, folder = site
    url = f"{base}/article.html"
    sources = number_sources(
        [
            {"text": f"Intro. {SHORT} More.", "title": "Short", "url": url},
            {"text": f"Intro. {LONG} More.", "title": "Long", "url": f"{url}#top"},
            {"text": MARKED, "title": "Marked", "url": url},  # a web loader's Markdown of the page
        ]
    )
    answer = parse_answer(
        f"{SHORT} [1] {LONG} [2] Bold claims read from a Markdown copy match too [3].", sources
    )
    links = [e["link"] for e in reference_entries(answer)]
    assert links[0].startswith(f"{url}#:~:text=") and "%2D" in links[0] and "%26" in links[0]
    assert links[1].startswith(f"{url}#top:~:text=") and "," in links[1].split("text=")[1]

    browser.get(url)
    _wait(lambda: browser.execute_script("return document.readyState") == "complete")
    if not browser.execute_script("return 'fragmentDirective' in document"):
        pytest.skip("this chromium does not support text fragments (document.fragmentDirective)")
    assert not _in_view(browser, "short") and not _in_view(browser, "long")  # without a fragment: the top

    # the answer page served beside the article: clicking a reference opens the article at the sentence
    (folder / "answer.html").write_text(render_html(answer, full_page=True, title="Links"), encoding="utf-8")
    browser.get(f"{base}/answer.html")
    _wait(lambda: browser.execute_script("return document.readyState") == "complete")
    home = browser.current_window_handle
    for title, target in (("Short", "short"), ("Long", "long"), ("Marked", "marked")):
        [link] = [
            a
            for a in browser.find_elements("css selector", ".cite-ref-list a.cite-ref-title")
            if a.text == title
        ]
        opened = _opened_url(browser, link)
        try:
            assert ":~:text=" in opened or opened.startswith(url)  # the directive is hidden from scripts
            assert _wait(lambda t=target: _in_view(browser, t)), title  # type: ignore[misc]
            browser.save_screenshot(str(artifacts / f"text-fragment-{target}.png"))
        finally:
            _close_tab(browser, home)


def test_the_render_helpers_write_pages_the_browser_loads(browser, artifacts: Path) -> None:  # type: ignore[no-untyped-def]
    """The new reference links keep the page valid and its script working (hover, click)."""
    sources = number_sources([{"text": SKY, "title": "Sky", "url": "https://example.org/sky"}])
    answer = parse_answer("The sky looks blue because of Rayleigh scattering [1].", sources)
    _load(browser, artifacts / "links.html", render_html(answer, full_page=True, title="Links"))
    assert browser.execute_script("return document.querySelector('.cite-answer').dataset.citeReady") == "1"
    hrefs = [
        a.get_attribute("href")
        for a in browser.find_elements("css selector", "a.cite-open, a.cite-ref-title")
    ]
    assert hrefs and all(h.startswith("https://example.org/sky#:~:text=The%20daytime%20sky") for h in hrefs)
