"""A scope's token counts (``embedder.pooling="scope_idf"``) are saved beside the store and read back instead of its
texts, while the store holds as many records of the scope as the counts knew (memadapt_core.engine.saved_counts)."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memadapt_core import AsyncMemory, Memory
from memadapt_core.engine.saved_counts import SavedCounts, counts_file
from memadapt_core.vectors.token_stats import ScopeTokenStats, Snapshot

WEIGHED = {"provider": "wordllama", "pooling": "scope_idf"}
TURNS = [
    "I moved to Berlin in May and the flat is lovely.",
    "My sister Ines visits from Porto next week.",
    "I adopted a beagle called Rocky.",
    "Rocky chewed my running shoes again.",
]
QUERY = "who chewed my shoes?"


def _reads(mem: Memory | AsyncMemory) -> list[Any]:
    """Record each scroll of the store (a scope's texts are read by one): the list it appends to."""
    backend = mem._resources.backend
    calls: list[Any] = []
    scroll = backend.scroll

    def counted(flt: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(flt)
        return scroll(flt, *args, **kwargs)

    backend.scroll = counted  # type: ignore[method-assign]
    return calls


def _store(path: Path, users: tuple[str, ...] = ("maya",)) -> list[float]:
    """A store with the turns in each user's scope; the first user's query vector."""
    with Memory(path=str(path), embedder=WEIGHED) as mem:
        for user in users:
            mem.add([{"role": "user", "content": t} for t in TURNS], user_id=user)
        return mem.query_vector(QUERY, user_id=users[0])


def test_a_reopened_store_weighs_a_scope_by_its_saved_counts_without_reading_its_texts(tmp_path: Path) -> None:
    before = _store(tmp_path)
    with Memory(path=str(tmp_path)) as mem:
        reads = _reads(mem)
        after = mem.query_vector(QUERY, user_id="maya")
    assert reads == []
    np.testing.assert_allclose(after, before, atol=1e-6)


def test_the_counts_are_saved_in_a_hidden_file_beside_the_collection(tmp_path: Path) -> None:
    _store(tmp_path)
    (collection,) = [p.name for p in tmp_path.iterdir() if p.is_dir()]
    assert counts_file(tmp_path, collection).is_file()
    assert counts_file(tmp_path, collection).name.startswith(".")


def test_a_scope_whose_records_changed_since_its_counts_were_saved_is_read_again(tmp_path: Path) -> None:
    _store(tmp_path)
    with Memory(path=str(tmp_path)) as mem:  # a delete in a process that never weighed the scope
        mem.delete(mem.list(user_id="maya").records[0].id)
    with Memory(path=str(tmp_path)) as mem:
        reads = _reads(mem)
        after = mem.query_vector(QUERY, user_id="maya")
        read_again = mem._resources.token_stats.unsaved()  # type: ignore[union-attr]
    assert len(reads) == 1
    assert read_again[0][0].n == len(TURNS) - 1
    with Memory(path=str(tmp_path)) as mem:
        assert mem.query_vector(QUERY, user_id="maya") == after  # saved again at close: read back as it was


def test_texts_added_after_the_counts_were_read_back_are_counted_and_saved(tmp_path: Path) -> None:
    _store(tmp_path)
    with Memory(path=str(tmp_path)) as mem:
        mem.add("Rocky also chewed my sister's sandals.", user_id="maya")
        want = mem.query_vector(QUERY, user_id="maya")
    with Memory(path=str(tmp_path)) as mem:
        reads = _reads(mem)
        assert mem.query_vector(QUERY, user_id="maya") == want
    assert reads == []


def test_a_scope_dropped_from_the_cache_comes_back_from_its_saved_counts(tmp_path: Path) -> None:
    with Memory(path=str(tmp_path), embedder=WEIGHED, pooling_scopes=1) as mem:
        for user in ("ann", "bob"):
            mem.add([{"role": "user", "content": t} for t in TURNS], user_id=user)
        want = mem.query_vector(QUERY, user_id="ann")
        mem.query_vector(QUERY, user_id="bob")  # ann leaves the cache, her counts saved
        reads = _reads(mem)
        assert mem.query_vector(QUERY, user_id="ann") == want
    assert reads == []


def test_flush_saves_the_counts(tmp_path: Path) -> None:
    with Memory(path=str(tmp_path), embedder=WEIGHED) as mem:
        mem.add([{"role": "user", "content": t} for t in TURNS], user_id="maya")
        mem.flush()
        saved = SavedCounts(counts_file(tmp_path, mem.stats()["collection"]), mem._resources.embedder.vocab_size)
        snap = saved.get(("user", "maya"))
        saved.close()
    assert snap is not None
    assert (snap.n, snap.stored) == (len(TURNS), len(TURNS))


def test_a_damaged_counts_file_is_set_aside_and_the_scope_read_from_the_store(tmp_path: Path) -> None:
    before = _store(tmp_path)
    (collection,) = [p.name for p in tmp_path.iterdir() if p.is_dir()]
    counts_file(tmp_path, collection).write_bytes(b"not a database" * 100)
    with Memory(path=str(tmp_path)) as mem:
        reads = _reads(mem)
        after = mem.query_vector(QUERY, user_id="maya")
    assert len(reads) == 1
    np.testing.assert_allclose(after, before, atol=1e-6)
    with Memory(path=str(tmp_path)) as mem:  # written afresh at close
        reads = _reads(mem)
        mem.query_vector(QUERY, user_id="maya")
    assert reads == []


def test_counts_marked_saved_after_their_scope_was_read_again_leave_the_new_counts_unsaved() -> None:
    cache = ScopeTokenStats(vocab_size=5, capacity=1)
    cache.load(("user", "a"), [np.array([1])], count=1)
    taken = cache.unsaved()
    cache.load(("user", "b"), [], count=0)  # a leaves the cache ...
    cache.load(("user", "a"), [np.array([2])], count=1)  # ... and is read again: other counts, the same version

    cache.mark_saved(taken)

    assert [snap.key for snap, _, _ in cache.unsaved()][-1] == ("user", "a")


def test_counts_saved_for_another_vocabulary_are_not_used(tmp_path: Path) -> None:
    saved = SavedCounts(tmp_path / "counts.sqlite", vocab_size=10)
    ids, dfs = np.array([1, 2], dtype=np.int32), np.array([3, 1], dtype=np.int32)
    assert saved.put([Snapshot(("user", "a"), 3, 3, ids, dfs)])
    saved.close()
    assert SavedCounts(tmp_path / "counts.sqlite", vocab_size=20).get(("user", "a")) is None
    again = SavedCounts(tmp_path / "counts.sqlite", vocab_size=10).get(("user", "a"))
    assert again is not None
    assert again.ids.tolist() == [1, 2]
    assert again.dfs.tolist() == [3, 1]


def test_an_unwritable_counts_file_leaves_the_store_working(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    saved = SavedCounts(tmp_path / "missing-folder" / "counts.sqlite", vocab_size=10)
    ids = np.array([1], dtype=np.int32)
    assert not saved.put([Snapshot(("user", "a"), 1, 1, ids, ids)])
    assert saved.get(("user", "a")) is None
    assert "cannot open the saved token counts" in caplog.text


def test_an_in_memory_store_saves_no_counts() -> None:
    with Memory(location=":memory:", embedder=WEIGHED) as mem:
        assert mem._resources.saved_counts is None


async def test_the_async_twin_reads_the_saved_counts_too(tmp_path: Path) -> None:
    before = _store(tmp_path)
    async with AsyncMemory(path=str(tmp_path)) as mem:
        reads = _reads(mem)
        after = await mem.query_vector(QUERY, user_id="maya")
        await mem.add("Rocky sleeps on the sofa.", user_id="maya")
        await mem.flush()
    assert reads == []
    np.testing.assert_allclose(after, before, atol=1e-6)
    with Memory(path=str(tmp_path)) as mem:
        reads = _reads(mem)
        mem.query_vector(QUERY, user_id="maya")
    assert reads == []


def test_a_forked_child_leaves_the_parents_counts_file_alone(tmp_path: Path) -> None:
    saved = SavedCounts(tmp_path / "counts.sqlite", vocab_size=10)
    ids = np.array([1], dtype=np.int32)
    assert saved.put([Snapshot(("user", "a"), 1, 1, ids, ids)])
    saved._pid = -1  # as a child forked from the process that opened it sees it

    assert saved.get(("user", "a")) is None
    assert not saved.put([Snapshot(("user", "b"), 1, 1, ids, ids)])
    saved._pid = os.getpid()
    saved.close()


def test_counts_saved_while_threads_add_and_evict_match_a_fresh_read_of_the_texts(tmp_path: Path) -> None:
    users = [f"u{i}" for i in range(6)]

    def writer(user: str) -> None:
        for i in range(15):
            mem.add(f"{user} note {i}: {TURNS[i % len(TURNS)]}", user_id=user)

    with Memory(path=str(tmp_path), embedder=WEIGHED, pooling_scopes=2) as mem:
        threads = [threading.Thread(target=writer, args=(u,)) for u in users]
        for t in threads:
            t.start()
        for _ in range(5):
            mem.flush()
        for t in threads:
            t.join()
    with Memory(path=str(tmp_path)) as mem:
        reads = _reads(mem)
        restored = {u: mem.query_vector(QUERY, user_id=u) for u in users}
    assert reads == []  # every scope came back from its saved counts
    (collection,) = [p.name for p in tmp_path.iterdir() if p.is_dir()]
    counts_file(tmp_path, collection).unlink()
    with Memory(path=str(tmp_path)) as mem:
        for u in users:
            np.testing.assert_allclose(mem.query_vector(QUERY, user_id=u), restored[u], atol=1e-6)


def test_counts_dropped_from_the_cache_are_never_saved_over_newer_counts_of_their_scope(tmp_path: Path) -> None:
    """A thread drops ann from the cache and is about to save her counts when another adds to her and flushes: the
    older counts must not be the last written (they would not match the store, and her texts be read again)."""
    with Memory(path=str(tmp_path), embedder=WEIGHED, pooling_scopes=1) as mem:
        mem.add(TURNS[0], user_id="ann")
        saved = mem._resources.saved_counts
        assert saved is not None
        put, entered, release = saved.put, threading.Event(), threading.Event()

        def slow_put(snaps: Any) -> bool:
            if not entered.is_set() and [s.key for s in snaps] == [("user", "ann")]:
                entered.set()
                release.wait(timeout=1.0)  # the dropped counts' write, held until the other thread is done
            return put(snaps)

        saved.put = slow_put  # type: ignore[method-assign]

        def add_and_flush() -> None:
            mem.add(TURNS[1], user_id="ann")
            mem.flush()

        dropper = threading.Thread(target=mem.query_vector, args=(QUERY,), kwargs={"user_id": "bob"})
        dropper.start()
        assert entered.wait(timeout=30)
        adder = threading.Thread(target=add_and_flush)
        adder.start()
        adder.join(timeout=2.0)  # done unless it waits for the dropper to save first
        release.set()
        dropper.join()
        adder.join()
    with Memory(path=str(tmp_path)) as mem:
        reads = _reads(mem)
        mem.query_vector(QUERY, user_id="ann")
    assert reads == []
