"""Cost of citing a structured answer field by field, against one parse of the same text.

    python bench/bench_structured.py      # prints one line; best of 5 runs

50 string fields of three cited claims each, over 20 sources of 20 sentences: ``cite_structured``
(each field parsed by its own ``CitationStream``, one numbering and one ``Corpus`` shared) against
``parse_answer`` of the fields joined by newlines (the same claims and markers as one answer), and
``StructuredCitationStream`` fed the object's JSON one character at a time (partial objects).
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

from cite_core import StructuredCitationStream, cite_structured, number_sources, parse_answer

WORDS = "sun moon star planet energy fusion hydrogen helium core light orbit gravity mass heat water".split()


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(12)).capitalize() + "."


def _field(rng: random.Random) -> str:
    """Three claims, each cited by a random source of the 20."""
    return " ".join(f"{_sentence(rng)[:-1]} [{rng.randint(1, 20)}]." for _ in range(3))


def _partials(data: dict[str, str]) -> list[dict[str, Any]]:
    """The partial objects of ``data``'s JSON written one character at a time (strings only)."""
    out: list[dict[str, Any]] = []
    done: dict[str, str] = {}
    for key, text in data.items():
        for end in range(len(text) + 1):
            out.append({**done, key: text[:end]})
        done[key] = text
    return out


def _best(run: Any, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    rng = random.Random(1)
    sources = number_sources([" ".join(_sentence(rng) for _ in range(20)) for _ in range(20)])
    fields = {f"f{i}": _field(rng) for i in range(50)}
    joined = "\n".join(fields.values())
    partials = _partials(fields)

    def stream() -> None:
        citer = StructuredCitationStream(sources)
        for partial in partials:
            citer.update(partial)
        citer.finish(fields)

    structured = _best(lambda: cite_structured(fields, sources))
    whole = _best(lambda: parse_answer(joined, sources))
    streamed = _best(stream, repeat=3)
    print(
        json.dumps(
            {
                "cite_structured_ms": round(structured * 1000, 1),
                "parse_answer_joined_ms": round(whole * 1000, 1),
                "ratio": round(structured / whole, 2),
                "stream_1_char_ms": round(streamed * 1000, 1),
                "json_chars": len(json.dumps(fields)),
            }
        )
    )


if __name__ == "__main__":
    main()
