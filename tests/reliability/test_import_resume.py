"""A bulk import killed half-way is finished by running it again with ``resume``: every record once, none twice, and
only the rest embedded and written. The CLI shows a progress line with the count and the rate."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from memadapt_core import Memory
from memadapt_core.engine.transfer.jsonl import _IMPORT_BATCH

RECORDS = 10 * (2 * _IMPORT_BATCH // 10 + 10)  # ten sessions; three batches: the kill lands after the first two


@pytest.fixture(scope="module")
def dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An export of RECORDS messages over two users and a few sessions."""
    tmp_path = tmp_path_factory.mktemp("dump")
    dump = tmp_path / "dump.jsonl"
    with Memory(path=str(tmp_path / "source"), embedder="wordllama") as mem:
        for user in ("ann", "bob"):
            for s in range(5):
                turns = [f"{user} says thing {i} of session {s} about bees" for i in range(RECORDS // 10)]
                mem.add(turns, user_id=user, session_id=f"s{s}")
        assert mem.export(dump) == RECORDS
    return dump


_KILLED_IMPORT = """
import os, signal, sys
from memadapt_core import Memory
from memadapt_core.engine.transfer.jsonl import _IMPORT_BATCH
batches = 0
def progress(n):
    global batches
    batches += 1
    if batches == 2:
        os.kill(os.getpid(), signal.SIGKILL)  # a crash: no close, no flush
mem = Memory(path=sys.argv[1], embedder="wordllama")
mem.import_(sys.argv[2], progress=progress)
"""


def test_an_import_killed_half_way_is_finished_by_resuming_without_duplicates(dump: Path, tmp_path: Path) -> None:
    store = str(tmp_path / "store")

    child = subprocess.run([sys.executable, "-c", _KILLED_IMPORT, store, str(dump)], check=False)

    assert child.returncode == -9
    with Memory(path=store, embedder="wordllama") as mem:
        assert _count(mem) == 2 * _IMPORT_BATCH  # the two batches acknowledged before the kill
        assert mem.import_(dump, resume=True) == RECORDS - 2 * _IMPORT_BATCH  # only the rest is embedded and written
        assert _count(mem) == RECORDS
        mem.export(tmp_path / "after.jsonl")
        stored = [
            json.loads(line)["id"] for line in (tmp_path / "after.jsonl").read_text(encoding="utf-8").splitlines()
        ]
        assert len(stored) == len(set(stored)) == RECORDS
        assert set(stored) == {json.loads(line)["id"] for line in dump.read_text(encoding="utf-8").splitlines()}


def test_resuming_a_finished_import_writes_nothing(dump: Path, tmp_path: Path) -> None:
    with Memory(path=str(tmp_path / "store"), embedder="wordllama") as mem:
        assert mem.import_(dump) == RECORDS

        assert mem.import_(dump, resume=True) == 0
        assert _count(mem) == RECORDS


def test_the_cli_import_shows_the_records_done_and_their_rate(dump: Path, tmp_path: Path) -> None:
    store = str(tmp_path / "store")
    cli = "import sys; from memadapt_core.cli import main; sys.exit(main(sys.argv[1:]))"
    terminal, child_end = pty.openpty()  # the progress line is drawn on a terminal only
    env = {**os.environ, "MEMADAPT_EMBEDDER__PROVIDER": "wordllama", "COLUMNS": "120"}
    with subprocess.Popen(
        [sys.executable, "-c", cli, "--path", store, "import", str(dump)],
        stdout=subprocess.PIPE, stderr=child_end, env=env,
    ) as child:  # fmt: skip
        os.close(child_end)
        out = child.communicate(timeout=120)[0].decode()
        drawn = _read_all(terminal)

    assert child.returncode == 0
    assert f"imported {RECORDS} records" in out
    assert "importing" in drawn
    assert f"{RECORDS:,} records" in drawn
    assert "/s" in drawn


def _count(mem: Memory) -> int:
    return sum(mem.count(user_id=user) for user in ("ann", "bob"))


def _read_all(fd: int) -> str:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the child's end is closed: everything was read
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks).decode(errors="replace")
