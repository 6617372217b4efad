"""Payloads x Markdown renderers that run script: ``to_markdown()`` through each renderer into chromium.

Each payload of the XSS corpus (tests/render/xss_corpus.py: PAYLOADS, MARKDOWN_PAYLOADS,
MARKDOWN_PAYLOADS_2 and ATTRIBUTE_PAYLOADS) goes into the answer text and every metadata field of a
one-source answer, and into the title of a source that has nothing else (no url, author or quote: the
``footnotes`` style's hardest case); ``answer.to_markdown(style=...)`` of each is rendered by
markdown-it-py (CommonMark preset), python-markdown (defaults, with its footnotes extension, and with
extra, attr_list, toc and md_in_html), markdown-it with linkify, attrs and the mdit-py-plugins that add
syntax, and cmark-gfm (GFM: autolinks, footnotes, unsafe option: raw HTML kept; and with smart
punctuation), loaded in headless chromium with alert/confirm/prompt trapped, and every link that does
not go to http(s) is clicked. A payload "executed" when script ran or a live handler or a
javascript:/data:/vbscript: URL is left in the page; "non-http" counts pages with any link or image
whose target is neither an absolute http(s) URL nor a ``#fragment``.

    python -m bench.markdown_xss                       # this tree, every style
    PYTHONPATH=/path/to/older/tree python bench/markdown_xss.py   # an older cite_core, same corpus

Needs /usr/bin/chromium, chromedriver, selenium, markdown-it-py, mdit-py-plugins, linkify-it-py,
markdown and cmarkgfm.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "tests" / "render"
sys.path.insert(0, str(HERE))

from markdown_renderers import TRAP, audit, executed, non_http_links, renderers  # noqa: E402
from xss_corpus import (  # noqa: E402
    ATTRIBUTE_PAYLOADS,
    MARKDOWN_PAYLOADS,
    MARKDOWN_PAYLOADS_2,
    PAYLOADS,
    payload_answer,
    title_only_answer,
)


def _browser(profile: str):  # type: ignore[no-untyped-def]
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--style", action="append", choices=["links", "footnotes", "plain"])
    args = parser.parse_args()
    import cite_core

    styles = args.style or ["links", "footnotes", "plain"]
    found = renderers()
    payloads = PAYLOADS + MARKDOWN_PAYLOADS + MARKDOWN_PAYLOADS_2 + ATTRIBUTE_PAYLOADS
    profile = tempfile.mkdtemp(prefix="md-xss-profile-")
    browser = _browser(profile)
    tmp = Path(tempfile.mkdtemp(prefix="md-xss-"))
    ran = {(s, n): 0 for s in styles for n in found}
    links = dict.fromkeys(ran, 0)
    examples: list[str] = []
    try:
        browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": TRAP})
        for i, payload in enumerate(payloads):
            for style in styles:
                markdown = "\n\n".join(
                    answer.to_markdown(style=style)  # type: ignore[arg-type]
                    for answer in (payload_answer([payload]), title_only_answer([payload]))
                )
                for name, render in found.items():
                    result = audit(browser, tmp / f"{i}-{name}.html", render(markdown))
                    if executed(result):
                        ran[style, name] += 1
                        examples.append(f"{style} {name}: {payload!r}")
                    if non_http_links(result):
                        links[style, name] += 1
    finally:
        browser.quit()
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(profile, ignore_errors=True)
    print(f"cite_core from {Path(cite_core.__file__).parent}; {len(payloads)} payloads")
    print("| style | renderer | payloads that executed | payloads with a non-http(s) link |")
    print("|---|---|---|---|")
    for (style, name), count in ran.items():
        print(f"| {style} | {name} | {count} / {len(payloads)} | {links[style, name]} / {len(payloads)} |")
    total = len(payloads) * len(ran)
    print(f"| all | all | {sum(ran.values())} / {total} | {sum(links.values())} / {total} |")
    for line in examples[:12]:
        print("  e.g.", line)


if __name__ == "__main__":
    main()
