"""The embedded default: qdrant-edge-py, Qdrant's Rust engine in-process, one folder, durable through its WAL.

``EdgeBackend`` is the ``VectorBackend`` over one open shard (``store.py``): its writes and its reads. Records live
at integer point ids derived from their UUIDs (``slots.py``): qdrant-edge hands UUID ids back as ``uuid.UUID``
objects, slowly. Search is exact (sub-millisecond per tenant): the optimizer never builds an HNSW graph, which
blocks for minutes at 100k points holding the GIL. ``optimize()`` rewrites the live points into one immutable
segment with each tenant's points together, which halves qdrant-edge's filtered search; writes go to an appendable
segment until the next one. A background thread vacuums the same way after enough deletes (``upkeep.py``).
``filters.py`` translates filters, ``payload_cache.py`` keeps decoded payloads for search.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt
import qdrant_edge as qe

from memadapt_core.backends.base import (
    Candidate,
    PointKey,
    StoredPoint,
    VectorUpdate,
    idf_corpora,
    named_vectors,
    replaced_vectors,
    stored_point,
    with_rescored,
)  # fmt: skip
from memadapt_core.backends.edge.shard import (
    DENSE,
    SPARSE,
)
from memadapt_core.backends.edge.slots import RID, place, slot_map, slots
from memadapt_core.backends.edge.store import EdgeStore
from memadapt_core.backends.edge.upkeep import upsert_bytes
from memadapt_core.errors import (
    StoreError,
)
from memadapt_core.filters import FilterSpec, scope_of
from memadapt_core.models import KINDS
from memadapt_core.record_codec import iso
from memadapt_core.vectors.sparse import SparseVector

__all__ = ["EdgeBackend"]


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


class EdgeBackend(EdgeStore):
    """The ``VectorBackend`` of the embedded store: the reads and writes over ``EdgeStore``'s open shard."""

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
        """The hot path of search. Cached points come from the payload cache (read-only: see payload_cache.py);
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
