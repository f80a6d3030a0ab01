"""Full disks: the free-space guard counts the whole write about to happen (text, role, name, metadata, vectors),
so a large batch is refused with ``StoreFullError`` instead of dying of SIGBUS; an export to a full disk is a
``StoreFullError`` too."""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np
import pytest

from memadapt_core import Memory, StoreFullError
from memadapt_core.backends.base import StoredPoint
from memadapt_core.backends.edge.upkeep import upsert_bytes
from memadapt_core.testing import HashEmbedder

from ._support import ChildProcess
from .conftest import Mount
from .test_faults import _lines_until_exit


def _point(**payload: object) -> StoredPoint:
    return StoredPoint("r", {"text": "hi", **payload}, np.zeros(8, dtype=np.float32), None)


def test_the_size_estimate_counts_metadata_role_and_name() -> None:
    bare = upsert_bytes([_point()])
    meta = {"notes": "x" * 60_000}

    assert upsert_bytes([_point(metadata=meta)]) >= bare + 3 * 60_000
    assert upsert_bytes([_point(role="r" * 1_000, name="n" * 500)]) >= bare + 3 * 4 * 1_500


BIG_BATCH = r"""
import sys
from memadapt_core import MemadaptError, Memory
from memadapt_core.testing import HashEmbedder

mem = Memory(path=sys.argv[1], embedder=HashEmbedder(dim=8), min_free_disk_mb=16)
mem.add("written before", user_id="alice")
shared = {f"k{i}": "v" * 600 for i in range(100)}  # 60 KB of metadata on every message
try:
    mem.add([f"short message {i}" for i in range(2_000)], user_id="alice", metadata=shared)
    print("stored", flush=True)
except MemadaptError as exc:
    print(f"error {type(exc).__name__}", flush=True)
print(f"read {mem.count(user_id='alice')}", flush=True)
mem.close()
"""


def test_a_large_batch_with_shared_metadata_is_refused_not_killed(tmpfs: Mount) -> None:
    fs = tmpfs("200m")  # 2,000 x 60 KB of payload is more than it holds
    child = ChildProcess(BIG_BATCH, str(fs / "store"), env={"RUST_BACKTRACE": "0"})
    lines = _lines_until_exit(child, 300)

    assert child.proc.returncode == 0, f"the writer died (rc={child.proc.returncode}) after: {lines[-3:]}"
    assert lines == ["error StoreFullError", "read 1"]


def test_an_export_to_a_full_disk_is_a_store_full_error(tmpfs: Mount, tmp_path: Path) -> None:
    fs = tmpfs("4m")
    with Memory(path=tmp_path / "store", embedder=HashEmbedder(dim=8)) as mem:
        mem.add([f"note {i} " + "word " * 200 for i in range(50)], user_id="alice")
        with (fs / "filler").open("wb") as out, contextlib.suppress(OSError):
            while True:
                out.write(b"\0" * 2**16)

        with pytest.raises(StoreFullError, match="incomplete"):
            mem.export(fs / "dump.jsonl", user_id="alice")
        assert mem.count(user_id="alice") == 50


FLUSH_AND_CLOSE = r"""
import sys
from pathlib import Path
from memadapt_core import MemadaptError, Memory
from memadapt_core.testing import HashEmbedder

store, filler = Path(sys.argv[1]), Path(sys.argv[2])
mem = Memory(path=store, embedder=HashEmbedder(dim=8), min_free_disk_mb=0)
mem.add([f"acknowledged note {i}" for i in range(300)], user_id="alice")
with filler.open("wb", buffering=0) as out:  # every last byte: a flush has to write somewhere
    for size in (1 << 16, 1 << 12, 1):
        try:
            while True:
                out.write(b"\0" * size)
        except OSError:
            pass
for name, call in (("flush", mem.flush), ("close", mem.close)):
    try:
        call()
        print(f"{name} ok", flush=True)
    except MemadaptError as exc:
        print(f"{name} {type(exc).__name__}", flush=True)
filler.unlink()
with Memory(path=store, embedder=HashEmbedder(dim=8), min_free_disk_mb=0) as again:
    print(f"read {again.count(user_id='alice')}", flush=True)
"""


def test_flush_and_close_on_a_full_disk_raise_store_full_and_lose_nothing_acknowledged(tmpfs: Mount) -> None:
    fs = tmpfs("160m")
    child = ChildProcess(FLUSH_AND_CLOSE, str(fs / "store"), str(fs / "filler"), env={"RUST_BACKTRACE": "0"})
    lines = _lines_until_exit(child, 300)

    assert child.proc.returncode == 0, f"the writer died (rc={child.proc.returncode}) after: {lines[-3:]}"
    assert lines == ["flush StoreFullError", "close StoreFullError", "read 300"]
