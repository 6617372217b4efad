"""``CiteSynthesizer``: a LlamaIndex response synthesizer whose answers cite the nodes it is given."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, Literal

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.base.response.schema import RESPONSE_TYPE
from llama_index.core.callbacks import CallbackManager
from llama_index.core.callbacks.schema import CBEventType, EventPayload
from llama_index.core.constants import DEFAULT_NUM_OUTPUTS
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.events.synthesis import (
    GetResponseEndEvent,
    GetResponseStartEvent,
    SynthesizeEndEvent,
    SynthesizeStartEvent,
)
from llama_index.core.llms import LLM
from llama_index.core.response_synthesizers.base import BaseSynthesizer, QueryTextType
from llama_index.core.schema import NodeWithScore, QueryBundle

from cite_core import (
    DEFAULT_UNSUPPORTED_THRESHOLD,
    CitationPrompt,
    TokenBudgetError,
    build_prompt,
    parse_answer,
    token_counter,
)

from ._convert import NumberedNodes, number_nodes
from ._streaming import AsyncCitedStreamingResponse, CitedStreamingResponse

__all__ = ["CiteSynthesizer"]

dispatcher = get_dispatcher(__name__)


class CiteSynthesizer(BaseSynthesizer):
    """A response synthesizer that answers with citations: ``response_synthesizer=CiteSynthesizer()``.

    The nodes become numbered sources (chunks of one document share a number) shown whole in one
    LLM call, within the token budget: when they do not all fit, the lowest-ranked are dropped whole
    (``metadata["dropped_sources"]``), so the numbering the model sees is the one the parser uses and
    every label shown stays valid. The ``Response`` has the renumbered text, only the cited nodes and
    the metadata ``CiteQueryEngine`` gives; with ``streaming=True`` the tokens are already renumbered.
    """

    def __init__(
        self,
        llm: LLM | None = None,
        streaming: bool = False,
        callback_manager: CallbackManager | None = None,
        *,
        merge_chunks: bool = True,
        style: Literal["markers", "sentences", "statements"] = "markers",
        max_prompt_tokens: int | None = None,
        answer_tokens: int | None = None,
        unsupported_threshold: float = DEFAULT_UNSUPPORTED_THRESHOLD,
        system_template: str | None = None,
        user_template: str | None = None,
        encoding: Any = None,
        chat_history: Sequence[ChatMessage] = (),
    ) -> None:
        super().__init__(llm=llm, callback_manager=callback_manager, streaming=streaming)
        self.merge_chunks = merge_chunks
        """Give chunks of one document (same file_path or ref_doc_id) one number and one reference."""
        self.style = style
        """Cite sources by ``[n]`` markers, numbered sentences by ``[n:s]`` markers, or (``statements``)
        sentences numbered across sources in the LongCite format ``<statement>S<cite>[a-b]</cite>``."""
        self.max_prompt_tokens = max_prompt_tokens
        """Token budget of the prompt; default: the LLM's context window minus ``answer_tokens``."""
        self.answer_tokens = answer_tokens
        """Room left for the answer; default: the LLM's ``num_output`` (or 256)."""
        self.unsupported_threshold = unsupported_threshold
        """Citations whose support is below this are listed as unsupported on the cited answer."""
        self.system_template = system_template
        self.user_template = user_template
        self.encoding = encoding
        """tiktoken encoding (name, object or str -> int function) for the budget."""
        self.chat_history = list(chat_history)
        """Messages put between the instructions and the sources (a chat engine's history)."""

    @property
    def llm(self) -> LLM:
        """The LLM that writes the answer."""
        return self._llm

    # -- prompt -------------------------------------------------------------------------------------

    def prompt(self, query: str, nodes: Sequence[NodeWithScore]) -> tuple[NumberedNodes, CitationPrompt]:
        """Number the nodes and build the one prompt that shows them (whole sources, within budget).

        cite_core drops whole sources, lowest ranked first. When the top source alone is too big (chunks
        of one document merged), the lowest-ranked nodes are left out instead, whole, until it fits.
        """
        nodes = list(nodes)
        try:
            return self._prompt(query, nodes)
        except TokenBudgetError:
            if not self.merge_chunks or len(nodes) < 2:
                raise
        fits, too_many = 0, len(nodes)  # binary search for the most top-ranked nodes that fit
        best: tuple[NumberedNodes, CitationPrompt] | None = None
        while too_many - fits > 1:
            middle = (fits + too_many) // 2
            try:
                best, fits = self._prompt(query, nodes[:middle]), middle
            except TokenBudgetError:
                too_many = middle
        if best is None:
            raise TokenBudgetError(
                f"not even the top-ranked node fits the prompt budget of {self.budget()} tokens"
            )
        best[0].left_out = [*best[0].left_out, *nodes[fits:]]
        return best

    def _prompt(self, query: str, nodes: list[NodeWithScore]) -> tuple[NumberedNodes, CitationPrompt]:
        numbered = number_nodes(nodes, merge=self.merge_chunks)
        prompt = build_prompt(
            query,
            numbered.sources,
            style=self.style,
            max_tokens=self.budget(),
            encoding=self.encoding,
            system_template=self.system_template,
            user_template=self.user_template,
        )
        return numbered, prompt

    def budget(self) -> int:
        """The prompt's token budget."""
        if self.max_prompt_tokens is not None:
            return self.max_prompt_tokens
        meta = self._llm.metadata
        answer = self.answer_tokens or (meta.num_output if meta.num_output > 0 else DEFAULT_NUM_OUTPUTS)
        count = token_counter(self.encoding)
        history = sum(count(str(m.content or "")) + 4 for m in self.chat_history)
        return max(meta.context_window - answer - history, 1)

    def messages(self, prompt: CitationPrompt) -> list[ChatMessage]:
        """The chat messages: instructions, the chat history, then the sources and question."""
        system, *rest = [ChatMessage(role=m["role"], content=m["content"]) for m in prompt.messages]
        return [system, *self.chat_history, *rest]

    def _get_prompts(self) -> dict[str, Any]:
        return {}  # the prompt is cite_core's (templates: system_template / user_template)

    def _update_prompts(self, prompts: dict[str, Any]) -> None:
        return None

    # -- BaseSynthesizer ----------------------------------------------------------------------------

    def get_response(self, query_str: str, text_chunks: Sequence[str], **kwargs: Any) -> str:
        """The cited answer's text over plain text chunks (each one a source)."""
        nodes = [NodeWithScore(node=_text_node(t)) for t in text_chunks]
        return str(self.synthesize(query_str, nodes))

    async def aget_response(self, query_str: str, text_chunks: Sequence[str], **kwargs: Any) -> str:
        """The cited answer's text over plain text chunks (each one a source)."""
        nodes = [NodeWithScore(node=_text_node(t)) for t in text_chunks]
        return str(await self.asynthesize(query_str, nodes))

    @dispatcher.span
    def synthesize(
        self,
        query: QueryTextType,
        nodes: list[NodeWithScore],
        additional_source_nodes: Sequence[NodeWithScore] | None = None,
        **response_kwargs: Any,
    ) -> RESPONSE_TYPE:
        """Answer ``query`` over ``nodes`` with citations (events and callbacks as LlamaIndex's own)."""
        bundle = QueryBundle(query_str=query) if isinstance(query, str) else query
        dispatcher.event(SynthesizeStartEvent(query=bundle))
        with self._callback_manager.event(
            CBEventType.SYNTHESIZE, payload={EventPayload.QUERY_STR: bundle.query_str}
        ) as event:
            numbered, prompt = self.prompt(bundle.query_str, nodes)
            dispatcher.event(GetResponseStartEvent(query_str=bundle.query_str, text_chunks=_texts(prompt)))
            messages = self.messages(prompt)
            if self._streaming:
                deltas = (r.delta or "" for r in self._llm.stream_chat(messages))
                response: RESPONSE_TYPE = CitedStreamingResponse.start(
                    deltas, numbered, prompt, unsupported_threshold=self.unsupported_threshold
                )
            else:
                raw = self._llm.chat(messages).message.content or ""
                response = self.respond(numbered, prompt, raw)
            dispatcher.event(GetResponseEndEvent())
            event.on_end(payload={EventPayload.RESPONSE: response})
        dispatcher.event(SynthesizeEndEvent(query=bundle, response=response))
        return response

    @dispatcher.span
    async def asynthesize(
        self,
        query: QueryTextType,
        nodes: list[NodeWithScore],
        additional_source_nodes: Sequence[NodeWithScore] | None = None,
        **response_kwargs: Any,
    ) -> RESPONSE_TYPE:
        """``synthesize`` with the LLM's async calls."""
        bundle = QueryBundle(query_str=query) if isinstance(query, str) else query
        dispatcher.event(SynthesizeStartEvent(query=bundle))
        with self._callback_manager.event(
            CBEventType.SYNTHESIZE, payload={EventPayload.QUERY_STR: bundle.query_str}
        ) as event:
            numbered, prompt = self.prompt(bundle.query_str, nodes)
            dispatcher.event(GetResponseStartEvent(query_str=bundle.query_str, text_chunks=_texts(prompt)))
            messages = self.messages(prompt)
            if self._streaming:
                deltas = _adeltas(await self._llm.astream_chat(messages))
                response: RESPONSE_TYPE = AsyncCitedStreamingResponse.start(
                    deltas, numbered, prompt, unsupported_threshold=self.unsupported_threshold
                )
            else:
                raw = (await self._llm.achat(messages)).message.content or ""
                response = self.respond(numbered, prompt, raw)
            dispatcher.event(GetResponseEndEvent())
            event.on_end(payload={EventPayload.RESPONSE: response})
        dispatcher.event(SynthesizeEndEvent(query=bundle, response=response))
        return response

    def respond(self, numbered: NumberedNodes, prompt: CitationPrompt, raw: str) -> RESPONSE_TYPE:
        """The cited ``Response`` for the model's ``raw`` answer to ``prompt``."""
        answer = parse_answer(
            raw, prompt.sources, unsupported_threshold=self.unsupported_threshold, style=prompt.style
        )
        return numbered.response(answer, raw=raw, shown=prompt.sources, dropped=prompt.dropped)


def _texts(prompt: CitationPrompt) -> list[str]:
    return [source.text for source in prompt.sources]


def _text_node(text: str) -> Any:
    from llama_index.core.schema import TextNode

    return TextNode(text=text)


async def _adeltas(responses: AsyncIterator[Any]) -> AsyncIterator[str]:
    async for response in responses:
        yield response.delta or ""
