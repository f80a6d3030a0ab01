"""Crash durability: a writer killed with SIGKILL at random moments loses nothing it acknowledged, and leaves
nothing half-written behind.

A child process adds batches of messages to an embedded (edge) store and prints ``ack <batch> <size>`` after
each ``add`` returned; the parent kills it after a random number of acknowledgements (so the kill lands at a
random point of the next write), reopens the same folder and checks every batch ever acknowledged, in this and
all earlier rounds, is there exactly once and whole, and that any batch that is there is whole. Even rounds
write through the sync ``Memory``; odd rounds through ``AsyncMemory`` with batches that cross the size above
which the embedded store is written from a thread.

(Crash during consolidation is not tested yet: ``AsyncMemory.consolidate`` is not wired to the worker.)
"""

from __future__ import annotations

import os
import random
import time
from collections import defaultdict
from pathlib import Path

import pytest

from memadapt_core import Memory

from ._support import ChildProcess, all_records, crash_rng

ROUNDS = int(os.environ.get("MEMADAPT_CRASH_ROUNDS", "20"))
USER = "crash-user"

CHILD = r"""
import asyncio, random, sys
from memadapt_core import AsyncMemory, Memory

path, round_no, seed, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rng = random.Random(seed)
max_size = 90 if mode == "async" else 6  # async: past 64 points the write goes to a thread


def batch(number):
    bid = f"r{round_no}b{number}"
    size = rng.randint(1, max_size)
    roles = [rng.choice(["user", "assistant"]) for _ in range(size)]
    words = [f"w{rng.getrandbits(48):x}" for _ in range(size)]  # one word no other message has
    messages = [{"role": roles[i], "content": f"{bid} item {i} {words[i]}", "id": f"{bid}-{i}"} for i in range(size)]
    return bid, size, messages, f"s{rng.randint(0, 2)}"


def run_sync():
    mem = Memory(path=path)
    print("ready", flush=True)
    number = 0
    while True:
        bid, size, messages, session = batch(number)
        mem.add(messages, user_id="crash-user", session_id=session, metadata={"batch": bid, "size": size})
        print(f"ack {bid} {size}", flush=True)
        number += 1


async def run_async():
    mem = AsyncMemory(path=path)
    print("ready", flush=True)
    number = 0
    while True:
        bid, size, messages, session = batch(number)
        await mem.add(messages, user_id="crash-user", session_id=session, metadata={"batch": bid, "size": size})
        print(f"ack {bid} {size}", flush=True)
        number += 1


run_sync() if mode == "sync" else asyncio.run(run_async())
"""


def _acks(lines: list[str]) -> dict[str, int]:
    out = {}
    for line in lines:
        word, bid, size = line.split()
        assert word == "ack", line
        out[bid] = int(size)
    return out


def _run_round(folder: Path, round_no: int, rng: random.Random) -> dict[str, int]:
    """One child life: start, let it acknowledge a random number of batches, SIGKILL it. Returns its acks."""
    mode = "sync" if round_no % 2 == 0 else "async"
    child = ChildProcess(CHILD, str(folder), str(round_no), str(rng.randrange(2**32)), mode)
    try:
        assert child.read_line(timeout=120) == "ready"
        lines = [child.read_line(timeout=60) for _ in range(rng.randint(0, 25))]
        time.sleep(rng.uniform(0, 0.01))  # not a wait for a condition: jitter, so the kill lands anywhere in a write
        lines += child.kill()  # acknowledged before it died, read after
    finally:
        child.close()
    assert child.proc.returncode == -9, f"the child ended on its own: {child.stderr()}"
    return _acks(lines)


def _check_store(folder: Path, acknowledged: dict[str, int]) -> int:
    """Reopen the folder and check it; returns how many records it holds."""
    with Memory(path=folder) as mem:
        records = all_records(mem, user_id=USER)
        assert mem.count(user_id=USER) == len(records)
        by_batch: dict[str, list[str]] = defaultdict(list)
        sizes: dict[str, int] = {}
        for record in records:
            bid, number = str(record.external_id).split("-")
            assert record.metadata["batch"] == bid
            assert record.text.startswith(f"{bid} item {number} ")
            by_batch[bid].append(number)
            sizes[bid] = record.metadata["size"]
        # Exactly once: no message twice.
        assert len({r.external_id for r in records}) == len(records)
        # Nothing acknowledged is lost, in this round or any earlier one.
        lost = {bid: (len(by_batch.get(bid, [])), size) for bid, size in acknowledged.items()
                if len(by_batch.get(bid, [])) != size}  # fmt: skip
        assert not lost, f"acknowledged batches lost or partial (found, acknowledged): {lost}"
        # All or nothing: a visible batch is whole, the one in flight when the child died included.
        partial = {bid: (len(numbers), sizes[bid]) for bid, numbers in by_batch.items() if len(numbers) != sizes[bid]}
        assert not partial, f"half-written batches visible (found, size): {partial}"
        # The vector index agrees with the payloads: a search confined to the newest acknowledged batch finds
        # every message of it (each has its vectors, not only its payload).
        if acknowledged:
            newest = max(acknowledged, key=_batch_order)
            batch = {r.id for r in records if r.metadata["batch"] == newest}
            probe = next(r for r in records if r.metadata["batch"] == newest)
            hits = mem.search(probe.text, user_id=USER, filters={"batch": newest}, limit=len(batch), threshold=0.0)
            assert {h.record.id for h in hits} == batch
        return len(records)


def _batch_order(bid: str) -> tuple[int, int]:
    round_no, number = bid[1:].split("b")
    return int(round_no), int(number)


@pytest.mark.slow
def test_sigkilled_writer_loses_no_acknowledged_batch_and_leaves_none_half_written(tmp_path: Path) -> None:
    rng = crash_rng()
    folder = tmp_path / "store"
    acknowledged: dict[str, int] = {}
    for round_no in range(ROUNDS):
        acknowledged |= _run_round(folder, round_no, rng)
        stored = _check_store(folder, acknowledged)
        assert stored >= sum(acknowledged.values())
    assert acknowledged, "no batch was ever acknowledged"
    print(f"{ROUNDS} SIGKILLs: {len(acknowledged)} batches ({sum(acknowledged.values())} messages) acknowledged, "
          f"all present once and whole; {stored} messages stored")  # fmt: skip
