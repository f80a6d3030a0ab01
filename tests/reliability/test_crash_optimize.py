"""A process killed while ``optimize()`` rewrites the embedded store loses nothing.

An optimization writes every live point into a new segment and then drops the old ones. The parent fills a store
with records of several users written in turns; in each round a child process opens it, adds a batch (and says so
once ``add`` returned), then optimizes and is SIGKILLed at a random moment of that optimization. Reopening the
folder must show every record ever acknowledged, once, still found by search; a last optimization then completes.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from memadapt_core import Memory
from memadapt_core.testing import HashEmbedder

from ._support import ChildProcess, all_records, crash_rng

ROUNDS = int(os.environ.get("MEMADAPT_CRASH_ROUNDS_OPTIMIZE", "4"))
USERS = ("ann", "bo", "cy")


def _word(i: int) -> str:
    """A word no other note has: the search probes find their note by it."""
    return f"{(i * 2654435761) % 2**32:x}"


CHILD = r"""
import sys
from memadapt_core import Memory
from memadapt_core.testing import HashEmbedder

path, round_no = sys.argv[1], int(sys.argv[2])
mem = Memory(path=path, embedder=HashEmbedder(dim=32))
texts = [f"round {round_no} note {i} zr{round_no}x{(i * 2654435761) % 2**32:x}" for i in range(2000)]
mem.add(texts, user_id="ann", kind="fact", metadata={"round": round_no})
print("ack", flush=True)
print("optimizing", flush=True)
mem.optimize()
print("optimized", flush=True)
"""


def _fill(folder: Path) -> int:
    with Memory(path=folder, embedder=HashEmbedder(dim=32)) as mem:
        for start in range(0, 4000, 100):
            for user in USERS:  # users in turn: each user's points lie among everyone's
                texts = [f"{user} wrote note {i} zq{_word(i)}" for i in range(start, start + 100)]
                mem.add(texts, user_id=user, kind="fact")
        return mem.count(user_id="ann") + mem.count(user_id="bo") + mem.count(user_id="cy")


def _check(folder: Path, expected: int, rounds: list[int]) -> None:
    with Memory(path=folder, embedder=HashEmbedder(dim=32)) as mem:
        counts = {user: mem.count(user_id=user) for user in USERS}
        assert sum(counts.values()) == expected
        records = all_records(mem, user_id="ann")
        assert len({r.id for r in records}) == len(records) == counts["ann"]
        for round_no in rounds:
            assert sum(1 for r in records if r.metadata.get("round") == round_no) == 2000
            text = f"round {round_no} note 1234 zr{round_no}x{_word(1234)}"
            assert mem.search(text, user_id="ann", limit=1)[0].record.text == text
        text = f"bo wrote note 3999 zq{_word(3999)}"
        assert mem.search(text, user_id="bo", limit=1)[0].record.text == text


@pytest.mark.slow
def test_a_process_killed_while_optimizing_loses_nothing(tmp_path: Path) -> None:
    rng = crash_rng()
    folder = tmp_path / "store"
    expected = _fill(folder)
    rounds: list[int] = []
    for round_no in range(ROUNDS):
        child = ChildProcess(CHILD, str(folder), str(round_no))
        try:
            assert child.read_line(timeout=120) == "ack"
            assert child.read_line(timeout=30) == "optimizing"
            time.sleep(rng.uniform(0.0, 0.8))  # not a wait for a condition: the kill lands anywhere in the rewrite
            rest = child.kill()
        finally:
            child.close()
        expected += 2000
        rounds.append(round_no)
        print(f"round {round_no}: killed {'after' if 'optimized' in rest else 'while'} optimizing")
        _check(folder, expected, rounds)
    with Memory(path=folder, embedder=HashEmbedder(dim=32)) as mem:
        mem.optimize()
    _check(folder, expected, rounds)
