"""The embedded default: qdrant-edge-py, Qdrant's Rust engine in-process, one folder, durable through its WAL.

Layout: ``<path>/<collection>/`` is an edge shard. One process per folder (an OS lock); a second opener gets
``StoreLockedError``. Records live at integer point ids derived from their UUIDs (``_slots.py``): qdrant-edge
hands UUID ids back as ``uuid.UUID`` objects, slowly. Search is exact (sub-millisecond per tenant): the optimizer
never builds an HNSW graph, which blocks for minutes at 100k points holding the GIL. ``optimize()`` rewrites the live
points into one immutable segment with each tenant's points together, which halves qdrant-edge's filtered search;
writes go to an appendable segment until the next one. A background thread vacuums the same way after enough
deletes, and writes are refused while the disk is nearly full (``_upkeep.py``).
"""

from __future__ import annotations

import logging
import threading
from asyncio import CancelledError
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
import qdrant_edge as qe

from memadapt_core.backends._payload_cache import PayloadCache
from memadapt_core.backends._slots import INFO_SLOT, RID, home_slots, place, slot_map, slots
from memadapt_core.backends._upkeep import NO_GRAPH, OPTIMIZERS, DiskGuard, Upkeep, upsert_bytes
from memadapt_core.backends.base import (
    INFO_POINT_ID,
    Candidate,
    CollectionInfo,
    PointKey,
    StoredPoint,
    named_vectors,
    stored_point,
)
from memadapt_core.backends.schema import (
    INTEGER_INDEXES,
    KEYWORD_INDEXES,
    SCHEMA_VERSION,
    TENANT_INDEX,
    TIME_INDEXES,
    info_payload,
    read_info,
    read_schema,
)
from memadapt_core.errors import (
    ConfigurationError,
    MemadaptError,
    StoreError,
    StoreFullError,
    StoreLockedError,
    StoreUnavailableError,
    ValidationError,
)
from memadapt_core.filters import FilterSpec
from memadapt_core.record_codec import iso
from memadapt_core.sparse import SparseVector

__all__ = ["EdgeBackend"]

