"""A strict checker of rendered HTML with the standard library's html.parser (no browser needed)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

from cite_core._render import SCRIPT, STYLE, safe_url

ALLOWED_TAGS = frozenset(
    """html head meta title style body main h1 h2 div p span sup a details summary ol ul li mark
    aside section button script""".split()
)
URL_ATTRS = frozenset("href src action formaction data xlink:href poster background srcdoc srcset".split())


@dataclass
class Report:
    tags: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    scripts: list[str] = field(default_factory=list)
    styles: list[str] = field(default_factory=list)
    hrefs: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.report = Report()
        self._raw: str | None = None
        self._raw_data: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        r = self.report
        r.tags.append(tag)
        if tag not in ALLOWED_TAGS:
            r.problems.append(f"unexpected element <{tag}>")
        for name, value in attrs:
            if name.startswith("on"):
                r.problems.append(f"event handler attribute {name} on <{tag}>")
            if name == "style":
                r.problems.append(f"style attribute on <{tag}>")
            if name in URL_ATTRS and name != "href":
                r.problems.append(f"URL attribute {name} on <{tag}>")
            if name == "href":
                value = value or ""
                r.hrefs.append(value)
                if not (value.startswith("#") or safe_url(value) == value):
                    r.problems.append(f"non-http(s) href {value!r}")
                low = "".join(value.split()).lower()
                if "javascript:" in low or low.startswith(("data:", "vbscript:")):
                    r.problems.append(f"script URL in href {value!r}")
            if tag == "meta" and name == "http-equiv" and (value or "").lower() != "content-security-policy":
                r.problems.append(f"meta http-equiv={value!r}")
        if tag in ("script", "style"):
            self._raw, self._raw_data = tag, []

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag in ("script", "style"):
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if self._raw == tag:
            body = "".join(self._raw_data)
            (self.report.scripts if tag == "script" else self.report.styles).append(body)
            self._raw = None

    def handle_data(self, data: str) -> None:
        if self._raw:
            self._raw_data.append(data)
        else:
            self.report.text.append(data)

    def handle_comment(self, data: str) -> None:
        self.report.problems.append(f"comment <!--{data[:30]}-->")

    def handle_decl(self, decl: str) -> None:
        if decl.lower() != "doctype html":
            self.report.problems.append(f"declaration <!{decl}>")

    def unknown_decl(self, data: str) -> None:
        self.report.problems.append(f"declaration <![{data[:30]}")

    def handle_pi(self, data: str) -> None:
        self.report.problems.append(f"processing instruction <?{data[:30]}")


def check_html(markup: str, *, extra_styles: tuple[str, ...] = ()) -> Report:
    """Parse ``markup``; ``report.problems`` lists everything unsafe that was found."""
    checker = _Checker()
    checker.feed(markup)
    checker.close()
    report = checker.report
    for body in report.scripts:
        if body != SCRIPT:
            report.problems.append(f"foreign script {body[:60]!r}")
    for body in report.styles:
        if body != STYLE and body not in extra_styles:
            report.problems.append(f"foreign style {body[:60]!r}")
    return report
