"""Payloads x Markdown renderers that run script: ``to_markdown()`` through each renderer into chromium.

Each payload of the XSS corpus (tests/render/xss_corpus.py: PAYLOADS + MARKDOWN_PAYLOADS) goes into the
answer text and every metadata field of a one-source answer; ``answer.to_markdown(style=...)`` is
rendered by markdown-it-py (default preset), python-markdown (defaults) and cmark-gfm (GFM, unsafe
option: raw HTML kept), loaded in headless chromium with alert/confirm/prompt trapped, and every link
that does not go to http(s) is clicked. A payload "executed" when script ran or a live handler or a
javascript:/data:/vbscript: URL is left in the page.

    python -m bench.markdown_xss                       # this tree
    PYTHONPATH=/path/to/older/tree python bench/markdown_xss.py   # an older cite_core, same corpus

Needs /usr/bin/chromium, chromedriver, selenium, markdown-it-py, markdown and cmarkgfm.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "tests" / "render"
sys.path.insert(0, str(HERE))

from markdown_renderers import TRAP, audit, executed, renderers  # noqa: E402
from xss_corpus import MARKDOWN_PAYLOADS, PAYLOADS, payload_answer  # noqa: E402


def _browser():  # type: ignore[no-untyped-def]
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--style", default="links", choices=["links", "footnotes", "plain"])
    args = parser.parse_args()
    import cite_core

    found = renderers()
    payloads = PAYLOADS + MARKDOWN_PAYLOADS
    browser = _browser()
    tmp = Path(tempfile.mkdtemp(prefix="md-xss-"))
    counts = dict.fromkeys(found, 0)
    examples: dict[str, list[str]] = {name: [] for name in found}
    try:
        browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": TRAP})
        for i, payload in enumerate(payloads):
            markdown = payload_answer([payload]).to_markdown(style=args.style)
            for name, render in found.items():
                if executed(audit(browser, tmp / f"{i}-{name}.html", render(markdown))):
                    counts[name] += 1
                    examples[name].append(payload)
    finally:
        browser.quit()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"cite_core from {Path(cite_core.__file__).parent}; style={args.style}; {len(payloads)} payloads")
    print("| renderer | payloads that executed |")
    print("|---|---|")
    for name, count in counts.items():
        print(f"| {name} | {count} / {len(payloads)} |")
    print(f"| total | {sum(counts.values())} / {len(payloads) * len(found)} |")
    for name, hits in examples.items():
        for payload in hits[:3]:
            print(f"  e.g. {name}: {payload!r}")


if __name__ == "__main__":
    main()
