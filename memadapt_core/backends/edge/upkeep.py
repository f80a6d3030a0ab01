"""Upkeep of the embedded store: a free-space guard in front of every write, and a vacuum that runs off the hot path.

qdrant-edge writes through memory maps into files it preallocates sparsely. On a full disk a write to such a page
is not an error but SIGBUS, which kills the process, so the guard refuses a write (``StoreFullError``) while the
store's filesystem still has ``min_free_disk_mb`` left, and refuses to open a store below that (opening touched
74 MiB of a fresh tmpfs). One ``statvfs`` costs about 2 µs: it runs before every write, uncached.

Nothing is reclaimed by itself either: a deleted point stays in the appendable segment as a tombstone (RSS and disk
grew with the number of writes, not with the live data), and the write-ahead log keeps every closed 32 MiB segment
until a flush. ``Upkeep`` counts deletes and writes; past ``vacuum_after_deletes`` deletes (and at least as many as
there are live points, so the work is paid back) it vacuums on a background thread, and every
``FLUSH_AFTER_POINTS`` points written it flushes, which truncates the log. The vacuum is qdrant-edge's optimizer (see
``OPTIMIZERS``): one immutable, tenant-ordered segment, no HNSW graph. It holds the backend's write lock, so writes
wait for it; qdrant-edge also keeps the GIL while it optimizes, so other Python threads pause for its duration.

A point in that segment cannot change in place: its first update after an optimization marks it deleted and writes
it anew to the appendable segment, where later updates change it in place. Those tombstones are not counted: there
is at most one a point the last optimization wrote, which bounds the waste as the vacuum's own rule does.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from memadapt_core.backends.base import StoredPoint
from memadapt_core.errors import StoreFullError, StoreUnavailableError

__all__ = ["FLUSH_AFTER_POINTS", "NO_GRAPH", "OPTIMIZERS", "DiskGuard", "Upkeep", "upsert_bytes"]

log = logging.getLogger("memadapt")

MiB = 2**20
# A vacuum touched up to 211 MiB of a tmpfs besides the live points (a new segment and a fresh appendable one, both
# preallocated), whatever the store's size: it runs only with that much room above the margin.
VACUUM_ROOM = 256 * MiB
FLUSH_AFTER_POINTS = 20_000  # the log grew 32 MiB per ~25k small writes; a flush drops its closed segments
# An optimization rewrites the live points into one immutable segment, which keeps each tenant's points together and
# makes filtered search about twice as fast in qdrant-edge; the writes that follow go to a fresh appendable segment.
# The indexing threshold is in KB of vectors: an appendable segment under 1 KB (a handful of points) waits for the
# next optimization. "Indexing" builds no HNSW graph (m=0), and no filter reaches the full-scan threshold, so search
# stays exact. Tombstones are dropped on the way.
OPTIMIZERS = qe.EdgeOptimizersConfig(
    deleted_threshold=0.2, vacuum_min_vector_number=1000, default_segment_number=1, indexing_threshold=1
)
NO_GRAPH = qe.HnswIndexConfig(m=0, ef_construct=100, full_scan_threshold=2**62, max_indexing_threads=1)


def free_bytes(folder: Path) -> int:
    st = os.statvfs(folder)
    return st.f_bavail * st.f_frsize


def allocated_bytes(folder: Path) -> int:
    return sum(p.stat().st_blocks * 512 for p in folder.rglob("*") if p.is_file())


def upsert_bytes(points: Sequence[StoredPoint]) -> int:
    """A generous estimate of what writing ``points`` allocates: the log, the segment and the indexes each hold the
    vectors and the payload: text, role and name at 4 bytes a character at most in UTF-8, metadata and source ids as
    JSON (one add of 7,000 short messages sharing 60 KB of metadata once passed a guard that counted the text alone,
    and died of SIGBUS)."""
    total = 0
    for p in points:
        dense = 0 if p.dense is None else p.dense.size * 4
        sparse = 0 if p.sparse is None else len(p.sparse.indices) * 8
        chars = sum(len(v) for k in _TEXTS if isinstance(v := p.payload.get(k), str))
        extra = sum(len(json.dumps(v, default=str)) for k in _JSON if (v := p.payload.get(k)))
        total += dense + sparse + 4 * chars + extra + 1024
    return 3 * total


_TEXTS = ("text", "role", "name", "external_id")
_JSON = ("metadata", "source_ids", "history")


class DiskGuard:
    """Refuses to open or write while the store's filesystem has less than ``min_free`` bytes free (0: never)."""

    def __init__(self, folder: Path, min_free: int) -> None:
        self.folder = folder
        self.min_free = min_free

    def _short(self, needed: int) -> int | None:
        if not self.min_free:
            return None
        try:
            free = free_bytes(self.folder)
        except OSError:
            return None  # the write itself will say what is wrong with the folder
        return free if free < needed else None

    def check_open(self) -> None:
        free = self._short(self.min_free)
        if free is not None:
            msg = (
                f"cannot open the embedded store in {self.folder}: only {free / MiB:.0f} MiB free on its disk, "
                f"below min_free_disk_mb={self.min_free // MiB} (opening preallocates the write-ahead log). "
                "Free some space, or move the store with path=..."
            )
            raise StoreUnavailableError(msg)

    def check_write(self, nbytes: int) -> None:
        free = self._short(self.min_free + nbytes)
        if free is not None:
            msg = (
                f"the embedded store's disk is nearly full ({free / MiB:.0f} MiB free in {self.folder}, "
                f"min_free_disk_mb={self.min_free // MiB}): nothing was written. Reads still work; free some space "
                "(deleting memories frees space only after optimize())."
            )
            raise StoreFullError(msg)

    def room_for_vacuum(self, segments: Path) -> bool:
        """A vacuum writes new segments before it drops the old: it needs their size on top of the margin."""
        if not self.min_free:
            return True
        try:
            return free_bytes(self.folder) >= self.min_free + VACUUM_ROOM + allocated_bytes(segments)
        except OSError:
            return False


