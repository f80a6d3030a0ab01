"""The embedded default: qdrant-edge-py, Qdrant's Rust engine in-process, one folder, durable through its WAL.

Layout: ``<path>/<collection>/`` is an edge shard. One process per folder (an OS lock); a second opener gets
``StoreLockedError``. Search stays exact on plain segments (sub-millisecond per tenant): the optimizer is configured
never to build HNSW, which blocks for minutes at 100k points holding the GIL. ``optimize()`` vacuums; so does a
background thread after enough deletes, and writes are refused while the disk is nearly full (``_upkeep.py``).
"""

from __future__ import annotations

import threading
import uuid
from asyncio import CancelledError
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
import qdrant_edge as qe

from memadapt_core.backends._payload_time import iso
from memadapt_core.backends._upkeep import OPTIMIZERS, DiskGuard, Upkeep, upsert_bytes
from memadapt_core.backends.base import (
    INFO_POINT_ID,
    Candidate,
    CollectionInfo,
    FilterSpec,
    PointKey,
    StoredPoint,
    named_vectors,
    stored_point,
)
from memadapt_core.backends.schema import (
    INTEGER_INDEXES,
    KEYWORD_INDEXES,
    TENANT_INDEX,
    TIME_INDEXES,
    info_payload,
    read_info,
)
from memadapt_core.errors import (
    ConfigurationError,
    MemadaptError,
    StoreError,
    StoreLockedError,
    StoreUnavailableError,
    ValidationError,
)
from memadapt_core.sparse import SparseVector

__all__ = ["EdgeBackend"]

T = TypeVar("T")
_OPEN_HERE: set[str] = set()  # folders this process holds open: names the holder in the lock error
DENSE, SPARSE = "dense", "bm25"


def _sid(point_id: Any) -> str:
    return str(point_id)


def _edge_sparse(v: SparseVector) -> qe.SparseVector:
    return qe.SparseVector(v.indices, v.values)


def _key(point_id: Any) -> PointKey:
    """A search result's key: our ids are UUIDs, and their integer hashes natively (a UUID object hashes in Python)."""
    return point_id.int if isinstance(point_id, uuid.UUID) else point_id


