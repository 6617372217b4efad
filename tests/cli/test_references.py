"""``cite ask``: every reference says where its text is (path as given, pages) and links to it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from cite_cli.__main__ import main

QUESTION = "Who described the scattering of light by small particles, and why is the sky blue?"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def here(corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The corpus copied under the current folder and ingested by its relative path, ``docs``."""
    shutil.copytree(corpus, workdir / "docs")
    assert run(capsys, "ingest", "docs", "--quiet")[0] == 0
    return workdir


def _model(fake: Any) -> tuple[str, ...]:
    """The recorded model: it cites ``sky`` ([1]) and the PDF's page 2 ([2])."""
    return ("--base-url", fake.url, "--model", "recorded")


def _by_title(references: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["title"]: r for r in references}


def test_json_references_say_where_and_link_to_the_page(
    here: Path, fake_model: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "ask", QUESTION, "--json", *_model(fake_model))
    assert code == 0, err
    refs = _by_title(json.loads(out)["references"])
    pdf, sky = refs["optics"], refs["sky"]
    assert (pdf["path"], pdf["page_range"], pdf["pages"]) == ("docs/optics.pdf", [2, 2], "2")
    assert pdf["link"] == f"{(here / 'docs' / 'optics.pdf').as_uri()}#page=2"
    assert pdf["passages"][0]["page"] == 2 and "1871" in pdf["passages"][0]["cited_text"]
    assert (sky["path"], sky["page_range"], sky["link"]) == (
        "docs/sky.txt",
        None,
        (here / "docs" / "sky.txt").as_uri(),
    )


def test_every_format_names_the_path_and_pages(
    here: Path, fake_model: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "ask", QUESTION, "--html", "answer.html", *_model(fake_model))
    assert code == 0, err
    assert "\n[1] sky — docs/sky.txt\n" in out and "\n[2] optics — docs/optics.pdf, p. 2\n" in out
    page = (here / "answer.html").read_text(encoding="utf-8")
    assert f'href="{(here / "docs" / "optics.pdf").as_uri()}#page=2"' in page
    assert '<span class="cite-path">docs/optics.pdf</span>' in page

    code, out, err = run(capsys, "ask", QUESTION, "--markdown", *_model(fake_model))
    assert code == 0, err
    pdf = (here / "docs" / "optics.pdf").as_uri()
    line = next(x for x in out.splitlines() if "optics" in x and "ref-" in x)
    assert line.endswith(
        f"[optics]({pdf}#page=2), docs/optics.pdf, p. 2 — "
        "“Lord Rayleigh described the scattering of light by small particles in 1871.”"
    )


def test_a_file_outside_the_current_folder_shows_its_absolute_path(
    corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    code, out, err = run(capsys, "ask", QUESTION, "--json")
    assert code == 0, err
    refs = _by_title(json.loads(out)["references"])
    assert refs["optics"]["path"] == str(corpus.resolve() / "optics.pdf")


def test_markdown_notes_in_the_terminal_show_no_character_references(
    here: Path, fake_model: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "ask", QUESTION, "--markdown", *_model(fake_model))
    assert code == 0, err
    notes = [line for line in out.splitlines() if line.startswith("> ")]
    assert "> Markers that pointed at no source were removed: \\[42\\]" in notes
    assert "&#" not in "".join(notes)
