"""``CitePostprocessor``: number the nodes so that any query engine's synthesizer can cite them."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Iterator
from typing import Any

from llama_index.core.base.response.schema import (
    RESPONSE_TYPE,
    AsyncStreamingResponse,
    Response,
    StreamingResponse,
)
from llama_index.core.bridge.pydantic import Field
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle

from cite_core import (
    DEFAULT_UNSUPPORTED_THRESHOLD,
    ArgumentError,
    CitationPrompt,
    citation_instructions,
    parse_answer,
    refuse_options,
    split_sentences,
)

from ._budget import fitted_instructions
from ._callers import check_postprocessor_caller
from ._calls import aiterate
from ._convert import CITE_AS_KEY, SENTENCES_KEY, SOURCE_NUMBER_KEY, annotate, number_nodes, renumber_nodes
from ._options import ELSEWHERE
from ._reasoning import CUT_OFF, last_cut_off, watch_cut_off
from ._streaming import AsyncCitedStreamingResponse, CitedStreamingResponse
from ._ticket_answers import answer_of, asked_a_model, cut_off_of, openings, release, was_read
from ._tickets import QUERY_KEY, open_ticket

__all__ = ["CitePostprocessor"]


class CitePostprocessor(BaseNodePostprocessor):
    """Number the nodes as sources ``[1]..[N]`` for whatever synthesizer follows.

    Each returned node (a copy) carries in its metadata ``source_number`` and ``source_sentences``
    (half-open sentence spans of its text), hidden from the LLM, and ``cite_as: [n]``, shown to it.
    Chunks of one document share a number and are grouped at the rank of the best one. Nodes without
    text are kept, unnumbered, at the end. Put it last in ``node_postprocessors=[...]``, tell the model
    to cite (``instructions()``), then ``cite(response)`` gives a response with only the cited nodes.
    """

    merge_chunks: bool = Field(
        default=True, description="Give chunks of one document (same ref_doc_id) one number."
    )
    instruct: bool = Field(
        default=True,
        description="Add cite_core's citation instructions to the query the synthesizer sees.",
    )
    unsupported_threshold: float = Field(
        default=DEFAULT_UNSUPPORTED_THRESHOLD,
        description="Citations whose support is below this are listed as unsupported by cite().",
    )
    llm: Any = Field(
        default=None,
        exclude=True,
        description="The engine's LLM: its context window bounds the instructions (default: Settings.llm "
        "when set; without either, cite_core's full instructions).",
    )

    def __init__(self, **data: Any) -> None:
        """Options of the engine (``calibration``, ``verify``, ``judge``, ``streaming``) raise an
        ``ArgumentError`` naming where they go: pydantic would otherwise keep them and nothing read them."""
        refuse_options("CitePostprocessor", data, ELSEWHERE["CitePostprocessor"])
        super().__init__(**data)

    @classmethod
    def class_name(cls) -> str:
        return "CitePostprocessor"

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        check_postprocessor_caller()
        numbered = number_nodes(nodes, merge=self.merge_chunks)
        edited = None
        if self.instruct and query_bundle is not None and numbered.sources:
            rules = fitted_instructions(len(numbered.sources), query_bundle.query_str, self.llm)
            if rules not in query_bundle.query_str:  # the engine hands this bundle on to its synthesizer
                edited = f"{query_bundle.query_str}\n\n{rules}"
        ticket = open_ticket(
            query_bundle, edited, openings(nodes)
        )  # the bundle gets its own text back when the query ends
        out: list[NodeWithScore] = []
        for number, group in numbered.nodes.items():
            for node in group:
                spans = split_sentences(node.node.get_content(metadata_mode=MetadataMode.NONE))
                values = {
                    SOURCE_NUMBER_KEY: number,
                    SENTENCES_KEY: [list(span) for span in spans],
                    QUERY_KEY: ticket,
                }
                out.append(annotate(node, values, shown={CITE_AS_KEY: f"[{number}]"}))
        numbered_ids = {id(node) for group in numbered.nodes.values() for node in group}
        return out + [node for node in nodes if id(node) not in numbered_ids]

    async def _apostprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        # in this task, not in a worker thread (LlamaIndex's default): the query's ticket is set here
        return self._postprocess_nodes(nodes, query_bundle)

    @staticmethod
    def instructions(count: int) -> str:
        """Instructions (cite_core's) telling a model to cite ``count`` numbered sources with ``[n]``."""
        return citation_instructions(count)

    def cite(self, response: RESPONSE_TYPE) -> RESPONSE_TYPE:
        """Parse a response of an engine that used this postprocessor: only the cited nodes, renumbered.

        A stream not read yet gives a ``CitedStreamingResponse`` whose tokens are already renumbered
        (cite_core's display deltas); a stream already read (``for t in response.response_gen``) is
        cited from the text it carried. ``metadata`` carries the cited answer as for ``CiteQueryEngine``.
        """
        if isinstance(response, AsyncStreamingResponse):
            raise TypeError("an async streaming response: use 'await postprocessor.acite(response)'")
        if isinstance(response, StreamingResponse) and response.response_txt is None:
            if not response.source_nodes:  # nothing retrieved: no model call, LlamaIndex's placeholder
                answered = _answered("".join(response.response_gen))
                return self._stream(CitedStreamingResponse, iter(answered), [], asked=bool(answered))
            if _unread(response):
                release(response.source_nodes)
                tokens = _then_cut_off(response.response_gen, response.source_nodes)
                return self._stream(CitedStreamingResponse, tokens, response.source_nodes)
            "".join(response.response_gen)  # read the rest: the LLM call ends, its end event has the text
            response.response_txt = answer_of(response.source_nodes)
        # no text (response_mode="no_text"; LlamaIndex's str() reads "None") is an empty answer; nothing
        # retrieved gives LlamaIndex's placeholder "Empty Response", which no model wrote
        text = (response.response or "") if isinstance(response, Response) else str(response)
        if not response.source_nodes and not _answered(text):
            return self._cite("", [], raw=text, not_asked="no_sources")
        if not text.strip() and response.source_nodes and not asked_a_model(response.source_nodes):
            return self._cite("", response.source_nodes, raw=text, not_asked="no_text")
        if _context_only(text, response.source_nodes):
            raise ArgumentError(
                "CitePostprocessor.cite: this response is the retrieved context "
                '(response_mode="context_only"), not a model\'s answer: its cite_as labels are not '
                "citations. Cite an answer of another response_mode, or read the numbered nodes from "
                "response.source_nodes"
            )
        return self._cite(text, response.source_nodes)

    async def acite(self, response: RESPONSE_TYPE) -> RESPONSE_TYPE:
        """``cite()`` for any response, async streaming ones included (not read yet: renumbered tokens)."""
        if isinstance(response, AsyncStreamingResponse):
            if response.response_txt is None:  # not read through async_response_gen(): maybe not at all
                nodes = response.source_nodes
                if not nodes:  # nothing retrieved: no model call, LlamaIndex's placeholder
                    text = "".join([token async for token in response.response_gen])
                    answered = _answered(text)
                    tokens = aiterate(answered)
                    return self._stream(AsyncCitedStreamingResponse, tokens, [], asked=bool(answered))
                if not was_read(nodes, response.response_gen):
                    release(nodes)
                    tokens = _athen_cut_off(response.response_gen, nodes)
                    return self._stream(AsyncCitedStreamingResponse, tokens, nodes)
                async for _ in response.response_gen:  # read the rest: the LLM call ends
                    pass
                whole = [answer_of(nodes), CUT_OFF] if cut_off_of(nodes) else [answer_of(nodes)]
                tokens = aiterate(whole)  # this query's whole answer, as one token
                return self._stream(AsyncCitedStreamingResponse, tokens, nodes)
            response = await response.get_response()
        return self.cite(response)

    def _stream(self, kind: Any, tokens: Any, nodes: list[NodeWithScore], *, asked: bool = True) -> Any:
        """A cited streaming response (``kind``) whose ``tokens`` cite the numbered ``nodes``; ``asked``:
        False when nothing was retrieved and no model was asked (the answer's note says so)."""
        numbered = renumber_nodes(nodes)
        numbered.no_model_asked = None if asked else "no_sources"
        shown = CitationPrompt(messages=[], sources=numbered.sources)
        return kind.start(tokens, numbered, shown, unsupported_threshold=self.unsupported_threshold)

    def _cite(
        self, text: str, nodes: list[NodeWithScore], raw: str | None = None, not_asked: Any = None
    ) -> Response:
        numbered = renumber_nodes(nodes)
        numbered.no_model_asked = not_asked  # why no model was asked, when none was
        answer = parse_answer(
            text,
            numbered.sources,
            unsupported_threshold=self.unsupported_threshold,
            truncated=cut_off_of(nodes),  # the LLM call's end event said it stopped at its token limit
        )
        return numbered.response(answer, raw=text if raw is None else raw)


EMPTY_RESPONSE = "Empty Response"
"""What LlamaIndex's synthesizers answer, without asking the model, when no node reached them."""


def _context_only(text: str, nodes: list[NodeWithScore]) -> bool:
    """Whether ``text`` is the nodes as the model would read them, joined (LlamaIndex's ``context_only``
    mode answers with them, asking no model): each begins with its ``cite_as: [n]`` label."""
    return text == "\n\n".join(n.node.get_content(metadata_mode=MetadataMode.LLM) for n in nodes)


def _answered(text: str) -> list[str]:
    """The answer of a response without source nodes: none for LlamaIndex's placeholder (or no text),
    which no model wrote and whose words would be cited as an answer; else its text (an engine of
    another kind answered without nodes)."""
    return [] if text.strip() in ("", EMPTY_RESPONSE) else [text]


def _then_cut_off(tokens: Any, nodes: list[NodeWithScore]) -> Iterator[Any]:
    """The engine's tokens, then ``CUT_OFF`` when the LLM call they came from stopped at its token
    limit (known once the stream ended: its end event carries the finish reason)."""
    watch_cut_off()
    yield from tokens
    if last_cut_off() or cut_off_of(nodes):
        yield CUT_OFF


async def _athen_cut_off(tokens: Any, nodes: list[NodeWithScore]) -> AsyncIterator[Any]:
    watch_cut_off()
    async for token in tokens:
        yield token
    if last_cut_off() or cut_off_of(nodes):
        yield CUT_OFF


def _unread(response: StreamingResponse) -> bool:
    """Whether the response's token generator has not started yet (nobody has read a token)."""
    tokens = response.response_gen
    return inspect.isgenerator(tokens) and inspect.getgeneratorstate(tokens) == inspect.GEN_CREATED
