"""Opening the embedded store's folder: the qdrant-edge shard's configuration, and the lock that lets one process in.

``<path>/<collection>/`` is an edge shard, loaded if the folder holds one and created otherwise. qdrant-edge takes
an OS lock on it: a second opener gets ``StoreLockedError``, whose message says whether this process holds the
folder already (``release`` forgets a folder once its shard is closed).

A forked child (``multiprocessing``'s fork start method, ``gunicorn --preload``) inherits the open shards: their
memory maps, file handles and the OS lock, shared with the parent. Writing through them from both processes
corrupted the store, and even dropping one in the child runs qdrant-edge's own flush on close. So after a fork the
child keeps every inherited shard alive for good, untouched (``_adopt_in_child``); the backend refuses to use one
from another process (``StoreForkedError``). The child holds the inherited lock too: it opens stores of its own,
not that one.

Opening races: two processes opening one fresh folder at once could both be refused, or one could remove the files
the other was creating. Before looking at the folder an opener takes an exclusive ``flock`` on
``<root>/.<collection>.lock`` (without waiting: the loser gets ``StoreLockedError``), held until the store is closed;
and a new shard is built in ``<root>/.<collection>.creating-<pid>`` and renamed into place only once complete, so
the folder never holds half a store, whoever crashes when.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import qdrant_edge as qe

from memadapt_core.backends.edge.holder import locked_message, read_note, write_note
from memadapt_core.backends.edge.upkeep import NO_GRAPH, OPTIMIZERS
from memadapt_core.errors import StoreCorruptedError, StoreError, StoreLockedError, StoreUnavailableError

__all__ = [
    "DENSE",
    "SPARSE",
    "aside",
    "build_fresh",
    "fsync_dir",
    "lock_folder",
    "not_damage",
    "open_shard",
    "recovery_step",
    "release",
    "shard_config",
    "unlock_folder",
]

DENSE, SPARSE = "dense", "bm25"
_OPEN_HERE: dict[str, qe.EdgeShard] = {}  # folders this process holds open: names the holder in the lock error


def _adopt_in_child() -> None:
    """In a forked child: the parent's shards are never used nor dropped here (dropping one flushes it)."""
    for shard in _OPEN_HERE.values():
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(shard))  # never freed, not even at the child's exit
    _OPEN_HERE.clear()  # the parent holds them: "another process" in a lock error


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_adopt_in_child)


# An optimized segment also keeps each dense vector in int8 (a quarter of its bytes, in RAM): a search scans those and
# rescores twice its candidates with the full vectors (edge.DENSE_SEARCH), so it returns the exact cosines of nearly
# always the exact candidates, and a big scope's scan reads a quarter of the bytes. Appendable segments (the writes
# since the last optimization) are scanned in float32 as before. benchmarks/results/history.md, "Int8 copies of the
# dense vectors".
DENSE_INT8 = qe.ScalarQuantizationConfig(type=qe.ScalarType.Int8, quantile=0.99)


def shard_config(dim: int, *, int8: bool = True) -> qe.EdgeConfig:
    params = qe.EdgeVectorParams(
        size=dim, distance=qe.Distance.Cosine, quantization_config=DENSE_INT8 if int8 else None
    )
    return qe.EdgeConfig(
        vectors={DENSE: params},
        sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        max_search_threads=1,  # two shared cores: one search thread measured 25-35% faster
        payload_memory=qe.Memory.Cached,
        hnsw_config=NO_GRAPH,  # exact search, on every segment
        optimizers=OPTIMIZERS,  # merge into one tenant-ordered segment, never an HNSW graph
    )


def open_shard(folder: Path, cfg: qe.EdgeConfig, *, existing: bool) -> qe.EdgeShard:
    """The shard in ``folder``: loaded if ``existing``, else created."""
    try:
        shard = qe.EdgeShard.load(str(folder), cfg) if existing else qe.EdgeShard.create(str(folder), cfg)
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except BaseException as exc:  # a Rust panic on damaged files is pyo3's PanicException, a BaseException
        raise _open_error(folder, exc, existing=existing) from exc
    _OPEN_HERE[str(folder.resolve())] = shard
    return shard


# What the OS says when the folder is there but cannot be used now: not damage.
_UNAVAILABLE = ("Permission denied", "Read-only file system", "No space left", "os error 13", "os error 28",
                "os error 30", "Disk quota")  # fmt: skip


