"""Added time per query of citations in an LCEL RAG chain, against the same chain without them.

    python bench/bench_langchain.py              # a table; --json for machine-readable output
    python bench/bench_langchain.py --queries 300 --stream-queries 40

Both chains use the same retriever (8 chunks of about 1 KB) and the same fake chat model answering
about 300 words with 16 ``[n]`` markers. The plain chain is the LangChain tutorial shape:
``{"context": retriever | format_docs, "question": RunnablePassthrough()} | prompt | llm |
StrOutputParser()``;
the cited one is ``create_cited_rag_chain(retriever, llm)``. Runs alternate between the two chains so
that drift hits both alike. ``core`` is cite_core alone on the same input (number, prompt, parse; fed
one character at a time for ``stream``), the floor the adapter adds to; ``adapter`` is what remains.
The fake model streams one character per chunk, so ``stream`` shows the per-chunk cost at its worst.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnablePassthrough

try:
    from bench.eval._data import essay_or_prose
except ImportError:  # run as a script: bench/ is the script's folder
    from eval._data import essay_or_prose  # type: ignore[no-redef]
from cite_core import CitationStream, build_prompt, parse_answer, split_sentences
from langchain_cite import create_cited_rag_chain, documents_to_sources

QUESTION = "What did the author work on before college?"


class FixedRetriever(BaseRetriever):
    documents: list[Document]

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return list(self.documents)


def corpus(k: int = 8, size: int = 1000) -> list[Document]:
    text = essay_or_prose(500)
    return [
        Document(
            page_content=text[i * size : (i + 1) * size],
            metadata={"source": f"essay#{i}", "title": f"Part {i + 1}", "start_index": i * size},
        )
        for i in range(k)
    ]


def make_answer(documents: list[Document], markers: int = 16, seed: int = 0) -> str:
    """Sentences taken from the sources, each followed by the marker of its source."""
    rng = random.Random(seed)
    pool = [
        (n, d.page_content[a:b])
        for n, d in enumerate(documents, 1)
        for a, b in split_sentences(d.page_content)
    ]
    picked = rng.sample(pool, min(markers, len(pool)))
    return " ".join(f"{s.rstrip('.')} [{n}]." for n, s in picked)


def format_docs(documents: list[Document]) -> str:
    return "\n\n".join(d.page_content for d in documents)


def build(documents: list[Document], answer: str) -> tuple[Any, Any]:
    retriever = FixedRetriever(documents=documents)
    llm = FakeListChatModel(responses=[answer])
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer from the context."), ("human", "Context:\n{context}\n\nQuestion: {question}")]
    )
    plain = (
        {"context": retriever | format_docs, "question": RunnablePassthrough()}
        | prompt
        | llm
        | StrOutputParser()
    )
    return plain, create_cited_rag_chain(retriever, llm)


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def measure(
    plain: Callable[[], Any], cited: Callable[[], Any], n: int, core: Callable[[], Any]
) -> dict[str, float]:
    for _ in range(3):  # warm up imports and caches
        plain(), cited(), core()
    a: list[float] = []
    b: list[float] = []
    c: list[float] = []
    for _ in range(n):
        a.append(timed(plain))
        b.append(timed(cited))
        c.append(timed(core))
    plain_ms, cited_ms, core_ms = statistics.median(a), statistics.median(b), statistics.median(c)
    added = statistics.median(y - x for x, y in zip(a, b))
    return {
        "plain_ms": round(plain_ms, 3),
        "cited_ms": round(cited_ms, 3),
        "added_ms": round(added, 3),
        "ratio": round(cited_ms / plain_ms, 3),
        "core_ms": round(core_ms, 3),
        "adapter_ms": round(added - core_ms, 3),
        "runs": n,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200, help="invoke runs per chain")
    parser.add_argument(
        "--stream-queries", type=int, default=30, help="stream runs per chain (one char per chunk)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    documents = corpus()
    answer = make_answer(documents)
    plain, cited = build(documents, answer)

    def core() -> None:
        prompt = build_prompt(QUESTION, documents_to_sources(documents))
        parse_answer(answer, prompt.sources)

    def core_stream() -> None:  # as the chain streams it: one character per chunk
        stream = CitationStream(build_prompt(QUESTION, documents_to_sources(documents)).sources)
        for char in answer:
            stream.feed(char)
        stream.finish()

    results = {
        "invoke": measure(lambda: plain.invoke(QUESTION), lambda: cited.invoke(QUESTION), args.queries, core),
        "stream": measure(
            lambda: list(plain.stream(QUESTION)),
            lambda: list(cited.stream(QUESTION)),
            args.stream_queries,
            core_stream,
        ),
        "setup": {"chunks": len(documents), "answer_chars": len(answer), "markers": answer.count("[")},
    }
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{len(documents)} chunks of ~1 KB, answer of {len(answer)} chars with {answer.count('[')} markers")
    print(
        f"{'':8}{'plain ms':>10}{'cited ms':>10}{'added ms':>10}{'ratio':>8}"
        f"{'core ms':>10}{'adapter ms':>12}{'runs':>6}"
    )
    for mode in ("invoke", "stream"):
        r = results[mode]
        print(
            f"{mode:8}{r['plain_ms']:>10.2f}{r['cited_ms']:>10.2f}{r['added_ms']:>10.2f}{r['ratio']:>8.2f}"
            f"{r['core_ms']:>10.2f}{r['adapter_ms']:>12.2f}{r['runs']:>6}"
        )
    print("medians per query; added = median of paired (cited - plain); adapter = added - core")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
