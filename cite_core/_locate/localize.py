"""Find the exact sentence(s) of a source that support a claim, and build the citation for them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any

from .._exceptions import ArgumentError, NativeError
from .._schema.citations import citation_for_span
from .._schema.events import char_location
from .._schema.models import Citation, Source
from .._schema.source import IMAGE_KEY, SourceAnalysis, Unit, analysis_of, layout_problem
from .._schema.utf16 import has_astral
from .._sources.analysis import corpus_frequencies, source_terms, source_units, unit_counts
from .._sources.chunk_analyser import NativeUnits
from .._sources.stopwords import STOP
from .._sources.terms import _TOKEN
from .._sources.unit_index import index_of
from .candidates import MAX_CANDIDATES
from .dense import DenseModel, cosine
from .hybrid import hybrid_support, mean_vector
from .scorer import _FAILED, SCORER, NativeScorer
from .scoring import ClaimTerms, TermStats, support
from .span import best_span, top_units

__all__ = ["Corpus", "source_stats"]

SOURCE_UNITS = 5
"""``support`` is the better of the cited span's support and that of the source's this many best
matching units read together: a long claim is often supported by several sentences of its source,
while the span cites one (WiCE dev: supported claims flagged 0.31 -> 0.06 at the calibrated threshold).
"""


def source_stats(source: Source) -> TermStats:
    """Term statistics over one source's units, cached on it."""
    analysis = analysis_of(source)
    stats = analysis.stats
    if not isinstance(stats, TermStats):  # None until computed
        stats = analysis.stats = TermStats.from_units(u.terms for u in source_units(source))
    return stats


def _check_sources(sources: list[Source], by_number: dict[int, Source]) -> None:
    """Sources a citation could silently misquote: two with one number (every ``[n]`` would cite the
    last), or one whose segments are no longer its text (a copy or an assignment after validation)."""
    if len(by_number) != len(sources):
        numbers = [s.number for s in sources]
        twice = next(n for n in numbers if numbers.count(n) > 1)
        raise ArgumentError(
            f"sources: two sources are numbered {twice}; number them together (number_sources, or a "
            "CitationSession across calls) so that each [n] means one source"
        )
    for source in sources:
        analysis = analysis_of(source)  # a new one when its text or segments changed since
        if not analysis.laid_out:
            problem = layout_problem(source)
            if problem:
                raise ArgumentError(f"sources: source {source.number}: {problem}")
            analysis.laid_out = True


