"""XSS payloads, and a cited answer that puts each of them in every field a renderer shows.

Every script payload tries to set ``window.__xss`` or to call ``alert``/``confirm``/``prompt`` (the
browser test turns those into ``window.__xss`` too), so one global tells whether anything ran.
"""

from __future__ import annotations

from cite_core import CitedAnswer, number_sources, parse_answer

PAYLOADS: list[str] = [
    "<script>window.__xss=1</script>",
    '<img src=x onerror="window.__xss=1">',
    "<img src=x onerror=alert(1)>",
    "<svg onload=window.__xss=1>",
    "<svg/onload=alert(1)>",
    '"><script>window.__xss=1</script>',
    "'><img src=x onerror=window.__xss=1>",
    "javascript:window.__xss=1",
    "JaVaScRiPt:alert(1)",
    " javascript:window.__xss=1",
    "java\tscript:window.__xss=1",
    "java&#x09;script:window.__xss=1",
    "&#106;avascript:window.__xss=1",
    "jav&#x61;script:window.__xss=1",
    "\x01javascript:window.__xss=1",
    "data:text/html,<script>window.__xss=1</script>",
    "data:text/html;base64,PHNjcmlwdD53aW5kb3cuX194c3M9MTwvc2NyaXB0Pg==",
    "vbscript:msgbox(1)",
    "//evil.invalid/x.js",
    'https://example.org/"><script>window.__xss=1</script>',
    "https://example.org/' onmouseover='window.__xss=1",
    "http://example.org/#<img src=x onerror=window.__xss=1>",
    'https://example.org/" onfocus="window.__xss=1" autofocus x="',
    '<iframe src="javascript:window.__xss=1"></iframe>',
    '<iframe srcdoc="<script>parent.__xss=1</script>"></iframe>',
    "<body onload=window.__xss=1>",
    '<a href="javascript:window.__xss=1">click me</a>',
    "<a href=# onclick=window.__xss=1>click</a>",
    "<details open ontoggle=window.__xss=1>",
    "<input autofocus onfocus=window.__xss=1>",
    "<video><source onerror=window.__xss=1></video>",
    "<audio src=x onerror=window.__xss=1>",
    '<object data="javascript:window.__xss=1"></object>',
    '<embed src="javascript:window.__xss=1">',
    '<style>*{background:url("javascript:window.__xss=1")}</style>',
    '<link rel=stylesheet href="javascript:window.__xss=1">',
    '<meta http-equiv="refresh" content="0;url=javascript:window.__xss=1">',
    '<base href="javascript:/">',
    "</textarea><script>window.__xss=1</script>",
    "</title><script>window.__xss=1</script>",
    "</style><script>window.__xss=1</script>",
    "</script><script>window.__xss=1</script>",
    '<!--<img src="--><img src=x onerror=window.__xss=1//">',
    "<![CDATA[<script>window.__xss=1</script>]]>",
    "&lt;script&gt;window.__xss=1&lt;/script&gt;",
    '" onmouseover="window.__xss=1" x="',
    "' onfocus='window.__xss=1' autofocus x='",
    "` onmouseover=window.__xss=1 `",
    '<svg><a xlink:href="javascript:window.__xss=1"><text x="20" y="20">svg</text></a></svg>',
    "<svg><script>window.__xss=1</script></svg>",
    "<math><mtext><table><mglyph><style><img src=x onerror=window.__xss=1>",
    '<form action="javascript:window.__xss=1"><button>go</button></form>',
    '<button formaction="javascript:window.__xss=1">go</button>',
    "<scr<script>ipt>window.__xss=1</scr</script>ipt>",
    '<noscript><p title="</noscript><img src=x onerror=window.__xss=1>">',
    "<select><noembed></select><script>window.__xss=1</script>",
    "<img src=x onerror=window.__xss=1 ",
    "<x onpointerenter=window.__xss=1 onmouseover=window.__xss=1>hover me</x>",
    '<div style="background:url(javascript:window.__xss=1)">styled</div>',
    "<template><script>window.__xss=1</script></template><img src=x onerror=window.__xss=1>",
    "{{constructor.constructor('window.__xss=1')()}}",
    "${window.__xss=1}",
    "\u202e<img src=x onerror=window.__xss=1>",
    "标题<img src=x onerror=window.__xss=1>：引用",
    "[1](javascript:window.__xss=1)",
    '<a href="data:text/html,<script>alert(1)</script>">data link</a>',
    "<marquee onstart=window.__xss=1>m</marquee>",
    "<img src=x:x onerror=confirm(1)>",
    "<svg><animate onbegin=window.__xss=1 attributeName=x dur=1s>",
    "<keygen autofocus onfocus=prompt(1)>",
]

