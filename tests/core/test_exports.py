"""The public surface of cite_core: pinned exactly, shown as ``cite_core``, documented names exported,
every error a CiteError, private modules used by nobody outside the package, no framework imported."""

from __future__ import annotations

import ast
import builtins
import importlib
import pickle
import re
import subprocess
import sys
from pathlib import Path
from types import FunctionType

import pytest

import cite_core

ROOT = Path(__file__).resolve().parents[2]

EXPECTED = [
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

PRIVATE_IMPORT_ALLOWED: dict[str, str] = {}
"""Known offenders of the rule that nothing outside cite_core uses ``cite_core._*`` (file -> who fixes it)."""

SCANNED = ("langchain_cite", "llamaindex_cite", "cite_cli", "examples", "docs", "README.md")
_PRIVATE_USE = re.compile(r"\bcite_core\._(?!_)\w+|\bfrom\s+cite_core\s+import\s+\(?[^)\n]*\b_(?!_)\w+")


def test_exported_names_are_pinned_exactly() -> None:
    assert cite_core.__all__ == EXPECTED
    assert len(set(EXPECTED)) == len(EXPECTED)
    for name in cite_core.__all__:
        assert hasattr(cite_core, name), name


def test_the_star_import_gives_exactly_the_public_names() -> None:
    namespace: dict[str, object] = {}
    exec("from cite_core import *", namespace)
    assert sorted(k for k in namespace if k != "__builtins__") == sorted(EXPECTED)


def test_public_classes_and_functions_show_the_package_name() -> None:
    shown = [name for name in EXPECTED if isinstance(getattr(cite_core, name), (type, FunctionType))]
    assert {"Source", "CitedAnswer", "CiteError", "number_sources", "parse_answer"} <= set(shown)
    for name in shown:
        assert getattr(cite_core, name).__module__ == "cite_core", name
    assert repr(cite_core.Source) == "<class 'cite_core.Source'>"
    sources = cite_core.number_sources(["The grass is green."])
    answer = cite_core.parse_answer("Green [1].", sources)
    assert pickle.loads(pickle.dumps(answer)) == answer  # pickles find the classes under their new name
    assert cite_core.CitedAnswer.model_validate_json(answer.model_dump_json()) == answer


def test_every_error_is_a_cite_error_and_keeps_its_builtin_base() -> None:
    expected_bases = {
        "SourceError": ValueError,
        "PromptError": ValueError,
        "TokenBudgetError": ValueError,
        "ArgumentError": (TypeError, ValueError),
        "StreamClosedError": RuntimeError,
        "TokenizerUnavailableError": RuntimeError,
        "TruncatedOutputError": ValueError,
        "MissingDependencyError": ImportError,
        "NativeError": RuntimeError,
    }
    errors = [n for n in EXPECTED if isinstance(getattr(cite_core, n), type) and n.endswith("Error")]
    assert sorted(errors) == sorted([*expected_bases, "CiteError"])
    for name, base in expected_bases.items():
        cls = getattr(cite_core, name)
        assert issubclass(cls, cite_core.CiteError) and issubclass(cls, base), name


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: cite_core.split_sentences(b"abc"), cite_core.ArgumentError),
        (lambda: cite_core.parse_answer(None, ["a b."]), cite_core.ArgumentError),
        (lambda: cite_core.CitationStream(["a b."]).feed(3), cite_core.ArgumentError),
        (lambda: cite_core.attribute(None, ["a b."]), cite_core.ArgumentError),
        (lambda: cite_core.extractive_answer("", ["a b."]), cite_core.PromptError),
        (lambda: cite_core.extractive_answer("q?", ["a b."], max_sentences=0), cite_core.ArgumentError),
        (lambda: cite_core.from_anthropic_content([42], []), cite_core.ArgumentError),
        (lambda: cite_core.from_anthropic_content([{"type": "tool_use"}], []), cite_core.ArgumentError),
        (
            lambda: cite_core.rescore("not an answer", lambda pairs: [], threshold=0.5),
            cite_core.ArgumentError,
        ),
        (lambda: cite_core.pdf_pages("/nonexistent/file.pdf"), cite_core.CiteError),
    ],
)
def test_bad_calls_raise_cite_errors(call, error) -> None:  # type: ignore[no-untyped-def]
    if error is cite_core.CiteError:
        pytest.importorskip("pypdf")
    with pytest.raises(error):
        call()


def test_feeding_a_finished_stream_is_a_stream_closed_error() -> None:
    stream = cite_core.CitationStream(["The grass is green."])
    stream.finish()
    with pytest.raises(cite_core.StreamClosedError, match="after finish"):
        stream.feed("more")
    with pytest.raises(RuntimeError):
        stream.feed("more")


