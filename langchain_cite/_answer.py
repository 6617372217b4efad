"""``CitedRagAnswer``: a cite_core ``CitedAnswer`` whose references reach the original ``Document``\\ s."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.documents import Document
from pydantic import Field

from cite_core import CitedAnswer, Reference, Source, source_key

__all__ = ["CitedRagAnswer", "DocumentReference", "rag_answer"]


class DocumentReference(Reference):
    """A reference with the retrieved ``Document``\\ s its source was built from."""

    documents: list[Document] = Field(default_factory=list, exclude=True)
    """The original chunks behind this reference, in rank order (several when chunks were merged)."""

    @property
    def page_labels(self) -> list[str]:
        """The printed page labels (``metadata["page_label"]``) of its documents, without repeats."""
        labels = [d.metadata.get("page_label") for d in self.documents]
        return list(dict.fromkeys(str(label) for label in labels if label not in (None, "")))

    @property
    def pages_shown(self) -> str | None:
        """The pages to show a reader: page labels when the documents have them, else physical pages."""
        labels = self.page_labels or [str(p) for p in self.source.pages]
        if not labels:
            return None
        return labels[0] if len(labels) == 1 else f"{labels[0]}–{labels[-1]}"


class CitedRagAnswer(CitedAnswer):
    """A ``CitedAnswer`` that also knows every source shown to the model (cited or not)."""

    references: list[DocumentReference]  # type: ignore[assignment]
    """Cited sources only, deduplicated, in order of first appearance; each with its ``documents``."""
    sources: list[Source] = Field(default_factory=list, exclude=True)
    """The numbered sources of this run; ``references`` are the cited ones among them."""
    numbering: list[dict[str, Any]] = Field(default_factory=list, exclude=True)
    """Every number the conversation gave so far (``{"number", "key"}``), this answer's included: a
    cited message carries it (``response_metadata["numbering"]``), so any suffix of a history restores
    the numbering."""

    @property
    def no_sources(self) -> bool:
        """Whether the retriever returned nothing: the model was told so and the answer cites nothing."""
        return not self.sources

    @property
    def documents(self) -> list[Document]:
        """Every cited ``Document``, in reference order."""
        return [d for ref in self.references for d in ref.documents]


def rag_answer(
    answer: CitedAnswer,
    sources: Sequence[Source],
    documents: Mapping[int, Sequence[Document]] | None = None,
    numbering: Sequence[Mapping[str, Any]] = (),
) -> CitedRagAnswer:
    """``answer`` with ``sources`` and, per reference, the documents of its source number; ``numbering``:
    the numbers the conversation gave before (this answer's references are added)."""
    documents = documents or {}
    references = [
        DocumentReference.model_construct(
            number=ref.number, source=ref.source, documents=list(documents.get(ref.source.number, ()))
        )
        for ref in answer.references
    ]
    known = {entry["number"]: dict(entry) for entry in numbering}
    for ref in answer.references:
        known.setdefault(ref.number, {"number": ref.number, "key": source_key(ref.source)})
    fields: dict[str, Any] = {**dict(answer), "references": references}
    return CitedRagAnswer.model_construct(
        **fields, sources=list(sources), numbering=[known[n] for n in sorted(known)]
    )