MARKDOWN_PAYLOADS: list[str] = [
    "[x](javascript:window.__xss=1)",
    "[x](<javascript:window.__xss=1>)",
    "[x]( JaVaScRiPt:window.__xss=1 )",
    '[x](javascript:window.__xss=1 "title")',
    "[x](jav&#x61;script:window.__xss=1)",
    "[x](javascript&#58;window.__xss=1)",
    "[x](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX194c3M9MTwvc2NyaXB0Pg==)",
    "[x](vbscript:msgbox(1))",
    "![x](javascript:window.__xss=1)",
    "[x\\](javascript:window.__xss=1)",
    "<javascript:window.__xss=1>",
    "[x][evil]\n\n[evil]: javascript:window.__xss=1",
    "[x]\n\n[x]: <javascript:window.__xss=1>",
    "\\<script>window.__xss=1</script>",
    "`<script>window.__xss=1</script>`",
    "```\n<script>window.__xss=1</script>\n```",
    "```\n<script>window.__xss=1</script>\n\nnot code any more <img src=x onerror=window.__xss=1>",
    "~~~\n<img src=x onerror=window.__xss=1>",
    "    <script>window.__xss=1</script>",
    "> <img src=x onerror=window.__xss=1>",
    "- <details open ontoggle=window.__xss=1>",
    "*<img src=x onerror=window.__xss=1>*",
    "<div>\n\n<img src=x onerror=window.__xss=1>\n\n</div>",
    "<!-- x -->\n<script>window.__xss=1</script>",
    "<?php x ?><img src=x onerror=window.__xss=1>",
    '[x](#ref-1 "t") <a href=javascript:window.__xss=1>y</a>',
]
"""Payloads aimed at Markdown renderers (links, definitions, code that a renderer may not see as code)."""

MARKDOWN_PAYLOADS_2: list[str] = [
    # a marker followed by a target the parser does not take as the marker's link (nested parentheses)
    "[1](javascript:alert(1))",
    "[1](javascript:window.__xss=(1))",
    "[1]( javascript:alert(1) )",
    "[1][r]\n\n[r]: javascript:alert(1)",
    "x\n[1]: javascript:alert(1)",
    "x ![1](javascript:alert(1))",
    "[^1](javascript:alert(1))",
    "[^1]\n\n[^1]: javascript:alert(1)",
    # link reference definitions in containers, with odd labels, split over lines
    "[x][r]\n\n> [r]: javascript:alert(1)",
    "[x][r]\n\n- [r]: javascript:alert(1)",
    "[x][r]\n\n1. [r]: javascript:alert(1)",
    "[x][^r]\n\n[^r]: javascript:alert(1)",
    "[x][r\\]]\n\n[r\\]]: javascript:alert(1)",
    "[x][r y]\n\n[r\ny]: javascript:alert(1)",
    "[x] [r]\n\n[r]: javascript:alert(1)",
    "[r][]\n\n[r]: javascript:alert(1)",
    "[r]\n\n   [r]:\n   javascript:alert(1)\n   'title'",
    '[r]\n\n[r]: <javascript:alert(1)> "t"',
    "[R]\n\n[r]: data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "> > [x][r]\n> >\n> > [r]: vbscript:msgbox(1)",
    # links whose text or target hides a bracket, backtick, entity or control character
    "[x\\]y](javascript:alert(1))",
    "[`x`](javascript:alert(1))",
    "[x](javascript:a(b(c)))",
    "[x](<javascript:alert(1) >)",
    "[x](java\x00script:alert(1))",
    "[x](&#x6A;avascript:alert(1))",
    "![x](data:image/svg+xml,<svg onload=alert(1)>)",
    "![x](javascript:alert(1))",
    "| a | b |\n|---|---|\n| [x](javascript:alert(1)) | <img src=x onerror=alert(1)> |",
    "[[a](https://example.org/)](javascript:alert(1))",
    "[a](https://example.org/)(javascript:alert(1))",
    '[a](https://example.org/ "t") [b](javascript:alert(1))',
    # autolinks (CommonMark and GFM's extension)
    "<JAVASCRIPT:alert(1)>",
    "<vbscript:msgbox(1)>",
    "<data:text/html,<script>alert(1)</script>>",
    "<a@b.example>",
    "mail a@b.example now",
    "https://a.b/<img src=x onerror=alert(1)>",
    "https://a.b/\\<img src=x onerror=alert(1)>",
    "www.a.b/<img src=x onerror=alert(1)>",
    "ftp://a.b/x",
    "xmpp:a@b.example",
    # raw HTML behind characters a renderer normalises
    "<\x00img src=x onerror=alert(1)>",
    "<img\x0csrc=x onerror=alert(1)>",
    "<img/src=x/onerror=alert(1)>",
    "\\<img src=x onerror=alert(1)>",
    "<\u0085img src=x onerror=alert(1)>",
    "&#60;img src=x onerror=alert(1)&#62;",
    # footnotes
    "[^x]\n\n[^x]: [y](javascript:alert(1))",
    "[^x]: <img src=x onerror=alert(1)>",
    # titles a renderer reads as a definition's destination (style footnotes, no author, no quotes)
    "//evil.example",
    "javascript:alert(1)",
    "\\\\evil.example",
    "data:text/html,x 'y'",
    "x 'y'",
]
"""More Markdown payloads: the families an attack run found (a target after a marker, definitions in
containers, GFM autolinks, titles as destinations) and neighbours of each."""

