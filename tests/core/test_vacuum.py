"""The embedded store reclaims deleted points: on a background thread after ``vacuum_after_deletes`` deletes, and
on demand with ``optimize()``; neither builds an HNSW graph (search stays exact) nor loses a live record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memadapt_core import AsyncMemory, Memory, MemorySettings
from memadapt_core.testing import HashEmbedder


def _fill(mem: Memory, n: int) -> list[str]:
    ids: list[str] = []
    for start in range(0, n, 500):
        texts = [f"note {i} about topic{i % 37}" for i in range(start, min(n, start + 500))]
        ids += [r.id for r in mem.add(texts, user_id="alice", kind="fact")]
    return ids


def _stored_vectors(mem: Memory) -> int:
    """Vectors of live and deleted points still in the segments: an appendable segment counts one a point (its
    sparse index), a vacuumed one two (dense and sparse)."""
    return int(mem.stats()["indexed_vectors"])


def test_deleted_points_are_kept_until_a_vacuum() -> None:
    with Memory(location=":memory:", embedder=HashEmbedder(dim=32), vacuum_after_deletes=0) as mem:
        ids = _fill(mem, 1500)
        mem.delete_many(ids[:1200])
        mem.flush()

        assert _stored_vectors(mem) == 1500


def test_enough_deletes_start_a_vacuum_in_the_background() -> None:
    with Memory(location=":memory:", embedder=HashEmbedder(dim=32), vacuum_after_deletes=1000) as mem:
        ids = _fill(mem, 1500)
        mem.delete_many(ids[:1200])  # 1200 deletes: past 1000, and more than the 300 live points
        mem.flush()  # waits for the background work

        assert mem.stats()["vacuums"] == 1
        assert _stored_vectors(mem) == 2 * 300
        assert {r.id for r in mem.list(user_id="alice", limit=1000).records} == set(ids[1200:])
        assert mem.search("note 1499 about topic19", user_id="alice")[0].record.id == ids[1499]


def test_a_vacuum_waits_until_tombstones_outnumber_live_points() -> None:
    with Memory(location=":memory:", embedder=HashEmbedder(dim=32), vacuum_after_deletes=1000) as mem:
        ids = _fill(mem, 3000)
        mem.delete_many(ids[:1500])  # past 1000 deletes, but 1500 points live
        mem.flush()
        assert mem.stats()["vacuums"] == 0

        mem.delete_many(ids[1500:2000])  # 2000 deletes now outnumber the 1000 live... since the first count
        mem.flush()
        assert mem.stats()["vacuums"] == 1


def test_optimize_vacuums(tmp_path: Path) -> None:
    with Memory(path=tmp_path, embedder=HashEmbedder(dim=32), vacuum_after_deletes=0) as mem:
        ids = _fill(mem, 1500)
        mem.delete_many(ids[:1200])

        mem.optimize()

        assert _stored_vectors(mem) == 2 * 300
        assert mem.count(user_id="alice") == 300


def test_optimize_builds_no_hnsw_graph(tmp_path: Path) -> None:
    with Memory(path=tmp_path, embedder=HashEmbedder(dim=32)) as mem:
        _fill(mem, 1500)
        mem.optimize()
    configs = [json.loads(p.read_text())["config"] for p in tmp_path.rglob("segment.json")]
    indexes = [c["vector_data"]["dense"]["index"] for c in configs]
    optimized = [i["options"] for i in indexes if i["type"] == "hnsw"]
    assert len(optimized) == 1  # and an appendable segment for what comes next
    assert optimized[0]["m"] == 0  # no graph
    assert optimized[0]["full_scan_threshold"] >= 2**62  # in KB: every search scans the filtered points exactly


async def test_the_async_engine_vacuums_in_the_background_too() -> None:
    async with AsyncMemory(location=":memory:", embedder=HashEmbedder(dim=32), vacuum_after_deletes=1000) as mem:
        ids = [r.id for r in await mem.add([f"note {i}" for i in range(1500)], user_id="alice", kind="fact")]
        await mem.delete_many(ids[:1200])
        await mem.flush()

        assert (await mem.stats())["vacuums"] == 1
        assert await mem.count(user_id="alice") == 300


def test_vacuum_after_deletes_defaults_to_10000() -> None:
    assert MemorySettings().vacuum_after_deletes == 10_000


@pytest.mark.parametrize("deletes", [1, 999])
def test_a_few_deletes_do_not_start_a_vacuum(deletes: int) -> None:
    with Memory(location=":memory:", embedder=HashEmbedder(dim=32), vacuum_after_deletes=1000) as mem:
        ids = _fill(mem, 1000)
        mem.delete_many(ids[:deletes])
        mem.flush()

        assert mem.stats()["vacuums"] == 0
