"""A follow-up that names a number reaches the source the reader saw under it (issue 31): "What else does
[2] say?" in ``CiteChatEngine`` retrieved whatever the rewritten question found (the rewrite read the
answers with their markers removed). Now the rewrite reads the numbers and their titles, the named
source joins the turn's nodes (from an earlier turn, or found by its title after a reload), the model
reads the question in the turn's numbering, and the answer shows the source as [2] again."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory import ChatMemoryBuffer
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from llamaindex_cite import CiteChatEngine
from tests.llamaindex.test_chat_conversation import ScriptedChatLLM

HARBOUR = TextNode(
    text="The harbour was dredged in 1931 so steamers could dock.",
    id_="harbour",
    metadata={"title": "Harbour"},
)
MARKET = TextNode(
    text="The fish market moved to the new quay in 1933. Its stalls were roofed in 1935.",
    id_="market",
    metadata={"title": "Market ledger"},
)
CHURCH = TextNode(text="The church was rebuilt in stone in 1890.", id_="church", metadata={"title": "Parish"})


class QueryRetriever(BaseRetriever):
    """The first turn finds the harbour and the market; any other query the church, except a title."""

    def __init__(self) -> None:
        super().__init__()
        self.queries: list[str] = []

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        self.queries.append(query_bundle.query_str)
        if query_bundle.query_str == "Harbour?":
            found = [HARBOUR, MARKET]
        elif query_bundle.query_str == "Market ledger":
            found = [MARKET]
        else:
            found = [CHURCH]
        return [NodeWithScore(node=n, score=1.0) for n in found]


FIRST = "It was dredged [1]; the market moved [2]."
FOLLOW_UP = "What else does [2] say?"


def ask(chat: CiteChatEngine, question: str, how: str) -> Any:
    if how == "chat":
        return chat.chat(question)
    if how == "stream_chat":
        reply = chat.stream_chat(question)
        assert "".join(reply.response_gen) == str(reply)
        return reply
    if how == "achat":
        return asyncio.run(chat.achat(question))

    async def astream() -> Any:
        reply = await chat.astream_chat(question)
        assert "".join([t async for t in reply.async_response_gen()]) == str(reply)
        return reply

    return asyncio.run(astream())


def engine(replies: list[str], **kwargs: Any) -> tuple[CiteChatEngine, ScriptedChatLLM, QueryRetriever]:
    llm, retriever = ScriptedChatLLM(replies=replies), QueryRetriever()
    return CiteChatEngine.from_defaults(retriever, llm=llm, **kwargs), llm, retriever


def sources_and_question(prompt: Any) -> str:
    return str(prompt[-1].content)


@pytest.mark.parametrize("how", ["chat", "stream_chat", "achat", "astream_chat"])
def test_a_follow_up_naming_a_number_reaches_that_source(how: str) -> None:
    chat, llm, retriever = engine([FIRST, "Its stalls were roofed in 1935 [1]."])
    assert chat.chat("Harbour?").response == FIRST
    reply = ask(chat, FOLLOW_UP, how)
    assert str(reply) == "Its stalls were roofed in 1935 [2]."  # the reader's 2: the market
    assert [n.node.node_id for n in reply.source_nodes] == ["market"]
    rewrite = str(llm.prompts[1][0].content)  # the question rewrite read the numbers and their titles
    assert "the market moved [2]" in rewrite and "[2] Market ledger" in rewrite
    assert retriever.queries == ["Harbour?", "Market?"]  # the rewrite found the church: the market was added
    shown = sources_and_question(llm.prompts[-1])
    assert '<source number="1" title="Market ledger">' in shown and "Parish" in shown
    assert "What else does [1] say?" in shown  # the question in the turn's numbering
    history = [m.content for m in chat.chat_history]
    assert history[-2:] == [FOLLOW_UP, "Its stalls were roofed in 1935 [2]."]


def test_after_a_reload_the_named_source_is_found_by_its_title() -> None:
    chat, _, _ = engine([FIRST])
    chat.chat("Harbour?")
    saved = json.dumps([m.model_dump(mode="json") for m in chat.chat_history])
    memory = ChatMemoryBuffer.from_defaults(
        chat_history=[ChatMessage.model_validate(m) for m in json.loads(saved)]
    )
    again, llm, retriever = engine(["Its stalls were roofed in 1935 [1]."], memory=memory)
    reply = again.chat(FOLLOW_UP)
    assert retriever.queries == ["Market?", "Market ledger"]
    assert str(reply) == "Its stalls were roofed in 1935 [2]."  # the market is [2] in this turn too
    assert [n.node.node_id for n in reply.source_nodes] == ["market"]
    assert "What else does [1] say?" in sources_and_question(llm.prompts[-1])


def test_the_user_messages_of_the_history_are_read_in_the_turns_numbering() -> None:
    chat, llm, _ = engine([FIRST, "Roofed in 1935 [1].", "Rebuilt in 1890 [1]."])
    chat.chat("Harbour?")
    chat.chat(FOLLOW_UP)
    chat.chat("And the church?")  # the market is not among this turn's sources: its [2] is not shown
    users = [str(m.content) for m in llm.prompts[-1] if m.role == MessageRole.USER]
    assert users[:2] == ["Harbour?", "What else does say?"]


def test_a_number_no_answer_gave_adds_nothing_and_a_question_without_markers_is_kept() -> None:
    chat, llm, retriever = engine([FIRST, "Rebuilt in 1890 [1]."])
    chat.chat("Harbour?")
    reply = chat.chat("What does [7] say, and [the church]?")
    assert [n.node.node_id for n in reply.source_nodes] == ["church"]
    assert retriever.queries == ["Harbour?", "Market?"]
    assert "What does say, and [the church]?" in sources_and_question(llm.prompts[-1])