class Corpus:
    """The sources of one answer, with term statistics over all their units (built on first use).

    With ``embeddings`` (anything ``embedding_scorer`` accepts), dense similarity is mixed into the
    choice of the cited sentence and into ``support``; a source's units are embedded the first time it
    is cited (one batch with the claim), and kept in the vector cache."""

    def __init__(
        self, sources: Sequence[Source], *, embeddings: Any = None, source_units: int = SOURCE_UNITS
    ) -> None:
        self.sources = list(sources)
        self.source_units = source_units
        self.by_number = {s.number: s for s in self.sources}
        _check_sources(self.sources, self.by_number)
        self._stats: TermStats | None = None
        self._claims: dict[str, ClaimTerms] = {}
        """Each claim's terms, built once: a claim cited by several sources is analysed once."""
        self.dense = DenseModel(embeddings) if embeddings is not None else None
        self.asked: list[tuple[Source, str]] | None = None
        """When a list: every (source, claim) ``cite`` is asked for is added to it (a planning pass, whose
        requests ``prefetch`` then embeds in one call)."""
        self._compiled: dict[int, _Compiled | None] = {}
        """id(source) -> what the compiled path of ``cite`` reads of it, found on its first citation
        (None: that source takes the general path)."""

    def prefetch(self, requests: Iterable[tuple[Source, str]]) -> None:
        """Embed, in one call to the model, every claim of ``requests`` and every unit of the sources they
        cite that the vector cache lacks: ``cite`` then finds them all there (``parse_answer`` makes one
        call per answer instead of one per citation). Without an embedding model, nothing."""
        if self.dense is None:
            return
        texts: dict[str, None] = {}
        cited: set[int] = set()
        for source, claim in requests:
            if not claim.strip():
                continue  # cite embeds nothing for an empty claim
            texts[claim] = None
            if source.number not in cited:
                cited.add(source.number)
                texts.update(dict.fromkeys(source.text[u.start : u.end] for u in source_units(source)))
        if texts:
            self.dense.vectors(list(texts))

    @property
    def stats(self) -> TermStats:
        if self._stats is None:
            found = corpus_frequencies(self.sources)
            if found is not None:  # summed in Rust from the chunks' compiled analyses
                self._stats = TermStats.from_frequencies(*found)
            else:
                # one counting pass over every unit (not a merge of per-source statistics, whose lazy
                # document-frequency sums cost 20 dict lookups per term for 20 sources); the units' term
                # counts serve BM25 later
                counted = [unit_counts(s) for s in self.sources]
                self._stats = TermStats.from_groups([c for c, _ in counted], [n for _, n in counted])
        return self._stats

    def _claim(self, claim: str) -> ClaimTerms:
        """The claim's terms and their idf, computed once for BM25, coverage and support (and kept)."""
        claim_terms = self._claims.get(claim)
        if claim_terms is None:
            claim_terms = self._claims[claim] = ClaimTerms.from_text(claim, self.stats)
        return claim_terms

    def claim_terms(self, claim: str) -> tuple[str, ...]:
        """The terms of ``claim`` (``terms.analyze``'s), from the analysis its citations then use."""
        return self._claim(claim).terms

    def cite(
        self, source: Source, claim: str, *, reference: int, sentences: tuple[int, int] | None = None
    ) -> Citation:
        """The citation of ``source`` for ``claim``: explicit 1-based sentence range, else the best match."""
        if self.asked is not None:
            self.asked.append((source, claim))
        if sentences is None and self.dense is None and type(SCORER) is NativeScorer:
            compiled = self._compiled.get(id(source), _UNSEEN)  # not try/except: a KeyError per source
            if compiled is _UNSEEN:  # the source's first citation
                compiled = self._compiled[id(source)] = self._compile(source)
            if compiled is not None and compiled[0] is source:
                citation = self._cite_compiled(compiled, claim, reference)
                if citation is not None:
                    return citation
        return self._cite(source, claim, reference, sentences)

    def _compile(self, source: Source) -> _Compiled | None:
        """What ``_cite_compiled`` reads of ``source``, or None for a source the general path cites: an
        image (its caption stands for all of it), a source the compiled scorer cannot index."""
        units = source_units(source)
        if IMAGE_KEY in source.metadata and units:
            return None
        index = index_of(source)
        native = SCORER._compiled(index)  # type: ignore[attr-defined]
        if native is None:
            return None
        # a text whose chunks knew no start offset, without astral characters: ``citation_for_span``
        # gives the char_location of the source's own offsets, UTF-16 offsets the same (a loop, not
        # all() over a generator: a generator object per source)
        plain = source.kind == "text"
        for seg in source.segments:
            plain = plain and seg.doc_start is None
        plain = plain and not has_astral(source.text)
        best = self.source_units > 1 and len(units) > 1
        params = SCORER._params(MAX_CANDIDATES, self.source_units)  # type: ignore[attr-defined]
        # a chunk's units are made when read, each with its term tuple: the cited span's offsets are
        # read from their lists instead (all in segment 0)
        bounds = units.bounds() if isinstance(units, NativeUnits) else None
        return (source, analysis_of(source), units, native, self.stats.avg_len, params, best, plain, bounds)

    def _cite_compiled(self, compiled: _Compiled, claim: str, reference: int) -> Citation | None:
        """``_cite`` without explicit sentences or embeddings, through the compiled scorer's one call
        (``NativeScorer.cite``) and, for a plain text, ``citation_for_span``'s usual case in one call;
        None when the general path must answer (a claim Python analysed whose compiled form is not
        built yet, a source whose text or segments changed, a term without a UTF-8 form)."""
        source, analysis, units, native, avg_len, params, best, plain, bounds = compiled
        if analysis_of(source) is not analysis or (IMAGE_KEY in source.metadata and units):
            return None
        claim_terms = self._claims.get(claim) or self._claim(claim)
        support = claim_terms.__dict__.get("_native_support")
        if support is None:
            return None
        try:
            first, last, score = support.cite(
                native,
                avg_len,
                params,
                _verbatim(claim, source.text, units),
                best and bool(claim_terms.terms),
            )
        except UnicodeEncodeError:
            return None
        except SCORER._panic as exc:  # type: ignore[attr-defined]
            raise NativeError(_FAILED.format(exc)) from exc
        score = round(score, 4)  # rounding is monotone (NativeScorer.cite)
        if first is None or last is None:
            seg = source.segments[0]
            start, end, seg_index = seg.start, seg.end, 0
        elif bounds is not None:
            start, end, seg_index = bounds[0][first], bounds[1][last], 0
        else:
            start, end, seg_index = units[first].start, units[last].end, units[first].segment
        if plain and reference >= 0:
            text = source.text
            return char_location(
                text[start:end],
                source.number - 1,
                source.title,
                reference,
                score,
                start,
                end,
                0,
                seg_index,
                (start, end),
            )
        return citation_for_span(source, start, end, reference=reference, support=score, segment=seg_index)

    def _cite(
        self, source: Source, claim: str, reference: int, sentences: tuple[int, int] | None
    ) -> Citation:
        """``cite`` by the general path: explicit sentences, embeddings, the reference scorer."""
        units = source_units(source)
        claim_terms = self._claims.get(claim) or self._claim(claim)
        top: list[int] | None = None
        if IMAGE_KEY in source.metadata and units:  # an image: its caption stands for all of it
            sentences = (1, len(units))
        first, last = _explicit_span(units, sentences)
        index = index_of(source)
        vectors = None
        if self.dense is not None and claim.strip():
            vectors = self.dense.vectors([claim, *(source.text[u.start : u.end] for u in units)])
        score: float | None = None
        if first is None:
            if vectors:
                dense = [cosine(vectors[0], v) for v in vectors[1:]]
                first, last, scores = self._best(source, claim_terms, units, dense, claim)
                top = None if scores is None else top_units(scores, self.source_units)
            elif vectors is None:  # one call locates the span and gives its support (compiled or Python)
                verbatim = _verbatim(claim, source.text, units)
                first, last, score = SCORER.cite(
                    index,
                    claim_terms,
                    self.stats.avg_len,
                    verbatim,
                    MAX_CANDIDATES,
                    self.source_units,
                    partial(source_terms, source),  # the compiled support never asks for it
                )
            else:  # embeddings that gave no vector (an empty list): located as without them
                verbatim = _verbatim(claim, source.text, units)
                first, last, top = SCORER.locate(
                    index, claim_terms, self.stats.avg_len, verbatim, MAX_CANDIDATES, self.source_units
                )
        cited: Sequence[int]
        if first is None or last is None:  # _best gives both or neither
            seg = source.segments[0]
            start, end, seg_index = seg.start, seg.end, 0
            cited = [i for i, u in enumerate(units) if u.segment == 0]
        else:
            start, end, seg_index = units[first].start, units[last].end, units[first].segment
            cited = range(first, last + 1)
        if score is not None:  # located and supported in one call
            return citation_for_span(
                source, start, end, reference=reference, support=score, segment=seg_index
            )
        every = source_terms(source)
        best_units = top if claim_terms.terms and self.source_units > 1 and len(units) > 1 else None
        if vectors is None:
            score = SCORER.support(index, claim_terms, cited, every)
            if best_units is not None:  # the best units read together, in unit order
                score = max(score, SCORER.support(index, claim_terms, best_units, every))
        else:  # with embeddings, the reference's support (the dense path is Python's throughout)
            score = support(claim_terms, [t for i in cited for t in units[i].terms], every)
            if best_units is not None:
                score = max(
                    score, support(claim_terms, [t for i in best_units for t in units[i].terms], every)
                )
        if vectors:
            lo, hi = (first, last) if first is not None and last is not None else (0, len(units) - 1)
            span = [v for u, v in zip(units[lo : hi + 1], vectors[1 + lo : hi + 2]) if u.segment == seg_index]
            score = hybrid_support(score, cosine(vectors[0], mean_vector(span)))
        return citation_for_span(source, start, end, reference=reference, support=score, segment=seg_index)

    def _best(
        self,
        source: Source,
        claim: ClaimTerms,
        units: Sequence[Unit],
        dense: list[float] | None = None,
        claim_text: str = "",
    ) -> tuple[int | None, int | None, list[float] | dict[int, float] | None]:
        """The cited span and the scores it was picked from, in Python (``span.best_span``; with ``dense``:
        the BM25 scores mixed with those cosines)."""
        return best_span(
            index_of(source),
            claim,
            self.stats.avg_len,
            dense,
            _verbatim(claim_text, source.text, units),
            MAX_CANDIDATES,
        )


