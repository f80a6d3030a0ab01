"""The embedded store's open shard: opening (or creating) it, closing it with a seal, and every call and write.

``EdgeStore`` holds the one open qdrant-edge shard of a folder: each store call goes through ``_call`` (which
translates what qdrant-edge raises into ``StoreError``), each write through ``_write`` (one at a time, under a
lock, refused while the disk is nearly full, then noted for the background flush and vacuum). ``EdgeBackend``
(``backend.py``) adds the reads and writes of ``VectorBackend`` over it.

Around it: ``shard.py`` opens the folder (configuration, one-process lock), ``schema.py`` builds a new store and
moves older ones forward, ``checks/`` refuses a damaged store at open (its seal, a child's trial load, id trackers,
payload indexes).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import threading
from asyncio import CancelledError
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import qdrant_edge as qe

from memadapt_core.backends.base import (
    CollectionInfo,
    StoredPoint,
)  # fmt: skip
from memadapt_core.backends.edge.checks.indexes import check_indexes
from memadapt_core.backends.edge.checks.precheck import precheck
from memadapt_core.backends.edge.checks.seal import break_seal, check_count, check_files, seal
from memadapt_core.backends.edge.durability import Durability, WalSync
from memadapt_core.backends.edge.filters import edge_filter
from memadapt_core.backends.edge.payload_cache import PayloadCache
from memadapt_core.backends.edge.schema import INFO_IDS, index_operations, info_payload_in, info_point, move_to_slots
from memadapt_core.backends.edge.shard import (
    DENSE,
    build_fresh,
    lock_folder,
    open_shard,
    recovery_step,
    release,
    shard_config,
    unlock_folder,
)
from memadapt_core.backends.edge.slots import RID, home_slots, slot_map
from memadapt_core.backends.edge.upkeep import DiskGuard, Upkeep
from memadapt_core.backends.schema import SCHEMA_VERSION, check_embedder, read_info, read_schema
from memadapt_core.errors import (
    MemadaptError,
    StoreCorruptedError,
    StoreError,
    StoreForkedError,
    StoreFullError,
    StoreUnavailableError,
)
from memadapt_core.filters import FilterSpec
from memadapt_core.models import KINDS

__all__ = ["DENSE_SEARCH", "FULL_VECTORS", "EdgeStore"]

T = TypeVar("T")
_RID_ONLY = qe.PayloadSelector.Include([RID])
_BuildOp = Callable[[qe.EdgeShard], qe.UpdateOperation | None]
# A dense request over int8 copies: rescored by the full vectors, oversampled 2x (shard.DENSE_INT8); or over the
# full vectors only. Qdrant's default would return the int8 scores themselves (off by up to ~0.004 in cosine).
DENSE_SEARCH = qe.SearchParams(quantization=qe.QuantizationSearchParams(rescore=True, oversampling=2.0))
FULL_VECTORS = qe.SearchParams(quantization=qe.QuantizationSearchParams(ignore=True))
# What qdrant-edge says when stored bytes do not decode (a flipped byte in the payload storage): damage, not a bug.
_DECODE_FAILURES = ("Failed to decode value", "Failed to deserialize")


class EdgeStore:
    """The open shard of one folder; see the module docstring."""

    blocking_io = False

    def __init__(
        self,
        root: str | Path,
        *,
        min_free_disk_mb: int = 0,
        vacuum_after_deletes: int = 0,
        payload_cache: int = 0,
        payload_cache_bytes: int = 2**62,
        durability: Durability = "fsync",
        sync_interval: float = 1.0,
        check_unclean: bool = True,
        scope_idf: float = 0.0,
        dense_int8: bool = True,
    ) -> None:
        self.root = Path(root)
        self._int8 = dense_int8  # optimized segments hold int8 copies of the dense vectors (shard.DENSE_INT8)
        # Rescored: the int8 scan finds twice the candidates, their full vectors score them. Without int8 copies, the
        # ones an earlier configuration built are ignored (their scores are approximate).
        self._dense_params = DENSE_SEARCH if dense_int8 else FULL_VECTORS
        self._scope_idf = scope_idf  # BM25's share with word rarity counted in the searched scope (base.idf_corpora)
        self._check_unclean = check_unclean  # load an uncleanly closed store in a child first (checks/precheck.py)
        self._pid = os.getpid()  # the process that opened the shard: a forked child must not use it
        self.wal = WalSync(durability, sync_interval)
        self._cache = PayloadCache(payload_cache, payload_cache_bytes)  # kept coherent by _write (payload_cache.py)
        self._shard: qe.EdgeShard | None = None
        self._write_lock = threading.Lock()
        self.info: CollectionInfo | None = None
        # Whether any record may have ended (has a valid_to). Until one has, "still valid" matches every record and
        # searches skip the condition: each condition is checked point by point, ~35-65 µs a search at 1,000
        # records a user. Set before any write that ends a record; counted again on open.
        self._ended = True
        self._archived = True  # the same for "not archived" (memadapt_core.engine.tiers.archiving)
        # The kinds any record may have: while a read asks for all of them, its filter leaves the kinds out. Counted
        # on open, added to before any write that brings a new one; deletes never take one away.
        self._kinds: frozenset[str] | None = None
        self._guard = DiskGuard(self.root, min_free_disk_mb * 2**20)
        self._folder = self.root
        self._lock_fd: int | None = None  # the folder's lock file, held while the shard is open
        self.upkeep = Upkeep(
            self._write_lock, lambda: self._shard, self._guard, lambda: self._folder / "segments", vacuum_after_deletes
        )

    # -- lifecycle ---------------------------------------------------------------------------------------------
    def collections(self) -> list[str]:
        try:
            return sorted(d.name for d in self.root.iterdir() if d.is_dir() and not d.name.startswith("."))
        except OSError:  # no folder yet (or unreadable: open_collection says why)
            return []

    def open_collection(self, info: CollectionInfo) -> CollectionInfo:
        """Open ``info``'s shard, creating it first if the folder holds none. The folder's lock file is taken before
        anything is looked at, so of several processes opening one folder at once exactly one goes on (the others
        get ``StoreLockedError``); a new shard is built in a temporary folder and renamed into place complete, so a
        crash or a racing opener never sees half a store (shard.py)."""
        folder = self.root / info.name
        cfg = shard_config(info.dim, int8=self._int8)
        try:
            self.root.mkdir(parents=True, exist_ok=True, mode=0o700)  # a new store: its owner's only (0700)
        except OSError as exc:
            msg = f"cannot create the store folder {self.root}: {exc}"
            raise StoreUnavailableError(msg) from exc
        self._guard.check_open()
        self._folder = folder
        self._pid = os.getpid()
        self._lock_fd = lock_folder(folder)
        try:
            fresh = not (folder.exists() and any(folder.iterdir()))
            if fresh:
                build_fresh(folder, lambda tmp: self._create(tmp, cfg, info))
            sealed = check_files(folder)  # before qdrant-edge reads a byte (checks/seal.py)
            if sealed is None and not fresh and self._check_unclean:
                precheck(folder)  # not closed cleanly: a child loads it first (checks/precheck.py)
            self.wal.attach(folder)
            self._shard = open_shard(folder, cfg, existing=True)
            check_count(folder, sealed, self._call(lambda s: s.info().points_count))
            # loaded silently short through one? (edge_indexes)
            check_indexes(folder, self._live(), self._translated, sealed=sealed is not None)
            break_seal(folder)  # before the first write
            self._opened(info)
        except BaseException:
            self._abandon()
            raise
        return self.info if self.info is not None else info

    def _create(self, tmp: Path, cfg: qe.EdgeConfig, info: CollectionInfo) -> None:
        """A new shard in ``tmp``: its indexes and info point, flushed and closed."""
        self._folder = tmp
        self.wal.attach(tmp)
        self._shard = shard = open_shard(tmp, cfg, existing=False)
        try:
            self._create_indexes()
            self._write_info(info)
            shard.flush()
        finally:
            self._shard = None
            release(tmp)
            shard.close()
            self._folder = self.root / info.name

    def _opened(self, info: CollectionInfo) -> None:
        found = self._read_info()
        check_embedder(found, info, f" in {self.root}")
        if found is None:  # a store made before the info point was written at creation (vectors mean-pooled)
            found = dataclasses.replace(info, pooling="mean", lexicon="words")
            self._create_indexes()
            self._write_info(found)
        elif self._schema() < SCHEMA_VERSION:
            move_to_slots(self, dataclasses.replace(info, pooling=found.pooling, lexicon=found.lexicon))
        self._ready(dataclasses.replace(info, pooling=found.pooling, lexicon=found.lexicon))

    def _abandon(self) -> None:
        """After a failed open: let go of the shard (unflushed: nothing was acknowledged) and of the lock."""
        shard, self._shard = self._shard, None
        if shard is not None:
            release(self._folder)
            with contextlib.suppress(BaseException):  # a damaged shard may fail closing too: the open's error wins
                shard.close()
        unlock_folder(self._lock_fd)
        self._lock_fd = None

    def _ready(self, info: CollectionInfo) -> None:
        self.info = info
        self._ended = self._count_ended() > 0
        self._archived = self._count_where("archived") > 0
        self._kinds = frozenset(k for k in KINDS if self._count_kind(k))
        self._warm_up(info.dim)

    def _write_info(self, info: CollectionInfo) -> None:
        point = info_point(info)
        self._call(lambda s: s.update(qe.UpdateOperation.upsert_points([point])))

    def _create_indexes(self) -> None:
        for op in index_operations():
            self._write(op)

    def _info_payload(self) -> dict[str, Any] | None:
        """The info point's payload: at slot 0, or where stores made before integer ids kept it."""
        ids: list[Any] = list(INFO_IDS)
        return info_payload_in(self._call(lambda s: s.retrieve(ids, with_payload=True, with_vector=False)))

    def _read_info(self) -> CollectionInfo | None:
        payload = self._info_payload()
        return read_info(payload) if payload is not None else None

    def _schema(self) -> int:
        return read_schema(self._info_payload() or {})

    def _count_ended(self) -> int:
        return self._count_where("valid_to")

    def _count_kind(self, kind: str) -> int:
        of_kind = qe.Filter(must=[qe.FieldCondition("kind", match=qe.MatchValue(kind))])
        return int(self._call(lambda s: s.count(qe.CountRequest(filter=of_kind, exact=True))))

    def _count_where(self, key: str) -> int:
        present = qe.Filter(must_not=[qe.IsEmptyCondition(key)])
        return int(self._call(lambda s: s.count(qe.CountRequest(filter=present, exact=True))))

    def _warm_up(self, dim: int) -> None:
        # The first query after opening takes 1-6 ms; pay it here, not on a user's first search.
        vec = [1.0] + [0.0] * (dim - 1)
        self._call(lambda s: s.query(qe.QueryRequest(limit=1, query=qe.Query.Nearest(vec, using=DENSE))))

    def close(self) -> None:
        if self._forked():  # the parent's shard: left alone (see shard.py); this process lets go of it
            self._shard = None
            unlock_folder(self._lock_fd)  # this process's copy only: the parent keeps its lock
            self._lock_fd = None
            return
        self.upkeep.wait()
        self.wal.close()
        shard, self._shard = self._shard, None
        self._cache.clear()
        if shard is not None:
            release(self._folder)
            with self._write_lock:
                points: int | None = None
                try:
                    shard.flush()
                    points = shard.info().points_count
                except (KeyboardInterrupt, SystemExit):
                    raise
                except BaseException as exc:  # the log keeps what was acknowledged: reopening replays it
                    raise self._translated(exc) from exc
                finally:
                    try:
                        shard.close()
                        if points is not None:
                            seal(self._folder, points)  # closed cleanly: the next open checks against it
                    finally:
                        unlock_folder(self._lock_fd)
                        self._lock_fd = None

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        """``EdgeBackend``'s; moving an older store forward at open (``schema.move_to_slots``) writes through it."""
        raise NotImplementedError

    # -- helpers -------------------------------------------------------------------------------------------------
    def _forked(self) -> bool:
        return self._shard is not None and os.getpid() != self._pid

    def _live(self) -> qe.EdgeShard:
        """The open shard, in the process that opened it."""
        shard = self._shard
        if shard is None:
            msg = "the store is closed"
            raise StoreUnavailableError(msg)
        if os.getpid() != self._pid:
            msg = (
                f"the embedded store {self._folder} was opened by process {self._pid}, before this process "
                f"({os.getpid()}) was forked from it: a child cannot use the parent's open store (both would write "
                "through the same files). Open the Memory after forking (in each worker, e.g. a post-fork hook or a "
                "pool initializer) and close it in the parent first, or share one store through a Qdrant server "
                "(url=...)."
            )
            raise StoreForkedError(msg)
        return shard

    def _call(self, fn: Callable[[qe.EdgeShard], T]) -> T:
        shard = self._live()
        try:
            return fn(shard)
        except (MemadaptError, KeyboardInterrupt, SystemExit, GeneratorExit, CancelledError):
            raise
        except BaseException as exc:  # a Rust panic is pyo3_runtime.PanicException, a BaseException
            raise self._translated(exc) from exc

    def _translated(self, exc: BaseException) -> StoreError:
        """The ``StoreError`` for what qdrant-edge raised: a full disk, damaged files, or anything else."""
        text = str(exc)
        if any(marker in text for marker in ("No space left", "os error 28", "Disk quota")):
            msg = (
                f"the embedded store's disk is full ({self.root}): {text[:200]}. What was acknowledged is in the "
                "write-ahead log; free some space, then flush() or close() again."
            )
            return StoreFullError(msg)
        if type(exc).__name__ == "PanicException" or any(m in text for m in _DECODE_FAILURES):  # bytes it cannot read
            msg = (
                f"the embedded store {self._folder} failed reading its files ({exc}): they are damaged. "
                + recovery_step(self.root)
            )
            return StoreCorruptedError(msg)
        msg = f"embedded store operation failed: {type(exc).__name__}: {exc}"
        return StoreError(msg)

    def _write(self, op: qe.UpdateOperation | _BuildOp, *, nbytes: int = 4096, written: int = 0,
               deleted: int | None = 0, then: Callable[[], None] | None = None) -> None:  # fmt: skip
        """Apply one update: refused before it starts while the disk is nearly full; ``written`` and ``deleted``
        points (None: count them) are noted for the background vacuum and flush. ``op`` may be a function building
        the update under the write lock (from the slots records hold now); building None writes nothing. ``then``
        runs under the lock once the update is applied: it tells the payload cache what changed."""
        self._live()  # before the lock: a forked child may have inherited it held
        with self._write_lock:
            self._guard.check_write(nbytes)
            update = self._call(op) if callable(op) else op
            if update is None:
                return
            before = self._call(lambda s: s.info().points_count) if deleted is None else 0
            try:
                self._call(lambda s: s.update(update))
            except BaseException:
                self._cache.clear()  # whatever the failed update left, the cache does not vouch for it
                raise
            if then is not None:
                then()
            if deleted is None:
                deleted = max(0, before - self._call(lambda s: s.info().points_count))
            self.upkeep.note(written=written, deleted=deleted)
            self.wal.after_write()  # "fsync": durable before the write returns

    def _taken(self, shard: qe.EdgeShard, candidates: dict[str, tuple[int, ...]]) -> dict[Any, object]:
        """Slot -> the record id stored there, over the slots of ``candidates`` (from ``slot_map``)."""
        wanted: list[Any] = list({s for where in candidates.values() for s in where})
        if not wanted:
            return {}
        recs = shard.retrieve(wanted, with_payload=_RID_ONLY, with_vector=False)
        return {r.id: (r.payload or {}).get(RID) for r in recs}

    def _homes(self, shard: qe.EdgeShard, record_ids: Sequence[str]) -> dict[str, int]:
        """The slots of the stored records among ``record_ids``."""
        candidates = slot_map(record_ids)
        return home_slots(self._taken(shard, candidates), candidates)

    def _filter(self, flt: FilterSpec) -> qe.Filter:
        # conversion errors: StoreError too
        return self._call(
            lambda _: edge_filter(flt, any_ended=self._ended, any_archived=self._archived, stored_kinds=self._kinds)
        )
