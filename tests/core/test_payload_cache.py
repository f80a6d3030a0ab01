"""The embedded store keeps the decoded payloads of recent records in memory (``payload_cache``): a search reads the
same records from it as from disk, sees every write, and hands out records nobody else can change."""

from __future__ import annotations

import gc
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memadapt_core import Memory, MemorySettings
from memadapt_core.backends.base import RECORD_ID, CollectionInfo, StoredPoint
from memadapt_core.backends.client import QdrantClientBackend
from memadapt_core.backends.edge import EdgeBackend
from memadapt_core.backends.edge.payload_cache import PayloadCache
from memadapt_core.backends.edge.slots import slots
from memadapt_core.errors import ConfigurationError
from memadapt_core.filters import FilterSpec

# -- the cache alone ---------------------------------------------------------------------------------------------------


def test_a_read_is_kept_when_no_write_began_meanwhile() -> None:
    cache = PayloadCache(10)
    version = cache.version

    cache.fill({1: {"text": "x", RECORD_ID: "a"}}, version)

    assert cache.get([1, 2])[1] == [2]


def test_a_read_fetched_while_a_write_began_is_not_kept() -> None:
    cache = PayloadCache(10)
    version = cache.version
    cache.forget([1])  # a write to the same store, between the read's look-up and its fetch

    cache.fill({1: {"text": "old", RECORD_ID: "a"}}, version)

    assert len(cache) == 0


def test_beyond_its_size_the_oldest_entry_goes_first() -> None:
    cache = PayloadCache(2)

    cache.put([(1, "a", {}), (2, "b", {}), (3, "c", {})])

    assert sorted(cache.get([1, 2, 3])[0]) == [2, 3]


def test_a_cache_of_size_zero_keeps_nothing() -> None:
    cache = PayloadCache(0)

    cache.put([(1, "a", {})])
    cache.fill({2: {RECORD_ID: "b"}}, cache.version)

    assert len(cache) == 0


def test_what_a_writer_changes_after_put_does_not_reach_the_cache() -> None:
    cache = PayloadCache(10)
    payload: dict[str, Any] = {"metadata": {"tags": ["a"]}, "source_ids": ["s"]}

    cache.put([(1, "a", payload)])
    payload["metadata"]["tags"].append("b")
    payload["source_ids"].clear()

    assert cache.get([1])[0][1] == {"metadata": {"tags": ["a"]}, "source_ids": ["s"], RECORD_ID: "a"}


def test_an_entry_of_plain_values_is_not_tracked_by_the_garbage_collector() -> None:
    cache = PayloadCache(10)

    cache.put([(1, "a", {"text": "x", "kind": "fact", "has_time": True, "consolidated": 0})])

    (entry,) = cache.get([1])[0].values()
    assert not gc.is_tracked(entry)  # 100k tracked entries doubled every full collection of the process


# -- the embedded backend keeps it coherent ----------------------------------------------------------------------------


@pytest.fixture
def backend(tmp_path: Path) -> Iterator[EdgeBackend]:
    be = EdgeBackend(tmp_path, payload_cache=100)
    be.open_collection(CollectionInfo(name="c", embedder="test", dim=4))
    yield be
    be.close()


def _point(rid: str, text: str, **extra: Any) -> StoredPoint:
    return StoredPoint(rid, {"text": text, "kind": "fact", "user_id": "u", **extra}, np.ones(4, dtype=np.float32))


def _read(be: EdgeBackend, rid: str) -> dict[str, Any] | None:
    """The payload a search would read for ``rid`` (through the cache when it holds it), without the record id."""
    found = be.points(list(slots(rid)))
    payload = next((p for p in found.values() if p[RECORD_ID] == rid), None)
    return None if payload is None else {k: v for k, v in payload.items() if k != RECORD_ID}


RID = str(uuid.uuid4())