_ALLOWED_BUILTIN_RAISES = {
    ("_schema/source.py", "ValueError"): "inside a pydantic validator, which turns it into a ValidationError",
    ("_schema/models.py", "NotImplementedError"): "an abstract method",
    ("_sources/tokens.py", "FileNotFoundError"): "raised and caught inside get_encoding (offline loading)",
}


def test_cite_core_raises_no_bare_builtin_exception() -> None:
    found = set()
    package = ROOT / "cite_core"
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and node.exc is not None:
                target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if isinstance(target, ast.Name) and target.id in dir(builtins):
                    found.add((path.relative_to(package).as_posix(), target.id))
    assert found == set(_ALLOWED_BUILTIN_RAISES), found


def _private_uses() -> dict[str, list[str]]:
    uses: dict[str, list[str]] = {}
    for root in SCANNED:
        base = ROOT / root
        files = [base] if base.is_file() else [*base.rglob("*.py"), *base.rglob("*.md")]
        for path in files:
            hits = _PRIVATE_USE.findall(path.read_text(encoding="utf-8"))
            if hits:
                uses[path.relative_to(ROOT).as_posix()] = hits
    return uses


def test_nothing_outside_cite_core_uses_its_private_modules() -> None:
    uses = _private_uses()
    offenders = {path: hits for path, hits in uses.items() if path not in PRIVATE_IMPORT_ALLOWED}
    assert offenders == {}, f"import these from cite_core itself: {offenders}"
    fixed = sorted(set(PRIVATE_IMPORT_ALLOWED) - set(uses))
    assert fixed == [], f"no longer offending: remove from PRIVATE_IMPORT_ALLOWED: {fixed}"


def test_the_private_use_scan_finds_what_it_should() -> None:
    for text in (
        "from cite_core._render import render_html",
        "import cite_core._locate.scoring",
        "x = cite_core._answer.anthropic.from_anthropic_content",
        "from cite_core import parse_answer, _LABELS",
    ):
        assert _PRIVATE_USE.search(text), text
    for text in ("from cite_core import parse_answer", "cite_core.__version__", "cite_core.Source"):
        assert not _PRIVATE_USE.search(text), text


def test_every_name_the_docs_use_from_cite_core_is_exported() -> None:
    used: set[str] = set()
    for path in [*(ROOT / "docs").glob("*.md"), ROOT / "README.md", *(ROOT / "examples").glob("*.py")]:
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        for block in re.findall(r"from cite_core import \(([^)]*)\)|from cite_core import ([^\n(]+)", text):
            names = (block[0] or block[1]).replace("\n", " ").split(",")
            used.update(n.split(" as ")[0].strip() for n in names if n.strip())
        used.update(re.findall(r"\bcite_core\.([A-Za-z]\w*)", text))
    assert used, "the docs import nothing from cite_core?"
    assert sorted(used - set(EXPECTED)) == []


@pytest.mark.parametrize("package", ["cite_core", "langchain_cite", "llamaindex_cite", "cite_cli"])
def test_py_typed_ships_in_the_wheel_configuration(package: str) -> None:
    assert (ROOT / package / "py.typed").is_file()
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    maturin = re.search(r"^\[tool\.maturin\]\n(.*?)^\[", pyproject, re.M | re.S)
    assert maturin, "maturin builds the wheel"
    # maturin ships every file of the extension's package (module-name's first part, under python-source)
    # and of each listed python-package
    module = re.search(r'module-name = "([^".]+)\.', maturin.group(1))
    packages = re.search(r"python-packages = \[([^\]]*)\]", maturin.group(1))
    assert module and packages
    assert package == module.group(1) or f'"{package}"' in packages.group(1)
    strict = re.search(r"module = \[([^\]]*)\]\n# strict", pyproject)
    assert strict and f'"{package}.*"' in strict.group(1)  # mypy checks it as strictly as the core


def test_contract_names_exist() -> None:
    module = importlib.import_module("cite_core")
    for name in ("CitationStream", "build_messages", "number_sources", "parse_answer", "split_sentences"):
        assert callable(getattr(module, name)), name


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


def test_claims_give_their_span_in_the_display_and_the_plain_text() -> None:
    assert list(cite_core.Claim.model_fields) == [
        "start",
        "end",
        "text",
        "citations",
        "plain_start",
        "plain_end",
        "verdict",
        "start_utf16",
        "end_utf16",
        "plain_start_utf16",
        "plain_end_utf16",
    ]
    sources = cite_core.number_sources(["The grass is green.", "El cielo es azul 🙂."])
    answer = cite_core.parse_answer(
        "<think>[2]?</think>The grass is green [2][1]. Y el cielo es azul 🙂 [2].", sources
    )
    assert [c.text for c in answer.claims] == ["The grass is green", "Y el cielo es azul 🙂"]
    for claim in answer.claims:
        assert answer.text[claim.start : claim.end] == claim.text
        assert answer.plain_text[claim.plain_start : claim.plain_end] == claim.text
