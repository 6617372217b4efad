"""The public names of langchain_cite, and the import direction between the packages."""

from __future__ import annotations

import subprocess
import sys

import langchain_cite

EXPORTED = [
    "AnswerResetText",
    "CitationOutputParser",
    "CitationSession",
    "CitationSources",
    "CitationsDelta",
    "CitedAnswer",
    "CitedRagAnswer",
    "CitedStructure",
    "DocumentReference",
    "Source",
    "StreamItem",
    "StructuredCitationParser",
    "TextDelta",
    "add_citations",
    "create_cited_rag_chain",
    "create_cited_retriever_tool",
    "document_to_item",
    "documents_to_sources",
    "from_message",
    "is_chat_anthropic",
    "to_ai_message",
    "tool_citation_instructions",
]


def test_exported_members() -> None:
    assert langchain_cite.__all__ == EXPORTED
    for name in EXPORTED:
        assert getattr(langchain_cite, name) is not None


def test_core_anthropic_module_imports_no_framework() -> None:
    code = (
        "import sys, cite_core._answer.anthropic; "
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "('langchain_core', 'langchain_anthropic', 'anthropic', "
        "'llama_index', 'langchain_cite')]; print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
