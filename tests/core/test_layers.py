"""The core's layering, read from its source: no import circle, the embedded store keeps its internals, and the API
and the client (the HTTP door) stand apart from the engine."""

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


DOORS_PENDING: set[tuple[str, str]] = set()
"""The client's imports of the engine still to go (none now): each must still be there (the last test), so the set
only empties."""


def _engine_imports_of(*packages: str) -> set[tuple[str, str]]:
    modules = _modules()
    return {
        (name, imported)
        for name, path in modules.items()
        if name.startswith(packages)
        for imported in _runtime_imports(name, path, modules)
        if imported == "memadapt_core.engine" or imported.startswith("memadapt_core.engine.")
    }


def test_the_api_and_the_client_import_no_engine_module() -> None:
    found = _engine_imports_of("memadapt_core.api", "memadapt_core.client")

    assert found - DOORS_PENDING == set()


def test_each_pending_engine_import_of_the_client_is_still_there() -> None:
    fixed = DOORS_PENDING - _engine_imports_of("memadapt_core.client")

    assert fixed == set(), "fixed: remove these from DOORS_PENDING"
