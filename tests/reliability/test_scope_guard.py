"""A damaged index can never hand one user another user's memory: every record a scoped read returns is checked
against the caller's scope before it leaves the engine, and a mismatch is a ``StoreCorruptedError`` naming the
recovery step. The damage is forged here: the backend's filtered reads answer bob's scope with alice's points, as a
corrupted user index did."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from memadapt_core import Memory, StoreCorruptedError, StoreError
from memadapt_core.filters import FilterSpec
from memadapt_core.testing import HashEmbedder


def _damage_index(mem: Memory) -> None:
    """bob's filtered reads now select alice's points, as a damaged user_id index would."""
    backend: Any = mem._resources.backend
    scroll, search = backend.scroll, backend.search

    def to_alice(flt: FilterSpec) -> FilterSpec:
        return dataclasses.replace(flt, user_id="alice") if flt.user_id == "bob" else flt

    backend.scroll = lambda flt, *a, **k: scroll(to_alice(flt), *a, **k)
    backend.search = lambda dense, sparse, flt, limit: search(dense, sparse, to_alice(flt), limit)


@pytest.fixture
def damaged(tmp_path: Path) -> Memory:
    mem = Memory(path=tmp_path, embedder=HashEmbedder(dim=16))
    mem.add("alice's bank pin is 4921", user_id="alice")
    _damage_index(mem)
    return mem


def test_list_of_another_scope_never_returns_its_records(damaged: Memory) -> None:
    with damaged, pytest.raises(StoreCorruptedError, match="memadapt doctor"):
        damaged.list(user_id="bob")


def test_search_of_another_scope_never_returns_its_records(damaged: Memory) -> None:
    with damaged, pytest.raises(StoreCorruptedError, match="another scope"):
        damaged.search("bank pin", user_id="bob", threshold=0.0)


def test_a_question_about_a_period_never_returns_another_scopes_records(damaged: Memory) -> None:
    with damaged, pytest.raises(StoreCorruptedError):
        damaged.search("what did I say today?", user_id="bob", time_range=("2000-01-01", "2100-01-01"))


def test_export_of_another_scope_never_writes_its_records(damaged: Memory, tmp_path: Path) -> None:
    with damaged, pytest.raises(StoreCorruptedError):
        damaged.export(tmp_path / "bob.jsonl", user_id="bob")


async def test_the_async_twin_checks_too(tmp_path: Path) -> None:
    mem = Memory(path=tmp_path, embedder=HashEmbedder(dim=16))
    mem.add("alice's secret", user_id="alice")
    _damage_index(mem)
    amem = mem.as_async()
    try:
        with pytest.raises(StoreCorruptedError):
            await amem.list(user_id="bob")
    finally:
        mem.close()


def test_the_owner_still_reads_her_records(damaged: Memory) -> None:
    with damaged:
        assert [r.text for r in damaged.list(user_id="alice").records] == ["alice's bank pin is 4921"]


def test_a_corrupted_store_error_is_a_store_error() -> None:
    assert issubclass(StoreCorruptedError, StoreError)
