"""The core's layering, read from its source: no import circle, and the embedded store keeps its internals."""

from __future__ import annotations

import ast
from pathlib import Path

import memadapt_core

ROOT = Path(memadapt_core.__file__).parent


def _modules() -> dict[str, Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _runtime_imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Modules of the core that ``name`` imports when it runs (``if TYPE_CHECKING:`` blocks left out, lazy
    imports inside functions counted: they are circles all the same, only deferred)."""
    tree = ast.parse(path.read_text())
    typing_only = {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for n in ast.walk(node)
    }
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in modules}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            submodules = {f"{source}.{a.name}" for a in node.names} & modules.keys()
            # ``from . import reads`` needs the submodule, not the whole package
            out |= submodules if len(submodules) == len(node.names) else submodules | ({source} & modules.keys())
    out.discard(name)
    return out


def test_the_core_has_no_import_circle() -> None:
    modules = _modules()
    graph = {name: _runtime_imports(name, path, modules) for name, path in modules.items()}
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            assert state.get(nxt) != 1, " -> ".join([*trail[trail.index(nxt) :], nxt])
            if nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


# The embedded store's machinery: no one outside ``backends/`` leans on it (doctor, the CLI and the server reach only
# the checks they report, the lock file's holder note and the backend itself).
_EDGE_INTERNALS = ("durability", "payload_cache", "slots", "store", "upkeep", "filters")


def test_only_backends_import_the_embedded_stores_internals() -> None:
    internals = {f"memadapt_core.backends.edge.{name}" for name in _EDGE_INTERNALS}
    for name, path in _modules().items():
        if name.startswith("memadapt_core.backends"):
            continue
        for imported in _runtime_imports(name, path, _modules()):
            assert imported not in internals, f"{name} imports {imported}"
