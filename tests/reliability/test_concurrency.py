"""Concurrency: many asyncio tasks and several threads on one engine (``AsyncMemory`` and its ``as_sync()``
view) keep every write, raise nothing, and a second opener of an embedded folder is told to use a server."""

from __future__ import annotations

import asyncio
import contextlib
import random
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from memadapt_core import AsyncMemory, Memory, ValidationError

from ._support import all_records, new_token

TASKS, THREADS, OPS = 12, 4, 40


@dataclass
class Worker:
    """One writer's scope and what it believes its scope holds (record id -> text)."""

    user_id: str
    rng: random.Random
    model: dict[str, str] = field(default_factory=dict)
    ops: int = 0

    def next_op(self) -> str:
        if not self.model:
            return "add"
        return self.rng.choice(["add", "add", "add_many", "search", "update", "delete", "get", "list"])


async def _async_worker(mem: AsyncMemory, w: Worker, shared: list[str]) -> None:
    for _ in range(OPS):
        op = w.next_op()
        if op == "add":
            token = new_token()
            (rec,) = await mem.add(f"note {token} from {w.user_id}", user_id=w.user_id, kind="fact")
            w.model[rec.id] = rec.text
            (common,) = await mem.add(f"shared {token}", user_id="shared", kind="fact")
            shared.append(common.id)
        elif op == "add_many":  # past 64 points the embedded store is written from a thread: a real suspension
            recs = await mem.add([f"bulk {new_token()}" for _ in range(70)], user_id=w.user_id, session_id="s")
            w.model |= {r.id: r.text for r in recs}
        elif op == "search":
            rid, text = w.rng.choice(sorted(w.model.items()))
            hits = await mem.search(text, user_id=w.user_id, limit=3)
            assert rid in [h.record.id for h in hits]
        elif op == "update":
            rid = w.rng.choice(sorted(w.model))
            w.model[rid] = (await mem.update(rid, text=f"changed {new_token()}")).text
        elif op == "delete":
            rid = w.rng.choice(sorted(w.model))
            assert await mem.delete(rid)
            del w.model[rid]
        elif op == "get":
            rid = w.rng.choice(sorted(w.model))
            got = await mem.get(rid, user_id=w.user_id)
            assert got is not None
            assert got.text == w.model[rid]
        else:
            assert (await mem.count(user_id=w.user_id)) == len(w.model)
        w.ops += 1
        await asyncio.sleep(0)  # let the other tasks in between two operations


def _thread_worker(mem: Memory, w: Worker, shared: list[str]) -> None:
    for _ in range(OPS):
        op = w.next_op()
        if op in ("add", "add_many"):
            token = new_token()
            recs = mem.add([f"thread note {token} {i}" for i in range(3)], user_id=w.user_id, kind="fact")
            w.model |= {r.id: r.text for r in recs}
            (common,) = mem.add(f"shared {token}", user_id="shared", kind="fact")
            shared.append(common.id)
        elif op == "search":
            rid, text = w.rng.choice(sorted(w.model.items()))
            assert rid in [h.record.id for h in mem.search(text, user_id=w.user_id, limit=3)]
        elif op == "update":
            rid = w.rng.choice(sorted(w.model))
            w.model[rid] = mem.update(rid, text=f"thread changed {new_token()}").text
        elif op == "delete":
            rid = w.rng.choice(sorted(w.model))
            assert mem.delete(rid)
            del w.model[rid]
        elif op == "get":
            rid = w.rng.choice(sorted(w.model))
            got = mem.get(rid, user_id=w.user_id)
            assert got is not None
            assert got.text == w.model[rid]
        else:
            assert mem.count(user_id=w.user_id) == len(w.model)
        w.ops += 1


