"""Loading the external evaluation sets from ``../shared/data`` and splitting them into dev / test.

Every set is split the same way: records at even positions in file order are **dev** (used to choose
weights and thresholds), records at odd positions are **test** (reported). Files that group records by
label (WiCE, AttributionBench) therefore give balanced halves. Nothing here is written by the team.

The data folder is found by ``find_data_dir``: ``CITE_EVAL_DATA`` when set, else the first
``shared/data`` beside the repository root or beside one of its parent folders (so a clone at
``X/repo`` and a worktree at ``X/worktrees/repo`` both find ``X/shared/data``), else beside the current
folder or one of its parents. ``searched()`` lists every place looked at, for the "not found" message.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "DATA_DIR",
    "ESSAY_WORDS",
    "REPO_ROOT",
    "Split",
    "available",
    "essay_or_prose",
    "find_data_dir",
    "load_json",
    "load_jsonl",
    "missing",
    "read_text",
    "searched",
    "split",
]

Split = Literal["dev", "test", "all"]

REPO_ROOT = Path(__file__).resolve().parents[2]
"""The repository this file belongs to."""
_MARKER_FILE = "README.md"
"""A data folder counts as found when it holds this file (the shared data's own README)."""


def _candidates(env: str | None, root: Path, cwd: Path) -> list[Path]:
    """Every folder ``find_data_dir`` would try, in order, without duplicates."""
    if env:
        return [Path(env)]
    places = [p / "shared" / "data" for p in (root, *root.parents)]
    places += [p / "shared" / "data" for p in (cwd, *cwd.parents)]
    return list(dict.fromkeys(places))


def searched() -> list[Path]:
    """The folders looked at for the shared data, in the order they were tried."""
    return _candidates(os.environ.get("CITE_EVAL_DATA"), REPO_ROOT, Path.cwd().resolve())


def find_data_dir() -> Path | None:
    """The shared data folder, or None when no candidate holds it (see ``searched``)."""
    if os.environ.get("CITE_EVAL_DATA"):
        place = searched()[0]
        return place if place.is_dir() else None
    return next((p for p in searched() if (p / _MARKER_FILE).is_file()), None)


_FOUND = find_data_dir()
DATA_DIR = _FOUND if _FOUND is not None else REPO_ROOT.parent / "shared" / "data"
"""Where the shared evaluation data lives (``CITE_EVAL_DATA`` overrides the search)."""


def missing(name: str) -> str:
    """The message of a set that was not found: the file and every folder looked in."""
    if _FOUND is None:
        where = ", ".join(str(p) for p in searched())
        return f"{name} not found: no shared data folder (looked in {where}; set CITE_EVAL_DATA)"
    return f"{name} not found in {DATA_DIR}"


def available(name: str) -> bool:
    """Whether a data file is present."""
    return (DATA_DIR / name).exists()


def load_jsonl(name: str) -> list[dict[str, Any]]:
    with open(DATA_DIR / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_json(name: str) -> Any:
    with open(DATA_DIR / name, encoding="utf-8") as f:
        return json.load(f)


def read_text(name: str) -> str:
    return (DATA_DIR / name).read_text(encoding="utf-8")


def split(records: list[Any], which: Split) -> list[Any]:
    """Even positions are dev, odd positions are test, ``all`` is everything."""
    if which == "all":
        return list(records)
    offset = 0 if which == "dev" else 1
    return records[offset::2]


ESSAY_WORDS = "the of grass sky water blue green life energy sun moon city river paper model data".split()
"""The words of the synthetic prose used when the essay is absent."""


def essay_or_prose(sentences: int, *, capitalize: bool = False, data: bool = True) -> str:
    """The Paul Graham essay of the shared data (the benchmarks' real prose), else ``sentences`` seeded
    synthetic sentences of 8 to 20 words (capitalised when asked), so a benchmark runs without the data.
    ``data=False``: the synthetic sentences even where the essay is present."""
    folder = find_data_dir() if data else None
    essay = folder / "paul_graham_essay.txt" if folder else None
    if essay is not None and essay.is_file():
        return essay.read_text(encoding="utf-8")
    rng = random.Random(0)
    out = []
    for _ in range(sentences):
        sentence = " ".join(rng.choice(ESSAY_WORDS) for _ in range(rng.randint(8, 20)))
        out.append((sentence.capitalize() if capitalize else sentence) + ".")
    return " ".join(out)
