"""``MemadaptRetriever``: the engine's hybrid search as a LangChain retriever."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import ConfigDict, PrivateAttr

from memadapt_core import JSON, Kind, Scope, SearchHit, check_count
from memadapt_core.api import AsyncMemoryAPI, MemoryAPI

from ._engine import engine_views
from ._framework import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
    Document,
)
from ._mmr import mmr_pick
from ._validated import EngineField, ValidatedRetriever

__all__ = ["MemadaptRetriever", "hit_to_document"]


def hit_to_document(hit: SearchHit) -> Document:
    """A memory as a ``Document``: its id, its text, and where it came from (user metadata under ``metadata``)."""
    record = hit.record
    return Document(
        id=record.id,
        page_content=record.text,
        metadata={
            "kind": record.kind,
            "score": hit.score,
            "observed_at": record.observed_at.isoformat(),
            "user_id": record.user_id,
            "agent_id": record.agent_id,
            "session_id": record.session_id,
            "role": record.role,
            "name": record.name,
            "metadata": record.metadata,
        },
    )


class MemadaptRetriever(ValidatedRetriever):
    """Memories relevant to a query, best first.

    Give it a ``Memory`` or an ``AsyncMemory``: ``invoke`` runs the sync engine and ``ainvoke`` the async one,
    both over the same store. ``k`` can be overridden per call (``retriever.invoke(query, k=2)``). The scope
    ids given are matched exactly; those left ``None`` do not constrain. ``threshold=None`` keeps the engine's
    relevance floor (unrelated queries return nothing); ``0.0`` turns it off. ``search_type="mmr"`` picks the
    ``k`` of the ``fetch_k`` best hits that balance relevance against diversity (maximal marginal relevance over
    the stored vectors, ``lambda_mult`` 1 for relevance only, 0 for diversity only), in the order picked.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: EngineField
    k: int = 4
    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    kinds: Sequence[Kind] | None = None
    threshold: float | None = None
    time_range: tuple[datetime | None, datetime | None] | None = None
    filters: dict[str, JSON] | None = None
    search_type: Literal["similarity", "mmr"] = "similarity"
    fetch_k: int = 20
    lambda_mult: float = 0.5

    _sync: MemoryAPI = PrivateAttr()
    _async: AsyncMemoryAPI = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        self._sync, self._async = engine_views(self.memory)
        Scope.of(self.user_id, self.agent_id, self.session_id, required=False)  # a malformed id fails here
        check_count("k", self.k)
        check_count("fetch_k", self.fetch_k)

    def _search_args(self, k: int | None) -> dict[str, Any]:
        return {
            **self._scope_ids(),
            "limit": self.k if k is None else k,
            "kinds": None if self.kinds is None else list(self.kinds),
            "threshold": self.threshold,
            "time_range": self.time_range,
            "filters": self.filters,
        }

    def _scope_ids(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "agent_id": self.agent_id, "session_id": self.session_id}

    def _mmr_args(self, k: int | None) -> dict[str, Any]:
        args = self._search_args(k)
        args["limit"] = min(max(args["limit"], self.fetch_k), self._sync.settings.max_limit)
        return args

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, k: int | None = None
    ) -> list[Document]:
        if self.search_type != "mmr":
            return [hit_to_document(hit) for hit in self._sync.search(query, **self._search_args(k))]
        hits = self._sync.search(query, **self._mmr_args(k))
        vectors = self._sync.vectors([hit.record.id for hit in hits])
        qvec = self._sync.query_vector(query, **self._scope_ids())
        picked = mmr_pick(qvec, hits, vectors, self.k if k is None else k, self.lambda_mult, id_of=_hit_id)
        return [hit_to_document(hit) for hit in picked]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, k: int | None = None
    ) -> list[Document]:
        if self.search_type != "mmr":
            return [hit_to_document(hit) for hit in await self._async.search(query, **self._search_args(k))]
        hits = await self._async.search(query, **self._mmr_args(k))
        vectors = await self._async.vectors([hit.record.id for hit in hits])
        qvec = await self._async.query_vector(query, **self._scope_ids())
        picked = mmr_pick(qvec, hits, vectors, self.k if k is None else k, self.lambda_mult, id_of=_hit_id)
        return [hit_to_document(hit) for hit in picked]


def _hit_id(hit: SearchHit) -> str:
    return hit.record.id
