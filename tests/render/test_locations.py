"""Where a reference's text is, in every renderer, and links that open the source at the passage."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cite_core import (
    number_sources,
    parse_answer,
    reference_entries,
    render_html,
    render_markdown,
    render_terminal,
)
from cite_core._render.urls import file_url, text_directive, with_text_fragment

from .htmlcheck import check_html

SKY = "The daytime sky looks blue because of Rayleigh scattering. Shorter wavelengths scatter more."


def _answer(items: list[dict[str, object]], text: str):  # type: ignore[no-untyped-def]
    return parse_answer(text, number_sources(items))


def test_text_directive_encodes_what_the_spec_reserves() -> None:
    # '-', '&' and ',' delimit a text directive's parts: always %-encoded, like every reserved character
    assert text_directive("Well-known, cheap & fast.") == "text=Well%2Dknown%2C%20cheap%20%26%20fast."
    assert text_directive("a#b:c/d?e=f%g") == "text=a%23b%3Ac%2Fd%3Fe%3Df%25g"
    assert text_directive("  spaced\n\tout  ") == "text=spaced%20out"
    assert text_directive("   ") is None
    assert (
        text_directive("天空是蓝色的。")
        == "text=%E5%A4%A9%E7%A9%BA%E6%98%AF%E8%93%9D%E8%89%B2%E7%9A%84%E3%80%82"
    )


def test_a_long_sentence_becomes_a_start_end_range() -> None:
    sentence = "One two three four five six seven eight nine ten eleven twelve-thirteen."
    assert (
        text_directive(sentence)
        == "text=One%20two%20three%20four%20five,eight%20nine%20ten%20eleven%20twelve%2Dthirteen."
    )
    assert text_directive("x" * 301) is None  # no spaces to cut at: word boundaries are the browser's


def test_a_fragment_matches_the_rendered_text_of_markdown_sources() -> None:
    # web loaders often give Markdown; the browser shows the page without its marks
    assert text_directive("- **Bold** claim, see [the docs](https://x.org/a) and `code`.") == (
        "text=Bold%20claim%2C%20see%20the%20docs%20and%20code."
    )
    assert text_directive("## 2. Tides\n> quoted _line_") == "text=Tides%20quoted%20line"
    # marks inside a line are text: "3 - 4" and snake_case stay as the page shows them
    assert (
        text_directive("From 3 - 4 > 2 in snake_case.")
        == "text=From%203%20%2D%204%20%3E%202%20in%20snake_case."
    )


def test_an_existing_fragment_is_kept() -> None:
    assert with_text_fragment("https://e.org/a", "Hi there.") == "https://e.org/a#:~:text=Hi%20there."
    assert with_text_fragment("https://e.org/a#intro", "Hi.") == "https://e.org/a#intro:~:text=Hi."
    assert with_text_fragment("https://e.org/a#", "Hi.") == "https://e.org/a#:~:text=Hi."
    assert with_text_fragment("https://e.org/a#:~:text=Old", "Hi.") == "https://e.org/a#:~:text=Old&text=Hi."
    assert with_text_fragment("https://e.org/a", "") == "https://e.org/a"


def test_file_urls_only_for_local_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert file_url("docs/a b#1?.pdf") == (tmp_path / "docs" / "a b#1?.pdf").as_uri()
    assert file_url("docs/a b#1?.pdf").endswith("/docs/a%20b%231%3F.pdf")  # type: ignore[union-attr]
    assert file_url("/srv/x/../y.txt") == "file:///srv/y.txt"
    assert file_url("C:\\Users\\me\\notes.md") == "file:///C:/Users/me/notes.md"
    for bad in (
        "",
        "  ",
        "\\\\evil.example\\share\\x.pdf",  # UNC: the system would connect to the host
        "//evil.example/share/x.pdf",
        "https://example.org/x.pdf",
        "javascript:alert(1)",
        "data:text/html,x",
        "file:///etc/passwd",  # a URL, not a path: links are built from paths only
        "a\x00b.txt",
        "a\nb.txt",
    ):
        assert file_url(bad) is None, bad


def test_web_references_link_to_the_cited_sentence_in_every_renderer() -> None:
    answer = _answer(
        [{"text": SKY, "title": "Sky", "url": "https://example.org/sky#top", "author": "M. Rivera"}],
        "The sky looks blue because of Rayleigh scattering [1].",
    )
    link = "https://example.org/sky#top:~:text=The%20daytime%20sky%20looks%20blue%20because%20of%20Rayleigh%20scattering."
    [entry] = reference_entries(answer)
    assert entry["link"] == link and entry["url"] == "https://example.org/sky#top" and entry["path"] is None
    assert entry["passages"] == [{"cited_text": SKY.split(" Shorter")[0], "page": None, "link": link}]
    markup = render_html(answer)
    assert check_html(markup).problems == []
    assert f'class="cite-ref-title" href="{link}"' in markup and f'class="cite-open" href="{link}"' in markup
    markdown = render_markdown(answer)
    assert f"[Sky]({link}), M. Rivera — “The daytime sky looks blue" in markdown
    assert "[1] Sky — https://example.org/sky#top, M. Rivera\n" in render_terminal(answer)


def test_a_pdf_opens_at_the_cited_page_and_a_path_shows_as_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    item = {
        "pages": ["Cats purr.", "Dogs bark loudly at night."],
        "title": "Pets",
        "metadata": {"source": "docs/pets.pdf"},
    }
    answer = _answer([item], "Dogs bark [1].")
    pdf = (tmp_path / "docs" / "pets.pdf").as_uri()
    [entry] = reference_entries(answer, file_links=True)
    assert (entry["path"], entry["page_range"], entry["pages"]) == ("docs/pets.pdf", [2, 2], "2")
    assert entry["link"] == f"{pdf}#page=2"
    assert reference_entries(answer)[0]["link"] is None  # file links only when the caller asks
    markup = render_html(answer, file_links=True)
    assert f'href="{pdf}#page=2"' in markup and '<span class="cite-path">docs/pets.pdf</span>' in markup
    assert "file:" not in render_html(answer) and "docs/pets.pdf" in render_html(answer)
    assert f"[Pets]({pdf}#page=2), docs/pets.pdf, p. 2 — “Dogs bark loudly at night.”" in render_markdown(
        answer, file_links=True
    )
    assert '1. <a id="ref-1"></a>Pets, docs/pets.pdf, p. 2 — “Dogs' in render_markdown(answer)
    assert "[1] Pets — docs/pets.pdf, p. 2\n" in render_terminal(answer)


def test_a_pdf_url_opens_at_its_page_and_an_absolute_file_path_is_the_link() -> None:
    web = _answer(
        [{"pages": ["Cats purr.", "Dogs bark."], "title": "Pets", "url": "https://example.org/pets.PDF"}],
        "Dogs bark [1].",
    )
    assert reference_entries(web)[0]["link"] == "https://example.org/pets.PDF#page=2"
    # the CLI shows the path as given and links the absolute one
    local = _answer(
        [
            {
                "text": SKY,
                "title": "sky",
                "metadata": {"path": "docs/sky.txt", "file_path": "/data/docs/sky.txt"},
            }
        ],
        "The sky looks blue because of Rayleigh scattering [1].",
    )
    [entry] = reference_entries(local, file_links=True)
    assert (entry["path"], entry["link"]) == ("docs/sky.txt", "file:///data/docs/sky.txt")


def test_unsafe_locations_are_never_links() -> None:
    answer = _answer(
        [
            {
                "text": SKY,
                "title": "Sky",
                "url": "javascript:alert(1)",
                "metadata": {"path": "\\\\evil\\s\\x.txt"},
            },
            {"text": "Leaves are green.", "title": "Leaves", "metadata": {"file_path": "data:text/html,x"}},
        ],
        "The sky looks blue because of Rayleigh scattering [1]. Leaves are green [2].",
    )
    assert [e["link"] for e in reference_entries(answer, file_links=True)] == [None, None]
    hrefs = check_html(render_html(answer, file_links=True)).hrefs
    assert all(h.startswith("#") for h in hrefs)
    assert not re.search(r"\]\((?!#)", render_markdown(answer, file_links=True))
    [sky, leaves] = reference_entries(answer)
    assert sky["path"] == "\\\\evil\\s\\x.txt" and leaves["path"] == "data:text/html,x"  # shown, as text
