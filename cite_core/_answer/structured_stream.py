"""A structured answer cited as its JSON streams: partial objects in, partial objects renumbered out.

Structured output streams as a sequence of partial objects (LangChain's JSON parsers parse the JSON
received so far, closing what is open). ``StructuredCitationStream.update`` takes each one and returns
it with every string field's display text so far: each field has its own ``CitationStream`` (markers
renumbered by the one numbering of the object, an unfinished marker held back), fed only what the
field gained since the last partial. ``finish(final)`` gives the ``CitedStructure`` that
``cite_structured(final, sources)`` gives.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial as partial_call
from typing import Any, TypeVar

from .._exceptions import ArgumentError, StreamClosedError
from .._schema.models import CitedAnswer, DisplayDelta
from .._sources.prompt import PromptStyle
from .parser import DEFAULT_UNSUPPORTED_THRESHOLD, CitationStream
from .structured import (
    CitedStructure,
    build_structure,
    cite_structured,
    field_parser,
    replace_texts,
    string_fields,
)

__all__ = ["StructuredCitationStream"]

_T = TypeVar("_T")


class StructuredCitationStream:
    """Cite a structured answer while it streams: ``update(partial)`` per partial object, then ``finish``."""

    def __init__(
        self,
        sources: Sequence[Any],
        *,
        unsupported_threshold: float = DEFAULT_UNSUPPORTED_THRESHOLD,
        embeddings: Any = None,
        style: PromptStyle = "markers",
        display_numbers: Mapping[int, int] | None = None,
        first_new: int | None = None,
    ) -> None:
        """``display_numbers``/``first_new``: a conversation's numbers (as for ``cite_structured``)."""
        self._options: dict[str, Any] = {
            "unsupported_threshold": unsupported_threshold,
            "embeddings": embeddings,
            "style": style,
            "display_numbers": display_numbers,
            "first_new": first_new,
        }
        self.sources, self._new, self._numbers = field_parser(sources, display=True, **self._options)
        self._streams: dict[str, CitationStream] = {}  # the open field: at most one
        self._fed: dict[str, str] = {}  # path -> the text fed so far, in order of first appearance
        self._shown: dict[str, str] = {}  # path -> display text so far
        self._answers: dict[str, CitedAnswer] = {}  # fields closed because a later one began
        self._consistent = True
        """False once a partial contradicted an earlier one (a field changed other than by growing, or
        grew after a later field began): ``finish`` then parses the final object afresh."""
        self._numbering: set[str] = set()  # paths whose text numbered a source first
        self._done: CitedStructure | None = None

    def update(self, partial: Any) -> Any:
        """``partial`` (a dict, list or model: the object received so far) with each string field's
        display text so far, renumbered; non-string fields as they are."""
        if self._done is not None:
            raise StreamClosedError("StructuredCitationStream.update called after finish()")
        if partial is None:
            return None
        if isinstance(partial, str):
            raise ArgumentError("StructuredCitationStream.update expects a partial object, got a str")
        for path, text in string_fields(partial):
            fed = self._fed.get(path)
            if fed is None:
                self._open(path)
                fed = ""
            if text == fed:
                continue
            stream = self._streams.get(path)
            if stream is None or not text.startswith(fed):
                self._consistent = False  # finish parses afresh; the partial keeps what it showed
                continue
            events = self._counted(path, partial_call(stream.feed, text[len(fed) :]))
            self._shown[path] += "".join(e.text for e in events if isinstance(e, DisplayDelta))
            self._fed[path] = text
        return replace_texts(partial, "", self._shown)

    def _counted(self, path: str, step: Callable[[], _T]) -> _T:
        """``step()``, noting ``path`` when it numbered a source the object had not cited yet."""
        before = len(self._numbers)
        result = step()
        if len(self._numbers) > before:
            self._numbering.add(path)
        return result

    def _open(self, path: str) -> None:
        """A new field begins: the open one is complete (JSON is written one value after the other)."""
        for done, stream in self._streams.items():
            answer = self._answers[done] = self._counted(done, stream.finish)
            self._shown[done] = answer.text
        self._streams = {path: self._new()}
        self._fed[path] = self._shown[path] = ""

    def finish(self, final: Any) -> CitedStructure:
        """The ``CitedStructure`` of the validated final object (equal to ``cite_structured(final, ...)``)."""
        if self._done is not None:
            return self._done
        fields = dict(string_fields(final))
        streamed = [path for path in self._fed if path in fields]
        reuse = (
            self._consistent
            and streamed == list(fields)
            # a string of the JSON that the final object does not hold as text (an enum's value) must
            # not have taken a display number
            and not any(path not in fields for path in self._numbering)
            and all(
                text.startswith(self._fed[path]) and (path in self._streams or text == self._fed[path])
                for path, text in fields.items()
            )
        )
        if not reuse:  # keys in another order than streamed, or a field not streamed as it ends
            self._done = cite_structured(final, self.sources, **self._options)
            return self._done
        answers = dict(self._answers)
        for path, stream in self._streams.items():
            if path in fields:
                stream.feed(fields[path][len(self._fed[path]) :])
                answers[path] = stream.finish()
        self._done = build_structure(
            final,
            {path: answers[path] for path in fields},
            self.sources,
            self._numbers,
            self._options["unsupported_threshold"],
        )
        return self._done