class EdgeBackend:
    blocking_io = False

    def __init__(self, root: str | Path, *, min_free_disk_mb: int = 0, vacuum_after_deletes: int = 0) -> None:
        self.root = Path(root)
        self._shard: qe.EdgeShard | None = None
        self._write_lock = threading.Lock()
        self.info: CollectionInfo | None = None
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
            optimizers=OPTIMIZERS,  # vacuum and merge, never HNSW
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
                self.info = info
                self._warm_up(info.dim)
                return
        self._create_indexes()
        self._call(
            lambda s: s.update(qe.UpdateOperation.upsert_points([qe.Point(INFO_POINT_ID, {}, info_payload(info))]))
        )
        self.info = info
        self._warm_up(info.dim)

    def _create_indexes(self) -> None:
        ops = [qe.UpdateOperation.create_field_index(TENANT_INDEX, qe.KeywordIndexParams(is_tenant=True))]
        ops += [qe.UpdateOperation.create_field_index(k, qe.PayloadSchemaType.Keyword) for k in KEYWORD_INDEXES]
        ops += [qe.UpdateOperation.create_field_index(k, qe.PayloadSchemaType.Datetime) for k in TIME_INDEXES]
        ops += [qe.UpdateOperation.create_field_index(k, qe.PayloadSchemaType.Integer) for k in INTEGER_INDEXES]
        for op in ops:
            self._write(op)

    def _read_info(self) -> CollectionInfo | None:
        pts = self._call(lambda s: s.retrieve([INFO_POINT_ID], with_payload=True, with_vector=False))
        return read_info(pts[0].payload or {}) if pts else None

    def _warm_up(self, dim: int) -> None:
        # The first query after opening takes 1-6 ms; pay it here, not on a user's first search.
        vec = [1.0] + [0.0] * (dim - 1)
        self._call(lambda s: s.query(qe.QueryRequest(limit=1, query=qe.Query.Nearest(vec, using=DENSE))))

    def close(self) -> None:
        self.upkeep.wait()
        shard, self._shard = self._shard, None
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

    def _write(self, op: qe.UpdateOperation, *, nbytes: int = 4096, written: int = 0, deleted: int | None = 0) -> None:
        """Apply one update: refused before it starts while the disk is nearly full; ``written`` and ``deleted``
        points (None: count them) are noted for the background vacuum and flush."""
        with self._write_lock:
            self._guard.check_write(nbytes)
            before = self._call(lambda s: s.info().points_count) if deleted is None else 0
            self._call(lambda s: s.update(op))
            if deleted is None:
                deleted = max(0, before - self._call(lambda s: s.info().points_count))
            self.upkeep.note(written=written, deleted=deleted)

    def _filter(self, flt: FilterSpec) -> qe.Filter:
        return self._call(lambda _: self._build_filter(flt))  # conversion errors become StoreError too

    def _build_filter(self, flt: FilterSpec) -> qe.Filter:
        must: list[Any] = []
        must_not: list[Any] = []
        for key in ("user_id", "agent_id", "session_id", "external_id", "hash"):
            value = getattr(flt, key)
            if value is not None:
                must.append(qe.FieldCondition(key, match=qe.MatchValue(value)))
        if flt.exact_scope:
            must += [qe.IsEmptyCondition(k) for k in ("user_id", "agent_id", "session_id") if getattr(flt, k) is None]
        if flt.source_ids_any is not None:
            must.append(qe.FieldCondition("source_ids", match=qe.MatchAny(list(flt.source_ids_any))))
        if flt.kinds is not None:
            must.append(qe.FieldCondition("kind", match=qe.MatchAny(list(flt.kinds))))
        if flt.valid_only:
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

        def build(_: qe.EdgeShard) -> qe.UpdateOperation:
            built = [qe.Point(p.id, named_vectors(p, _edge_sparse), p.payload) for p in points]
            return qe.UpdateOperation.upsert_points(built)

        op = self._call(build)  # built inside _call: a payload qe.Point refuses is a StoreError too
        self._write(op, nbytes=upsert_bytes(points), written=len(points))

    def delete(self, ids: Sequence[str]) -> None:
        if ids:
            self._write(qe.UpdateOperation.delete_points(list(ids)), deleted=len(ids))

    def delete_where(self, flt: FilterSpec) -> None:
        self._write(qe.UpdateOperation.delete_points_by_filter(self._filter(flt)), deleted=None)

    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        if ids:
            self._write(qe.UpdateOperation.set_payload(list(ids), payload))

    def set_sparse(self, updates: Sequence[tuple[str, SparseVector]]) -> None:
        if updates:
            pv = [qe.PointVectors(pid, {SPARSE: qe.SparseVector(v.indices, v.values)}) for pid, v in updates]
            self._write(qe.UpdateOperation.update_vectors(pv))

    def flush(self) -> None:
        self.upkeep.wait()  # a background vacuum or flush ends first
        with self._write_lock:
            self._call(lambda s: s.flush())

    def optimize(self) -> None:
        """Vacuum (drop deleted points, merge segments; no HNSW) and flush, now."""
        self._call(lambda _: self.upkeep.run_now())

    # -- reads ---------------------------------------------------------------------------------------------------
    def retrieve(self, ids: Sequence[str], *, with_vectors: bool = False) -> list[StoredPoint]:
        if not ids:
            return []
        recs = self._call(lambda s: s.retrieve(list(ids), with_payload=True, with_vector=with_vectors))
        return [stored_point(r.id, r.payload, r.vector) for r in recs if _sid(r.id) != INFO_POINT_ID]

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
        out = [[Candidate(_key(p.id), p.score) for p in res] for res in results]
        return out[0], (out[1] if len(out) > 1 else [])

    def payloads(self, keys: Sequence[PointKey]) -> dict[PointKey, dict[str, Any]]:
        if not keys:
            return {}
        wanted = [uuid.UUID(int=k) for k in keys if isinstance(k, int)]
        recs = self._call(lambda s: s.retrieve(wanted, with_payload=True, with_vector=False))  # type: ignore[arg-type]
        return {_key(r.id): r.payload or {} for r in recs}

    def record_id(self, key: PointKey) -> str:
        return str(uuid.UUID(int=key)) if isinstance(key, int) else str(key)

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
        return [stored_point(r.id, r.payload, r.vector) for r in recs]

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
