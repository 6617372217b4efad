"""Common Markdown renderers (the ones users put ``to_markdown()`` through) and a browser audit of the result.

``RENDERERS`` maps a name to a function Markdown -> HTML, with raw HTML enabled where the renderer has a
switch (that is how chat UIs and static sites commonly run them); a renderer whose package is missing is
left out. ``audit`` loads a page in the browser with alert/confirm/prompt trapped, clicks every link that
does not navigate to http(s), and reports whether anything ran and what live markup is left.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


def _markdown_it() -> Callable[[str], str]:
    from markdown_it import MarkdownIt

    md = MarkdownIt()  # the default "commonmark" preset: raw HTML on
    return md.render


def _python_markdown() -> Callable[[str], str]:
    import markdown

    return markdown.markdown  # python-markdown's defaults: raw HTML on, no footnotes


def _python_markdown_footnotes() -> Callable[[str], str]:
    import markdown

    def render(text: str) -> str:
        return markdown.markdown(text, extensions=["footnotes"])

    return render


def _gfm() -> Callable[[str], str]:
    import cmarkgfm
    from cmarkgfm.cmark import Options

    def render(text: str) -> str:  # GFM: autolink, tables, strikethrough, tagfilter; plus footnotes
        options = Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_FOOTNOTES
        return cmarkgfm.github_flavored_markdown_to_html(text, options=options)

    return render


def _python_markdown_extra() -> Callable[[str], str]:
    import markdown

    def render(text: str) -> str:  # the set-up of many static sites and chat UIs: attribute lists on
        return markdown.markdown(text, extensions=["extra", "attr_list", "toc", "md_in_html"])

    return render


def _markdown_it_plugins() -> Callable[[str], str]:
    """markdown-it with linkify, attributes and every plugin of mdit-py-plugins that adds syntax."""
    import linkify_it  # noqa: F401 - linkify needs it; missing, this set-up is left out
    from markdown_it import MarkdownIt
    from mdit_py_plugins.admon import admon_plugin
    from mdit_py_plugins.amsmath import amsmath_plugin
    from mdit_py_plugins.anchors import anchors_plugin
    from mdit_py_plugins.attrs import attrs_block_plugin, attrs_plugin
    from mdit_py_plugins.colon_fence import colon_fence_plugin
    from mdit_py_plugins.container import container_plugin
    from mdit_py_plugins.deflist import deflist_plugin
    from mdit_py_plugins.dollarmath import dollarmath_plugin
    from mdit_py_plugins.field_list import fieldlist_plugin
    from mdit_py_plugins.footnote import footnote_plugin
    from mdit_py_plugins.front_matter import front_matter_plugin
    from mdit_py_plugins.myst_blocks import myst_block_plugin
    from mdit_py_plugins.myst_role import myst_role_plugin
    from mdit_py_plugins.subscript import sub_plugin
    from mdit_py_plugins.superscript import superscript_plugin
    from mdit_py_plugins.tasklists import tasklists_plugin

    md = MarkdownIt("commonmark", {"linkify": True}).enable(["linkify", "table", "strikethrough"])
    for plugin in (
        attrs_plugin,
        attrs_block_plugin,
        admon_plugin,
        amsmath_plugin,
        anchors_plugin,
        colon_fence_plugin,
        deflist_plugin,
        dollarmath_plugin,
        fieldlist_plugin,
        footnote_plugin,
        front_matter_plugin,
        myst_block_plugin,
        myst_role_plugin,
        sub_plugin,
        superscript_plugin,
        tasklists_plugin,
    ):
        md.use(plugin)
    md.use(container_plugin, name="note")
    return md.render


def _gfm_extensions() -> Callable[[str], str]:
    import cmarkgfm
    from cmarkgfm.cmark import Options

    def render(text: str) -> str:  # every GFM extension cmark-gfm has, raw HTML kept
        options = Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_FOOTNOTES | Options.CMARK_OPT_SMART
        return cmarkgfm.github_flavored_markdown_to_html(text, options=options)

    return render


RENDERER_NAMES = (
    "markdown-it",
    "python-markdown",
    "python-markdown+footnotes",
    "gfm",
    "python-markdown+extra,attr_list,toc,md_in_html",
    "markdown-it+linkify,attrs,plugins",
    "gfm+smart",
)


def renderers() -> dict[str, Callable[[str], str]]:
    """The installed renderers by name (``markdown-it`` (CommonMark), ``python-markdown`` with and
    without its footnotes extension, ``gfm`` (cmark-gfm with autolinks and footnotes)), and the
    extensions people use: python-markdown's ``extra``, ``attr_list``, ``toc`` and ``md_in_html``;
    markdown-it with ``linkify``, ``attrs`` and the mdit-py-plugins that add syntax."""
    found = {}
    makers = (
        _markdown_it,
        _python_markdown,
        _python_markdown_footnotes,
        _gfm,
        _python_markdown_extra,
        _markdown_it_plugins,
        _gfm_extensions,
    )
    for name, make in zip(RENDERER_NAMES, makers):
        try:
            found[name] = make()
        except ImportError:
            continue
    return found


TRAP = """
window.__xss = undefined;
for (const name of ["alert", "confirm", "prompt", "print"]) {
  window[name] = function () { window.__xss = (window.__xss || 0) + 1; };
}
"""

AUDIT = r"""
const handlers = [], live = [];
for (const el of document.querySelectorAll("*")) {
  for (const attr of el.attributes) {
    if (attr.name.toLowerCase().startsWith("on")) handlers.push(el.tagName + "." + attr.name);
  }
  for (const name of ["href", "src", "action", "formaction", "data", "xlink:href", "srcdoc"]) {
    const raw = el.getAttribute(name);
    if (raw === null) continue;
    const url = raw.replace(/[\t\n\r]/g, "").replace(/^[\x00-\x20]+/, "");
    if (name === "srcdoc" || /^(javascript|data|vbscript):/i.test(url))
      live.push(el.tagName + " " + name + "=" + raw);
  }
}
const links = [];
for (const el of document.querySelectorAll("[href],[src]")) {
  for (const name of ["href", "src"]) {
    const raw = el.getAttribute(name);
    const ok = raw === null || /^(https?:\/\/[^\/\\]|#)/i.test(raw);
    if (!ok) links.push(el.tagName + " " + name + "=" + raw);
  }
}
for (const a of document.querySelectorAll("a[href]")) {
  if (!/^(https?:|file:)$/.test(a.protocol)) { try { a.click(); } catch (e) {} }
}
for (const el of document.querySelectorAll("details")) el.open = !el.open;
return {xss: window.__xss === undefined ? null : window.__xss, handlers, live, links,
        scripts: document.scripts.length};
"""


def page(body: str) -> str:
    """A page around rendered Markdown, with no CSP (as a site that trusts its Markdown renderer)."""
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>md</title></head><body>{body}</body></html>"
    )


def audit(browser: Any, path: Path, html: str) -> dict[str, Any]:
    """Load ``html`` from ``path`` (TRAP must already be installed) and return what ran or stayed live."""
    import time

    path.write_text(page(html), encoding="utf-8")
    browser.get(path.resolve().as_uri())
    deadline = time.monotonic() + 5
    while browser.execute_script("return document.readyState") != "complete" and time.monotonic() < deadline:
        time.sleep(0.02)
    first = browser.execute_script(AUDIT)
    time.sleep(0.05)  # onerror of a broken image, javascript: navigations
    first["xss"] = browser.execute_script("return window.__xss === undefined ? null : window.__xss")
    return first  # type: ignore[no-any-return]


def non_http_links(result: dict[str, Any]) -> list[str]:
    """Links and images whose target is neither an absolute http(s) URL nor a ``#fragment`` of the page.

    GFM's e-mail autolinks (``mailto:``, ``xmpp:``) are left out: cmark-gfm links ``a@b.example`` after
    decoding character references and backslash escapes, so no escape in the Markdown prevents them
    (they run nothing and leave the page only on a click)."""
    return [link for link in result["links"] if not link.split("=", 1)[1].startswith(("mailto:", "xmpp:"))]


def executed(result: dict[str, Any]) -> bool:
    """Whether a page ran script, or kept something that would run (a handler, a live script link)."""
    return bool(result["xss"] or result["handlers"] or result["live"] or result["scripts"])