def test_an_upsert_replaces_what_a_search_reads(backend: EdgeBackend) -> None:
    backend.upsert([_point(RID, "old")])
    assert _read(backend, RID) == {"text": "old", "kind": "fact", "user_id": "u"}

    backend.upsert([_point(RID, "new")])

    assert _read(backend, RID) == {"text": "new", "kind": "fact", "user_id": "u"}


def test_a_payload_change_reaches_the_next_search(backend: EdgeBackend) -> None:
    backend.upsert([_point(RID, "fact")])
    assert _read(backend, RID) is not None  # cached now

    backend.set_payload([RID], {"valid_to": "2026-01-01T00:00:00+00:00"})

    payload = _read(backend, RID)
    assert payload is not None
    assert payload["valid_to"] == "2026-01-01T00:00:00+00:00"


def test_a_deleted_record_leaves_the_cache(backend: EdgeBackend) -> None:
    backend.upsert([_point(RID, "fact")])

    backend.delete([RID])

    assert len(backend._cache) == 0
    assert _read(backend, RID) is None


def test_a_delete_by_filter_empties_the_cache(backend: EdgeBackend) -> None:
    backend.upsert([_point(RID, "fact")])

    backend.delete_where(FilterSpec(user_id="u"))

    assert len(backend._cache) == 0
    assert _read(backend, RID) is None


HISTORY = [{"event": "update", "at": "2026-01-01T00:00:00+00:00", "old_text": "a", "new_text": "b"}]


@pytest.mark.parametrize("kind", ["edge", "qdrant-local"])
def test_points_for_a_search_come_without_their_history(tmp_path: Path, kind: str) -> None:
    be: Any = EdgeBackend(tmp_path) if kind == "edge" else QdrantClientBackend(location=":memory:")
    be.open_collection(CollectionInfo(name="c", embedder="test", dim=4))
    try:
        be.upsert([_point(RID, "b", history=HISTORY)])
        keys = [key for key, _ in be.search(np.ones(4, dtype=np.float32), None, FilterSpec(user_id="u"), 5)[0]]

        (payload,) = be.points(keys).values()

        assert payload == {RECORD_ID: RID, "text": "b", "kind": "fact", "user_id": "u"}
        assert be.retrieve([RID])[0].payload["history"] == HISTORY  # still stored
    finally:
        be.close()


def test_the_cache_keeps_no_history(backend: EdgeBackend) -> None:
    backend.upsert([_point(RID, "b", history=HISTORY)])

    assert _read(backend, RID) == {"text": "b", "kind": "fact", "user_id": "u"}
    assert "history" not in backend._cache.get(list(slots(RID)))[0].popitem()[1]


def test_a_record_read_from_disk_is_kept_for_the_next_search(tmp_path: Path) -> None:
    be = EdgeBackend(tmp_path, payload_cache=100)
    be.open_collection(CollectionInfo(name="c", embedder="test", dim=4))
    be.upsert([_point(RID, "fact")])
    be.close()
    be = EdgeBackend(tmp_path, payload_cache=100)
    be.open_collection(CollectionInfo(name="c", embedder="test", dim=4))
    try:
        assert len(be._cache) == 0

        first = _read(be, RID)

        assert len(be._cache) == 1
        assert _read(be, RID) == first == {"text": "fact", "kind": "fact", "user_id": "u"}
    finally:
        be.close()


def test_searches_during_concurrent_updates_leave_the_last_text_cached(backend: EdgeBackend) -> None:
    backend.upsert([_point(RID, "0")])
    done = threading.Event()

    def reader() -> None:
        while not done.is_set():
            _read(backend, RID)

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    try:
        for i in range(1, 300):
            backend.upsert([_point(RID, str(i))])
            backend.set_payload([RID], {"note": i})
    finally:
        done.set()
        for t in threads:
            t.join()

    payload = _read(backend, RID)
    assert payload is not None
    assert (payload["text"], payload["note"]) == ("299", 299)


# -- through the engine ------------------------------------------------------------------------------------------------

