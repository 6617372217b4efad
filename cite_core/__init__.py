"""cite_core: Anthropic-style citations for any LLM, with no framework dependency.

Number retrieved chunks as sources, prompt any chat model to cite them with ``[n]`` markers, and parse
the answer (whole or streaming) into Anthropic-shaped cited text with a reference list built only from
the markers that appear. All character offsets are 0-based and half-open (``text[start:end]``).
"""

from types import FunctionType

from ._answer.anthropic import (
    AnthropicCitationStream,
    SearchResultBlocks,
    from_anthropic_content,
    to_anthropic_documents,
)
from ._answer.attribute import attribute
from ._answer.brief import brief_citation_instructions
from ._answer.calibrate import FlagCalibration, calibrate_flag
from ._answer.conversation import condense_question_messages, tool_citation_instructions
from ._answer.extractive import extractive_answer
from ._answer.native import detect_provider, from_native
from ._answer.parser import DEFAULT_UNSUPPORTED_THRESHOLD, CitationStream, parse_answer
from ._answer.session import SOURCES_RECORD_KEY, CitationSession, source_key
from ._answer.structured import CitedStructure, InvalidMarker, cite_structured
from ._answer.structured_stream import StructuredCitationStream
from ._answer.verify import averify, verify
from ._args import refuse_options
from ._exceptions import (
    ArgumentError,
    CiteError,
    MissingDependencyError,
    NativeError,
    PromptError,
    SourceError,
    StreamClosedError,
    TokenBudgetError,
    TokenizerUnavailableError,
    TruncatedOutputError,
)
from ._locate.rescore import SupportScorer, embedding_scorer, rescore
from ._render import (
    AI_SDK_HEADERS,
    Note,
    answer_notes,
    ato_ai_sdk_stream,
    content_security_policy,
    reference_entries,
    render_html,
    render_markdown,
    render_terminal,
    safe_url,
    strip_controls,
    to_ai_sdk_stream,
)
from ._schema.metadata import page_from_metadata
from ._schema.models import (
    AnswerReset,
    CharLocation,
    Citation,
    CitationsDelta,
    CitedAnswer,
    Claim,
    ContentBlockLocation,
    DisplayDelta,
    MarkerGroup,
    PageLocation,
    Reference,
    Segment,
    Source,
    StreamEvent,
    TextBlock,
    TextDelta,
    ThinkingDelta,
)
from ._schema.source import IMAGE_KEY
from ._schema.support import SupportLevel
from ._schema.verdicts import Verdict, VerdictLevel, Verification, VerificationDelta
from ._sources.cache import clear as clear_caches
from ._sources.numbering import number_sources, pdf_pages
from ._sources.prompt import (
    DEFAULT_SYSTEM_TEMPLATE,
    DEFAULT_USER_TEMPLATE,
    MESSAGE_FRAMING_TOKENS,
    CitationPrompt,
    Messages,
    OverflowPolicy,
    PromptStyle,
    build_messages,
    build_prompt,
    citation_instructions,
    format_sources,
)
from ._sources.segmenter import split_sentences
from ._sources.terms import analyze
from ._sources.tokens import get_encoding, token_counter

__version__ = "0.1.0"

__all__ = [
    "AI_SDK_HEADERS",
    "DEFAULT_SYSTEM_TEMPLATE",
    "DEFAULT_UNSUPPORTED_THRESHOLD",
    "DEFAULT_USER_TEMPLATE",
    "IMAGE_KEY",
    "MESSAGE_FRAMING_TOKENS",
    "SOURCES_RECORD_KEY",
    "AnswerReset",
    "AnthropicCitationStream",
    "ArgumentError",
    "CharLocation",
    "Citation",
    "CitationPrompt",
    "CitationSession",
    "CitationStream",
    "CitationsDelta",
    "CiteError",
    "CitedAnswer",
    "CitedStructure",
    "Claim",
    "ContentBlockLocation",
    "DisplayDelta",
    "FlagCalibration",
    "InvalidMarker",
    "MarkerGroup",
    "Messages",
    "MissingDependencyError",
    "NativeError",
    "Note",
    "OverflowPolicy",
    "PageLocation",
    "PromptError",
    "PromptStyle",
    "Reference",
    "SearchResultBlocks",
    "Segment",
    "Source",
    "SourceError",
    "StreamClosedError",
    "StreamEvent",
    "StructuredCitationStream",
    "SupportLevel",
    "SupportScorer",
    "TextBlock",
    "TextDelta",
    "ThinkingDelta",
    "TokenBudgetError",
    "TokenizerUnavailableError",
    "TruncatedOutputError",
    "Verdict",
    "VerdictLevel",
    "Verification",
    "VerificationDelta",
    "__version__",
    "analyze",
    "answer_notes",
    "ato_ai_sdk_stream",
    "attribute",
    "averify",
    "brief_citation_instructions",
    "build_messages",
    "build_prompt",
    "calibrate_flag",
    "citation_instructions",
    "cite_structured",
    "clear_caches",
    "condense_question_messages",
    "content_security_policy",
    "detect_provider",
    "embedding_scorer",
    "extractive_answer",
    "format_sources",
    "from_anthropic_content",
    "from_native",
    "get_encoding",
    "number_sources",
    "page_from_metadata",
    "parse_answer",
    "pdf_pages",
    "reference_entries",
    "refuse_options",
    "render_html",
    "render_markdown",
    "render_terminal",
    "rescore",
    "safe_url",
    "source_key",
    "split_sentences",
    "strip_controls",
    "to_ai_sdk_stream",
    "to_anthropic_documents",
    "token_counter",
    "tool_citation_instructions",
    "verify",
]


def _rewrite_module_names() -> None:
    """Show public classes and functions as ``cite_core.X`` (reprs, tracebacks, pickles), as httpx does."""
    namespace = globals()
    for name in __all__:
        value = namespace[name]
        if isinstance(value, (type, FunctionType)):
            value.__module__ = __name__


_rewrite_module_names()
