"""cite_core's stages import one way: a stage imports only itself, the stages before it and the shared
top-level modules (docs/architecture.md, "Stages"). Every import counts: at module level, inside a
function and under ``TYPE_CHECKING``; the one allowed exception is listed with its reason."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "cite_core"

STAGES = ("_schema", "_sources", "_stream", "_locate", "_answer", "_render")
"""In pipeline order; ``_schema`` (the contract's data types) comes first because every stage builds them."""
SHARED = ("_exceptions", "_args", "_text", "_brackets", "_accel")
"""Top-level modules every stage uses (the error tree, argument checks, character classes, the bracket
table, the choice of the compiled or the Python implementation); they import only each other."""
TOP_LEVEL_FILES = {"__init__.py", "py.typed", "_native.pyi", *(f"{name}.py" for name in SHARED)}
"""Also allowed: the built extension ``_native.*.so`` / ``.pyd`` (from native/, not in git)."""

ALLOWED_BACKWARD: dict[tuple[str, str], str] = {
    ("_schema.models", "_render"): "CitedAnswer.to_markdown()/to_html()/to_terminal() are conveniences of "
    "the public model; they import the render stage when called, inside the method",
}
"""(importing module, imported stage or module) -> why; each must be imported inside a function."""


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[str, bool]]:
    """The cite_core modules ``path`` imports (relative to the package), each with whether the import
    is inside a function."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    name = _module(path)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    in_function = {
        id(node)
        for func in ast.walk(tree)
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef))
        for node in ast.walk(func)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                inside = node.module.split(".") if node.module else []
                base = package[: len(package) - node.level + 1] + inside
            elif node.module and node.module.split(".")[0] == "cite_core":
                base = node.module.split(".")[1:]
            else:
                continue
            for alias in node.names:  # ``from . import _cache``: the module itself
                target = [*base, alias.name]
                place = PACKAGE.joinpath(*target)
                is_module = place.with_suffix(".py").is_file() or place.is_dir()
                found.append((".".join(target if is_module else base), id(node) in in_function))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("cite_core."):
                    found.append((alias.name.removeprefix("cite_core."), id(node) in in_function))
    return [(target, lazy) for target, lazy in found if target]


def _rank(module: str) -> int:
    head = module.split(".")[0]
    if head in SHARED:
        return -1
    assert head in STAGES, f"{module}: not in a stage folder nor a shared module"
    return STAGES.index(head)


def _backward() -> dict[tuple[str, str], bool]:
    """(importer, imported) -> whether every such import is inside a function, for imports that run
    against the stage order."""
    out: dict[tuple[str, str], bool] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module(path)
        if name == "":  # cite_core/__init__.py: the public surface imports every stage
            continue
        for target, lazy in _imports(path):
            if _rank(target) > _rank(name):
                stage_key = (name, target.split(".")[0])
                key = stage_key if stage_key in ALLOWED_BACKWARD else (name, target)
                out[key] = out.get(key, True) and lazy
    return out


def test_every_module_sits_in_a_stage_or_is_shared() -> None:
    loose = sorted(
        p.name
        for p in PACKAGE.iterdir()
        if p.is_file() and p.name not in TOP_LEVEL_FILES and not p.name.startswith("_native.")
    )
    assert loose == [], f"put these in a stage folder ({', '.join(STAGES)}): {loose}"
    folders = sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__")
    assert folders == sorted(STAGES)


def test_imports_run_from_later_stages_to_earlier_ones() -> None:
    backward = _backward()
    unexpected = sorted(key for key in backward if key not in ALLOWED_BACKWARD)
    assert unexpected == [], f"imports against the stage order {STAGES}: {unexpected}"
    eager = sorted(key for key, lazy in backward.items() if key in ALLOWED_BACKWARD and not lazy)
    assert eager == [], f"allowed only inside a function: {eager}"
    stale = sorted(set(ALLOWED_BACKWARD) - set(backward))
    assert stale == [], f"no longer needed: remove from ALLOWED_BACKWARD: {stale}"


def test_the_import_scan_sees_every_kind_of_import() -> None:
    """The scan reads relative, absolute, module and lazy imports (so the rule above is not vacuous)."""
    found = dict(_imports(PACKAGE / "_answer" / "parser.py"))
    assert found["_stream.assembler"] is False and found["_locate.localize"] is False
    lazy = dict(_imports(PACKAGE / "_schema" / "models.py"))
    assert lazy["_render"] is True
    assert _rank("_render.html") > _rank("_schema.models") > _rank("_args")
