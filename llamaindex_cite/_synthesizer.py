"""``CiteSynthesizer``: a LlamaIndex response synthesizer whose answers cite the nodes it is given."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Literal

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.base.response.schema import RESPONSE_TYPE
from llama_index.core.callbacks import CallbackManager
from llama_index.core.constants import DEFAULT_NUM_OUTPUTS
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.llms import LLM
from llama_index.core.prompts import BasePromptTemplate
from llama_index.core.response_synthesizers.base import BaseSynthesizer, QueryTextType
from llama_index.core.schema import NodeWithScore

from cite_core import DEFAULT_UNSUPPORTED_THRESHOLD, CitationPrompt, parse_answer, token_counter

from ._callers import check_engine_caller
from ._calls import DEFAULT_REFINE_PROMPT, CallPlan, ResponseMode, Run, adeltas, araw, deltas, verified
from ._chunks import TextChunkAnswers
from ._claude import ClaudeSources, ClaudeStream, is_claude
from ._convert import NumberedNodes, number_nodes
from ._images import with_images
from ._options import check_response_mode, refuse
from ._structured import asynthesize_structured, check_output_cls, synthesize_structured
from ._synthesis_events import synthesis_events

__all__ = ["CiteSynthesizer"]

dispatcher = get_dispatcher(__name__)


class CiteSynthesizer(TextChunkAnswers, BaseSynthesizer):
    """A response synthesizer that answers with citations: ``response_synthesizer=CiteSynthesizer()``.

    The nodes become numbered sources (chunks of one document share a number). When they do not fit
    one call, ``response_mode="compact"`` (the default) packs them into as few calls as fit and
    ``"refine"`` shows one per call, each later call refining the answer with its markers kept and the
    sources under their own numbers; ``"single"`` drops the lowest-ranked whole (``style="statements"``
    numbers sentences across the sources of one call, so it always makes one call). The ``Response`` has
    the renumbered text, only the cited nodes and the metadata ``CiteQueryEngine`` gives; with
    ``streaming=True`` the tokens are already renumbered. With llama-index-llms-anthropic's
    ``Anthropic`` (``native=None``), Claude's own citations are used instead of ``[n]`` markers.
    ``output_cls`` (a pydantic model): one structured call, the object's string fields cited (structured.md).
    """

    def __init__(
        self,
        llm: LLM | None = None,
        streaming: bool = False,
        callback_manager: CallbackManager | None = None,
        *,
        response_mode: ResponseMode = "compact",
        merge_chunks: bool = True,
        style: Literal["markers", "sentences", "statements"] = "markers",
        max_prompt_tokens: int | None = None,
        answer_tokens: int | None = None,
        unsupported_threshold: float = DEFAULT_UNSUPPORTED_THRESHOLD,
        system_template: str | None = None,
        user_template: str | None = None,
        refine_template: BasePromptTemplate | None = None,
        native: bool | None = None,
        encoding: Any = None,
        chat_history: Sequence[ChatMessage] = (),
        embeddings: Any = None,
        output_cls: Any = None,
        verify: Any = False,
        multimodal: bool = False,
        **refused: Any,
    ) -> None:
        refuse("CiteSynthesizer", refused)  # calibration=, judge=: where they go
        self.response_mode = check_response_mode(response_mode)  # sources over calls; before Settings.llm
        super().__init__(llm=llm, callback_manager=callback_manager, streaming=streaming)
        self._output_cls = check_output_cls(output_cls, streaming=streaming, native=native, verify=verify)
        self.merge_chunks = merge_chunks
        """Give chunks of one document (same file_path or ref_doc_id) one number and one reference."""
        self.style = style
        """``[n]`` markers, ``[n:s]`` sentence markers, or LongCite ``<statement>`` tags (``statements``)."""
        self.max_prompt_tokens = max_prompt_tokens
        """Token budget of each prompt; default: the LLM's context window minus ``answer_tokens``."""
        self.answer_tokens = answer_tokens
        """Room left for the answer; default: the LLM's ``num_output`` (or 256)."""
        self.unsupported_threshold = unsupported_threshold
        """Citations whose support is below this are listed as unsupported on the cited answer."""
        self.verify = verify
        """True (the LLM judges) or a judge: check every cited claim once the answer has ended."""
        self.multimodal = multimodal
        """Also show image sources as image blocks labelled with their numbers (cited by caption anyway)."""
        self.system_template = system_template
        self.user_template = user_template
        """Replace cite_core's system and user templates (the first call's)."""
        self.refine_template = refine_template
        """Later calls' prompt (``{query_str}``, ``{existing_answer}``, ``{context_msg}``; LlamaIndex's)."""
        self.native = native
        """Claude's own citations (search results); default: whether ``llm`` is Anthropic's LLM."""
        self.encoding = encoding
        """tiktoken encoding (name, object or str -> int function) for the budget."""
        self.chat_history = list(chat_history)
        """Messages put between the instructions and the sources (a chat engine's history)."""
        self.embeddings = embeddings
        """An embedding model (``Settings.embed_model``, the index's, any LlamaIndex or LangChain one, or
        a function from texts to vectors) mixed into finding the cited sentence and its support."""

    @property
    def llm(self) -> LLM:
        """The LLM that writes the answer."""
        return self._llm

    def prompt(self, query: str, nodes: Sequence[NodeWithScore]) -> tuple[NumberedNodes, CitationPrompt]:
        """Number the nodes and build the first call's prompt (see ``CallPlan``)."""
        numbered = number_nodes(list(nodes), merge=self.merge_chunks, images=self.multimodal)
        return numbered, CallPlan(self, query, numbered.sources).first()

    def budget(self) -> int:
        """The token budget of each prompt."""
        if self.max_prompt_tokens is not None:
            return self.max_prompt_tokens
        meta = self._llm.metadata
        answer = self.answer_tokens or (meta.num_output if meta.num_output > 0 else DEFAULT_NUM_OUTPUTS)
        count = token_counter(self.encoding)
        history = sum(count(str(m.content or "")) + 4 for m in self.chat_history)
        return max(meta.context_window - answer - history, 1)

    def messages(self, prompt: CitationPrompt, numbered: NumberedNodes | None = None) -> list[ChatMessage]:
        """The chat messages: instructions, the chat history, then the sources and question (with
        ``multimodal``, each image source's image after them, read from its node in ``numbered`` when
        the node holds it as bytes)."""
        system, *rest = [ChatMessage(role=m["role"], content=m["content"]) for m in prompt.messages]
        if self.multimodal and rest:
            rest[-1] = with_images(rest[-1], prompt.sources, numbered.nodes if numbered else None)
        return [system, *self.chat_history, *rest]

    def uses_claude(self) -> bool:
        """Whether answers come with Claude's own citations (``native``, by default for Anthropic's LLM)."""
        return self.native if self.native is not None else is_claude(self._llm)

    def _get_prompts(self) -> dict[str, Any]:
        return {"refine_template": self.refine_template or DEFAULT_REFINE_PROMPT}

    def _update_prompts(self, prompts: dict[str, Any]) -> None:
        if "refine_template" in prompts:
            self.refine_template = prompts["refine_template"]

    @verified(dispatcher.span)
    def synthesize(
        self,
        query: QueryTextType,
        nodes: list[NodeWithScore],
        additional_source_nodes: Sequence[NodeWithScore] | None = None,
        **response_kwargs: Any,
    ) -> RESPONSE_TYPE:
        """Answer ``query`` over ``nodes`` with citations (events and callbacks as LlamaIndex's own)."""
        with self._events(query, nodes) as run:
            if self._output_cls is not None:
                return synthesize_structured(self, run)
            prompt, llm = run.plan.first(), self._llm
            if self.uses_claude() and run.plan.shown:
                claude, messages = self._claude(run)
                if self._streaming:
                    stream = ClaudeStream(claude, unsupported_threshold=self.unsupported_threshold)
                    run.respond((r.raw for r in llm.stream_chat(messages)), stream=stream)
                else:
                    reply = llm.chat(messages)
                    answer, raw = claude.answer(reply, unsupported_threshold=self.unsupported_threshold)
                    run.respond(raw, answer=answer)
                return run.response
            while not run.plan.final:
                reply = llm.chat(self.messages(prompt, run.numbered))
                following = run.plan.next(reply.message.content or "")
                if following is None:  # nothing more fits beside the answer: it is final
                    run.reply(reply, self._streaming)
                    return run.response
                prompt = following
            if self._streaming:
                run.respond(deltas(llm.stream_chat(self.messages(prompt, run.numbered))))
            else:
                run.reply(llm.chat(self.messages(prompt, run.numbered)))
        return run.response

    @verified(dispatcher.span)
    async def asynthesize(
        self,
        query: QueryTextType,
        nodes: list[NodeWithScore],
        additional_source_nodes: Sequence[NodeWithScore] | None = None,
        **response_kwargs: Any,
    ) -> RESPONSE_TYPE:
        """``synthesize`` with the LLM's async calls."""
        with self._events(query, nodes) as run:
            if self._output_cls is not None:
                return await asynthesize_structured(self, run)
            prompt, llm = run.plan.first(), self._llm
            if self.uses_claude() and run.plan.shown:
                claude, messages = self._claude(run)
                if self._streaming:
                    stream = ClaudeStream(claude, unsupported_threshold=self.unsupported_threshold)
                    run.respond(araw(await llm.astream_chat(messages)), stream=stream)
                else:
                    reply = await llm.achat(messages)
                    answer, raw = claude.answer(reply, unsupported_threshold=self.unsupported_threshold)
                    run.respond(raw, answer=answer)
                return run.response
            while not run.plan.final:
                reply = await llm.achat(self.messages(prompt, run.numbered))
                following = run.plan.next(reply.message.content or "")
                if following is None:
                    run.reply(reply, self._streaming, aio=True)
                    return run.response
                prompt = following
            if self._streaming:
                run.respond(adeltas(await llm.astream_chat(self.messages(prompt, run.numbered))))
            else:
                run.reply(await llm.achat(self.messages(prompt, run.numbered)))
        return run.response

    def _events(self, query: QueryTextType, nodes: Sequence[NodeWithScore]) -> AbstractContextManager[Run]:
        """Number the nodes and plan the calls, between the events LlamaIndex's synthesizers fire (in any
        engine: where it answers is checked first, as ``CiteQueryEngine`` checks it)."""
        check_engine_caller("CiteSynthesizer", getattr(self, "session", None))  # SessionSynthesizer's
        return synthesis_events(self, dispatcher, query, nodes)

    def _claude(self, run: Run) -> tuple[ClaudeSources, list[ChatMessage]]:
        """One call to Claude: the sources that fit the budget as search results, the rest dropped."""
        run.plan.drop_rest()
        claude = ClaudeSources(run.plan.shown)
        return claude, claude.messages(run.plan.question, self.chat_history)

    def respond(self, numbered: NumberedNodes, prompt: CitationPrompt, raw: str, **kw: Any) -> RESPONSE_TYPE:
        """The cited ``Response`` for the model's ``raw`` answer (``reasoning=`` what it returned beside
        it), over the sources ``prompt`` shows."""
        options = {"style": prompt.style, "embeddings": self.embeddings, **kw}
        answer = parse_answer(
            raw, prompt.sources, unsupported_threshold=self.unsupported_threshold, **options
        )
        return numbered.response(answer, raw=raw, shown=prompt.sources, dropped=prompt.dropped)