class Upkeep:
    """Counts deletes and writes; vacuums and flushes on a background thread when they pass their thresholds."""

    def __init__(
        self,
        lock: threading.Lock,
        shard: Callable[[], qe.EdgeShard | None],
        guard: DiskGuard,
        segments: Callable[[], Path],
        vacuum_after: int,
    ) -> None:
        self._lock = lock  # the backend's write lock
        self._shard = shard
        self._guard = guard
        self._segments = segments
        self.vacuum_after = vacuum_after
        self._deleted = 0  # points deleted since the last vacuum
        self._written = 0  # points written or deleted since the last flush
        self._target: int | None = None  # deletes the next vacuum waits for, once vacuum_after is reached
        self._thread: threading.Thread | None = None
        self.vacuums: list[float] = []  # seconds each vacuum took, newest last (diagnostics, tests)
        self.error: BaseException | None = None

    def note(self, *, written: int = 0, deleted: int = 0) -> None:
        """After a write, holding the write lock: start the background work when it is due. Costs a few additions."""
        self._written += written + deleted
        self._deleted += deleted
        try:  # the write is done: whatever happens here must not make it look failed
            vacuum = self._vacuum_due()
            if (vacuum or self._written >= FLUSH_AFTER_POINTS) and not self.running:
                self._thread = threading.Thread(target=self._work, args=(vacuum,), name="memadapt-upkeep")
                self._thread.start()
        except Exception as exc:
            self.error = exc
            log.warning("embedded store upkeep could not start: %s: %s", type(exc).__name__, exc)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _vacuum_due(self) -> bool:
        if not self.vacuum_after or self._deleted < self.vacuum_after:
            return False
        if self._target is None:  # vacuum once the tombstones outnumber the live points: the work pays back
            shard = self._shard()
            live = shard.info().points_count if shard is not None else 0
            self._target = max(self.vacuum_after, live)
        return self._deleted >= self._target

    def _work(self, vacuum: bool) -> None:
        try:
            with self._lock:
                self._run(vacuum)
        except BaseException as exc:  # a background thread has no caller to raise to
            self.error = exc
            log.warning("embedded store upkeep failed: %s: %s", type(exc).__name__, exc)

    def _run(self, vacuum: bool, *, asked: bool = False) -> None:
        shard = self._shard()
        if shard is None:  # closed meanwhile
            return
        if vacuum and not self._guard.room_for_vacuum(self._segments()):
            self._target = self._deleted + max(1, self.vacuum_after)  # try again later, not on every write
            if asked:
                msg = f"not enough free disk in {self._guard.folder} to vacuum: it rewrites the live points first"
                raise StoreFullError(msg)
        elif vacuum:
            started = time.perf_counter()
            shard.optimize()
            self.vacuums.append(time.perf_counter() - started)
            self._deleted, self._target = 0, None
        shard.flush()
        self._written = 0

    def run_now(self) -> None:
        """Vacuum and flush now, on the caller's thread (``optimize()``)."""
        self.wait()
        with self._lock:
            self._run(vacuum=True, asked=True)

    def wait(self, timeout: float | None = None) -> None:
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def stats(self) -> dict[str, Any]:
        last = round(self.vacuums[-1], 3) if self.vacuums else None
        return {"vacuums": len(self.vacuums), "last_vacuum_seconds": last, "deleted_since_vacuum": self._deleted}
