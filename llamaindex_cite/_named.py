"""The sources a chat's follow-up names by number: "What else does [2] say?" reaches the source the
reader saw as [2], whatever the retriever finds for the rewritten question."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from llama_index.core.schema import NodeWithScore
from llama_index.core.tools import ToolOutput

from cite_core import source_key

from ._conversation import Conversation
from ._convert import number_nodes

__all__ = ["NamedSources"]


class NamedSources:
    """The nodes behind each source a chat engine's turns showed, by the key its references keep."""

    def __init__(self, merge: bool) -> None:
        self.merge = merge
        self._nodes: dict[str, list[NodeWithScore]] = {}
        self._lock = threading.Lock()

    def keyed(self, nodes: Sequence[NodeWithScore]) -> dict[str, list[NodeWithScore]]:
        """``nodes`` by the key of the source they make (numbered as the turn numbers them)."""
        numbered = number_nodes(list(nodes), merge=self.merge)
        return {source_key(s): numbered.nodes[s.number] for s in numbered.sources}

    def unseen(self, ref: Mapping[str, Any]) -> bool:
        """Whether the source of ``ref`` is one no turn of this engine showed (a reloaded chat) and has a
        title to search it by."""
        return bool(ref.get("title")) and ref["key"] not in self._nodes

    def missing(self, conversation: Conversation, message: str, nodes: Sequence[NodeWithScore]) -> list[Any]:
        """The references of the numbers ``message`` names whose sources ``nodes`` do not hold."""
        shown = self.keyed(nodes)
        return [ref for ref in conversation.named(message) if ref["key"] not in shown]

    def find(self, ref: Mapping[str, Any], retrieved: Sequence[NodeWithScore]) -> list[NodeWithScore]:
        """The nodes of the source ``ref`` names: those an earlier turn showed, else those among
        ``retrieved`` (found by its title) that make it; none when neither has it."""
        with self._lock:
            known = self._nodes.get(ref["key"])
        return list(known) if known is not None else self.keyed(retrieved).get(ref["key"], [])

    def joined(
        self, source: ToolOutput, named: list[NodeWithScore], nodes: list[NodeWithScore]
    ) -> tuple[ToolOutput, list[NodeWithScore]]:
        """The turn's nodes: the named sources first (the user asked about them), then those retrieved;
        remembered for later turns."""
        ids = {n.node.node_id for n in nodes}
        joined = [n for n in named if n.node.node_id not in ids] + nodes
        with self._lock:
            self._nodes.update(self.keyed(joined))
        if len(joined) == len(nodes):
            return source, nodes
        raw_input = source.raw_input
        source = ToolOutput(
            tool_name=source.tool_name, content=str(joined), raw_input=raw_input, raw_output=joined
        )
        return source, joined