METADATA = {"tags": ["trip", "food"], "place": {"city": "Kyoto", "rating": 4.5}, "count": 3, "ok": None}


def _hits(mem: Memory) -> list[dict[str, Any]]:
    return [h.record.model_dump() for h in mem.search("Kyoto ramen trip", user_id="alice", limit=5)]


def test_records_read_from_the_cache_equal_those_read_from_disk(tmp_path: Path) -> None:
    with Memory(path=tmp_path) as mem:
        mem.add("We ate ramen in Kyoto on the trip", user_id="alice", kind="fact", metadata=METADATA)
        mem.add("The Kyoto trip was in April", user_id="alice", kind="fact", metadata={"pair": (1, 2)})
        warm = _hits(mem)
    with Memory(path=tmp_path) as mem:
        cold = _hits(mem)

    assert len(warm) == 2
    assert warm == cold


def test_a_search_reads_the_same_records_with_and_without_the_cache(tmp_path: Path) -> None:
    with Memory(path=tmp_path) as mem:
        mem.add("We ate ramen in Kyoto on the trip", user_id="alice", kind="fact", metadata=METADATA)
        cached = _hits(mem)
    with Memory(path=tmp_path, payload_cache=0) as mem:
        uncached = _hits(mem)

    assert cached == uncached != []


@pytest.mark.parametrize("reopened", [False, True], ids=["cached-when-written", "cached-when-read"])
def test_changing_a_found_record_does_not_change_the_next_search(tmp_path: Path, reopened: bool) -> None:
    mem = Memory(path=tmp_path)
    mem.add("We ate ramen in Kyoto on the trip", user_id="alice", kind="fact", metadata=METADATA)
    if reopened:  # the record reaches the cache from a read, not from its write
        mem.close()
        mem = Memory(path=tmp_path)
    with mem:
        (hit,) = mem.search("Kyoto ramen", user_id="alice")

        hit.record.metadata["tags"].append("changed")
        hit.record.metadata["place"]["city"] = "changed"

        (again,) = mem.search("Kyoto ramen", user_id="alice")
        assert again.record.metadata == METADATA


def test_changing_an_added_record_does_not_change_what_a_search_finds() -> None:
    with Memory(location=":memory:") as mem:
        (rec,) = mem.add("We ate ramen in Kyoto on the trip", user_id="alice", kind="fact", metadata=METADATA)

        rec.metadata["place"]["city"] = "changed"

        (hit,) = mem.search("Kyoto ramen", user_id="alice")
        assert hit.record.metadata == METADATA


def test_a_record_updated_often_keeps_its_history_out_of_the_cache_and_in_the_store() -> None:
    with Memory(location=":memory:") as mem:
        (rec,) = mem.add("We ate ramen in Kyoto", user_id="alice", kind="fact")
        for i in range(5):
            mem.update(rec.id, text=f"We ate ramen in Kyoto, visit {i}")

        mem.search("Kyoto ramen", user_id="alice")

        cached = mem._resources.backend._cache.get(list(slots(rec.id)))[0]
        assert [payload.get("history") for payload in cached.values()] == [None]
        assert [e.event for e in mem.history(rec.id)] == ["add"] + ["update"] * 5


def test_a_search_finds_an_updated_text() -> None:
    with Memory(location=":memory:") as mem:
        (rec,) = mem.add("We ate ramen in Kyoto", user_id="alice", kind="fact")
        assert mem.search("Kyoto ramen", user_id="alice")[0].record.text == "We ate ramen in Kyoto"

        mem.update(rec.id, text="We ate ramen in Kyoto and udon in Osaka")

        assert mem.search("Kyoto ramen", user_id="alice")[0].record.text == "We ate ramen in Kyoto and udon in Osaka"


def test_the_cache_holds_100k_records_by_default_and_refuses_a_negative_size() -> None:
    assert MemorySettings().payload_cache == 100_000
    with pytest.raises(ConfigurationError, match="payload_cache"):
        Memory(location=":memory:", payload_cache=-1)
