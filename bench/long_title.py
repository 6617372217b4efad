"""Time to load, hover and click an answer whose source has a 100 KB title without spaces (issue 16 item 7).

    python -m bench.long_title                          # this tree
    PYTHONPATH=/path/to/older/tree python bench/long_title.py   # an older cite_core

Renders ``answer.to_html(full_page=True)`` for one source with a 100,000-character title (and a URL and
author as long), loads it in headless chromium, then hovers the marker (tooltip shown) and clicks it
(panel open) ``--runs`` times (3); prints the median of each in ms, or ``> LIMIT`` when chromium did not
answer within the WebDriver client's 120 s. Needs /usr/bin/chromium and chromedriver.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from markdown_xss import _browser

SIZE = 100_000
TIP = "return document.querySelector('.cite-tip').getBoundingClientRect().width"
PANEL = "return document.querySelector('.cite-panel').getBoundingClientRect().width"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    import cite_core

    sources = cite_core.number_sources(
        [
            {
                "text": "The sky is blue. It scatters light.",
                "title": "T" * SIZE,
                "url": "https://example.org/" + "p" * SIZE,
                "author": "A" * SIZE,
            }
        ]
    )
    markup = cite_core.parse_answer("The sky is blue [1].", sources).to_html(full_page=True)
    path = Path(tempfile.mkdtemp(prefix="long-title-")) / "page.html"
    path.write_text(markup, encoding="utf-8")
    browser = _browser()
    browser.set_script_timeout(600)
    browser.set_page_load_timeout(600)

    def marker():  # type: ignore[no-untyped-def]
        return browser.find_element("css selector", ".cite-marker")

    loads: list[float] = []
    hovers: list[float] = []
    clicks: list[float] = []
    try:
        for _ in range(runs):
            steps = (
                (loads, lambda: browser.get(path.as_uri()), "return document.body.offsetHeight"),
                (hovers, lambda: ActionChains(browser, duration=0).move_to_element(marker()).perform(), TIP),
                (clicks, lambda: marker().click(), PANEL),
            )
            for times, action, check in steps:
                start = time.perf_counter()
                try:
                    action()
                    browser.execute_script(check)  # forces layout
                except Exception:  # the WebDriver client gives up after 120 s
                    times.append(float("inf"))
                    raise
                times.append(time.perf_counter() - start)
            browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    except Exception as exc:
        print(f"gave up: {type(exc).__name__}")
    finally:
        browser.quit()

    def ms(xs: list[float]) -> str:
        if not xs:
            return "not reached"
        value = statistics.median(xs)
        return "> 120 s (no answer)" if value == float("inf") else f"{value * 1000:.0f} ms"

    print(f"cite_core from {Path(cite_core.__file__).parent}; page {len(markup) / 1e6:.2f} MB")
    print(f"load {ms(loads)}; hover {ms(hovers)}; click {ms(clicks)} (median of {len(clicks)})")


if __name__ == "__main__":
    main()