def not_damage(text: str) -> bool:
    """Whether qdrant-edge's ``text`` says the folder is locked or unusable now (permissions, a full or read-only
    disk) rather than damaged."""
    return "WouldBlock" in text or any(marker in text for marker in _UNAVAILABLE)


def _open_error(folder: Path, exc: BaseException, *, existing: bool) -> StoreError:
    text = str(exc)
    if "WouldBlock" in text:
        return _locked(folder)
    if existing and not not_damage(text):
        msg = (
            f"cannot open the embedded store {folder}: its files are damaged ({type(exc).__name__}: {text[:300]}). "
            + recovery_step(folder.parent)
        )
        return StoreCorruptedError(msg)
    msg = f"cannot open the embedded store {folder}: {text}"
    return StoreUnavailableError(msg)


def recovery_step(root: Path) -> str:
    """What a ``StoreCorruptedError`` of the store under ``root`` tells its reader to do."""
    return (
        f"Run `memadapt doctor --path {root} --salvage <new path>` to copy what is readable (and what its "
        "write-ahead log still holds) into a new store, or restore a backup of the folder."
    )


def _locked(folder: Path) -> StoreLockedError:
    here = str(folder.resolve()) in _OPEN_HERE
    holder = "this process" if here else "another process"
    named = None if here else locked_message(folder, read_note(folder.parent / aside(folder, "lock")))
    msg = named or (
        f"the embedded store {folder} is already open in {holder}. The embedded store serves one "
        "process: within a process, engines opened with the same settings (and no Embedder object or "
        "plugins of their own) share it, or share one Memory (as_sync() / as_async() give the other "
        "twin over the same store); to share memories between processes, run a Qdrant server and pass "
        "url=..."
    )
    return StoreLockedError(msg)


def lock_folder(folder: Path) -> int | None:
    """Take ``folder``'s lock file, or raise ``StoreLockedError`` at once; the descriptor to give back to
    ``unlock_folder`` (None where there is no ``flock``: qdrant-edge's own lock is all there is)."""
    if sys.platform == "win32":
        return None
    import fcntl

    path = folder.parent / aside(folder, "lock")
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)  # the store is its owner's only
    except OSError as exc:
        msg = f"cannot open the embedded store {folder}: cannot open its lock file {path}: {exc}"
        raise StoreUnavailableError(msg) from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as exc:
        os.close(fd)
        raise _locked(folder) from exc
    except OSError as exc:
        os.close(fd)
        msg = f"cannot open the embedded store {folder}: cannot lock {path}: {exc}"
        raise StoreUnavailableError(msg) from exc
    write_note(fd)  # who holds it, for the lock error of the next process that tries
    return fd


def unlock_folder(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)  # closing the last descriptor of the lock file releases the lock


def aside(folder: Path, suffix: str) -> str:
    """The name of a file beside ``folder`` that belongs to it: ``.<name>.<suffix>``, or with a hash of the name
    where that would pass the file system's 255 bytes (a collection name may take them all)."""
    name = f".{folder.name}.{suffix}"
    if len(name.encode("utf-8", "surrogateescape")) <= 240:
        return name
    return f".{hashlib.blake2b(folder.name.encode('utf-8', 'surrogateescape'), digest_size=12).hexdigest()}.{suffix}"


def build_fresh(folder: Path, create: Callable[[Path], None]) -> None:
    """Build a new shard with ``create(tmp)`` in a temporary folder beside ``folder``, then rename it into place:
    ``folder`` holds a complete shard or none. Holding the folder's lock, leftovers of crashed builds go first."""
    for stale in folder.parent.glob(aside(folder, "creating-*")):
        shutil.rmtree(stale, ignore_errors=True)
    tmp = folder.parent / aside(folder, f"creating-{os.getpid()}")
    try:
        create(tmp)
        if folder.exists():
            folder.rmdir()  # empty (the caller checked); rename does not replace a folder everywhere
        tmp.rename(folder)
    except OSError as exc:
        msg = f"cannot create the embedded store {folder}: {exc}"
        raise StoreUnavailableError(msg) from exc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    fsync_dir(folder.parent)


def fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems cannot sync a folder; the store itself is complete either way
    finally:
        os.close(fd)


def release(folder: Path) -> None:
    """``folder``'s shard is closed (or about to be): this process no longer holds it."""
    _OPEN_HERE.pop(str(folder.resolve()), None)
