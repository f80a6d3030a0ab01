"""A Qdrant server or cluster through qdrant-client (``url=``), and its local mode as the server's stand-in.

Local mode (``location=":memory:"`` or ``path=``) is brute force in Python (~100 ms a search at 10k points):
right for tests and small data, never the default. Client errors are translated here, at one boundary: a
missing collection is ``ValueError`` locally but ``UnexpectedResponse`` remotely; a closed port is a
``ResponseHandlingException`` wrapping a connection error.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
from qdrant_client import QdrantClient
from qdrant_client import models as qm

from memadapt_core.backends.base import (
    INFO_POINT_ID,
    RECORD_ID,
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
)
from memadapt_core.backends.client_filters import client_filter
from memadapt_core.backends.schema import (
    INTEGER_INDEXES,
    KEYWORD_INDEXES,
    TENANT_INDEX,
    TIME_INDEXES,
    check_embedder,
    info_payload,
    read_info,
)
from memadapt_core.errors import (
    ConfigurationError,
    MemadaptError,
    StoreError,
    StoreLockedError,
    StoreUnavailableError,
)
from memadapt_core.filters import FilterSpec, scope_of
from memadapt_core.redaction import redact_url, redact_urls
from memadapt_core.vectors.sparse import SparseVector

log = logging.getLogger("memadapt")

__all__ = ["QdrantClientBackend"]

T = TypeVar("T")
DENSE, SPARSE = "dense", "bm25"
_NO_HISTORY = qm.PayloadSelectorExclude(exclude=["history"])  # search hits need not carry a record's changes


def _client_sparse(v: SparseVector) -> qm.SparseVector:
    return qm.SparseVector(indices=v.indices, values=v.values)


class QdrantClientBackend:
    def __init__(
        self,
        *,
        url: str | None = None,
        api_key: str | None = None,
        location: str | None = None,
        path: str | None = None,
        timeout: float = 10.0,
        shard_key: str | None = None,
        scope_idf: float = 0.0,
        scope_idf_required: bool = False,
    ) -> None:
        self.remote = url is not None
        if scope_idf and not hasattr(qm, "IdfCorpusParams"):  # qdrant-client before 1.19
            msg = "retrieval.scope_idf: needs qdrant-client 1.19 or later (pip install -U qdrant-client)"
            if scope_idf_required:
                raise ConfigurationError(msg)
            log.warning("%s; word rarity is counted in the whole store", msg)
            scope_idf = 0.0
        self._scope_idf = scope_idf  # BM25's share with word rarity counted in the searched scope (base.idf_corpora)
        # Local mode is in-process Python; a server is network I/O: only the latter must leave the event loop.
        self.blocking_io = self.remote
        self._shard_key = shard_key
        self._lock = threading.RLock()  # local mode is not thread-safe
        self.collection = ""
        try:
            if url is not None:
                self._client = QdrantClient(url=url, api_key=api_key, timeout=int(timeout))
            elif path is not None:
                self._client = QdrantClient(path=path)
            else:
                self._client = QdrantClient(location=location or ":memory:")
        except RuntimeError as exc:
            if "already accessed" in str(exc):
                msg = f"the local Qdrant folder {path} is open in another client or process; use a Qdrant server"
                raise StoreLockedError(msg) from exc
            msg_0 = f"cannot open Qdrant: {redact_urls(str(exc))}"
            raise StoreUnavailableError(msg_0) from exc
        except Exception as exc:
            msg_0 = f"cannot open Qdrant: {redact_urls(str(exc))}"
            raise StoreUnavailableError(msg_0) from exc
        # What messages and stats() show: a URL's credentials (https://user:password@host) never among them.
        self._where = redact_url(url) or path or location or ":memory:"

    def _call(self, fn: Callable[[QdrantClient], T]) -> T:
        try:
            with self._lock:
                return fn(self._client)
        except MemadaptError:
            raise
        except Exception as exc:
            name = type(exc).__name__
            text = redact_urls(str(exc))  # a client error may quote the URL it was given, credentials and all
            if name in ("ResponseHandlingException", "ConnectError", "ConnectTimeout", "ReadTimeout") or (
                isinstance(exc, (ConnectionError, TimeoutError, OSError))
            ):
                msg = f"cannot reach Qdrant at {self._where}: {name}: {text}"
                raise StoreUnavailableError(msg) from exc
            msg_0 = f"Qdrant operation failed: {name}: {text}"
            raise StoreError(msg_0) from exc

    @property
    def _sk(self) -> dict[str, Any]:
        return {"shard_key_selector": self._shard_key} if self._shard_key else {}

    # -- lifecycle -------------------------------------------------------------------------------------------------
    def collections(self) -> list[str]:
        return sorted(c.name for c in self._call(lambda c: c.get_collections()).collections)

    def open_collection(self, info: CollectionInfo) -> CollectionInfo:
        self.collection = info.name
        exists = self._call(lambda c: c.collection_exists(info.name))
        if exists:
            pts = self._call(lambda c: c.retrieve(info.name, [INFO_POINT_ID], with_payload=True, **self._sk))
            found = read_info(pts[0].payload or {}) if pts else None
            check_embedder(found, info, "")
            if found is not None:
                return dataclasses.replace(info, pooling=found.pooling, lexicon=found.lexicon)
            info = dataclasses.replace(info, pooling="mean", lexicon="words")  # made before the info point
        else:
            self._call(
                lambda c: c.create_collection(
                    info.name,
                    vectors_config={DENSE: qm.VectorParams(size=info.dim, distance=qm.Distance.COSINE)},
                    sparse_vectors_config={SPARSE: qm.SparseVectorParams(modifier=qm.Modifier.IDF)},
                )
            )
            self._create_indexes(info.name)
        self._call(
            lambda c: c.upsert(
                info.name, [qm.PointStruct(id=INFO_POINT_ID, vector={}, payload=info_payload(info))],
                wait=True, **self._sk,
            )
        )  # fmt: skip
        return info

    def _create_indexes(self, name: str) -> None:
        if not self.remote:
            return  # local mode ignores payload indexes (and warns about them)
        schemas: list[tuple[str, Any]] = [
            (TENANT_INDEX, qm.KeywordIndexParams(type=qm.KeywordIndexType.KEYWORD, is_tenant=True))
        ]
        schemas += [(k, qm.PayloadSchemaType.KEYWORD) for k in KEYWORD_INDEXES]
        schemas += [(k, qm.PayloadSchemaType.DATETIME) for k in TIME_INDEXES]
        schemas += [(k, qm.PayloadSchemaType.INTEGER) for k in INTEGER_INDEXES]
        for field, schema in schemas:

            def create(c: QdrantClient, f: str = field, s: Any = schema) -> Any:
                return c.create_payload_index(name, f, field_schema=s, wait=True)

            self._call(create)

    def close(self) -> None:
        self._call(lambda c: c.close())

    # -- writes ------------------------------------------------------------------------------------------------------
    def upsert(self, points: Sequence[StoredPoint]) -> None:
        if not points:
            return
        built = [qm.PointStruct(id=p.id, vector=named_vectors(p, _client_sparse), payload=p.payload) for p in points]
        self._call(lambda c: c.upsert(self.collection, built, wait=True, **self._sk))

    def delete(self, ids: Sequence[str]) -> None:
        if ids:
            sel = qm.PointIdsList(points=list(ids))
            self._call(lambda c: c.delete(self.collection, sel, wait=True, **self._sk))

    def delete_where(self, flt: FilterSpec) -> None:
        sel = qm.FilterSelector(filter=client_filter(flt))
        self._call(lambda c: c.delete(self.collection, sel, wait=True, **self._sk))

    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        if ids:
            self._call(lambda c: c.set_payload(self.collection, payload, points=list(ids), wait=True, **self._sk))

    def set_vectors(self, updates: Sequence[VectorUpdate]) -> None:
        if updates:
            pts = [qm.PointVectors(id=u[0], vector=replaced_vectors(u, _client_sparse)) for u in updates]
            self._call(lambda c: c.update_vectors(self.collection, pts, wait=True, **self._sk))

    def flush(self) -> None:
        """Every write above waited for the server (``wait=True``): nothing is buffered here."""

    def optimize(self) -> None:
        """A server optimises by itself; nothing to do."""

    # -- reads -------------------------------------------------------------------------------------------------------
    def retrieve(self, ids: Sequence[str], *, with_vectors: bool = False) -> list[StoredPoint]:
        return self._retrieve(ids, True, with_vectors)

    def _retrieve(
        self, ids: Sequence[str], payload: bool | qm.PayloadSelectorExclude, vectors: bool
    ) -> list[StoredPoint]:
        if not ids:
            return []
        recs = self._call(
            lambda c: c.retrieve(self.collection, list(ids), with_payload=payload, with_vectors=vectors, **self._sk)
        )
        return [stored_point(r.id, r.payload, r.vector) for r in recs if str(r.id) != INFO_POINT_ID]

    def search(
        self,
        dense: npt.NDArray[np.float32],
        sparse: SparseVector | None,
        flt: FilterSpec,
        limit: int,
    ) -> tuple[list[Candidate], list[Candidate]]:
        f = client_filter(flt)
        reqs = [qm.QueryRequest(query=dense.tolist(), using=DENSE, filter=f, limit=limit, with_payload=False)]
        if sparse is not None and not sparse.is_empty():
            q = qm.SparseVector(indices=sparse.indices, values=sparse.values)
            corpora = idf_corpora(self._scope_idf)
            scoped = (
                qm.SearchParams(idf=qm.IdfCorpusParams(corpus=client_filter(scope_of(flt)))) if any(corpora) else None
            )
            lexical = []
            for in_scope in corpora:
                params = scoped if in_scope else None
                reqs.append(
                    qm.QueryRequest(query=q, using=SPARSE, filter=f, limit=limit, with_payload=False, params=params)
                )
                lexical.append(qm.Prefetch(query=q, using=SPARSE, filter=f, limit=limit, params=params))
            # The same words match again, rescored by meaning: every candidate gets both signals (base.py).
            reqs.append(
                qm.QueryRequest(
                    prefetch=lexical, query=dense.tolist(), using=DENSE, limit=limit * len(lexical), with_payload=False
                )
            )
        if self._shard_key:
            reqs = [r.model_copy(update={"shard_key": self._shard_key}) for r in reqs]
        res = self._call(lambda c: c.query_batch_points(self.collection, reqs))
        out: list[list[Candidate]] = [[(str(p.id), float(p.score)) for p in r.points] for r in res]
        return with_rescored(out, self._scope_idf)

    def points(self, keys: Sequence[PointKey]) -> dict[PointKey, dict[str, Any]]:
        found = self._retrieve([str(k) for k in keys], _NO_HISTORY, False)
        return {p.id: {**p.payload, RECORD_ID: p.id} for p in found}

    def scroll(
        self,
        flt: FilterSpec,
        limit: int,
        *,
        start_from: datetime | None = None,
        descending: bool = False,
        with_vectors: bool = False,
    ) -> list[StoredPoint]:
        order = qm.OrderBy(
            key="observed_at",
            direction=qm.Direction.DESC if descending else qm.Direction.ASC,
            start_from=start_from,
        )
        recs, _ = self._call(
            lambda c: c.scroll(
                self.collection, scroll_filter=client_filter(flt), limit=limit, order_by=order,
                with_payload=True, with_vectors=with_vectors, **self._sk,
            )
        )  # fmt: skip
        return [stored_point(r.id, r.payload, r.vector) for r in recs]

    def count(self, flt: FilterSpec) -> int:
        res = self._call(lambda c: c.count(self.collection, count_filter=client_filter(flt), exact=True, **self._sk))
        return int(res.count)

    def stats(self) -> dict[str, Any]:
        info = self._call(lambda c: c.get_collection(self.collection))
        return {
            "backend": "qdrant" if self.remote else "qdrant-local",
            "where": self._where,
            "collection": self.collection,
            "points": max(0, int(info.points_count or 0) - 1),
        }
