"""Rendered answers in headless Debian chromium: tooltips, highlights, keyboard, and the XSS corpus."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from cite_core import CitedAnswer
from cite_core._render import SCRIPT, render_html

from .samples import chinese_answer, english_answer
from .xss_corpus import PAYLOADS, payload_answer

pytestmark = pytest.mark.browser

# Turns alert/confirm/prompt into a global before any page script runs (CSP does not apply to it).
TRAP = """
window.__xss = undefined;
for (const name of ["alert", "confirm", "prompt", "print"]) {
  window[name] = function () { window.__xss = (window.__xss || 0) + 1; };
}
"""


def _wait(check, timeout: float = 5.0):  # type: ignore[no-untyped-def]
    """Poll ``check`` until it returns a truthy value (the tests assert on the value, not on time)."""
    deadline = time.monotonic() + timeout
    value = check()
    while not value and time.monotonic() < deadline:
        time.sleep(0.05)
        value = check()
    return value


def _load(browser, path: Path, markup: str) -> None:  # type: ignore[no-untyped-def]
    path.write_text(markup, encoding="utf-8")
    browser.get(path.resolve().as_uri())
    _wait(lambda: browser.execute_script("return document.readyState") == "complete")


def _hover(browser, element) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(browser, duration=0).move_to_element(element).perform()


def _park_mouse(browser) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.actions.action_builder import ActionBuilder

    actions = ActionBuilder(browser, duration=0)
    actions.pointer_action.move_to_location(2, 2)
    actions.perform()


@pytest.fixture(params=["en", "zh"])
def cited(request) -> tuple[str, CitedAnswer, str]:  # type: ignore[no-untyped-def]
    if request.param == "en":
        return "en", english_answer(), "Why are leaves green and the sky blue?"
    return "zh", chinese_answer(), "为什么叶子是绿色的，天空是蓝色的？"


def test_tooltip_highlight_and_keyboard(browser, artifacts: Path, cited) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.keys import Keys

    name, answer, title = cited
    _load(browser, artifacts / f"answer-{name}.html", render_html(answer, full_page=True, title=title))
    assert browser.execute_script("return document.querySelector('.cite-answer').dataset.citeReady") == "1"
    _park_mouse(browser)
    browser.save_screenshot(str(artifacts / f"answer-{name}.png"))

    markers = browser.find_elements("css selector", ".cite-marker")
    assert [m.text for m in markers] == [f"[{c}]" for c in _marker_numbers(answer)]
    tooltips = browser.find_elements("css selector", ".cite-tip")
    assert not any(t.is_displayed() for t in tooltips)

    # hover: the tooltip shows the source title and the exact cited text
    marker, citation = markers[1], _marker_citations(answer)[1]
    _hover(browser, marker)
    tip = browser.find_element("id", marker.get_attribute("aria-describedby"))
    assert _wait(tip.is_displayed)
    assert tip.get_attribute("role") == "tooltip"
    assert " ".join(citation.cited_text.split()) in tip.text.replace("\n", " ")
    assert citation.document_title in tip.text
    rect = browser.execute_script("return arguments[0].getBoundingClientRect().toJSON()", tip)
    width = browser.execute_script("return document.documentElement.clientWidth")
    assert rect["left"] >= 0 and rect["right"] <= width and rect["top"] >= 0
    browser.save_screenshot(str(artifacts / f"answer-{name}-hover.png"))

    # click: the side panel opens on the source with the cited span highlighted
    marker.click()
    panel = browser.find_element("css selector", ".cite-panel")
    assert _wait(panel.is_displayed)
    active = browser.find_elements("css selector", ".cite-panel mark.cite-active")
    assert active and all(m.is_displayed() for m in active)
    assert citation.cited_text in "".join(m.get_attribute("textContent") for m in active)
    highlight = browser.execute_script("return getComputedStyle(arguments[0]).backgroundColor", active[0])
    plain = browser.execute_script(
        "return getComputedStyle(document.querySelector("
        "'.cite-panel .cite-source:not([hidden]) mark:not(.cite-active)') || document.body).backgroundColor"
    )
    assert highlight != plain
    source_text = browser.execute_script(
        "return document.querySelector("
        "'.cite-panel .cite-source:not([hidden]) .cite-source-body').textContent"
    )
    assert citation.cited_text in source_text
    _wait(
        lambda: browser.execute_script(
            "var r=document.querySelector('.cite-panel mark.cite-active').getBoundingClientRect();"
            "return r.top >= 0 && r.bottom <= window.innerHeight"
        )
    )
    browser.save_screenshot(str(artifacts / f"answer-{name}-panel.png"))

    # Escape closes the panel and gives focus back to the marker
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert _wait(lambda: not panel.is_displayed())
    assert browser.switch_to.active_element == marker

    # keyboard only: Tab reaches the first marker, its tooltip shows on focus, Enter opens the panel
    from selenium.webdriver.common.action_chains import ActionChains

    browser.execute_script("document.activeElement.blur(); window.scrollTo(0, 0)")
    _park_mouse(browser)
    browser.find_element("css selector", ".cite-page-title").click()  # focus navigation starts here
    _park_mouse(browser)
    ActionChains(browser).send_keys(Keys.TAB).perform()
    focused = browser.switch_to.active_element
    assert focused == markers[0]
    first_tip = browser.find_element("id", focused.get_attribute("aria-describedby"))
    assert _wait(first_tip.is_displayed)
    browser.save_screenshot(str(artifacts / f"answer-{name}-focus.png"))
    focused.send_keys(Keys.ESCAPE)
    assert _wait(lambda: not first_tip.is_displayed())
    focused.send_keys(Keys.ENTER)
    assert _wait(panel.is_displayed)
    close = browser.find_element("css selector", ".cite-close")
    close.click()
    assert _wait(lambda: not panel.is_displayed())

    # the reference list is collapsible and lists the cited sources only
    details = browser.find_element("css selector", "details.cite-refs")
    items = browser.find_elements("css selector", ".cite-ref")
    assert len(items) == len(answer.references)
    assert details.get_attribute("open") is not None
    browser.find_element("css selector", "details.cite-refs > summary").click()
    assert _wait(lambda: details.get_attribute("open") is None)
    assert not items[0].is_displayed()
    assert browser.get_log("browser") == []


def test_without_script_markers_jump_to_the_highlighted_passage(browser, artifacts: Path, cited) -> None:  # type: ignore[no-untyped-def]
    name, answer, _ = cited
    fragment = render_html(answer, script=False)
    page = f"<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>{fragment}</body></html>"
    _load(browser, artifacts / f"answer-{name}-noscript.html", page)
    assert browser.find_elements("css selector", "script") == []
    _park_mouse(browser)
    marker = browser.find_elements("css selector", ".cite-marker")[-1]
    citation = _marker_citations(answer)[-1]
    _hover(browser, marker)
    tip = browser.find_element("id", marker.get_attribute("aria-describedby"))
    assert _wait(tip.is_displayed)  # CSS only
    marker.click()
    target = browser.execute_script("return document.querySelector(':target')")
    assert target is not None and "cite-passage" in target.get_attribute("class")
    mark = target.find_element("css selector", "mark")
    assert mark.get_attribute("textContent") == citation.cited_text
    assert target.is_displayed()
    _park_mouse(browser)
    browser.save_screenshot(str(artifacts / f"answer-{name}-noscript-target.png"))


def test_xss_corpus_runs_no_script(browser, artifacts: Path) -> None:  # type: ignore[no-untyped-def]
    answer = payload_answer()
    assert len(PAYLOADS) >= 50
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": TRAP})
    try:
        fragment_page = (
            "<!DOCTYPE html><html><head><meta charset='utf-8'><title>fragment, no CSP</title></head>"
            f"<body>{render_html(answer)}</body></html>"
        )
        cases = {
            "xss-fragment-no-csp.html": fragment_page,
            "xss-full-page.html": render_html(answer, full_page=True, title=PAYLOADS[0]),
            "xss-no-script.html": fragment_page.replace(
                render_html(answer), render_html(answer, script=False)
            ),
        }
        for filename, markup in cases.items():
            _load(browser, artifacts / filename, markup)
            _exercise(browser, limit=None if filename == "xss-fragment-no-csp.html" else 8)
            result = browser.execute_script(_DOM_AUDIT, SCRIPT)
            assert result["xss"] is None, filename
            assert result["handlers"] == [], filename
            assert result["badHrefs"] == [], filename
            assert result["foreign"] == [], filename
            assert result["scripts"] == ("xss-no-script" not in filename), filename
            assert result["markers"] >= len(PAYLOADS), filename
            if filename == "xss-full-page.html":
                assert result["title"] == " ".join(PAYLOADS[0].split())
            browser.save_screenshot(str(artifacts / filename.replace(".html", ".png")))
    finally:
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": "1"})
        browser.get("about:blank")


def _exercise(browser, limit: int | None) -> None:  # type: ignore[no-untyped-def]
    """Hover, focus and click every marker, open and close the panel, toggle the reference list."""
    from selenium.webdriver.common.keys import Keys

    for marker in browser.find_elements("css selector", ".cite-marker")[:limit]:
        browser.execute_script("arguments[0].scrollIntoView({block:'center'})", marker)
        _park_mouse(browser)
        _hover(browser, marker)
        marker.click()
        browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    for passage in browser.find_elements("css selector", ".cite-passage")[:5]:
        browser.execute_script("arguments[0].scrollIntoView({block:'center'})", passage)
        _park_mouse(browser)
        _hover(browser, passage)
    summary = browser.find_element("css selector", "details.cite-refs > summary")
    browser.execute_script("arguments[0].scrollIntoView({block:'center'})", summary)
    _park_mouse(browser)
    summary.click()
    summary.click()


_DOM_AUDIT = """
const ours = arguments[0];
const handlers = [], badHrefs = [], foreign = [];
const allowed = new Set(("HTML HEAD META TITLE STYLE BODY MAIN H1 H2 DIV P SPAN SUP A DETAILS SUMMARY " +
  "OL UL LI MARK ASIDE SECTION BUTTON SCRIPT").split(" "));