_Compiled = tuple[
    Source,
    SourceAnalysis,
    Sequence[Unit],
    Any,
    float,
    tuple[Any, ...],
    bool,
    bool,
    "tuple[list[int], list[int]] | None",
]
"""(source, its analysis, units, compiled index, average unit length, ``UnitIndex.locate``'s parameters,
whether the best units may be read together, whether a plain text, the units' starts and ends when
they are a chunk's ``NativeUnits``)."""

_UNSEEN: Any = object()
"""A source ``Corpus.cite`` has not compiled yet (None: one the general path cites)."""


def _explicit_span(units: Sequence[Unit], sentences: tuple[int, int] | None) -> tuple[int | None, int | None]:
    """The first and last unit of an explicit 1-based sentence range (cut at the end of the segment
    of its first: a citation never spans two chunks, pages or blocks); (None, None) without one, or for a
    range the source does not have."""
    if sentences is not None:
        lo, hi = sentences
        if 1 <= lo <= hi <= len(units):
            first, last = lo - 1, hi - 1
            while units[last].segment != units[first].segment:
                last -= 1
            return first, last
    return None, None


def _verbatim(claim: str, text: str, units: Sequence[Unit]) -> Callable[[int], int]:
    """How many of the claim's words unit ``i`` holds as written (asked on a tie only)."""
    words: list[frozenset[str]] = []  # the claim's words, found on the first tie

    def verbatim(i: int) -> int:
        if not words:
            words.append(_words(claim))
        return len(words[0] & _words(text[units[i].start : units[i].end]))

    return verbatim


def _words(text: str) -> frozenset[str]:
    """The distinct lower-cased words of a text as written (stop words aside). The stemmer gives
    "married" and "marries" one term, so two units can tie where only one says what the claim says:
    ``span.pick`` then prefers the unit holding more of the claim's words verbatim (asked on a tie only)."""
    return frozenset(w for w in _TOKEN.findall(text.lower()) if w not in STOP)
