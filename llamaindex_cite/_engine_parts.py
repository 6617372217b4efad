"""What ``CiteQueryEngine`` answers with, built from its fields: its synthesizer and embedding model."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from llama_index.core.settings import Settings

from cite_core import SourceError

from ._synthesizer import CiteSynthesizer
from ._tools import SessionSynthesizer
from ._verify import verify_option

if TYPE_CHECKING:
    from ._query_engine import CiteQueryEngine

__all__ = ["engine_embed_model", "engine_synthesizer"]


def engine_synthesizer(engine: CiteQueryEngine) -> CiteSynthesizer:
    """The ``CiteSynthesizer`` of ``engine`` (a ``SessionSynthesizer`` with a ``session``)."""
    kind = CiteSynthesizer if engine.session is None else partial(SessionSynthesizer, engine.session)
    return kind(
        llm=engine.llm,
        streaming=engine.streaming,
        callback_manager=engine.callback_manager,
        response_mode=engine.response_mode,
        native=engine.native,
        merge_chunks=engine.merge_chunks,
        multimodal=engine.multimodal,
        style=engine.prompt_style,
        max_prompt_tokens=engine.max_prompt_tokens,
        answer_tokens=engine.answer_tokens,
        unsupported_threshold=engine.calibration.threshold_for(engine.unsupported_threshold)
        if engine.calibration is not None
        else engine.unsupported_threshold,
        system_template=engine.system_template,
        user_template=engine.user_template,
        encoding=engine.encoding,
        embeddings=engine.embed_model(),
        output_cls=engine.output_cls,
        verify=verify_option(engine.verify, engine.judge),
    )


def engine_embed_model(engine: CiteQueryEngine) -> Any:
    """The embedding model mixed into localisation and support: ``embeddings``; with ``semantic``, the
    retriever's (a vector index retriever's, which is its index's ``embed_model``), else
    ``Settings.embed_model``; None (lexical) otherwise."""
    if engine.embeddings is not None or not engine.semantic:
        return engine.embeddings
    model = getattr(engine.retriever, "_embed_model", None)  # VectorIndexRetriever: the index's model
    if model is not None:
        return model
    try:
        return Settings.embed_model
    except Exception as exc:  # LlamaIndex's default model needs an extra and an API key
        raise SourceError(
            f"semantic=True needs an embedding model, but {type(engine.retriever).__name__} has none and "
            f"Settings.embed_model could not be loaded ({exc}): set Settings.embed_model or pass "
            "embeddings="
        ) from exc