async def test_tasks_and_threads_on_one_engine_keep_every_write(amemory: AsyncMemory) -> None:
    rng = random.Random(7)
    tasks = [Worker(f"task-{i}", random.Random(rng.random())) for i in range(TASKS)]
    threads = [Worker(f"thread-{i}", random.Random(rng.random())) for i in range(THREADS)]
    shared: list[str] = []
    sync = amemory.as_sync()

    await asyncio.gather(
        *(_async_worker(amemory, w, shared) for w in tasks),
        *(asyncio.to_thread(_thread_worker, sync, w, shared) for w in threads),
    )

    for w in tasks + threads:
        stored = {r.id: r.text for r in all_records(sync, user_id=w.user_id)}
        assert stored == w.model, w.user_id
    assert sorted(r.id for r in all_records(sync, user_id="shared")) == sorted(shared)
    assert sum(w.ops for w in tasks + threads) == (TASKS + THREADS) * OPS


async def test_the_same_conversation_sent_concurrently_is_stored_once(amemory: AsyncMemory) -> None:
    conversation = [{"role": "user", "content": f"turn {i} {new_token()}", "id": f"m{i}"} for i in range(30)]
    sync = amemory.as_sync()

    async def send() -> None:
        await amemory.add(conversation, user_id="alice", session_id="s1")

    def send_sync() -> None:
        sync.add(conversation, user_id="alice", session_id="s1")

    await asyncio.gather(*(send() for _ in range(8)), *(asyncio.to_thread(send_sync) for _ in range(4)))

    stored = all_records(sync, user_id="alice")
    assert sorted(r.external_id or "" for r in stored) == sorted(m["id"] for m in conversation)


def test_concurrent_updates_of_one_record_keep_every_history_event(tmp_path: Path) -> None:
    with Memory(path=tmp_path, history_limit=1 + THREADS * 25) as memory:  # the default keeps 100 events
        (record,) = memory.add("version zero", user_id="alice", kind="fact")
        start = threading.Barrier(THREADS)

        def update_many(k: int) -> None:
            start.wait()
            for j in range(25):
                memory.update(record.id, text=f"version {k} {j}")

        workers = [threading.Thread(target=update_many, args=(k,)) for k in range(THREADS)]
        for t in workers:
            t.start()
        for t in workers:
            t.join()

        assert len(memory.history(record.id)) == 1 + THREADS * 25


def test_an_update_racing_a_delete_never_brings_the_record_back(memory: Memory) -> None:
    def delete(rid: str, start: threading.Barrier, deleted: list[bool]) -> None:
        start.wait()
        deleted.append(memory.delete(rid))

    def update(rid: str, start: threading.Barrier) -> None:
        start.wait()
        with contextlib.suppress(ValidationError):  # "no memory with id": the delete came first, as it may
            memory.update(rid, text="edited")

    resurrected = []
    for i in range(100):
        (record,) = memory.add(f"victim {i}", user_id="alice", kind="fact")
        start = threading.Barrier(2)
        deleted: list[bool] = []
        workers = [
            threading.Thread(target=delete, args=(record.id, start, deleted)),
            threading.Thread(target=update, args=(record.id, start)),
        ]
        for t in workers:
            t.start()
        for t in workers:
            t.join()
        if deleted == [True] and memory.get(record.id) is not None:
            resurrected.append(record.id)

    assert resurrected == []


def test_a_second_engine_on_an_open_embedded_folder_in_the_same_process_shares_it(tmp_path: Path) -> None:
    with Memory(path=tmp_path) as first, Memory(path=tmp_path) as second:
        first.add("shared", user_id="alice")
        assert second.count(user_id="alice") == 1


def test_an_embedded_folder_is_free_again_once_its_engine_closed(tmp_path: Path) -> None:
    with Memory(path=tmp_path) as first:
        first.add("kept", user_id="alice")
    with Memory(path=tmp_path) as second:
        assert [r.text for r in second.list(user_id="alice").records] == ["kept"]


def test_a_second_process_opening_a_qdrant_local_folder_is_told_to_use_a_server(tmp_path: Path) -> None:
    script = f"from memadapt_core import Memory\nMemory(backend='qdrant-local', path={str(tmp_path)!r})\n"
    with Memory(backend="qdrant-local", path=str(tmp_path)) as mem:
        mem.add("held by this process", user_id="alice")
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode != 0
    assert "StoreLockedError" in done.stderr
    assert "Qdrant server" in done.stderr