for (const el of document.querySelectorAll("*")) {
  if (!allowed.has(el.tagName)) foreign.push(el.tagName);
  for (const attr of el.attributes) {
    if (attr.name.toLowerCase().startsWith("on")) handlers.push(el.tagName + "." + attr.name);
  }
  if (el.hasAttribute("href")) {
    const raw = el.getAttribute("href");
    const ok = raw.startsWith("#") || /^https?:\\/\\//i.test(raw);
    if (!ok || !["http:", "https:", "file:"].includes(el.protocol)) badHrefs.push(raw);
  }
  for (const name of ["src", "action", "formaction", "data", "srcdoc", "xlink:href"]) {
    if (el.hasAttribute(name)) badHrefs.push(name + "=" + el.getAttribute(name));
  }
}
const scripts = [...document.scripts];
return {
  xss: window.__xss === undefined ? null : window.__xss,
  handlers, badHrefs, foreign,
  scripts: scripts.length === 1 && scripts[0].textContent === ours &&
    document.querySelector(".cite-answer").dataset.citeReady === "1",
  markers: document.querySelectorAll(".cite-marker").length,
  title: document.title,
};
"""


def _marker_citations(answer: CitedAnswer) -> list:  # type: ignore[type-arg]
    """The first citation behind each marker, in page order (one marker per reference per claim)."""
    out = []
    for block in answer.content:
        firsts: dict[int, object] = {}
        for c in block.citations or []:
            firsts.setdefault(c.reference, c)
        out.extend(firsts.values())
    return out


def _marker_numbers(answer: CitedAnswer) -> list[int]:
    return [c.reference for c in _marker_citations(answer)]
