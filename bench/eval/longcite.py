"""LongCite: the statement format real long-context citation models write, parsed on recorded outputs.

``../shared/data/longcite_prompts`` holds three prompts of THUDM/LongCite (Apache-2.0) with worked
examples, each a document and the output a citation model is trained to write:

- **LongBench-Cite one-shot**: a document cut into chunks ``<C0>..<C21>`` and an answer in
  ``<statement>S<cite>[s-e]...</cite></statement>``; parsed with ``style="statements"`` over the chunks
  as one source of content blocks (the numbering the model saw), ``[10-10]`` must cite chunk C10's text.
- **CoF chunk-level**: five snippets ``Snippet [n]`` and an answer citing ``<cite>[2]</cite>``; parsed
  with the default ``markers`` style over the snippets as sources, ``[2]`` must cite in Snippet 2.
- **CoF sentence-level**: three passages in chunks, each with a statement and the output ``[6-7]``,
  ``[9-9]``, ``[4-5][7-7]``; parsed as ``<statement>S<cite>output</cite></statement>``.

Reported per set: statements found (the statement's text is a block of the answer, cited ones with
their citations), citations resolved (gold ranges or numbers that gave citations), exact (cited
statements whose cited texts are exactly the gold chunks, in order; chunk-level: every citation inside
its gold snippet), the display text free of tags and equal to the expected renumbered text, and
streaming one character at a time equal to the whole parse. Nothing is tuned on these examples.
Run: ``python -m bench.eval.longcite`` (or the rows of ``python -m bench.eval``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from cite_core import CitationStream, CitedAnswer, Source, build_messages, number_sources, parse_answer

from ._data import available, missing, read_text

__all__ = ["FILES", "rows", "run"]

FILES = {
    "longbench": "longcite_prompts/LongBench-Cite_one_shot_prompt.txt",
    "cof_chunk": "longcite_prompts/CoF_prompt_chunk_level_citation.txt",
    "cof_sentence": "longcite_prompts/CoF_prompt_sentence_level_citation.txt",
}
LABELS = {
    "longbench": "LongBench-Cite [s-e]",
    "cof_chunk": "CoF chunk [n]",
    "cof_sentence": "CoF sentence [s-e]",
}

_STATEMENT = re.compile(r"<statement>(.*?)<cite>(.*?)</cite></statement>", re.DOTALL)
_RANGE = re.compile(r"\[(\d+)(?:-(\d+))?\]")
_CHUNK = re.compile(r"<C(\d+)>")
_TAGS = re.compile(r"</?\s*(?:statement|cite)\b", re.IGNORECASE)
_PASSAGE = re.compile(
    r"\[Passage Start\]\n(.*?)\n\[Passage End\]\s*\[Statement\]\n(.*?)\n\s*\[Output\]\n(.*?)(?:\n\n|\Z)",
    re.DOTALL,
)


def _between(text: str, start: str, end: str) -> str:
    """The text between the first ``start`` and the next ``end``."""
    a = text.index(start) + len(start)
    return text[a : text.index(end, a)]


def _unescape(text: str) -> str:
    """The CoF files hold JSON-escaped passages (``\\n``, ``\\"``); the text they stand for."""
    try:
        return str(json.loads(f'"{text}"'))
    except ValueError:
        return text


def _chunks(document: str) -> list[str]:
    """The ``<Ci>`` chunks of a document, in order, stripped (chunk i at index i)."""
    parts = _CHUNK.split(document)
    numbers, texts = parts[1::2], parts[2::2]
    assert [int(n) for n in numbers] == list(range(len(numbers))), "chunks must be <C0>, <C1>, ... in order"
    return [t.strip() for t in texts]


def _gold(output: str) -> list[tuple[str, list[int]]]:
    """Each statement of a recorded output: its text and the cited numbers (ranges expanded)."""
    out = []
    for m in _STATEMENT.finditer(output):
        numbers = [n for r in _RANGE.finditer(m.group(2)) for n in range(int(r[1]), int(r[2] or r[1]) + 1)]
        out.append((m.group(1).strip(), numbers))
    return out


def _expected_text(output: str, by_source: dict[int, int]) -> str:
    """The display text a reader should see: tags gone, each ``<cite>`` as renumbered markers."""
    shown: dict[int, int] = {}

    def cite(m: re.Match[str]) -> str:
        sources = [
            by_source[n] for r in _RANGE.finditer(m.group(1)) for n in range(int(r[1]), int(r[2] or r[1]) + 1)
        ]
        return "".join(f"[{shown.setdefault(s, len(shown) + 1)}]" for s in dict.fromkeys(sources))

    text = re.sub(r"<cite>(.*?)</cite>", cite, output)
    return re.sub(r"</?statement>", "", text)


def _streamed(text: str, sources: list[Source], style: Any) -> CitedAnswer:
    stream = CitationStream(sources, style=style)
    for char in text:
        stream.feed(char)
    return stream.finish()


def _score(
    cases: list[tuple[str, list[Source], list[str], dict[int, int]]],
    style: Any,
    chunk_level: bool = False,
    joined: bool = False,
) -> dict[str, Any]:
    """Parse each (output, sources, gold chunk texts by number, source of each number) and count.
    ``joined``: the cited texts of a statement, joined, must read as the gold chunks joined."""
    totals = dict.fromkeys(
        (
            "statements",
            "found",
            "cited_statements",
            "gold_citations",
            "resolved",
            "exact",
            "clean",
            "streamed",
        ),
        0,
    )
    for output, sources, chunks, by_source in cases:
        answer = parse_answer(output, sources, style=style)
        blocks = {b.text.strip(): b for b in answer.content}
        for statement, numbers in _gold(output):
            totals["statements"] += 1
            block = blocks.get(statement)
            found = block is not None and bool(block.citations) == bool(numbers)
            totals["found"] += found or (not numbers and statement in answer.plain_text)
            if not numbers:
                continue
            totals["cited_statements"] += 1
            totals["gold_citations"] += len(numbers)
            citations = (block.citations or []) if block is not None else []
            if chunk_level:
                got = [c.document_index + 1 for c in citations]
                totals["resolved"] += sum(1 for n in numbers if n in got)
                totals["exact"] += got == numbers and all(
                    c.cited_text in chunks[n] for c, n in zip(citations, got)
                )
            elif joined:  # a text source: adjacent sentences are one span, compared without layout
                texts = [_words(c.cited_text) for c in citations]
                totals["resolved"] += sum(1 for n in numbers if any(_words(chunks[n]) in t for t in texts))
                totals["exact"] += " ".join(texts) == " ".join(_words(chunks[n]) for n in numbers)
            else:
                texts = [c.cited_text for c in citations]
                totals["resolved"] += sum(1 for n in numbers if chunks[n] in texts)
                totals["exact"] += texts == [chunks[n] for n in numbers]
        clean = not _TAGS.search(answer.text) and answer.text == _expected_text(output, by_source)
        totals["clean"] += clean and not answer.invalid_markers
        totals["streamed"] += _streamed(output, sources, style) == answer
    totals["outputs"] = len(cases)
    return totals


def _words(text: str) -> str:
    return " ".join(text.split())


def _numbering(chunks: list[str], plain: str) -> int:
    """How many chunks the ``statements`` prompt, given the document as plain text, shows as the same
    sentence under the same ``<Ci>`` number (the numbers a LongCite-trained model learnt)."""
    shown = build_messages("?", number_sources([plain]), style="statements")[1]["content"]
    ours = {int(n): _words(t) for n, t in re.findall(r"<C(\d+)>([^\n]*?)(?= <C\d+>|\n|$)", shown)}
    return sum(1 for i, chunk in enumerate(chunks) if ours.get(i) == _words(chunk))


def _with_plain_text(
    blocks: dict[str, Any], plain: list[tuple[str, list[Source], list[str], dict[int, int]]]
) -> dict[str, Any]:
    """The block-source counts plus the same outputs over each document as one plain-text source,
    numbered by the library's own sentence split (``plain_text``), and how far the numbering agrees."""
    return {
        **blocks,
        "plain_text": _score(plain, "statements", joined=True),
        "numbering_agrees": sum(_numbering(chunks, s[0].text) for _, s, chunks, _ in plain),
        "chunks": sum(len(chunks) for _, _, chunks, _ in plain),
    }


def _longbench() -> dict[str, Any]:
    text = read_text(FILES["longbench"])
    document = _between(text, "[Document Start]\n", "\n[Document End]")
    chunks = _chunks(document)
    output = _between(text, "[Answer with Citations]\n", "\n\n\nNow get ready").strip()
    sources = number_sources([{"blocks": chunks, "title": "LongBench-Cite example"}])
    one = dict.fromkeys(range(len(chunks)), 1)
    plain = number_sources([_CHUNK.sub("", document)])
    return _with_plain_text(
        _score([(output, sources, chunks, one)], "statements"), [(output, plain, chunks, one)]
    )


def _cof_chunk() -> dict[str, Any]:
    text = read_text(FILES["cof_chunk"])
    context = _between(text, "[Contexts Start]\n", "\n[Context End]")
    parts = re.split(r"^Snippet \[(\d+)\]\n", context, flags=re.MULTILINE)
    snippets = {int(n): _unescape(t.strip()) for n, t in zip(parts[1::2], parts[2::2])}
    assert list(snippets) == list(range(1, len(snippets) + 1)), "snippets must be numbered 1..n"
    output = _between(text, "[Answer with Citations]\n", "\n\n\nNow get ready").strip()
    sources = number_sources([snippets[n] for n in sorted(snippets)], merge=False)
    return _score(
        [(output, sources, [""] + [snippets[n] for n in sorted(snippets)], {n: n for n in snippets})],
        "markers",
        True,
    )


def _cof_sentence() -> dict[str, Any]:
    text = read_text(FILES["cof_sentence"])
    cases, plain = [], []
    for m in _PASSAGE.finditer(text):
        passage, statement, cited = m.group(1), m.group(2).strip(), m.group(3).strip()
        if "<<context>>" in passage:
            continue  # the template of the test case, not an example
        chunks = [_unescape(c) for c in _chunks(passage)]
        sources = number_sources([{"blocks": chunks}])
        output = f"<statement>{statement}<cite>{cited}</cite></statement>"
        cases.append((output, sources, chunks, dict.fromkeys(range(len(chunks)), 1)))
        plain.append((output, number_sources([_unescape(_CHUNK.sub("", passage))]), chunks, cases[-1][3]))
    return _with_plain_text(_score(cases, "statements"), plain)


def run() -> dict[str, Any]:
    """Each set's counts, or ``skipped`` with the reason."""
    result: dict[str, Any] = {}
    for key, build in (("longbench", _longbench), ("cof_chunk", _cof_chunk), ("cof_sentence", _cof_sentence)):
        result[key] = build() if available(FILES[key]) else {"skipped": missing(FILES[key])}
    return result


def rows(result: dict[str, Any]) -> list[tuple[str, str, str]]:
    """Rows for the ``python -m bench.eval`` table."""
    out = []
    for key, r in result.items():
        label = LABELS[key]
        if "skipped" in r:
            out.append((f"LongCite {label}", "skipped", r["skipped"]))
            continue
        out.append(
            (
                f"LongCite {label}: exact cited chunks",
                f"{r['exact']}/{r['cited_statements']}",
                (
                    f"statements found {r['found']}/{r['statements']}; citations resolved "
                    f"{r['resolved']}/{r['gold_citations']}; clean text {r['clean']}/{r['outputs']}; "
                    f"1-char stream = whole {r['streamed']}/{r['outputs']}"
                ),
            )
        )
        if "plain_text" in r:
            p = r["plain_text"]
            out.append(
                (
                    f"LongCite {label}, our own <Ci> numbering: exact",
                    f"{p['exact']}/{p['cited_statements']}",
                    f"our <Ci> numbering equals LongCite's on {r['numbering_agrees']}/{r['chunks']} chunks",
                )
            )
    return out


def main() -> None:
    for name, value, ref in rows(run()):
        print(f"{name:<70}  {value:>7}  {ref}")


if __name__ == "__main__":
    main()
