"""Issue 11 item 3: string or dict input, chat history in the prompt, RunnableWithMessageHistory,
and condensed (standalone) retrieval queries."""

from __future__ import annotations

import pytest
from langchain_core.chat_history import InMemoryChatMessageHistory
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.runnables.history import RunnableWithMessageHistory

from cite_core import PromptError
from langchain_cite import create_cited_rag_chain
from langchain_cite._messages import message_text

from .conftest import needs_content_blocks
from .fakes import ScriptedChatModel

SUN = Document(page_content="The Sun's core is about 15 million kelvin.", metadata={"title": "Sun"})
MOON = Document(page_content="The Moon has no atmosphere.", metadata={"title": "Moon"})


class Recorder:
    """A retriever that records its queries."""

    def __init__(self) -> None:
        self.queries: list[str] = []

    def __call__(self, query: str) -> list[Document]:
        self.queries.append(query)
        return [MOON, SUN]


def test_string_and_dict_input_give_the_same_answer() -> None:
    llm = FakeListChatModel(responses=["It is 15 million kelvin [2]."] * 2)
    chain = create_cited_rag_chain(RunnableLambda(Recorder()), llm)
    assert chain.invoke("How hot is the Sun?") == chain.invoke({"question": "How hot is the Sun?"})


def test_history_goes_between_instructions_and_question() -> None:
    llm = ScriptedChatModel(replies=[AIMessage(content="About 15 million kelvin [2].")])
    chain = create_cited_rag_chain(RunnableLambda(Recorder()), llm)
    history = [HumanMessage("Tell me about the Sun."), AIMessage("It is a star.")]
    answer = chain.invoke({"question": "How hot is its core?", "chat_history": history})
    assert answer.text == "About 15 million kelvin [1]."
    [prompt] = llm.prompts
    assert isinstance(prompt[0], SystemMessage) and prompt[1:3] == history
    assert isinstance(prompt[3], HumanMessage) and "How hot is its core?" in prompt[3].content


def test_bad_input_names_what_was_expected() -> None:
    chain = create_cited_rag_chain(RunnableLambda(Recorder()), FakeListChatModel(responses=["x"]))
    with pytest.raises(PromptError, match='"question"'):
        chain.invoke({"query": "How hot?"})


@pytest.mark.parametrize("output", [pytest.param("message", marks=needs_content_blocks), "text"])
def test_runnable_with_message_history(output: str) -> None:
    store: dict[str, InMemoryChatMessageHistory] = {}
    llm = ScriptedChatModel(
        replies=[AIMessage(content="It is a star [2]."), AIMessage(content="About 15 million kelvin [2].")]
    )
    chain = create_cited_rag_chain(RunnableLambda(Recorder()), llm, output=output)
    with_history = RunnableWithMessageHistory(
        chain,
        lambda session_id: store.setdefault(session_id, InMemoryChatMessageHistory()),
        input_messages_key="question",
        history_messages_key="chat_history",
    )
    config = {"configurable": {"session_id": "s1"}}
    with_history.invoke({"question": "What is the Sun?"}, config)
    second = with_history.invoke({"question": "How hot is its core?"}, config)
    text = second.content[0]["text"] if output == "message" else second
    assert text == "About 15 million kelvin [1]."
    messages = store["s1"].messages
    assert [m.type for m in messages] == ["human", "ai", "human", "ai"]
    assert message_text(messages[1]) == "It is a star [1]."  # the renumbered answer is what the history keeps
    assert llm.prompts[1][1] == messages[0]
    # the model reads the earlier answer in this call's numbering (the Sun is source 2 here); plain text
    # says nothing of what [1] meant, so its marker is not shown (issue 22)
    assert message_text(llm.prompts[1][2]) == (
        "It is a star [2]." if output == "message" else "It is a star."
    )


def test_condense_question_rewrites_the_follow_up_for_retrieval() -> None:
    retriever = Recorder()
    llm = ScriptedChatModel(
        replies=[
            AIMessage(content=" How hot is the core of the Sun? "),
            AIMessage(content="About 15 million kelvin [2]."),
        ]
    )
    chain = create_cited_rag_chain(RunnableLambda(retriever), llm, condense_question=True)
    history = [HumanMessage("Tell me about the Sun."), AIMessage("It is a star [1].")]
    answer = chain.invoke({"question": "How hot is its core?", "chat_history": history})
    assert retriever.queries == ["How hot is the core of the Sun?"]
    assert "Tell me about the Sun." in llm.prompts[0][-1].content  # the rewrite saw the conversation
    assert "How hot is its core?" in llm.prompts[1][-1].content  # the answer replies to the user's words
    assert answer.text == "About 15 million kelvin [1]."


def test_condense_question_without_history_asks_nothing_extra() -> None:
    retriever = Recorder()
    llm = ScriptedChatModel(replies=[AIMessage(content="A star [1].")])
    chain = create_cited_rag_chain(RunnableLambda(retriever), llm, condense_question=True)
    assert chain.invoke("What is the Moon?").text == "A star [1]."
    assert retriever.queries == ["What is the Moon?"] and len(llm.prompts) == 1
