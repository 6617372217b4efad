"""Cited answers from an LCEL chain over embedded Qdrant, streamed as the model writes.

    python examples/lcel_qdrant.py "How does the Sun produce energy?"
    python examples/lcel_qdrant.py --path ./qdrant-data "..."    # embedded Qdrant on disk
    python examples/lcel_qdrant.py --url http://localhost:6333 "..."   # a Qdrant server

Offline by default: a small hashing embedding (no model download) and a scripted fake chat model.
Set ``CITE_EXAMPLE_OPENAI_MODEL`` (for example ``gpt-4o-mini``, with ``OPENAI_API_KEY``) or
``CITE_EXAMPLE_ANTHROPIC_MODEL`` (with ``ANTHROPIC_API_KEY``; Claude then cites natively) to use a real model.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import re
import sys
from typing import Any

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel, FakeListChatModel
from langchain_qdrant import QdrantVectorStore

from langchain_cite import CitationsDelta, TextDelta, create_cited_rag_chain

CORPUS = {
    "sun.md": (
        "The Sun\n\n"
        "The Sun is the star at the centre of the Solar System. "
        "It is a nearly perfect ball of hot plasma.\n\n"
        "In the Sun's core, hydrogen nuclei fuse into helium. This nuclear fusion releases the energy that "
        "makes the Sun shine.\n\n"
        "Energy from the core takes thousands of years to reach the surface. It then leaves the Sun as light."
    ),
    "moon.md": (
        "The Moon\n\n"
        "The Moon is Earth's only natural satellite. It has no light of its own.\n\n"
        "Moonlight is sunlight reflected from the Moon's surface."
    ),
    "tides.md": (
        "Tides\n\nTides are the rise and fall of sea levels. They are caused mainly by the Moon's gravity."
    ),
}

SCRIPTED_ANSWER = (
    "The Sun produces its energy by nuclear fusion: in its core, hydrogen fuses into helium [1]. "
    "That energy takes thousands of years to reach the surface [1]."
)


class HashingEmbeddings(Embeddings):
    """Offline bag-of-words embeddings: each lower-cased word hashed into one of ``size`` dimensions."""

    def __init__(self, size: int = 256) -> None:
        self.size = size

    def _embed(self, text: str) -> list[float]:
        vector = [0.0] * self.size
        for word in re.findall(r"\w+", text.lower()):
            digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
            vector[int.from_bytes(digest, "big") % self.size] += 1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._embed(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._embed(text)


def chunks() -> list[Document]:
    """One chunk per paragraph, with ``start_index`` as ``add_start_index=True`` splitters write it."""
    out = []
    for name, text in CORPUS.items():
        title, _, _ = text.partition("\n\n")
        position = 0
        for paragraph in text.split("\n\n")[1:]:
            position = text.index(paragraph, position)
            out.append(
                Document(
                    page_content=paragraph, metadata={"source": name, "title": title, "start_index": position}
                )
            )
            position += len(paragraph)
    return out


def make_llm() -> BaseChatModel:
    """A real model when an environment variable names one, else the scripted fake."""
    if model := os.environ.get("CITE_EXAMPLE_OPENAI_MODEL"):
        from langchain_openai import ChatOpenAI

        return ChatOpenAI(model=model)
    if model := os.environ.get("CITE_EXAMPLE_ANTHROPIC_MODEL"):
        from langchain_anthropic import ChatAnthropic

        return ChatAnthropic(model=model)  # type: ignore[call-arg]
    return FakeListChatModel(responses=[SCRIPTED_ANSWER])


def build_chain(*, path: str | None = None, url: str | None = None, llm: Any = None, k: int = 4) -> Any:
    """Index the corpus in Qdrant (in memory, on disk at ``path``, or a server at ``url``); the chain."""
    where: dict[str, Any] = {"url": url} if url else {"path": path} if path else {"location": ":memory:"}
    store = QdrantVectorStore.from_documents(
        chunks(), HashingEmbeddings(), collection_name="cite_example", force_recreate=True, **where
    )
    return create_cited_rag_chain(store.as_retriever(search_kwargs={"k": k}), llm or make_llm())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("question", nargs="?", default="How does the Sun produce energy?")
    parser.add_argument("--path", help="embedded Qdrant on disk at this directory")
    parser.add_argument("--url", help="a Qdrant server")
    args = parser.parse_args(argv)
    chain = build_chain(path=args.path, url=args.url)
    answer = None
    for item in chain.stream(args.question):
        if isinstance(item, TextDelta):
            print(item.text, end="", flush=True)
        elif isinstance(item, CitationsDelta):
            print(f" [{item.citation.reference}]", end="", flush=True)
        else:
            answer = item
    print("\n")
    print(answer.to_markdown(style="plain"))
    for citation in answer.citations:
        print(
            f"[{citation.reference}] {citation.cited_text!r} (chars {citation.start_char_index}-"
            f"{citation.end_char_index} of {answer.references[citation.reference - 1].source.document_id})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
