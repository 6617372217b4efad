"""Four pages of one PDF merge into one source; max_tokens=2000 shows the best-ranked pages that fit
instead of raising TokenBudgetError (issue 23 item 12)."""

from __future__ import annotations

from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.runnables import RunnableLambda

from langchain_cite import create_cited_rag_chain

PAGES = [" ".join(f"Page {p} sentence {i} is about topic {p}." for i in range(100)) for p in range(1, 5)]


def page(number: int) -> Document:
    """As PyPDFLoader writes a page: 0-based ``page``, the file as ``source``."""
    return Document(page_content=PAGES[number - 1], metadata={"source": "report.pdf", "page": number - 1})


def test_merged_pdf_pages_fit_the_budget_by_whole_pages() -> None:
    retriever = RunnableLambda(lambda q: [page(3), page(1), page(4), page(2)])
    chain = create_cited_rag_chain(
        retriever, FakeListChatModel(responses=["Topic 3 is covered [1]."]), max_tokens=2000
    )
    answer = chain.invoke("What about topic 3?")
    [citation] = answer.citations
    assert citation.type == "page_location" and citation.start_page_number == 3
    assert citation.cited_text in PAGES[2]
    assert [seg.page for seg in answer.references[0].source.segments] == [3]
