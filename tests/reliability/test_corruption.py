"""Damaged store files are loud: opening a store whose files were flipped or truncated either reads every record
back or raises ``StoreCorruptedError`` naming the recovery step (``memadapt doctor``); never a raw Rust panic.

The cases run in one child process with a memory limit, so an abort or an unbounded allocation fails the test
instead of the suite. The id trackers are in: a truncated ``mutable_id_tracker`` file once lost a record silently and
a flipped last byte aborted the process; the seal a clean close leaves (``backends/edge_seal.py``) now refuses both
before qdrant-edge reads them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memadapt_core import Memory, StoreCorruptedError
from memadapt_core.testing import HashEmbedder

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_AS is POSIX")

CHECK = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
from memadapt_core import Memory, MemadaptError
from memadapt_core.testing import HashEmbedder
for case in json.loads(sys.argv[1]):
    try:
        with Memory(path=case, embedder=HashEmbedder(dim=8)) as mem:
            got = [len(list(mem.iter_records(user_id=u))) for u in ("alice", "bob")]
            print(json.dumps(["read", got]), flush=True)
    except MemadaptError as exc:
        print(json.dumps([type(exc).__name__, str(exc)]), flush=True)
    except BaseException as exc:
        print(json.dumps(["raw " + type(exc).__name__, str(exc)]), flush=True)
"""


def _damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "truncate":
        data = data[: len(data) // 2]
    elif how == "flip-last":
        data[-1] ^= 0xFF
    else:
        data[min(len(data) - 1, 17)] ^= 0xFF
    path.write_bytes(bytes(data))


def test_damaged_files_either_read_back_whole_or_raise_a_corrupted_store_error(tmp_path: Path) -> None:
    original = tmp_path / "original"
    with Memory(path=original, embedder=HashEmbedder(dim=8)) as mem:
        for user in ("alice", "bob"):
            mem.add([f"{user} note {i}" for i in range(50)], user_id=user)
    files = sorted(
        p.relative_to(original)
        for p in original.rglob("*")
        if p.is_file() and p.stat().st_size and not p.name.startswith(".")
    )
    # One file of each kind that mattered: truncated status files panicked; configs and the log's index failed.
    kinds = {"status.dat", "edge_config.json", "segment.json", "version.info", "first-index", "config.json"}
    picked = {(p.name, p.parent.name): p for p in files if p.name in kinds}
    trackers = [p for p in files if "id_tracker" in p.name]  # silent losses and an abort before the seal
    assert trackers
    cases = []
    for n, rel in enumerate(sorted(picked.values())[:: max(1, len(picked) // 8)] + trackers):
        for how in ("truncate", "flip", "flip-last") if rel in trackers else ("truncate", "flip"):
            case = tmp_path / f"case-{n}-{how}"
            shutil.copytree(original, case)
            _damage(case / rel, how)
            cases.append(str(case))

    done = subprocess.run(
        [sys.executable, "-c", CHECK, json.dumps(cases)], capture_output=True, text=True, timeout=600, check=False
    )

    outcomes = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(outcomes) == len(cases)
    for case, (kind, detail) in zip(cases, outcomes, strict=True):
        if kind == "read":
            assert detail == [50, 50], case
        else:
            assert kind == "StoreCorruptedError", (case, kind, detail)
            assert "memadapt doctor" in detail
    assert any(kind == "StoreCorruptedError" for kind, _ in outcomes)


def test_a_payload_that_does_not_decode_is_a_corrupted_store_error(tmp_path: Path) -> None:
    with Memory(path=tmp_path, embedder=HashEmbedder(dim=8)) as mem:
        mem.add([f"alice note {i}" for i in range(50)], user_id="alice")
    _damage(next(tmp_path.rglob("payload_storage/page_0.dat")), "flip")  # past the seal: a 32 MiB file

    with pytest.raises(StoreCorruptedError, match="doctor"), Memory(path=tmp_path, embedder=HashEmbedder(dim=8)) as mem:
        list(mem.iter_records(user_id="alice"))  # (or already opening it, which reads payloads)
