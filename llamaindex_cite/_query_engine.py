"""``CiteQueryEngine``: retrieve, prompt once with numbered sources, return only the cited nodes."""

from __future__ import annotations

from typing import Any, Literal

from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.response.schema import RESPONSE_TYPE
from llama_index.core.bridge.pydantic import ConfigDict, Field, ValidationError
from llama_index.core.callbacks import CallbackManager
from llama_index.core.callbacks.schema import CBEventType, EventPayload
from llama_index.core.llms import LLM
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.prompts.mixin import PromptMixinType
from llama_index.core.schema import BaseComponent, NodeWithScore, QueryBundle
from llama_index.core.settings import Settings

from cite_core import DEFAULT_UNSUPPORTED_THRESHOLD, ArgumentError, CitationPrompt, FlagCalibration

from ._callers import check_engine_caller
from ._convert import NumberedNodes
from ._engine_parts import engine_embed_model, engine_synthesizer
from ._options import check_engine_options, check_response_mode
from ._structured import check_output_cls
from ._synthesizer import CiteSynthesizer

__all__ = ["CiteQueryEngine"]


class CiteQueryEngine(BaseComponent, BaseQueryEngine):
    """A query engine whose answers cite their sources, Anthropic-style, with any LLM.

    Retrieved nodes become numbered sources (chunks of one document share a number), whole; when they
    exceed one call, they are shown over several calls that keep one numbering (``response_mode``).
    The answer is parsed: ``str(response)`` has its ``[n]`` markers renumbered by first
    appearance, ``response.source_nodes`` holds only the cited nodes in reference order, and
    ``response.metadata`` the full cited answer (see ``docs/llamaindex.md``).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    retriever: BaseRetriever = Field(description="Finds the nodes to cite, best first.", exclude=True)
    llm: LLM = Field(description="Writes the answer; any LlamaIndex LLM.", exclude=True)
    node_postprocessors: list[BaseNodePostprocessor] = Field(
        default_factory=list, description="Applied to the retrieved nodes, in order, before numbering them."
    )
    streaming: bool = Field(
        default=False, description="Return a streaming response from query() and aquery()."
    )
    response_mode: Literal["compact", "refine", "single"] = Field(
        default="compact",
        description="When the sources do not fit one call: pack them into as few calls as fit (compact), "
        "one per call (refine), or drop the lowest-ranked (single); one numbering in every mode.",
    )
    native: bool | None = Field(
        default=None,
        description="Claude's own citations; default: whether llm is llama-index-llms-anthropic's Anthropic.",
    )
    multimodal: bool = Field(
        default=False,
        description="Show image sources to the model as image blocks labelled with their numbers.",
    )
    merge_chunks: bool = Field(
        default=True,
        description="Give chunks of one document (same ref_doc_id) one number and one reference.",
    )
    max_prompt_tokens: int | None = Field(
        default=None,
        description="Token budget of the prompt; default: the LLM's context window minus answer_tokens.",
    )
    answer_tokens: int | None = Field(
        default=None, description="Room left for the answer; default: the LLM's num_output (or 256)."
    )
    prompt_style: Literal["markers", "sentences", "statements"] = Field(
        default="markers",
        description="Cite sources by [n] markers, sentences by [n:s] markers, or in statements "
        "(<statement>S<cite>[a-b]</cite>, sentences numbered across sources).",
    )
    system_template: str | None = Field(
        default=None, description="Replaces cite_core's system prompt template."
    )
    user_template: str | None = Field(default=None, description="Replaces cite_core's user prompt template.")
    unsupported_threshold: float = Field(
        default=DEFAULT_UNSUPPORTED_THRESHOLD,
        description="Citations whose support is below this are listed as unsupported on the cited answer.",
    )
    encoding: Any = Field(
        default=None,
        exclude=True,
        description="tiktoken encoding (name, object or str -> int function) for the budget.",
    )
    semantic: bool = Field(
        default=False,
        description="Mix the retriever's embedding model (the index's embed_model, else "
        "Settings.embed_model) into finding the cited sentence and scoring its support.",
    )
    embeddings: Any = Field(
        default=None,
        exclude=True,
        description="The embedding model to mix in (any LlamaIndex or LangChain embedding, or a function "
        "from texts to vectors); default with semantic: the retriever's.",
    )
    output_cls: Any = Field(
        default=None,
        exclude=True,
        description="A pydantic model class: the answer is that object with its string fields cited "
        "(one call through llm.as_structured_llm; see docs/structured.md).",
    )
    calibration: FlagCalibration | None = Field(
        default=None, exclude=True, description="A flag threshold from cite_core.calibrate_flag."
    )
    verify: bool = Field(
        default=False,
        description="Check every cited claim with judge (default: llm) in one call once the answer has "
        'ended (cite_core.verify): metadata["verification"].',
    )
    judge: Any = Field(default=None, exclude=True, description="The model of verify (default: llm).")
    session: Any = Field(
        default=None,
        exclude=True,
        description="A llamaindex_cite.CitationSession shared by the engines an agent calls as "
        "QueryEngineTools: each answer shows its sources under their session numbers (one numbering across "
        "calls and tools; session.parse(final_answer) cites the agent's answer).",
    )
    callback_manager: CallbackManager = Field(default_factory=lambda: Settings.callback_manager, exclude=True)

    def __init__(self, **data: Any) -> None:
        """A wrong value is an ``ArgumentError`` naming the argument (pydantic's ``ValidationError`` named
        the model); LlamaIndex's ``ResponseMode`` values are taken, its other modes named."""
        if "response_mode" in data:
            data["response_mode"] = check_response_mode(data["response_mode"])
        try:
            super().__init__(**data)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc']))}: {e['msg']} (got {e.get('input')!r:.60})"
                for e in exc.errors()
            )
            raise ArgumentError(f"CiteQueryEngine: {problems}") from None
        if self.output_cls is not None:  # what a structured answer cannot be: said now, not at the query
            check_output_cls(
                self.output_cls, **{k: getattr(self, k) for k in ("streaming", "native", "verify", "judge")}
            )

    @classmethod
    def class_name(cls) -> str:
        return "CiteQueryEngine"

    @classmethod
    def from_args(cls, retriever: Any, llm: LLM | None = None, **kwargs: Any) -> CiteQueryEngine:
        """An engine over a retriever, or over an index (other keyword arguments go to ``as_retriever``).

        Options of LlamaIndex's ``CitationQueryEngine`` (``citation_chunk_size``, ...) raise an error naming
        the fix: passed on to ``as_retriever`` they would be silently ignored."""
        check_engine_options(kwargs)
        fields = {k: kwargs.pop(k) for k in list(kwargs) if k in cls.model_fields}
        if not isinstance(retriever, BaseRetriever):
            retriever = retriever.as_retriever(**kwargs)
        elif kwargs:
            raise TypeError(f"unexpected arguments for a retriever: {', '.join(sorted(kwargs))}")
        return cls(retriever=retriever, llm=llm or Settings.llm, **fields)

    def _get_prompt_modules(self) -> PromptMixinType:
        return {}

    # -- steps --------------------------------------------------------------------------------------

    def retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        nodes = self.retriever.retrieve(query_bundle)
        for postprocessor in self.node_postprocessors:
            nodes = postprocessor.postprocess_nodes(nodes, query_bundle=query_bundle)
        return nodes

    async def aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        nodes = await self.retriever.aretrieve(query_bundle)
        for postprocessor in self.node_postprocessors:
            nodes = await postprocessor.apostprocess_nodes(nodes, query_bundle=query_bundle)
        return nodes

    def synthesizer(self) -> CiteSynthesizer:
        """The ``CiteSynthesizer`` this engine answers with (built from its fields)."""
        return engine_synthesizer(self)

    def embed_model(self) -> Any:
        """The embedding model mixed into localisation and support (see ``engine_embed_model``)."""
        return engine_embed_model(self)

    def prompt(
        self, query_bundle: QueryBundle, nodes: list[NodeWithScore]
    ) -> tuple[NumberedNodes, CitationPrompt]:
        """Number the nodes and build the first call's prompt (see ``CiteSynthesizer.prompt``)."""
        return self.synthesizer().prompt(query_bundle.query_str, nodes)

    def synthesize(
        self, query_bundle: QueryBundle, nodes: list[NodeWithScore], additional_source_nodes: Any = None
    ) -> RESPONSE_TYPE:
        return self.synthesizer().synthesize(query_bundle, nodes)

    async def asynthesize(
        self, query_bundle: QueryBundle, nodes: list[NodeWithScore], additional_source_nodes: Any = None
    ) -> RESPONSE_TYPE:
        return await self.synthesizer().asynthesize(query_bundle, nodes)

    # -- BaseQueryEngine ----------------------------------------------------------------------------

    def _query(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        check_engine_caller("CiteQueryEngine", self.session)
        with self.callback_manager.event(
            CBEventType.QUERY, payload={EventPayload.QUERY_STR: query_bundle.query_str}
        ) as query_event:
            nodes = self.retrieve(query_bundle)  # the retriever fires its own retrieve events
            response = self.synthesize(query_bundle, nodes)
            query_event.on_end(payload={EventPayload.RESPONSE: response})
        return response

    async def _aquery(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        check_engine_caller("CiteQueryEngine", self.session)
        with self.callback_manager.event(
            CBEventType.QUERY, payload={EventPayload.QUERY_STR: query_bundle.query_str}
        ) as query_event:
            nodes = await self.aretrieve(query_bundle)
            response = await self.asynthesize(query_bundle, nodes)
            query_event.on_end(payload={EventPayload.RESPONSE: response})
        return response
