"""fork() and the embedded store: a child forked from a process holding a store (multiprocessing's fork start
method, ``gunicorn --preload``) cannot use the inherited store; it is refused with ``StoreForkedError`` before any
byte is written, and the parent's store goes on intact."""

from __future__ import annotations

import multiprocessing
import os
import sys
from multiprocessing.connection import Connection
from pathlib import Path

import pytest

from memadapt_core import Memory, StoreForkedError, StoreUnavailableError
from memadapt_core.testing import HashEmbedder

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork is POSIX")

_inherited: Memory | None = None  # the parent's Memory, as a pre-forking server holds it


def _worker(conn: Connection, n: int) -> None:
    """A pre-forked worker using the Memory it inherited: each call is refused; closing lets it go untouched."""
    assert _inherited is not None
    outcomes = []
    for call in (
        lambda: _inherited.add(f"from worker {n}", user_id="alice"),
        lambda: _inherited.search("note", user_id="alice"),
        lambda: _inherited.flush(),
    ):
        try:
            call()
            outcomes.append("done")
        except StoreForkedError as exc:
            outcomes.append("forked" if "Open the Memory after forking" in str(exc) else str(exc))
        except Exception as exc:
            outcomes.append(f"{type(exc).__name__}: {exc}")
    _inherited.close()  # must not flush or close the parent's shard
    conn.send(outcomes)
    conn.close()


@pytest.fixture
def fork() -> multiprocessing.context.BaseContext:
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork start method here")
    return multiprocessing.get_context("fork")


def test_forked_workers_are_refused_and_the_parents_store_stays_whole(
    tmp_path: Path, fork: multiprocessing.context.BaseContext
) -> None:
    global _inherited
    mem = _inherited = Memory(path=tmp_path, embedder=HashEmbedder(dim=8))
    try:
        mem.add([f"parent note {i}" for i in range(20)], user_id="alice")
        workers = []
        for n in range(3):
            parent_end, child_end = fork.Pipe()
            proc = fork.Process(target=_worker, args=(child_end, n))  # type: ignore[attr-defined]
            proc.start()
            workers.append((proc, parent_end))
        outcomes = [end.recv() for _, end in workers]
        for proc, _ in workers:
            proc.join(60)
            assert proc.exitcode == 0

        assert outcomes == [["forked", "forked", "forked"]] * 3
        mem.add([f"parent note after the fork {i}" for i in range(20)], user_id="alice")
        assert mem.count(user_id="alice") == 40
    finally:
        _inherited = None
        mem.close()
    with Memory(path=tmp_path, embedder=HashEmbedder(dim=8)) as again:
        texts = {r.text for r in again.iter_records(user_id="alice")}
    assert len(texts) == 40
    assert not any("worker" in t for t in texts)


def test_a_forked_child_can_open_the_store_once_the_parent_closed_it(
    tmp_path: Path, fork: multiprocessing.context.BaseContext
) -> None:
    with Memory(path=tmp_path, embedder=HashEmbedder(dim=8)) as mem:
        mem.add("written by the parent", user_id="alice")
    pid = os.fork()
    if pid == 0:  # the child: a fresh Memory of its own
        code = 1
        try:
            with Memory(path=tmp_path, embedder=HashEmbedder(dim=8)) as own:
                own.add("written by the child", user_id="alice")
                code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    with Memory(path=tmp_path, embedder=HashEmbedder(dim=8)) as mem:
        assert mem.count(user_id="alice") == 2


def test_the_forked_error_is_a_store_unavailable_error() -> None:
    assert issubclass(StoreForkedError, StoreUnavailableError)
