"""One behaviour suite, run against every backend; and the same scenario compared across backends."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memadapt_core import Memory
from memadapt_core.testing import MemoryContract

BACKENDS = ["edge", "qdrant-local"]


def _open(backend: str, tmp_path: Path) -> Memory:
    if backend == "edge":
        return Memory(path=tmp_path / "edge")
    return Memory(backend="qdrant-local", location=":memory:")


class TestEdgeBackend(MemoryContract):
    @pytest.fixture
    def memory(self, tmp_path: Path) -> Iterator[Memory]:
        with _open("edge", tmp_path) as mem:
            yield mem


class TestEdgeBackendOptimizedAfterEveryWrite(MemoryContract):
    """The embedded store when every record lives in an optimized segment, which cannot change a point in place:
    each write is followed by ``optimize()``, so every read, update and delete meets such points."""

    @pytest.fixture
    def memory(self, tmp_path: Path) -> Iterator[Memory]:
        with _open("edge", tmp_path) as mem:
            backend = mem._resources.backend
            for name in ("upsert", "delete", "delete_where", "set_payload", "set_vectors"):
                write = getattr(backend, name)

                def optimized(*args: Any, _write: Callable[..., None] = write) -> None:
                    _write(*args)
                    backend.optimize()

                setattr(backend, name, optimized)
            yield mem


class TestQdrantClientLocalBackend(MemoryContract):
    @pytest.fixture
    def memory(self, tmp_path: Path) -> Iterator[Memory]:
        with _open("qdrant-local", tmp_path) as mem:
            yield mem


def _scenario(mem: Memory) -> dict[str, object]:
    t0 = datetime(2024, 1, 1, tzinfo=UTC)
    turns = [
        ("user", "I started learning the cello this winter"),
        ("assistant", "Great choice! Who is your teacher?"),
        ("user", "Her name is Marta, she plays in the city orchestra"),
        ("user", "Also my sister Lena is visiting from Oslo next week"),
        ("assistant", "Enjoy the visit!"),
    ]
    msgs = [{"role": r, "content": c, "timestamp": t0 + timedelta(minutes=i)} for i, (r, c) in enumerate(turns)]
    mem.add(msgs, user_id="u1", session_id="s1")
    mem.add("Prefers tea over coffee", user_id="u1", kind="fact", observed_at=t0)
    mem.add("Other tenant plays the cello too", user_id="u2", kind="fact")
    out: dict[str, object] = {}
    for q in ["who teaches me the cello", "where is my sister from", "tea or coffee", "xylophone quasar"]:
        out[q] = [h.record.id for h in mem.search(q, user_id="u1", limit=3)]
    out["list"] = [r.id for r in mem.list(user_id="u1").records]
    out["count"] = mem.count(user_id="u1", kinds=["message"])
    return out


def test_backends_return_the_same_results_for_the_same_scenario(tmp_path: Path) -> None:
    results = []
    for backend in BACKENDS:
        with _open(backend, tmp_path) as mem:
            results.append(_scenario(mem))
    assert results[0] == results[1]
    assert results[0]["xylophone quasar"] == []