T = TypeVar("T")
log = logging.getLogger("memadapt")
_OPEN_HERE: set[str] = set()  # folders this process holds open: names the holder in the lock error
DENSE, SPARSE = "dense", "bm25"
_RID_ONLY = qe.PayloadSelector.Include([RID])
_BuildOp = Callable[[qe.EdgeShard], qe.UpdateOperation | None]


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
        self, root: str | Path, *, min_free_disk_mb: int = 0, vacuum_after_deletes: int = 0, payload_cache: int = 0
    ) -> None:
        self.root = Path(root)
        self._cache = PayloadCache(payload_cache)  # kept coherent by _write (see _payload_cache.py)
        self._shard: qe.EdgeShard | None = None
        self._write_lock = threading.Lock()
        self.info: CollectionInfo | None = None
        # Whether any record may have ended (has a valid_to). Until one has, "still valid" matches every record and
        # searches skip the condition: each condition is checked point by point, ~35-65 µs a search at 1,000
        # records a user. Set before any write that ends a record; counted again on open.
        self._ended = True
        self._guard = DiskGuard(self.root, min_free_disk_mb * 2**20)
        self._folder = self.root
        self.upkeep = Upkeep(
            self._write_lock, lambda: self._shard, self._guard, lambda: self._folder / "segments", vacuum_after_deletes
        )

    # -- lifecycle ---------------------------------------------------------------------------------------------
    def open_collection(self, info: CollectionInfo) -> None:
        folder = self.root / info.name
        cfg = qe.EdgeConfig(
            vectors={DENSE: qe.EdgeVectorParams(size=info.dim, distance=qe.Distance.Cosine)},
            sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
            max_search_threads=1,  # two shared cores: one search thread measured 25-35% faster
            payload_memory=qe.Memory.Cached,
            hnsw_config=NO_GRAPH,  # exact search, on every segment
            optimizers=OPTIMIZERS,  # merge into one tenant-ordered segment, never an HNSW graph
        )
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            msg = f"cannot create the store folder {self.root}: {exc}"
            raise StoreUnavailableError(msg) from exc
        self._guard.check_open()
        self._folder = folder
        existing = folder.exists() and any(folder.iterdir())
        try:
            shard = qe.EdgeShard.load(str(folder), cfg) if existing else qe.EdgeShard.create(str(folder), cfg)
        except Exception as exc:
            text = str(exc)
            if "WouldBlock" in text:
                holder = "this process" if str(folder.resolve()) in _OPEN_HERE else "another process"
                msg = (
                    f"the embedded store {folder} is already open in {holder}. The embedded store serves one "
                    "process, opened once: within a process share one Memory (as_sync() / as_async() give the "
                    "other twin over the same store); to share memories between processes, run a Qdrant server "
                    "and pass url=..."
                )
                raise StoreLockedError(msg) from exc
            msg_0 = f"cannot open the embedded store {folder}: {text}"
            raise StoreUnavailableError(msg_0) from exc
        self._shard = shard
        _OPEN_HERE.add(str(folder.resolve()))
        if existing:
            found = self._read_info()
            if found is not None and (found.embedder != info.embedder or found.dim != info.dim):
                shard.close()
                self._shard = None
                _OPEN_HERE.discard(str(folder.resolve()))
                msg = (
                    f"collection {info.name!r} in {self.root} was made by embedder {found.embedder!r} "
                    f"(dim {found.dim}), not {info.embedder!r} (dim {info.dim}): its vectors would be garbage. "
                    "Use the same embedder, another collection name, or export/import to re-embed."
                )
                raise ConfigurationError(msg)
            if found is not None:
                if self._schema() < SCHEMA_VERSION:
                    self._move_to_slots(info)
                self._ready(info)
                return
        self._create_indexes()
        self._write_info(info)
        self._ready(info)

    def _ready(self, info: CollectionInfo) -> None:
        self.info = info
        self._ended = self._count_ended() > 0
        self._warm_up(info.dim)

    def _move_to_slots(self, info: CollectionInfo) -> None:
        """Stores made before integer point ids (schema 1) keep records at their UUIDs: move each to its slot, once.
        A crash part way loses nothing (a record is written at its slot before its old point goes) and the next
        open goes on."""
        log.warning("memadapt: moving the records of %s to integer point ids (once)", self._folder)
        legacy = qe.Filter(must=[qe.IsEmptyCondition(RID)], must_not=[qe.HasIdCondition({INFO_SLOT, INFO_POINT_ID})])
        req = qe.ScrollRequest(limit=1000, filter=legacy, with_payload=True, with_vector=True)
        while True:
            recs, _ = self._call(lambda s: s.scroll(req))
            if not recs:
                break
            self.upsert([stored_point(str(r.id), r.payload, r.vector) for r in recs])
            self._write(qe.UpdateOperation.delete_points([r.id for r in recs]), deleted=len(recs))
        self._write_info(info)
        self._write(qe.UpdateOperation.delete_points([INFO_POINT_ID]))
        try:  # every old point is a tombstone now
            self.upkeep.run_now()
        except StoreFullError as exc:
            log.warning("memadapt: %s; it will vacuum later", exc)

    def _write_info(self, info: CollectionInfo) -> None:
        point = qe.Point(INFO_SLOT, {}, info_payload(info))
        self._call(lambda s: s.update(qe.UpdateOperation.upsert_points([point])))

    def _create_indexes(self) -> None:
        ops = [qe.UpdateOperation.create_field_index(TENANT_INDEX, qe.KeywordIndexParams(is_tenant=True))]
        ops += [qe.UpdateOperation.create_field_index(k, qe.PayloadSchemaType.Keyword) for k in KEYWORD_INDEXES]
        ops += [qe.UpdateOperation.create_field_index(k, qe.PayloadSchemaType.Datetime) for k in TIME_INDEXES]
        ops += [qe.UpdateOperation.create_field_index(k, qe.PayloadSchemaType.Integer) for k in INTEGER_INDEXES]
        for op in ops:
            self._write(op)

    def _info_payload(self) -> dict[str, Any] | None:
        """The info point's payload: at slot 0, or where stores made before integer ids kept it."""
        ids: list[Any] = [INFO_SLOT, INFO_POINT_ID]
        pts = {p.id: p for p in self._call(lambda s: s.retrieve(ids, with_payload=True, with_vector=False))}
        found = pts.get(INFO_SLOT) or next(iter(pts.values()), None)
        return dict(found.payload or {}) if found is not None else None

    def _read_info(self) -> CollectionInfo | None:
        payload = self._info_payload()
        return read_info(payload) if payload is not None else None

    def _schema(self) -> int:
        return read_schema(self._info_payload() or {})

    def _count_ended(self) -> int:
        ended = qe.Filter(must_not=[qe.IsEmptyCondition("valid_to")])
        return int(self._call(lambda s: s.count(qe.CountRequest(filter=ended, exact=True))))

    def _warm_up(self, dim: int) -> None:
        # The first query after opening takes 1-6 ms; pay it here, not on a user's first search.
        vec = [1.0] + [0.0] * (dim - 1)
        self._call(lambda s: s.query(qe.QueryRequest(limit=1, query=qe.Query.Nearest(vec, using=DENSE))))

    def close(self) -> None:
        self.upkeep.wait()
        shard, self._shard = self._shard, None
        self._cache.clear()
        if shard is not None:
            _OPEN_HERE.discard(str(self._folder.resolve()))
            with self._write_lock:
                try:
                    shard.flush()
                finally:
                    shard.close()

    # -- helpers -------------------------------------------------------------------------------------------------
    def _call(self, fn: Callable[[qe.EdgeShard], T]) -> T:
        shard = self._shard
        if shard is None:
            msg = "the store is closed"
            raise StoreUnavailableError(msg)
        try:
            return fn(shard)
        except (MemadaptError, KeyboardInterrupt, SystemExit, GeneratorExit, CancelledError):
            raise
        except BaseException as exc:  # a Rust panic is pyo3_runtime.PanicException, a BaseException
            msg = f"embedded store operation failed: {type(exc).__name__}: {exc}"
            raise StoreError(msg) from exc

    def _write(self, op: qe.UpdateOperation | _BuildOp, *, nbytes: int = 4096, written: int = 0,
               deleted: int | None = 0, then: Callable[[], None] | None = None) -> None:  # fmt: skip
        """Apply one update: refused before it starts while the disk is nearly full; ``written`` and ``deleted``
        points (None: count them) are noted for the background vacuum and flush. ``op`` may be a function building
        the update under the write lock (from the slots records hold now); building None writes nothing. ``then``
        runs under the lock once the update is applied: it tells the payload cache what changed."""
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
        return self._call(lambda _: self._build_filter(flt))  # conversion errors become StoreError too

    def _build_filter(self, flt: FilterSpec) -> qe.Filter:
        must: list[Any] = []
        must_not: list[Any] = []
        for key in ("user_id", "agent_id", "session_id"):
            value = getattr(flt, key)
            if value is not None:
                must.append(qe.FieldCondition(key, match=qe.MatchValue(value)))
        if flt.exact_scope:
            must += [qe.IsEmptyCondition(k) for k in ("user_id", "agent_id", "session_id") if getattr(flt, k) is None]
        if flt.source_ids_any is not None:
            must.append(qe.FieldCondition("source_ids", match=qe.MatchAny(list(flt.source_ids_any))))
        if flt.kinds is not None:
            must.append(qe.FieldCondition("kind", match=qe.MatchAny(list(flt.kinds))))
        if flt.valid_only and self._ended:
            must.append(qe.IsEmptyCondition("valid_to"))
        if flt.observed_from is not None or flt.observed_to is not None:
            rng = qe.RangeDateTime(
                gte=iso(flt.observed_from) if flt.observed_from else None,
                lt=iso(flt.observed_to) if flt.observed_to else None,
            )
            must.append(qe.FieldCondition("observed_at", range=rng))
        if flt.valid_at is not None:
            at = iso(flt.valid_at)
            must.append(qe.FieldCondition("observed_at", range=qe.RangeDateTime(lte=at)))
            must.append(
                qe.Filter(
                    should=[
                        qe.IsEmptyCondition("valid_to"),
                        qe.FieldCondition("valid_to", range=qe.RangeDateTime(gt=at)),
                    ]
                )
            )
        if flt.consolidated:
            must.append(qe.FieldCondition("consolidated", match=qe.MatchValue(1)))
        elif flt.consolidated is not None:  # not marked: 0, or absent (facts no reflection has taken)
            must_not.append(qe.FieldCondition("consolidated", match=qe.MatchValue(1)))
        for cond in flt.metadata:
            key = f"metadata.{cond.key}"
            if cond.op == "eq":
                must.append(_eq(key, cond.value))
            elif cond.op == "ne":
                must_not.append(_eq(key, cond.value))
            elif cond.op == "in":
                must.append(qe.FieldCondition(key, match=qe.MatchAny(list(cond.value))))
            else:
                must.append(qe.FieldCondition(key, range=qe.RangeFloat(**{cond.op: float(cond.value)})))
        # The info point has no scope and no kind; a read that names neither must still skip it.
        if flt.kinds is None and flt.user_id is None and flt.agent_id is None and flt.session_id is None:
            must.append(qe.FieldCondition("kind", match=qe.MatchAny(["message", "fact", "insight"])))
        return qe.Filter(must=must, must_not=must_not or None)

    # -- writes ----------------------------------------------------------------------------------------------------
    def upsert(self, points: Sequence[StoredPoint]) -> None:
        if not points:
            return

        where: dict[str, int] = {}

        def build(shard: qe.EdgeShard) -> qe.UpdateOperation:
            self._ended = self._ended or any("valid_to" in p.payload for p in points)
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
                homes.extend(self._homes(shard, ids).values())
                return qe.UpdateOperation.set_payload(homes, payload) if homes else None

            self._write(build, then=lambda: self._cache.forget(homes))

    def set_sparse(self, updates: Sequence[tuple[str, SparseVector]]) -> None:
        if updates:

            def build(shard: qe.EdgeShard) -> qe.UpdateOperation | None:
                homes = self._homes(shard, [rid for rid, _ in updates])
                pv = [qe.PointVectors(homes[rid], {SPARSE: _edge_sparse(v)}) for rid, v in updates if rid in homes]
                return qe.UpdateOperation.update_vectors(pv) if pv else None

            self._write(build)

    def flush(self) -> None:
        self.upkeep.wait()  # a background vacuum or flush ends first
        with self._write_lock:
            self._call(lambda s: s.flush())

    def optimize(self) -> None:
        """Rewrite the live points into one tenant-ordered segment (dropping tombstones; no HNSW graph) and flush,
        now."""
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
        reqs = [
            qe.QueryRequest(
                limit=limit, filter=f, with_payload=False, query=qe.Query.Nearest(dense.tolist(), using=DENSE)
            )
        ]
        if sparse is not None and not sparse.is_empty():
            q = qe.Query.Nearest(qe.SparseVector(sparse.indices, sparse.values), using=SPARSE)
            reqs.append(qe.QueryRequest(limit=limit, filter=f, with_payload=False, query=q))
        results = self._call(lambda s: s.query_batch(qe.QueryBatchRequest(reqs)))
        out: list[list[Candidate]] = [[(p.id, p.score) for p in res] for res in results]
        return out[0], (out[1] if len(out) > 1 else [])

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
        self, flt: FilterSpec, limit: int, *, start_from: datetime | None = None, descending: bool = False
    ) -> list[StoredPoint]:
        order = qe.OrderBy(
            "observed_at",
            qe.Direction.Desc if descending else qe.Direction.Asc,
            iso(start_from) if start_from is not None else None,
        )
        req = qe.ScrollRequest(limit=limit, filter=self._filter(flt), with_payload=True, order_by=order)
        recs, _ = self._call(lambda s: s.scroll(req))
        return [p for p in map(_point, recs) if p is not None]

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
            **self.upkeep.stats(),
        }


def _eq(key: str, value: Any) -> Any:
    if isinstance(value, bool):
        # qdrant-edge 0.9 reads MatchValue(True) as the integer 1, so a stored boolean never matches: say so
        # instead of returning nothing.
        field = "filters"
        msg = f"{key}: the embedded store cannot match booleans (qdrant-edge 0.9); store 0/1 or a string instead"
        raise ValidationError(field, msg)
    if isinstance(value, float) and (not value.is_integer() or abs(value) >= 2**63):  # not an int64: a range
        return qe.FieldCondition(key, range=qe.RangeFloat(gte=value, lte=value))
    if isinstance(value, float):
        value = int(value)
    return qe.FieldCondition(key, match=qe.MatchValue(value))