ATTRIBUTE_PAYLOADS: list[str] = [
    # attribute lists (python-markdown's attr_list, part of extra; markdown-it's attrs), with autofocus
    # on a focusable element so that the handler runs on load
    "x {: onclick=window.__xss=1 }\n\nnext",
    "x {: tabindex=1 autofocus onfocus=window.__xss=1 }\n\nnext",
    "# Heading {#id tabindex=1 autofocus onfocus=window.__xss=1}\n\nnext",
    "*x*{onmouseover=window.__xss=1}",
    "*x*{: tabindex=1 autofocus onfocus=window.__xss=1 }",
    '`code`{onclick="window.__xss=1" tabindex=1 autofocus onfocus="window.__xss=1"}',
    "[1]{: tabindex=1 autofocus onfocus=window.__xss=1 }",  # right after our own marker link
    "[1]{#i tabindex=1 autofocus onfocus=window.__xss=1}",
    '{onclick="window.__xss=1" tabindex=1 autofocus onfocus="window.__xss=1"}\n# Heading',
    "[x](https://ok.example){href=javascript:window.__xss=1 tabindex=1 autofocus onfocus=window.__xss=1}",
    "![i](https://ok.example/i.png){onerror=window.__xss=1 src=x}",
    '<div markdown="1">\n*x*{: tabindex=1 autofocus onfocus=window.__xss=1 }\n</div>',
    "::: note\n{tabindex=1 autofocus onfocus=window.__xss=1}\ntext\n:::",
    "Term\n: {#i tabindex=1 autofocus onfocus=window.__xss=1} definition",
    "x\n{: .cls #i tabindex=1 autofocus onfocus=window.__xss=1 }",
    # linkify: a protocol-relative target, and neighbours
    "//evil.example/x",
    "see //evil.example/x now",
    "(//evil.example/x)",
    "javascript://evil.example/%0aalert(1)",
]
"""Attribute syntax and linkify targets: the families of the third attack run (issue 33)."""

SCRIPTY = ("__xss", "alert", "confirm", "prompt")


def payload_sources(payloads: list[str] | None = None) -> list[dict[str, object]]:
    """One source per payload, the payload in its title, url, author, text, id, context and metadata."""
    items = []
    for i, payload in enumerate(payloads or PAYLOADS, start=1):
        items.append(
            {
                "text": (
                    f"Fact {i} is stated here: {payload} end of fact {i}. "
                    f"Unrelated filler sentence number {i}."
                ),
                "title": payload,
                "url": payload,
                "author": payload,
                "document_id": f"doc-{i}-{payload}",
                "context": payload,
                "metadata": {"date": payload, "note": payload, "source": payload},
            }
        )
    return items


def title_only_answer(payloads: list[str]) -> CitedAnswer:
    """An answer citing one source per payload that has only a title (no url, author or quote)."""
    sources = number_sources(
        [{"text": f"Fact {i} is here.", "title": payload} for i, payload in enumerate(payloads, start=1)]
    )
    return parse_answer(" ".join(f"Fact {i} is here [{i}]." for i in range(1, len(payloads) + 1)), sources)


def payload_answer(payloads: list[str] | None = None) -> CitedAnswer:
    """A cited answer whose text (from 'the model') and sources carry every payload."""
    payloads = payloads or PAYLOADS
    sources = number_sources(payload_sources(payloads))
    text = " ".join(
        f"Fact {i} is stated here: {payload} end of fact {i} [{i}]."
        for i, payload in enumerate(payloads, start=1)
    )
    return parse_answer(text + " An invalid one [999].", sources)
