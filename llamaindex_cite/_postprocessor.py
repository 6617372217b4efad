"""``CitePostprocessor``: number the nodes so that any query engine's synthesizer can cite them."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator
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
    CitationPrompt,
    citation_instructions,
    parse_answer,
    split_sentences,
)

from ._convert import CITE_AS_KEY, SENTENCES_KEY, SOURCE_NUMBER_KEY, annotate, number_nodes, renumber_nodes
from ._recorder import recorded_answer, start_recording
from ._streaming import AsyncCitedStreamingResponse, CitedStreamingResponse

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

    @classmethod
    def class_name(cls) -> str:
        return "CitePostprocessor"

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        start_recording()
        numbered = number_nodes(nodes, merge=self.merge_chunks)
        if self.instruct and query_bundle is not None and numbered.sources:
            rules = citation_instructions(len(numbered.sources))
            if rules not in query_bundle.query_str:  # the engine hands this bundle on to its synthesizer
                query_bundle.query_str = f"{query_bundle.query_str}\n\n{rules}"
        out: list[NodeWithScore] = []
        for number, group in numbered.nodes.items():
            for node in group:
                spans = split_sentences(node.node.get_content(metadata_mode=MetadataMode.NONE))
                values = {SOURCE_NUMBER_KEY: number, SENTENCES_KEY: [list(span) for span in spans]}
                out.append(annotate(node, values, shown={CITE_AS_KEY: f"[{number}]"}))
        numbered_ids = {id(node) for group in numbered.nodes.values() for node in group}
        return out + [node for node in nodes if id(node) not in numbered_ids]

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
        if isinstance(response, StreamingResponse) and response.response_txt is None and _unread(response):
            return self._stream(CitedStreamingResponse, response.response_gen, response.source_nodes)
        return self._cite(self._text(response), response.source_nodes)

    async def acite(self, response: RESPONSE_TYPE) -> RESPONSE_TYPE:
        """``cite()`` for any response, async streaming ones included (not read yet: renumbered tokens)."""
        if isinstance(response, AsyncStreamingResponse):
            if response.response_txt is None:  # not read through async_response_gen(): maybe not at all
                tokens = _tokens_or_recorded(response.response_gen, _openings(response.source_nodes))
                return self._stream(AsyncCitedStreamingResponse, tokens, response.source_nodes)
            response = await response.get_response()
        return self.cite(response)

    def _stream(self, kind: Any, tokens: Any, nodes: list[NodeWithScore]) -> Any:
        """A cited streaming response (``kind``) whose ``tokens`` cite the numbered ``nodes``."""
        numbered = renumber_nodes(nodes)
        shown = CitationPrompt(messages=[], sources=numbered.sources)
        return kind.start(tokens, numbered, shown, unsupported_threshold=self.unsupported_threshold)

    @staticmethod
    def _text(response: RESPONSE_TYPE) -> str:
        """The answer's text; for a stream already consumed, the text LlamaIndex's events recorded."""
        if isinstance(response, StreamingResponse) and response.response_txt is None:
            text = "".join(response.response_gen)
            if text:
                response.response_txt = text
                return text
            return recorded_answer(_openings(response.source_nodes)) or ""
        return str(response)

    def _cite(self, text: str, nodes: list[NodeWithScore]) -> Response:
        numbered = renumber_nodes(nodes)
        answer = parse_answer(text, numbered.sources, unsupported_threshold=self.unsupported_threshold)
        return numbered.response(answer, raw=text)


def _unread(response: StreamingResponse) -> bool:
    """Whether the response's token generator has not started yet (nobody has read a token)."""
    tokens = response.response_gen
    return inspect.isgenerator(tokens) and inspect.getgeneratorstate(tokens) == inspect.GEN_CREATED


async def _tokens_or_recorded(tokens: AsyncIterator[str], openings: list[str]) -> AsyncIterator[str]:
    """The tokens not read yet; when there are none (the stream was read), the recorded answer."""
    read = False
    async for token in tokens:
        read = True
        yield token
    if not read:
        yield recorded_answer(openings) or ""


def _openings(nodes: list[NodeWithScore]) -> list[str]:
    """The first characters of each node's text: how the recorder finds the prompt that showed them."""
    texts = [node.node.get_content(metadata_mode=MetadataMode.NONE).strip() for node in nodes]
    return [text[:80] for text in texts if text]
