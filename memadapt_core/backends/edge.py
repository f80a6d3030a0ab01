"""The embedded default: qdrant-edge-py, Qdrant's Rust engine in-process, one folder, durable through its WAL.

``EdgeBackend`` is the ``VectorBackend`` over one open shard: its writes (one at a time, under a lock, refused while
the disk is nearly full) and its reads. Records live at integer point ids derived from their UUIDs (``_slots.py``):
qdrant-edge hands UUID ids back as ``uuid.UUID`` objects, slowly. Search is exact (sub-millisecond per tenant): the
optimizer never builds an HNSW graph, which blocks for minutes at 100k points holding the GIL. ``optimize()`` rewrites
the live points into one immutable segment with each tenant's points together, which halves qdrant-edge's filtered
search; writes go to an appendable segment until the next one. A background thread vacuums the same way after enough
deletes (``_upkeep.py``).

Around it: ``edge_shard.py`` opens the folder (configuration, one-process lock), ``edge_schema.py`` builds a new
store and moves older ones forward, ``edge_indexes.py`` checks its payload indexes at open, ``edge_filters.py``
translates filters, ``_payload_cache.py`` keeps decoded payloads for search.

Why this module passes 400 lines: it is the one class that holds the open shard, and every method is a short step
over it (each store call through ``_call``, each write through ``_write``); what can stand alone already does, in
the eleven modules above. Splitting the class itself (opening, writes, reads) into mixins would have each read the
others' private state; it waits for the ``backends/edge/`` package of the regroup (issue 36).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import threading
from asyncio import CancelledError
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
import qdrant_edge as qe

from memadapt_core.backends._durability import Durability, WalSync
from memadapt_core.backends._payload_cache import PayloadCache
from memadapt_core.backends._slots import RID, home_slots, place, slot_map, slots
from memadapt_core.backends._upkeep import DiskGuard, Upkeep, upsert_bytes
from memadapt_core.backends.base import (
    Candidate,
    CollectionInfo,
    PointKey,
    StoredPoint,
    VectorUpdate,
    idf_corpora,
    named_vectors,
    replaced_vectors,
    stored_point,
    with_rescored,
)  # fmt: skip
from memadapt_core.backends.edge_filters import edge_filter
from memadapt_core.backends.edge_indexes import check_indexes
from memadapt_core.backends.edge_precheck import precheck
from memadapt_core.backends.edge_schema import INFO_IDS, index_operations, info_payload_in, info_point, move_to_slots
from memadapt_core.backends.edge_seal import break_seal, check_count, check_files, seal
from memadapt_core.backends.edge_shard import (
    DENSE,
    SPARSE,
    build_fresh,
    lock_folder,
    open_shard,
    recovery_step,
    release,
    shard_config,
    unlock_folder,
)
from memadapt_core.backends.schema import SCHEMA_VERSION, check_embedder, read_info, read_schema
from memadapt_core.errors import (
    MemadaptError,
    StoreCorruptedError,
    StoreError,
    StoreForkedError,
    StoreFullError,
    StoreUnavailableError,
)
from memadapt_core.filters import FilterSpec, scope_of
from memadapt_core.models import KINDS
from memadapt_core.record_codec import iso
from memadapt_core.sparse import SparseVector

__all__ = ["EdgeBackend"]

T = TypeVar("T")
_RID_ONLY = qe.PayloadSelector.Include([RID])
_BuildOp = Callable[[qe.EdgeShard], qe.UpdateOperation | None]
# A dense request over int8 copies: rescored by the full vectors, oversampled 2x (edge_shard.DENSE_INT8); or over the
# full vectors only. Qdrant's default would return the int8 scores themselves (off by up to ~0.004 in cosine).
DENSE_SEARCH = qe.SearchParams(quantization=qe.QuantizationSearchParams(rescore=True, oversampling=2.0))
FULL_VECTORS = qe.SearchParams(quantization=qe.QuantizationSearchParams(ignore=True))
# What qdrant-edge says when stored bytes do not decode (a flipped byte in the payload storage): damage, not a bug.
_DECODE_FAILURES = ("Failed to decode value", "Failed to deserialize")


def _edge_sparse(v: SparseVector) -> qe.SparseVector:
    return qe.SparseVector(v.indices, v.values)


def _point(record: Any, *, with_vectors: bool = False) -> StoredPoint | None:
    """A stored record as the engine sees it: its id from the payload, which keeps the rest (None for the info
    point, which has no record id)."""
    payload = record.payload or {}  # a new dict on each access: ours to change
    rid = payload.pop(RID, None)
    if not isinstance(rid, str):
        return None
    return stored_point(rid, payload, record.vector if with_vectors else None)


class EdgeBackend:
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
        self._int8 = dense_int8  # optimized segments hold int8 copies of the dense vectors (edge_shard.DENSE_INT8)
        # Rescored: the int8 scan finds twice the candidates, their full vectors score them. Without int8 copies, the
        # ones an earlier configuration built are ignored (their scores are approximate).
        self._dense_params = DENSE_SEARCH if dense_int8 else FULL_VECTORS
        self._scope_idf = scope_idf  # BM25's share with word rarity counted in the searched scope (base.idf_corpora)
        self._check_unclean = check_unclean  # load an uncleanly closed store in a child first (edge_precheck.py)
        self._pid = os.getpid()  # the process that opened the shard: a forked child must not use it
        self.wal = WalSync(durability, sync_interval)
        self._cache = PayloadCache(payload_cache, payload_cache_bytes)  # kept coherent by _write (_payload_cache.py)
        self._shard: qe.EdgeShard | None = None
        self._write_lock = threading.Lock()
        self.info: CollectionInfo | None = None
        # Whether any record may have ended (has a valid_to). Until one has, "still valid" matches every record and
        # searches skip the condition: each condition is checked point by point, ~35-65 µs a search at 1,000
        # records a user. Set before any write that ends a record; counted again on open.
        self._ended = True
        self._archived = True  # the same for "not archived" (memadapt_core.engine.capacity)
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
        crash or a racing opener never sees half a store (edge_shard.py)."""
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
            sealed = check_files(folder)  # before qdrant-edge reads a byte (edge_seal.py)
            if sealed is None and not fresh and self._check_unclean:
                precheck(folder)  # not closed cleanly: a child loads it first (edge_precheck.py)
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
        if self._forked():  # the parent's shard: left alone (see edge_shard.py); this process lets go of it
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

    # -- writes ----------------------------------------------------------------------------------------------------
    def upsert(self, points: Sequence[StoredPoint]) -> None:
        if not points:
            return

        where: dict[str, int] = {}

        def build(shard: qe.EdgeShard) -> qe.UpdateOperation:
            self._ended = self._ended or any("valid_to" in p.payload for p in points)
            self._archived = self._archived or any("archived" in p.payload for p in points)
            self._kinds_of(p.payload for p in points)
            candidates = slot_map(p.id for p in points)
            found, homeless = place(self._taken(shard, candidates), candidates)
            if homeless:
                msg = f"no free point id for record {homeless[0]}: both of its slots hold other records"
                raise StoreError(msg)
            where.update(found)
            built = [qe.Point(where[p.id], named_vectors(p, _edge_sparse), {**p.payload, RID: p.id}) for p in points]
            return qe.UpdateOperation.upsert_points(built)

        def then() -> None:  # later points of the batch win, as in the store
            self._cache.put((where[p.id], p.id, p.payload) for p in points)

        # Built under the write lock (no other write takes a slot meanwhile) and inside _call: a payload qe.Point
        # refuses is a StoreError too.
        self._write(build, nbytes=upsert_bytes(points), written=len(points), then=then)

    def _kinds_of(self, payloads: Iterable[dict[str, Any]]) -> None:
        """Before a write: the kinds it brings count as stored (any unknown one: every kind may be)."""
        if self._kinds is None:
            return
        new = {p["kind"] for p in payloads if "kind" in p} - self._kinds
        if new:
            self._kinds = None if new - set(KINDS) else self._kinds | new

    def delete(self, ids: Sequence[str]) -> None:
        if ids:
            homes: list[Any] = []

            def build(shard: qe.EdgeShard) -> qe.UpdateOperation | None:
                homes.extend(self._homes(shard, ids).values())
                return qe.UpdateOperation.delete_points(homes) if homes else None

            self._write(build, deleted=len(ids), then=lambda: self._cache.forget(homes))

    def delete_where(self, flt: FilterSpec) -> None:
        op = qe.UpdateOperation.delete_points_by_filter(self._filter(flt))
        self._write(op, deleted=None, then=self._cache.clear)

    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        if ids:
            homes: list[Any] = []

            def build(shard: qe.EdgeShard) -> qe.UpdateOperation | None:
                self._ended = self._ended or payload.get("valid_to") is not None
                self._archived = self._archived or bool(payload.get("archived"))
                self._kinds_of([payload])
                homes.extend(self._homes(shard, ids).values())
                return qe.UpdateOperation.set_payload(homes, payload) if homes else None

            self._write(build, then=lambda: self._cache.forget(homes))

    def set_vectors(self, updates: Sequence[VectorUpdate]) -> None:
        if updates:

            def build(shard: qe.EdgeShard) -> qe.UpdateOperation | None:
                homes = self._homes(shard, [rid for rid, _, _ in updates])
                pv = [qe.PointVectors(homes[u[0]], replaced_vectors(u, _edge_sparse)) for u in updates if u[0] in homes]
                return qe.UpdateOperation.update_vectors(pv) if pv else None

            self._write(build)

    def flush(self) -> None:
        self._live()
        self.upkeep.wait()  # a background vacuum or flush ends first
        with self._write_lock:
            self._call(lambda s: s.flush())

    def optimize(self) -> None:
        """Rewrite the live points into one tenant-ordered segment (dropping tombstones; no HNSW graph) and flush,
        now."""
        self._live()
        self._call(lambda _: self.upkeep.run_now())

    # -- reads ---------------------------------------------------------------------------------------------------
    def retrieve(self, ids: Sequence[str], *, with_vectors: bool = False) -> list[StoredPoint]:
        wanted = set(ids)
        candidates: list[Any] = list({s for rid in wanted for s in slots(rid)})
        if not candidates:
            return []
        recs = self._call(lambda s: s.retrieve(candidates, with_payload=True, with_vector=with_vectors))
        found = (_point(r, with_vectors=with_vectors) for r in recs)
        return list({p.id: p for p in found if p is not None and p.id in wanted}.values())

    def search(
        self,
        dense: npt.NDArray[np.float32],
        sparse: SparseVector | None,
        flt: FilterSpec,
        limit: int,
    ) -> tuple[list[Candidate], list[Candidate]]:
        f = self._filter(flt)
        vector = dense.tolist()
        nearest = qe.Query.Nearest(vector, using=DENSE)
        reqs = [qe.QueryRequest(limit=limit, filter=f, with_payload=False, query=nearest, params=self._dense_params)]
        if sparse is not None and not sparse.is_empty():
            q = qe.Query.Nearest(qe.SparseVector(sparse.indices, sparse.values), using=SPARSE)
            corpora = idf_corpora(self._scope_idf)
            scoped = qe.SearchParams(idf=qe.IdfParams(corpus=self._filter(scope_of(flt)))) if any(corpora) else None
            for in_scope in corpora:
                reqs.append(
                    qe.QueryRequest(
                        limit=limit, filter=f, with_payload=False, query=q, params=scoped if in_scope else None
                    )
                )
        results = self._call(lambda s: s.query_batch(qe.QueryBatchRequest(reqs)))
        out: list[list[Candidate]] = [[(p.id, p.score) for p in res] for res in results]
        if len(out) > 1:
            # The memories found only by their words get their cosines too (base.with_rescored): by id, under the
            # same filter, rather than by running the word searches again as a server's single request does.
            known = {key for key, _ in out[0]}
            words_only: set[Any] = {key for found in out[1:] for key, _ in found if key not in known}
            rescored: list[Candidate] = []
            if words_only:
                by_id = qe.Filter(must=[qe.HasIdCondition(words_only), f])
                req = qe.QueryRequest(
                    limit=len(words_only), filter=by_id, with_payload=False, query=nearest, params=self._dense_params
                )
                rescored = [(p.id, p.score) for p in self._call(lambda s: s.query(req))]
            out.append(rescored)
        return with_rescored(out, self._scope_idf)

    def points(self, keys: Sequence[PointKey]) -> dict[PointKey, dict[str, Any]]:
        """The hot path of search. Cached points come from the payload cache (read-only: see _payload_cache.py);
        the rest are decoded and kept there, unless a write was applied meanwhile."""
        if not keys:
            return {}
        version = self._cache.version
        found, missing = self._cache.get(keys)
        if not missing:
            return found
        wanted: list[Any] = missing
        recs = self._call(lambda s: s.retrieve(wanted, with_payload=True, with_vector=False))
        read: dict[PointKey, dict[str, Any]] = {}
        for r in recs:  # no copies here: each ``r.payload`` is a new dict, holding its record id (RID)
            payload = r.payload or {}
            payload.pop("history", None)
            if isinstance(payload.get(RID), str):
                read[r.id] = payload
        self._cache.fill(read, version)
        found.update(read)
        return found

    def scroll(
        self,
        flt: FilterSpec,
        limit: int,
        *,
        start_from: datetime | None = None,
        descending: bool = False,
        with_vectors: bool = False,
    ) -> list[StoredPoint]:
        order = qe.OrderBy(
            "observed_at",
            qe.Direction.Desc if descending else qe.Direction.Asc,
            iso(start_from) if start_from is not None else None,
        )
        req = qe.ScrollRequest(
            limit=limit, filter=self._filter(flt), with_payload=True, with_vector=with_vectors, order_by=order
        )
        recs, _ = self._call(lambda s: s.scroll(req))
        return [p for r in recs if (p := _point(r, with_vectors=with_vectors)) is not None]

    def count(self, flt: FilterSpec) -> int:
        return int(self._call(lambda s: s.count(qe.CountRequest(filter=self._filter(flt), exact=True))))

    def stats(self) -> dict[str, Any]:
        info = self._call(lambda s: s.info())
        return {
            "backend": "edge",
            "path": str(self.root),
            "collection": self.info.name if self.info else None,
            "points": max(0, info.points_count - 1),
            "segments": info.segments_count,
            "indexed_vectors": info.indexed_vectors_count,
            "dense_int8": self._int8,
            **self.upkeep.stats(),
        }
