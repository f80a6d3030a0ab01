"""Soak runs (minutes, not seconds): only with ``MEMADAPT_SOAK=1`` (``make soak``).

- Mixed load on one engine for ``MEMADAPT_SOAK_SECONDS`` (default 600): asyncio tasks and threads adding,
  searching, updating and deleting, each keeping a bounded live set. Prints throughput and RSS every
  ``MEMADAPT_SOAK_SAMPLE_SECONDS`` (default 10), checks nothing was lost and that RSS stops growing once the
  live data stops growing.
- Crash durability with ``MEMADAPT_SOAK_CRASH_ROUNDS`` (default 200) SIGKILLs instead of the default run's 20.
"""

from __future__ import annotations

import asyncio
import os
import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from memadapt_core import AsyncMemory, Memory

from . import test_crash_durability as crash
from ._support import all_records, crash_rng, disk_bytes, new_token, rss_bytes

pytestmark = [
    pytest.mark.soak,
    pytest.mark.skipif(os.environ.get("MEMADAPT_SOAK") != "1", reason="soak run: set MEMADAPT_SOAK=1 (make soak)"),
]

SECONDS = float(os.environ.get("MEMADAPT_SOAK_SECONDS", "600"))
SAMPLE = float(os.environ.get("MEMADAPT_SOAK_SAMPLE_SECONDS", "10"))
LIVE = 300  # records a worker keeps; past it, it deletes its oldest
TASKS, THREADS = 8, 2


@dataclass
class Load:
    user_id: str
    rng: random.Random
    live: dict[str, str] = field(default_factory=dict)  # id -> text, insertion order = age
    ops: int = 0


class Counter:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.value = 0

    def add(self, n: int) -> None:
        with self._lock:
            self.value += n


def _step_sync(mem: Memory, w: Load) -> None:
    roll = w.rng.random()
    if roll < 0.35 or not w.live:
        recs = mem.add([f"soak {new_token()} {w.rng.random()}" for _ in range(w.rng.randint(1, 4))],
                       user_id=w.user_id, session_id=f"s{w.rng.randint(0, 3)}")  # fmt: skip
        w.live |= {r.id: r.text for r in recs}
    elif roll < 0.75:
        rid, text = w.rng.choice(list(w.live.items()))
        assert rid in [h.record.id for h in mem.search(text, user_id=w.user_id, limit=5)]
    elif roll < 0.9:
        rid = w.rng.choice(list(w.live))
        w.live[rid] = mem.update(rid, text=f"soak changed {new_token()}").text
    else:
        rid = next(iter(w.live))
        assert mem.delete(rid)
        del w.live[rid]
    while len(w.live) > LIVE:
        rid = next(iter(w.live))
        assert mem.delete(rid)
        del w.live[rid]
    w.ops += 1


async def _step_async(mem: AsyncMemory, w: Load) -> None:
    roll = w.rng.random()
    if roll < 0.35 or not w.live:
        recs = await mem.add([f"soak {new_token()} {w.rng.random()}" for _ in range(w.rng.randint(1, 4))],
                             user_id=w.user_id, session_id=f"s{w.rng.randint(0, 3)}")  # fmt: skip
        w.live |= {r.id: r.text for r in recs}
    elif roll < 0.75:
        rid, text = w.rng.choice(list(w.live.items()))
        assert rid in [h.record.id for h in await mem.search(text, user_id=w.user_id, limit=5)]
    elif roll < 0.9:
        rid = w.rng.choice(list(w.live))
        w.live[rid] = (await mem.update(rid, text=f"soak changed {new_token()}")).text
    else:
        rid = next(iter(w.live))
        assert await mem.delete(rid)
        del w.live[rid]
    while len(w.live) > LIVE:
        rid = next(iter(w.live))
        assert await mem.delete(rid)
        del w.live[rid]
    w.ops += 1


async def test_mixed_load_keeps_every_write_and_memory_levels_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    amem = AsyncMemory(path=tmp_path / "store")
    sync = amem.as_sync()
    stop = threading.Event()
    loads = [Load(f"soak-task-{i}", random.Random(i)) for i in range(TASKS)]
    loads += [Load(f"soak-thread-{i}", random.Random(100 + i)) for i in range(THREADS)]
    samples: list[tuple[float, int, int, int]] = []  # (seconds, operations so far, RSS bytes, disk bytes)

    async def task(w: Load) -> None:
        while not stop.is_set():
            await _step_async(amem, w)
            await asyncio.sleep(0)

    def thread(w: Load) -> None:
        while not stop.is_set():
            _step_sync(sync, w)

    def sampler() -> None:
        start = time.monotonic()
        while not stop.wait(SAMPLE):  # a deadline per sample, not a sleep: the stop event ends it at once
            samples.append((time.monotonic() - start, sum(w.ops for w in loads), rss_bytes(), disk_bytes(tmp_path)))
            if samples[-1][0] >= SECONDS:
                stop.set()

    try:
        await asyncio.gather(
            *(task(w) for w in loads[:TASKS]),
            *(asyncio.to_thread(thread, w) for w in loads[TASKS:]),
            asyncio.to_thread(sampler),
        )
        for w in loads:
            assert {r.id: r.text for r in all_records(sync, user_id=w.user_id)} == w.live, w.user_id
        store = await amem.stats()
    finally:
        stop.set()
        await amem.close()

    rows = [f"{'seconds':>8} {'ops':>9} {'ops/s':>8} {'RSS MiB':>8} {'disk MiB':>8}"]
    prev_t, prev_ops = 0.0, 0
    for t, ops, rss, disk in samples:
        rows.append(f"{t:8.0f} {ops:9d} {(ops - prev_ops) / (t - prev_t):8.0f} {rss / 2**20:8.1f} {disk / 2**20:8.1f}")
        prev_t, prev_ops = t, ops
    with capsys.disabled():
        print(
            f"\nsoak: {TASKS} tasks + {THREADS} threads, {len(loads) * LIVE} live records at most\n"
            + "\n".join(rows)
            + f"\nvacuums: {store['vacuums']} (the last took {store['last_vacuum_seconds']} s)"
        )

    # Once every worker holds its full live set, the data stops growing: RSS must level off with it. Compare the
    # peak of the last quarter with the peak of the second quarter (the first is warm-up and filling).
    quarter = max(1, len(samples) // 4)
    second = max(sample[2] for sample in samples[quarter : 2 * quarter])
    last = max(sample[2] for sample in samples[-quarter:])
    assert last <= second * 1.25 + 64 * 2**20, f"RSS grew from {second / 2**20:.0f} to {last / 2**20:.0f} MiB"


def test_hundreds_of_sigkilled_writers_lose_nothing_acknowledged(tmp_path: Path) -> None:
    rounds = int(os.environ.get("MEMADAPT_SOAK_CRASH_ROUNDS", "200"))
    rng = crash_rng()
    acknowledged: dict[str, int] = {}
    for round_no in range(rounds):
        acknowledged |= crash._run_round(tmp_path / "store", round_no, rng)
        crash._check_store(tmp_path / "store", acknowledged)
