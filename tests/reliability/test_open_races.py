"""Several processes creating or opening one fresh folder at the same moment: exactly one owns it, each other gets
``StoreLockedError``, and the store is whole (never half-created, never removed under its owner)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from subprocess import PIPE

import pytest

from memadapt_core import Memory, StoreLockedError
from memadapt_core.testing import HashEmbedder

OPENER = """
import sys, time
from pathlib import Path
from memadapt_core import Memory, StoreLockedError
from memadapt_core.testing import HashEmbedder

go = Path(sys.argv[2])
while not go.exists():  # every opener is imported and waiting: they start together...
    time.sleep(0.001)
time.sleep(int(sys.argv[3]) * float(sys.argv[4]))  # ... or one after another, while the first is creating the store
try:
    mem = Memory(path=sys.argv[1], embedder=HashEmbedder(dim=8))
except StoreLockedError:
    print("locked", flush=True)
    sys.exit(0)
mem.add(f"written by owner {sys.argv[3]}", user_id="alice")
print("owner", flush=True)
sys.stdin.read()  # hold the store until the test has heard from everyone
mem.close()
"""

OPENERS = 4


@pytest.mark.parametrize("stagger", [0.0, 0.01, 0.05])
def test_one_owner_and_clear_lock_errors_when_processes_race_to_create_a_store(tmp_path: Path, stagger: float) -> None:
    store, go = tmp_path / "store", tmp_path / "go"
    argv = [sys.executable, "-c", OPENER, str(store), str(go)]
    procs = [
        subprocess.Popen([*argv, str(n), str(stagger)], text=True, stdin=PIPE, stdout=PIPE, stderr=PIPE)
        for n in range(OPENERS)
    ]
    try:
        time.sleep(0.5)  # not a measurement: lets the openers finish importing before the start
        go.touch()
        answers = [p.stdout.readline().strip() for p in procs]  # type: ignore[union-attr]
        for p in procs:
            p.communicate("", timeout=120)
    finally:
        for p in procs:
            p.kill()

    assert sorted(answers) == ["locked"] * (OPENERS - 1) + ["owner"], [p.stderr for p in procs]
    with Memory(path=store, embedder=HashEmbedder(dim=8)) as mem:
        assert [r.text.split()[0] for r in mem.list(user_id="alice").records] == ["written"]
    assert not list(tmp_path.glob("store/.*.creating-*"))  # no build left behind


def test_a_crashed_build_leaves_no_half_store(tmp_path: Path) -> None:
    leftover = tmp_path / ".memadapt_hash_8_8.creating-99999999"
    (leftover / "segments").mkdir(parents=True)  # what a process killed while building a store leaves

    with Memory(path=tmp_path, embedder=HashEmbedder(dim=8)) as mem:
        mem.add("a fresh store", user_id="alice")

        assert mem.count(user_id="alice") == 1
    assert not leftover.exists()


@pytest.mark.skipif(sys.platform == "win32", reason="flock is POSIX")
def test_an_opener_arriving_while_another_builds_the_store_is_refused_and_touches_nothing(tmp_path: Path) -> None:
    import fcntl
    import os

    building = tmp_path / ".memadapt_hash_8_8.creating-12345"
    (building / "segments").mkdir(parents=True)  # another process's build, under way
    fd = os.open(tmp_path / ".memadapt_hash_8_8.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)  # ... holding the folder's lock, as every opener does first
    try:
        with pytest.raises(StoreLockedError, match="another process"):
            Memory(path=tmp_path, embedder=HashEmbedder(dim=8))
        assert building.exists()
        assert not (tmp_path / "memadapt_hash_8_8").exists()
    finally:
        os.close(fd)
    with Memory(path=tmp_path, embedder=HashEmbedder(dim=8)) as mem:  # the lock let go: the next opener builds
        assert mem.count(user_id="alice") == 0
