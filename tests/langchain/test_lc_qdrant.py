"""Embedded Qdrant (in memory and on disk) through langchain-qdrant, and the example that uses it."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from langchain_core.language_models import FakeListChatModel

from langchain_cite import CitationsDelta, create_cited_rag_chain

pytest.importorskip("langchain_qdrant")
pytest.importorskip("qdrant_client")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "lcel_qdrant.py"


@pytest.fixture(scope="module")
def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lcel_qdrant_example", EXAMPLE)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_answer(answer: Any, example: ModuleType) -> None:
    assert answer.references and answer.references[0].source.document_id == "sun.md"
    sun = answer.references[0].source
    assert sun.metadata.get("merged_chunks", 1) >= 2  # chunks of sun.md merged into one reference
    assert sun.metadata["chunk_id"] and sun.metadata["_collection_name"] == "cite_example"
    for citation in answer.citations:
        original = example.CORPUS["sun.md"]
        assert original[citation.start_char_index : citation.end_char_index] == citation.cited_text


@pytest.mark.parametrize("where", ["memory", "disk"])
def test_qdrant_embedded(where: str, tmp_path: Path, example: ModuleType) -> None:
    llm = FakeListChatModel(responses=[example.SCRIPTED_ANSWER])
    chain = example.build_chain(path=str(tmp_path / "qdrant") if where == "disk" else None, llm=llm)
    answer = chain.invoke("How does the Sun produce energy?")
    check_answer(answer, example)
    items = list(chain.stream("How does the Sun produce energy?"))
    assert items[-1] == answer and sum(isinstance(i, CitationsDelta) for i in items) == len(answer.citations)
    if where == "disk":
        assert any((tmp_path / "qdrant").iterdir())


async def test_qdrant_async_stream(example: ModuleType) -> None:
    chain = example.build_chain(llm=FakeListChatModel(responses=[example.SCRIPTED_ANSWER]))
    items = [i async for i in chain.astream("How does the Sun produce energy?")]
    check_answer(items[-1], example)


def test_same_code_points_at_a_server(monkeypatch: pytest.MonkeyPatch, example: ModuleType) -> None:
    seen: dict[str, Any] = {}
    real = example.QdrantVectorStore.from_documents

    def spy(documents: Any, embedding: Any, **kwargs: Any) -> Any:
        seen.update(kwargs)
        kwargs.pop("url")
        return real(documents, embedding, location=":memory:", **kwargs)

    monkeypatch.setattr(example.QdrantVectorStore, "from_documents", spy)
    example.build_chain(url="http://127.0.0.1:6333", llm=FakeListChatModel(responses=["x"]))
    assert seen["url"] == "http://127.0.0.1:6333"


def test_any_retriever_works_with_the_vector_store_api(example: ModuleType) -> None:
    from langchain_qdrant import QdrantVectorStore

    store = QdrantVectorStore.from_documents(
        example.chunks(), example.HashingEmbeddings(), location=":memory:", collection_name="other"
    )
    retriever = store.as_retriever(search_type="mmr", search_kwargs={"k": 3, "fetch_k": 6})
    answer = create_cited_rag_chain(
        retriever, FakeListChatModel(responses=["Tides follow the Moon [1]."])
    ).invoke("What causes tides?")
    assert len(answer.references) == 1


def test_example_runs_as_a_script(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITE_EXAMPLE_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    result = subprocess.run(
        [sys.executable, str(EXAMPLE), "--path", str(tmp_path / "q"), "How does the Sun produce energy?"],
        capture_output=True,
        check=False,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "hydrogen fuses into helium [1]" in result.stdout
    assert "**References**" in result.stdout and "1. The Sun" in result.stdout
