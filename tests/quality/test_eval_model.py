"""bench.eval's embedding model: skipped with the reason when absent, and loaded only for new texts."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest

from bench.eval import _model


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setattr(_model, "_LOADED", [])
    monkeypatch.setattr(_model, "_VECTORS", {})
    path = tmp_path / "vectors.pkl"
    monkeypatch.setattr(_model, "VECTOR_FILE", path)
    return path


def test_a_missing_package_skips_with_the_reason(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_model, "REQUIRES", ("a_package_that_is_not_installed_here",))
    embed, why = _model.load_embeddings()
    assert embed is None
    assert why == f"no embedding model (a_package_that_is_not_installed_here not installed; {_model.INSTALL})"


class FakeEncoder:
    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def encode(self, texts: list[str], **options: Any) -> list[list[float]]:
        self.batches.append(list(texts))
        return [[float(len(t)), 1.0] for t in texts]


def test_kept_vectors_need_no_model_and_new_texts_load_it_once(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh.write_bytes(pickle.dumps({"kept": [0.5, 0.5]}))
    encoder = FakeEncoder()
    loads: list[int] = []
    monkeypatch.setattr(_model, "REQUIRES", ())
    monkeypatch.setattr(_model, "_model", lambda: loads.append(1) or encoder)
    embed, why = _model.load_embeddings()
    assert embed is not None and why == ""
    assert embed(["kept", "kept"]) == [[0.5, 0.5], [0.5, 0.5]] and loads == []  # no model for kept vectors
    assert embed(["kept", "new", "newer", "new"]) == [[0.5, 0.5], [3.0, 1.0], [5.0, 1.0], [3.0, 1.0]]
    assert embed(["newer"]) == [[5.0, 1.0]]
    assert loads == [1] and encoder.batches == [["new", "newer"]]
    _model.save_vectors()
    assert set(pickle.loads(fresh.read_bytes())) == {"kept", "new", "newer"}
