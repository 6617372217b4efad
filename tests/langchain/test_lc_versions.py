"""Issue 11 item 6: langchain-core 0.3 (no ``langchain_core.messages.content``) imports and runs the
chains; what needs 1.x says so, naming the installed version. The real 0.3 run is
scripts/test-langchain-versions.sh."""

from __future__ import annotations

import sys

import langchain_core
import pytest
from langchain_core.runnables import RunnableLambda

from cite_core import MissingDependencyError
from langchain_cite import CitationOutputParser, create_cited_rag_chain, to_ai_message
from langchain_cite._compat import has_content_blocks as _has_content_blocks

from .conftest import ANSWER, corpus


def test_the_installed_version_is_supported() -> None:
    major, minor = (int(part) for part in langchain_core.__version__.split(".")[:2])
    assert (0, 3) <= (major, minor) < (2, 0)


@pytest.mark.skipif(_has_content_blocks(), reason="langchain-core 1.x has content blocks")
def test_on_0_3_message_output_names_the_version() -> None:
    with pytest.raises(
        MissingDependencyError, match=f"langchain-core {langchain_core.__version__} is installed"
    ):
        CitationOutputParser(output="message")


@pytest.mark.skipif(not _has_content_blocks(), reason="content blocks are already missing")
def test_features_needing_1x_name_the_version(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain_core.messages.content", None)  # import now fails
    monkeypatch.delattr(sys.modules["langchain_core.messages"], "content", raising=False)
    version = langchain_core.__version__
    with pytest.raises(MissingDependencyError, match=f"langchain-core>=1.0.*{version}"):
        CitationOutputParser(output="message")
    with pytest.raises(MissingDependencyError, match=f"langchain-core {version} is installed"):
        create_cited_rag_chain(RunnableLambda(lambda q: []), RunnableLambda(lambda m: m), output="message")
    answer = CitationOutputParser().invoke({"sources": corpus(), "message": ANSWER})
    with pytest.raises(MissingDependencyError, match=r"to_ai_message needs langchain-core>=1\.0"):
        to_ai_message(answer)
    assert answer.text.endswith("[2].")  # everything else works


@pytest.mark.skipif(not _has_content_blocks(), reason="content blocks are already missing")
def test_on_0_3_a_cited_answer_in_the_history_keeps_one_numbering(monkeypatch: pytest.MonkeyPatch) -> None:
    """A CitedAnswer in chat_history raised MissingDependencyError on 0.3 (it went through to_ai_message,
    whose annotations need 1.x): the numbering across turns needs only its text and references."""
    from langchain_core.messages import AIMessage, HumanMessage

    from .test_lc_conversation_chain import REPLIES, SHOWN, ScriptedChatModel, retriever

    def second_turn() -> str:
        llm = ScriptedChatModel(replies=[AIMessage(content=r) for r in REPLIES[:2]])
        answers = create_cited_rag_chain(retriever, llm)
        first = answers.invoke("Moon?")
        second = answers.invoke({"question": "Mars?", "chat_history": [HumanMessage("Moon?"), first]})
        return second.text

    with_blocks = second_turn()
    monkeypatch.setitem(sys.modules, "langchain_core.messages.content", None)  # as on 0.3
    monkeypatch.delattr(sys.modules["langchain_core.messages"], "content", raising=False)
    assert second_turn() == with_blocks == SHOWN[1][0]
