"""CiteQueryEngine vs llama-index-core's CitationQueryEngine: same top-10 nodes, same fixed fake LLM.

    python bench/bench_llamaindex.py [--queries 60] [--context-window 3900] [--profile]

Retrieval is done once (the LlamaIndex demo essay from ../shared/data, split with LlamaIndex's default
SentenceSplitter, top 10 by offline hashing embeddings); both engines then get those same nodes from a
fixed retriever, so the timing covers what each engine adds: node handling, prompting, the (instant)
fake LLM and, for ours, parsing and localising the citations. Reported: the median per query of many
interleaved queries, and the ratio ours / theirs (target: at most 0.3).
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import math
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from llama_index.core import Document, VectorStoreIndex  # noqa: E402
from llama_index.core.base.base_retriever import BaseRetriever  # noqa: E402
from llama_index.core.embeddings import BaseEmbedding  # noqa: E402
from llama_index.core.llms import CompletionResponse, CompletionResponseGen, CustomLLM, LLMMetadata  # noqa: E402
from llama_index.core.query_engine import CitationQueryEngine  # noqa: E402
from llama_index.core.schema import NodeWithScore, QueryBundle  # noqa: E402

from bench.eval._data import find_data_dir  # noqa: E402
from cite_core import clear_caches  # noqa: E402
from cite_core._sources.cache import forget_chunks  # noqa: E402
from llamaindex_cite import CiteQueryEngine  # noqa: E402

QUESTION = "What did the author do growing up?"
ANSWER = (
    "Before college the author worked on writing and programming [1]. He wrote short stories, which he "
    "says were awful [1]. His first programs ran on an IBM 1401 in the basement of his junior high "
    "school [2][1], using punched cards [2]. Later he got a microcomputer and wrote simple games [3]. "
    "In college he planned to study philosophy but switched to AI [4]."
)
ESSAY = (find_data_dir() or ROOT.parent / "shared" / "data") / "paul_graham_essay.txt"


class HashEmbedding(BaseEmbedding):
    @classmethod
    def class_name(cls) -> str:
        return "HashEmbedding"

    def _vector(self, text: str) -> list[float]:
        vec = [0.0] * 512
        for word in text.lower().split():
            vec[int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "little") % 512] += 1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._vector(text)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)


class FixedLLM(CustomLLM):
    """Returns ANSWER at once; counts its calls."""

    context_window: int = 3900
    calls: int = 0

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=self.context_window, num_output=256, model_name="fixed")

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self.calls += 1
        return CompletionResponse(text=ANSWER)

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        raise NotImplementedError


class FixedRetriever(BaseRetriever):
    def __init__(self, nodes: list[NodeWithScore]) -> None:
        super().__init__()
        self.nodes = nodes

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return list(self.nodes)


def corpus() -> str:
    if ESSAY.exists():
        return ESSAY.read_text(encoding="utf-8")
    print(f"({ESSAY} not found: using generated text)")
    return "\n\n".join(
        f"Paragraph {p}. "
        + " ".join(f"In year {p} the author wrote program {s} and essay {s + p}." for s in range(40))
        for p in range(60)
    )


def top_nodes(k: int = 10) -> list[NodeWithScore]:
    index = VectorStoreIndex.from_documents(
        [Document(text=corpus(), id_="essay")], embed_model=HashEmbedding()
    )
    return index.as_retriever(similarity_top_k=k).retrieve(QUESTION)


def run(queries: int, context_window: int, profile: bool) -> float:
    nodes = top_nodes()
    theirs_llm, ours_llm = FixedLLM(context_window=context_window), FixedLLM(context_window=context_window)
    theirs = CitationQueryEngine(retriever=FixedRetriever(nodes), llm=theirs_llm)
    ours = CiteQueryEngine.from_args(FixedRetriever(nodes), llm=ours_llm)
    for _ in range(3):  # warm up: tokenizers, imports, caches
        theirs.query(QUESTION), ours.query(QUESTION)
    theirs_llm.calls = ours_llm.calls = 0
    times: dict[str, list[float]] = {"theirs": [], "ours": [], "ours_new": [], "ours_cold": []}
    prepare = {"ours_new": forget_chunks, "ours_cold": clear_caches}  # untimed, before the query
    for _ in range(queries):
        for name, engine in (("theirs", theirs), ("ours", ours), ("ours_new", ours), ("ours_cold", ours)):
            if name in prepare:
                prepare[name]()
            start = time.perf_counter()
            engine.query(QUESTION)
            times[name].append(time.perf_counter() - start)
    t_theirs, t_ours = statistics.median(times["theirs"]), statistics.median(times["ours"])
    t_new, t_cold = statistics.median(times["ours_new"]), statistics.median(times["ours_cold"])
    calls_theirs, calls_ours = theirs_llm.calls / queries, ours_llm.calls / queries / 3
    response = ours.query(QUESTION)
    print(
        f"context window {context_window}: {len(nodes)} nodes, "
        f"{sum(len(n.node.get_content()) for n in nodes):,} characters"
    )
    print(
        f"  CitationQueryEngine: {t_theirs * 1000:7.2f} ms/query (median of {queries}), "
        f"{calls_theirs:.1f} LLM calls/query"
    )
    print(
        f"  CiteQueryEngine:     {t_ours * 1000:7.2f} ms/query (median of {queries}), "
        f"{calls_ours:.1f} LLM calls/query, {len(response.metadata['sources'])} sources shown, "
        f"{len(response.metadata['dropped_nodes'])} nodes left out, {len(response.source_nodes)} cited nodes"
    )
    print(f"    nodes never seen (words known): {t_new * 1000:6.2f} ms/query")
    print(f"    cold (nothing analysed yet):    {t_cold * 1000:6.2f} ms/query")
    print(
        f"  ratio ours/theirs:   {t_ours / t_theirs:.3f}  (target <= 0.3; the same nodes each query, their "
        f"analysis remembered); nodes never seen: {t_new / t_theirs:.3f}; cold: {t_cold / t_theirs:.3f}"
    )
    if profile:
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(20):
            ours.query(QUESTION)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    return t_ours / t_theirs


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument(
        "--context-window",
        type=int,
        action="append",
        help="LLM context window(s) to test (default: 3900, LlamaIndex's default, and 32000)",
    )
    parser.add_argument("--profile", action="store_true", help="profile CiteQueryEngine")
    args = parser.parse_args()
    for window in args.context_window or [3900, 32000]:
        run(args.queries, window, args.profile)


if __name__ == "__main__":
    main()
