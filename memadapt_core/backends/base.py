"""The one storage protocol the engine talks to, and the backend-neutral shapes that cross it.

No Qdrant type crosses this boundary: each backend translates ``FilterSpec`` and ``StoredPoint`` to its client's
types and translates its client's exceptions into ``StoreError`` subclasses.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from memadapt_core.filters import FilterSpec
from memadapt_core.vectors.sparse import SparseVector

__all__ = [
    "INFO_POINT_ID",
    "RECORD_ID",
    "Candidate",
    "CollectionInfo",
    "PointKey",
    "StoredPoint",
    "VectorBackend",
    "VectorUpdate",
    "blended_sparse",
    "idf_corpora",
    "named_vectors",
    "replaced_vectors",
    "stored_point",
    "with_rescored",
]

# The point that records which embedder made a collection: it has no scope, so no scoped read ever sees it. (The
# embedded store keeps it at integer id 0 since schema 2.)
INFO_POINT_ID = "6d656d61-6461-5074-a96e-666f00000001"


@dataclass
class StoredPoint:
    id: str
    payload: dict[str, Any]
    dense: npt.NDArray[np.float32] | None = None
    sparse: SparseVector | None = None


#: A point's id, its new sparse vector and its new dense vector; None keeps one (``VectorBackend.set_vectors``).
VectorUpdate = tuple[str, "SparseVector | None", "npt.NDArray[np.float32] | None"]

#: The field holding the record id in each payload ``points`` hands out (and in the embedded store's stored payloads,
#: whose point ids are not the record ids: slots.py). Records ignore it.
RECORD_ID = "rid"

#: A point id as a backend's ``search`` returns it and its ``points`` takes it back: the record id itself, or a
#: cheaper stand-in (the embedded store's integer point ids: backends/edge/slots.py).
PointKey = Hashable


#: A search candidate: its id and the raw score of one signal. A plain tuple: a search makes ~80 of them, and a
#: dataclass doubled the cost of reading qdrant-edge's results (16 against 8 µs).
Candidate = tuple[PointKey, float]


@dataclass(frozen=True)
class CollectionInfo:
    name: str
    embedder: str
    dim: int
    pooling: str = "mean"  # how the embedder pooled token vectors ("scope_idf": memadapt_core.vectors.token_stats)
    lexicon: str = "words"  # how the words were cut for BM25 (memadapt_core.vectors.sparse.LEXICONS)


class VectorBackend(Protocol):
    """Storage for memory points. Sync: the async engine offloads calls when ``blocking_io`` is True."""

    #: True when calls may wait on a network or disk for long (a server): the async engine runs them in a thread.
    blocking_io: bool

    def collections(self) -> list[str]:
        """The names of the collections the store already holds (opening none of them)."""

    def open_collection(self, info: CollectionInfo) -> CollectionInfo:
        """Create the collection with its indexes, or open it and check it was made by the same embedder. Returns
        how it was made: ``info`` for a new collection; for an existing one, the pooling and lexicon it recorded
        ("mean" and "words" if it recorded none: it was made before they were)."""

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        """Insert or replace whole points (vectors and payload) in one durable write."""

    def retrieve(self, ids: Sequence[str], *, with_vectors: bool = False) -> list[StoredPoint]:
        """The points that exist among ``ids`` (order not guaranteed)."""

    def search(
        self,
        dense: npt.NDArray[np.float32],
        sparse: SparseVector | None,
        flt: FilterSpec,
        limit: int,
    ) -> tuple[list[Candidate], list[Candidate]]:
        """Dense and sparse candidates in one round trip, without payloads: each list best first, raw scores. The
        dense list also scores the sparse candidates (``with_rescored``), so every candidate has its cosine."""

    def points(self, keys: Sequence[PointKey]) -> dict[PointKey, dict[str, Any]]:
        """The payloads of the records that exist among ``keys`` from ``search``, by those keys, each with its record
        id under ``RECORD_ID`` and without its ``history`` (search reads records, not their changes). Read-only: a
        backend may hand out the same payloads again (the embedded store's payload cache)."""

    def scroll(
        self,
        flt: FilterSpec,
        limit: int,
        *,
        start_from: datetime | None = None,
        descending: bool = False,
        with_vectors: bool = False,
    ) -> list[StoredPoint]:
        """Points ordered by ``observed_at`` (ties in any stable order), from ``start_from`` inclusive."""

    def count(self, flt: FilterSpec) -> int: ...

    def delete(self, ids: Sequence[str]) -> None: ...

    def delete_where(self, flt: FilterSpec) -> None:
        """Delete every point matching ``flt`` in one operation (not one by one)."""

    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        """Set (merge) top-level payload fields on points."""

    def set_vectors(self, updates: Sequence[VectorUpdate]) -> None:
        """Replace vectors of existing points: each update names a point, its new sparse vector and its new dense
        vector (None keeps the stored one). One write."""

    def flush(self) -> None: ...

    def optimize(self) -> None:
        """Maintenance: reclaim deleted points (the embedded store vacuums and flushes its log; a server optimises by
        itself). Slow; never called on the hot path."""

    def stats(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


def stored_point(point_id: object, payload: dict[str, Any] | None, vector: object) -> StoredPoint:
    """A point read from either Qdrant client: named vectors ``dense`` and ``bm25`` (any object with
    ``indices`` and ``values``) become the backend-neutral shape."""
    dense = sparse = None
    if isinstance(vector, dict):
        if "dense" in vector:
            dense = np.asarray(vector["dense"], dtype=np.float32)
        if "bm25" in vector:
            sv = vector["bm25"]
            sparse = SparseVector(list(sv.indices), list(sv.values))
    return StoredPoint(str(point_id), dict(payload or {}), dense, sparse)


def named_vectors(point: StoredPoint, sparse: Callable[[SparseVector], Any]) -> dict[str, Any]:
    """A point's vectors as both Qdrant libraries take them: ``dense`` as a list, ``bm25`` built by ``sparse``."""
    vectors: dict[str, Any] = {}
    if point.dense is not None:
        vectors["dense"] = point.dense.tolist()
    if point.sparse is not None and not point.sparse.is_empty():
        vectors["bm25"] = sparse(point.sparse)
    return vectors


def replaced_vectors(update: VectorUpdate, sparse: Callable[[SparseVector], Any]) -> dict[str, Any]:
    """The vectors a ``set_vectors`` update replaces, as both Qdrant libraries take them (an empty sparse vector
    too: it replaces the stored one)."""
    _, sv, dv = update
    vectors: dict[str, Any] = {}
    if sv is not None:
        vectors["bm25"] = sparse(sv)
    if dv is not None:
        vectors["dense"] = dv.tolist()
    return vectors


def idf_corpora(scope_idf: float) -> tuple[bool, ...]:
    """The BM25 requests a search sends for ``retrieval.scope_idf``, as "is word rarity counted in the searched
    scope?" for each: the store's alone, the scope's alone, or both, blended by ``blended_sparse``."""
    if scope_idf <= 0:
        return (False,)
    return (True,) if scope_idf >= 1 else (False, True)


def blended_sparse(store_wide: list[Candidate], scoped: list[Candidate], scope_idf: float) -> list[Candidate]:
    """One BM25 list from two rankings of the same words, one with word rarity counted in the whole store and one
    in the searched scope: each candidate's ``(1 - scope_idf) x`` its store-wide score plus ``scope_idf x`` its
    scoped one (0 where a list does not hold it), best first. Still BM25's units: both scores are BM25's.

    Neither count alone is best (benchmarks/results/history.md):
    the scope's own statistics fit a long conversation between
    the same people (LoCoMo), the store's are steadier for a scope of many unrelated chats (LongMemEval); their
    mean gained on both."""
    mixed = {key: (1.0 - scope_idf) * score for key, score in store_wide}
    for key, score in scoped:
        mixed[key] = mixed.get(key, 0.0) + scope_idf * score
    return sorted(mixed.items(), key=_score, reverse=True)


def with_rescored(results: list[list[Candidate]], scope_idf: float = 0.0) -> tuple[list[Candidate], list[Candidate]]:
    """``[dense, sparse, sparse rescored by the dense vector]`` as ``(dense, sparse)``: the dense list holds the
    sparse candidates' cosines too, best first. A memory found only by its words would otherwise count as
    meaning nothing at all in the fusion (measured on LoCoMo: benchmarks/results/history.md). With two BM25 lists
    (``idf_corpora``: ``[dense, store-wide, scoped, rescored]``) the sparse list is their blend."""
    dense = results[0]
    if len(results) < 3:
        return dense, (results[1] if len(results) > 1 else [])
    sparse = results[1] if len(results) == 3 else blended_sparse(results[1], results[2], scope_idf)
    known = {key for key, _ in dense}
    extra = [c for c in results[-1] if c[0] not in known]
    if extra:
        dense = sorted(dense + extra, key=_score, reverse=True)
    return dense, sparse


def _score(c: Candidate) -> float:
    return c[1]
