"""The public names of cite_core are pinned; importing it imports no framework."""

from __future__ import annotations

import subprocess
import sys

import cite_core

EXPECTED = {
    "DEFAULT_UNSUPPORTED_THRESHOLD",
    "AnthropicCitationStream",
    "CharLocation",
    "Citation",
    "CitationPrompt",
    "CitationSession",
    "CitationStream",
    "CitationsDelta",
    "CiteError",
    "CitedAnswer",
    "DisplayDelta",
    "ContentBlockLocation",
    "Messages",
    "MissingDependencyError",
    "PageLocation",
    "PromptError",
    "Reference",
    "Segment",
    "Source",
    "SourceError",
    "StreamEvent",
    "TextBlock",
    "TextDelta",
    "ThinkingDelta",
    "TokenBudgetError",
    "TokenizerUnavailableError",
    "__version__",
    "attribute",
    "build_messages",
    "build_prompt",
    "citation_instructions",
    "extractive_answer",
    "format_sources",
    "from_anthropic_content",
    "get_encoding",
    "number_sources",
    "parse_answer",
    "pdf_pages",
    "render_html",
    "render_markdown",
    "safe_url",
    "split_sentences",
    "to_anthropic_documents",
    "token_counter",
}


def test_exported_names() -> None:
    assert set(cite_core.__all__) >= EXPECTED
    for name in cite_core.__all__:
        assert hasattr(cite_core, name), name


def test_contract_names_exist() -> None:
    from cite_core import CitationStream, build_messages, number_sources, parse_answer, split_sentences  # noqa: F401


def test_core_imports_no_framework() -> None:
    code = (
        "import sys, cite_core\n"
        "s = cite_core.number_sources(['The grass is green.'])\n"
        "cite_core.parse_answer('Green [1].', s).to_html()\n"
        "cite_core.build_messages('q?', s, max_tokens=500)\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "('langchain_core', 'langchain', 'llama_index', 'qdrant_client', 'numpy', 'torch')]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
