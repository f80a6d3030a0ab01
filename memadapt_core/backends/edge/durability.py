"""When an acknowledged write reaches the disk: the embedded store's ``durability`` setting.

qdrant-edge appends every update to its write-ahead log (``<shard>/wal/``, 32 MiB segments it writes through memory
maps) before applying it, and replays the log on open: a killed process loses nothing. But it syncs the log only in
``flush()``, which also syncs every segment (~45 ``msync``/``fsync`` calls on a small store); until then an update
lives in the page cache, and a power cut or a crash of the machine can lose writes that returned. qdrant-edge offers
no option to sync the log per write, so ``WalSync`` does it: an ``fsync`` of the log's files (on Linux, ``fsync``
writes back the file's dirty pages whichever mapping dirtied them) and of the log's folder when its files changed.
Modes:

- ``"fsync"`` (default): every write is synced before it returns. An add that returned survives a power cut.
- ``"interval"``: synced at most ``sync_interval`` seconds after it was written, by a timer thread; a power cut loses
  at most that window. A killed process still loses nothing.
- ``"process"``: never synced here, only by ``flush()``, ``close()`` and the background flush (``upkeep.py``). A
  killed process loses nothing; a power cut loses what the OS had not written back (~30 s on Linux).

The costs are in docs/reliability-and-security.md (``benchmarks/durability.py``).
"""

from __future__ import annotations

import errno
import logging
import os
import threading
from pathlib import Path
from typing import Literal

from memadapt_core.errors import StoreError, StoreFullError

__all__ = ["Durability", "WalSync"]

Durability = Literal["fsync", "interval", "process"]
log = logging.getLogger("memadapt")


class WalSync:
    """Syncs one shard's write-ahead log according to ``mode``. ``after_write`` runs under the backend's write lock,
    once an update is applied and before the write returns."""

    def __init__(self, mode: Durability, interval: float = 1.0) -> None:
        self.mode = mode
        self.interval = interval
        self.syncs = 0  # completed syncs (diagnostics, tests)
        self._wal: Path | None = None
        self._known: frozenset[str] = frozenset()  # the log's file names at the last sync
        self._synced_closed: set[str] = set()  # closed log segments never change again: synced once
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()  # one sync at a time (the timer against a caller)

    def attach(self, shard_folder: Path) -> None:
        self._wal = shard_folder / "wal"
        self._known = frozenset()
        self._synced_closed.clear()

    def after_write(self) -> None:
        if self.mode == "fsync":
            self.sync()
        elif self.mode == "interval":
            with self._lock:
                if self._timer is None:
                    self._timer = threading.Timer(self.interval, self._timed)
                    self._timer.daemon = True
                    self._timer.name = "memadapt-wal-sync"
                    self._timer.start()

    def _timed(self) -> None:
        with self._lock:
            self._timer = None
        try:
            self.sync()
        except StoreError as exc:  # a timer has no caller: the next flush() or close() will meet it again
            log.warning("embedded store: syncing the write-ahead log failed: %s", exc)

    def sync(self) -> None:
        """fsync every log file that may hold unsynced bytes, and the log's folder if its files changed."""
        wal = self._wal
        if wal is None:
            return
        with self._lock:
            try:
                names = self._sync_files(wal)
                if names != self._known:  # a segment was created, renamed or removed: make that durable too
                    _fsync_path(wal)
                    self._known = names
                    self._synced_closed &= names
            except OSError as exc:
                full = exc.errno in (errno.ENOSPC, errno.EDQUOT)
                msg = (
                    f"the write was applied but could not be synced to disk ({exc}): it survives a crash of this "
                    "process, not a power cut. "
                    + ("Free some disk space, then call flush()." if full else "Check the disk, then call flush().")
                )
                raise (StoreFullError if full else StoreError)(msg) from exc
            self.syncs += 1

    def _sync_files(self, wal: Path) -> frozenset[str]:
        """fsync the log's files; listed again if one was renamed meanwhile (an open segment being closed)."""
        for _ in range(3):
            names = frozenset(os.listdir(wal))
            complete = True
            for name in names - self._synced_closed:
                if not _fsync_path(wal / name):
                    complete = False
                elif name.startswith("closed"):
                    self._synced_closed.add(name)
            if complete:
                break
        return names

    def close(self) -> None:
        """Stop the timer (the shard's own flush on close syncs everything)."""
        with self._lock:
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()


def _fsync_path(path: Path) -> bool:
    """fsync ``path``; False if it is gone (renamed or dropped since it was listed)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return True
