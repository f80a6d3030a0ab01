"""Faults: a failing or hanging embedder, an embedding server answering 500s, rate limits, nothing or garbage, a
Qdrant URL nobody listens on, a read-only folder and a full disk. Each gives a clear ``MemadaptError`` subclass,
writes nothing half-way, and the engine keeps serving what does not need the failed part."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from memadapt_core import (
    AsyncMemory,
    Embedder,
    EmbeddingError,
    Memory,
    StoreUnavailableError,
)
from memadapt_core.embedders.base import Vectors
from memadapt_core.testing import Failure, Garbage, Hang, HashEmbedder, ScriptedLLMServer, ScriptItem

from ._support import ChildProcess, all_records, remount, snapshot, wait_until
from .conftest import Mount


class FaultyEmbedder(Embedder):
    """Deterministic vectors (the library's ``HashEmbedder``), or, on command, an exception, a wrong shape,
    NaNs, or a hang until ``release()``."""

    def __init__(self, *, cpu_bound: bool = True) -> None:
        self._inner = HashEmbedder(dim=64)
        self.name, self.dim, self.cpu_bound = "faulty-64", 64, cpu_bound
        self.mode: str | None = None
        self.entered = threading.Event()
        self.returned = threading.Event()
        self._gate = threading.Event()

    def release(self) -> None:
        self._gate.set()

    def _embed(self, texts: Sequence[str]) -> Vectors:
        self.entered.set()
        try:
            if self.mode == "raise":
                raise RuntimeError("the model crashed")
            if self.mode == "shape":
                return np.ones((len(texts) + 1, self.dim), dtype=np.float32)
            if self.mode == "nan":
                return np.full((len(texts), self.dim), np.nan, dtype=np.float32)
            if self.mode == "hang":
                self._gate.wait(timeout=30)
            return self._inner._embed(texts)
        finally:
            self.returned.set()


# -- embedder ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["raise", "shape"])
def test_a_failing_embedder_gives_embedding_error_and_stores_nothing(mode: str) -> None:
    embedder = FaultyEmbedder()
    with Memory(location=":memory:", embedder=embedder) as mem:
        (kept,) = mem.add("stored before the failure", user_id="alice")
        before = snapshot(mem)
        embedder.mode = mode

        with pytest.raises(EmbeddingError, match="faulty-64"):
            mem.add(["one", "two", "three"], user_id="alice", session_id="s1")
        with pytest.raises(EmbeddingError):
            mem.update(kept.id, text="changed while broken")

        assert snapshot(mem) == before
        assert mem.get(kept.id) == kept  # reads that need no embedding are served
        assert mem.count(user_id="alice") == 1
        embedder.mode = None
        assert [r.text for r in mem.add("stored after recovery", user_id="alice")] == ["stored after recovery"]


async def test_a_failing_embedder_gives_embedding_error_in_the_async_engine_too() -> None:
    embedder = FaultyEmbedder()
    async with AsyncMemory(location=":memory:", embedder=embedder) as mem:
        await mem.add("stored before the failure", user_id="alice")
        embedder.mode = "raise"

        with pytest.raises(EmbeddingError):
            await mem.add([f"bulk {i}" for i in range(80)], user_id="alice")  # a batch embedded on a thread
        with pytest.raises(EmbeddingError):
            await mem.search("stored", user_id="alice")

        assert [r.text for r in (await mem.list(user_id="alice")).records] == ["stored before the failure"]


def test_an_embedder_answering_nan_still_stores_a_record_found_by_its_words() -> None:
    embedder = FaultyEmbedder()
    with Memory(location=":memory:", embedder=embedder) as mem:
        embedder.mode = "nan"
        (rec,) = mem.add("the zeppelin hangar keys", user_id="alice", kind="fact")
        embedder.mode = None
        # Its vector means nothing, so only the words find it: below the default relevance floor.
        assert [h.record.id for h in mem.search("zeppelin hangar", user_id="alice", threshold=0.0)] == [rec.id]


async def test_a_hanging_embedder_can_be_abandoned_and_leaves_nothing_behind() -> None:
    # The engine has no embedding timeout of its own (see the report): the caller bounds the call.
    embedder = FaultyEmbedder(cpu_bound=False)  # slow embedders run on a thread, so the loop stays free
    async with AsyncMemory(location=":memory:", embedder=embedder) as mem:
        (kept,) = await mem.add("stored before the hang", user_id="alice")
        embedder.mode = "hang"
        embedder.entered.clear()
        embedder.returned.clear()
        writer = asyncio.create_task(mem.add("never stored", user_id="alice"))
        assert await asyncio.to_thread(embedder.entered.wait, 10)

        assert await mem.get(kept.id) == kept  # reads go on while the embedder hangs
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(writer, 0.3)
        embedder.release()
        await asyncio.to_thread(embedder.returned.wait, 10)

        assert [r.text for r in (await mem.list(user_id="alice")).records] == ["stored before the hang"]


# -- an OpenAI-compatible embedding server -------------------------------------------------------------------------
@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(embedding_dim=64) as srv:
        yield srv


def _openai(server: ScriptedLLMServer) -> dict[str, object]:
    return {"provider": "openai", "model": "emb", "base_url": server.base_url, "dim": 64, "timeout": 0.5}


def _embedding_requests(server: ScriptedLLMServer) -> int:
    return sum(r.path.endswith("/embeddings") for r in server.requests)


OUTAGES: dict[str, tuple[ScriptItem, int]] = {
    # what the server answers, and how many requests one add makes (the openai client retries twice)
    "500": (Failure(500, "scripted failure"), 3),
    "429": (Failure(429, "slow down", retry_after=0.05), 3),
    "timeout": (Hang(), 3),
    "garbage": (Garbage(), 1),
}


@pytest.mark.parametrize("outage", sorted(OUTAGES))
def test_an_embedding_server_outage_gives_embedding_error_after_retries(server: ScriptedLLMServer, outage: str) -> None:
    answer, attempts = OUTAGES[outage]
    with Memory(location=":memory:", embedder=_openai(server)) as mem:
        mem.add("stored before the outage", user_id="alice")
        before, sent = snapshot(mem), _embedding_requests(server)
        server.set_outage(answer)

        with pytest.raises(EmbeddingError, match="embedding server failed"):
            mem.add(["lost turn one", "lost turn two"], user_id="alice", session_id="s1")

        server.end_outage()
        server.release()
        assert _embedding_requests(server) - sent == attempts
        assert snapshot(mem) == before
        mem.add("stored after the outage", user_id="alice")
        assert mem.search("after the outage", user_id="alice")[0].record.text == "stored after the outage"


@pytest.mark.parametrize("outage", ["500", "garbage"])
async def test_an_embedding_server_outage_gives_embedding_error_in_the_async_engine(
    server: ScriptedLLMServer, outage: str
) -> None:
    async with AsyncMemory(location=":memory:", embedder=_openai(server)) as mem:
        await mem.add("stored before the outage", user_id="alice")
        server.set_outage(OUTAGES[outage][0])

        with pytest.raises(EmbeddingError):
            await mem.add("lost", user_id="alice")
        with pytest.raises(EmbeddingError):
            await mem.search("stored", user_id="alice")

        server.end_outage()
        assert [r.text for r in (await mem.list(user_id="alice")).records] == ["stored before the outage"]


# -- a Qdrant server that is not there -----------------------------------------------------------------------------
@pytest.fixture
def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def _client_version_check_ignored() -> Iterator[None]:
    """qdrant-client checks the server's version on a thread of its own and warns (UserWarning) when nothing
    answers. These tests are about the error the engine raises, so that warning is ignored, until the thread ended
    (it outlives the constructor)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Failed to obtain server version", category=UserWarning)
        yield
        wait_until(
            lambda: not any("_check_compatibility" in t.name for t in threading.enumerate()),
            timeout=30,
            message="qdrant-client's version check thread did not end",
        )


def test_a_closed_qdrant_port_gives_store_unavailable_quickly(closed_port: int) -> None:
    url = f"http://127.0.0.1:{closed_port}"
    started = time.monotonic()
    with (
        _client_version_check_ignored(),
        pytest.raises(StoreUnavailableError, match=f"cannot reach Qdrant at {url}") as err,
    ):
        Memory(url=url)
    assert time.monotonic() - started < 5
    assert isinstance(err.value, ConnectionError)


async def test_a_closed_qdrant_port_gives_store_unavailable_in_the_async_engine(closed_port: int) -> None:
    with _client_version_check_ignored(), pytest.raises(StoreUnavailableError):
        AsyncMemory(url=f"http://127.0.0.1:{closed_port}")


# -- the disk --------------------------------------------------------------------------------------------------------
def test_a_store_on_a_read_only_filesystem_is_refused_clearly_and_left_intact(tmpfs: Mount) -> None:
    fs = tmpfs("512m")  # a tmpfs takes memory only for what is written; a store uses 50-130 MiB
    with Memory(path=fs / "store") as mem:
        (kept,) = mem.add("written while the disk was writable", user_id="alice")
    remount(fs, "ro")
    try:
        with pytest.raises(StoreUnavailableError, match="cannot open the embedded store"):
            Memory(path=fs / "store")
        with pytest.raises(StoreUnavailableError, match="cannot create the store folder"):
            Memory(path=fs / "new-store")
    finally:
        remount(fs, "rw")
    with Memory(path=fs / "store") as mem:
        assert all_records(mem, user_id="alice") == [kept]


FILL_DISK = r"""
import sys
from memadapt_core import MemadaptError, Memory

root, filler = sys.argv[1], sys.argv[2]
mem = Memory(path=root)
mem.add("written before the disk filled", user_id="alice")
mem.flush()
print("ack before", flush=True)
with open(filler, "wb") as out:
    try:
        while True:
            out.write(b"\0" * 65536)
    except OSError:
        pass
print("full", flush=True)
try:
    for i in range(200):
        mem.add([f"batch {i} turn {j} " + "word " * 100 for j in range(10)], user_id="alice", session_id="s")
        print(f"ack batch {i}", flush=True)
except MemadaptError as exc:
    print(f"error {type(exc).__name__}: {exc}", flush=True)
print(f"read {mem.count(user_id='alice')}", flush=True)
"""


def _lines_until_exit(child: ChildProcess, timeout: float) -> list[str]:
    lines = []
    try:
        while True:
            lines.append(child.read_line(timeout=timeout))
    except AssertionError:  # the child ended, one way or another
        pass
    finally:
        child.close()
    return lines


def _fill_the_disk(fs: Path) -> tuple[int | None, list[str]]:
    child = ChildProcess(FILL_DISK, str(fs / "store"), str(fs / "filler"), env={"RUST_BACKTRACE": "0"})
    lines = _lines_until_exit(child, 120)
    return child.proc.returncode, lines


def test_a_full_disk_gives_a_store_error_and_the_engine_keeps_serving_reads(tmpfs: Mount) -> None:
    returncode, lines = _fill_the_disk(tmpfs("512m"))

    assert returncode == 0, f"the writer died (rc={returncode}) after: {lines[-3:]}"
    assert lines[2].startswith("error StoreFullError: the embedded store's disk is nearly full"), lines
    assert lines[-1] == "read 1"  # the write before the disk filled, read back after the refusal


FILL_TO_THE_MARGIN = r"""
import os, sys
from memadapt_core import MemadaptError, Memory

root, filler, margin, room = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
mem = Memory(path=root, min_free_disk_mb=margin)
st = os.statvfs(root)
left = st.f_bavail * st.f_frsize - (margin + room) * 2**20
with open(filler, "wb") as out:
    while left > 0:
        left -= out.write(b"\0" * min(left, 2**20))
acked = 0
try:
    for i in range(100_000):
        mem.add([f"batch {i} turn {j} " + "word " * 100 for j in range(10)], user_id="alice", session_id="s")
        acked += 10
except MemadaptError as exc:
    st = os.statvfs(root)
    print(f"error {type(exc).__name__} {st.f_bavail * st.f_frsize / 2**20:.1f}", flush=True)
print(f"acked {acked} read {mem.count(user_id='alice')}", flush=True)
"""


def test_writes_are_refused_at_the_margin_before_the_disk_fills(tmpfs: Mount) -> None:
    # A 32 MiB margin, a quarter of the default, measured safe: a smaller one still survived 24k batches.
    fs = tmpfs("512m")
    child = ChildProcess(FILL_TO_THE_MARGIN, str(fs / "store"), str(fs / "filler"), "32", "24")
    lines = _lines_until_exit(child, 300)

    assert child.proc.returncode == 0, f"the writer died (rc={child.proc.returncode}) after: {lines[-3:]}"
    error, read = lines
    name, free = error.split()[1:]
    assert name == "StoreFullError"
    assert 32 <= float(free) < 40  # refused at the margin, not before
    acked, stored = read.split()[1::2]
    assert int(acked) == int(stored) > 0


REOPEN = r"""
import sys
from memadapt_core import MemadaptError, Memory

try:
    with Memory(path=sys.argv[1]) as mem:
        print(f"read {mem.count(user_id='alice')}", flush=True)
except MemadaptError as exc:
    print(f"error {type(exc).__name__}: {exc}", flush=True)
"""


def test_opening_a_store_on_a_full_disk_gives_a_clear_error(tmpfs: Mount) -> None:
    fs = tmpfs("512m")
    with Memory(path=fs / "store") as mem:
        mem.add("written while there was room", user_id="alice")
    with (fs / "filler").open("wb") as out, contextlib.suppress(OSError):
        while True:
            out.write(b"\0" * 2**20)
    child = ChildProcess(REOPEN, str(fs / "store"), env={"RUST_BACKTRACE": "0"})
    try:
        line = child.read_line(timeout=120)
    finally:
        child.close()

    assert line.startswith("error StoreUnavailableError: cannot open the embedded store"), line
    assert "min_free_disk_mb" in line


def test_writes_acknowledged_before_the_disk_filled_survive(tmpfs: Mount) -> None:
    fs = tmpfs("512m")
    _, lines = _fill_the_disk(fs)
    assert lines[:2] == ["ack before", "full"], lines
    acked_batches = sum(line.startswith("ack batch") for line in lines)

    (fs / "filler").unlink()
    remount(fs, "size=2g")  # room to reopen: the store preallocates its files
    with Memory(path=fs / "store") as mem:
        stored = all_records(mem, user_id="alice")
        assert "written before the disk filled" in [r.text for r in stored]
        batches = Counter(r.text.split()[1] for r in stored if r.text.startswith("batch "))
        assert all(batches[str(i)] == 10 for i in range(acked_batches))  # nothing acknowledged is lost
        assert set(batches.values()) <= {10}  # and no batch is half there, the one in flight included
        mem.add("written after space was freed", user_id="alice")
