"""The adapters stand on the core's public surface: every name they take from ``memadapt_core`` is in its
``__all__`` (or comes from a module listed in ``PUBLIC_MODULES``). A helper an adapter needs and the core keeps
private is a sign the core should publish it, once, for all three adapters."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import memadapt_core

ROOT = Path(__file__).resolve().parents[1]
ADAPTERS = ("memadapt_autogen", "memadapt_agentscope", "memadapt_langchain")
PUBLIC_MODULES = frozenset({"memadapt_core.api", "memadapt_core.client"})
"""Core modules, besides ``memadapt_core`` itself, that adapters may import from (documented as public)."""

PENDING: set[tuple[str, str, str]] = set()
"""Imports still to move to ``from memadapt_core import ...``, in files this change did not own; each must still
be there (see the last test), so the list empties as they are fixed."""


def _core_imports() -> Iterator[tuple[str, str, str]]:
    """(file, module, name) for every import of a ``memadapt_core`` module in the adapters, lazy ones included."""
    for package in ADAPTERS:
        for path in sorted((ROOT / package).rglob("*.py")):
            where = path.relative_to(ROOT).as_posix()
            for node in ast.walk(ast.parse(path.read_text(), where)):
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    if node.module.split(".")[0] == "memadapt_core":
                        yield from ((where, node.module, alias.name) for alias in node.names)
                elif isinstance(node, ast.Import):
                    for alias in node.names:
                        if alias.name.split(".")[0] == "memadapt_core":
                            yield where, alias.name, "*"


def _is_public(module: str, name: str) -> bool:
    if module == "memadapt_core":
        return name in memadapt_core.__all__
    return module in PUBLIC_MODULES


def test_adapters_import_only_public_names_of_the_core() -> None:
    private = {found for found in _core_imports() if not _is_public(found[1], found[2])}
    assert private - PENDING == set()


def test_the_check_sees_every_adapter_import_the_core() -> None:
    importers = {where.split("/")[0] for where, _, _ in _core_imports()}
    assert importers == set(ADAPTERS)


def test_each_pending_import_is_still_there() -> None:
    fixed = PENDING - set(_core_imports())
    assert fixed == set(), "fixed: remove these from PENDING"
