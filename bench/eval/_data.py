"""Loading the external evaluation sets from ``../shared/data`` and splitting them into dev / test.

Every set is split the same way: records at even positions in file order are **dev** (used to choose
weights and thresholds), records at odd positions are **test** (reported). Files that group records by
label (WiCE, AttributionBench) therefore give balanced halves. Nothing here is written by the team.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal

__all__ = ["DATA_DIR", "Split", "available", "load_json", "load_jsonl", "read_text", "split"]

Split = Literal["dev", "test", "all"]

DATA_DIR = Path(os.environ.get("CITE_EVAL_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"))
"""Where the shared evaluation data lives (``CITE_EVAL_DATA`` overrides ``../shared/data``)."""


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
