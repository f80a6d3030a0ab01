"""``MemadaptVectorStore``: a LangChain vector store whose documents are facts in the engine."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from memadapt_core import JSON, MemoryRecord, Scope, SearchHit, ValidationError
from memadapt_core.api import AsyncMemoryAPI, MemoryAPI

from ._engine import LANGCHAIN_KEY, engine_views
from ._framework import Document, Embeddings, VectorStore
from ._mmr import SCAN_PAGE, mmr_pick, nearest

__all__ = ["DEFAULT_AGENT_ID", "MemadaptVectorStore"]

_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")  # what the engine's metadata paths take unquoted
DEFAULT_AGENT_ID = "langchain"
"""The scope of a store built without ids: ``agent_id="langchain"``."""


def _document(record: MemoryRecord) -> Document:
    # The caller's id comes back as given (the engine keeps it as external_id); metadata is the caller's own.
    metadata = record.metadata.get(LANGCHAIN_KEY, {})
    return Document(id=record.external_id or record.id, page_content=record.text, metadata=metadata)


def _filters(filter: dict[str, JSON] | None) -> dict[str, JSON] | None:
    if filter is None:
        return None
    if not isinstance(filter, Mapping):
        field = "filter"
        raise ValidationError(field, f"must be a dict of metadata conditions, not {type(filter).__name__}")
    return {f"{LANGCHAIN_KEY}.{_literal(key)}": cond for key, cond in filter.items()}


def _literal(key: str) -> str:
    """A filter key as LangChain's stores read it: the metadata key itself, dots and all (``"file.name"`` is the
    key ``file.name``, not ``name`` inside ``file``), quoted for the engine's metadata paths when it needs to be."""
    if _PLAIN_KEY.fullmatch(key):
        return key
    if key.startswith("$"):
        field = f"filter.{key}"
        raise ValidationError(field, "is not a metadata key: give {key: value} or {key: {operator: value}} per key")
    if '"' in key or "\\" in key:
        field = f"filter.{key}"
        raise ValidationError(field, "a metadata key with a double quote or a backslash cannot be filtered on")
    return f'"{key}"'


def _scored(hits: list[SearchHit]) -> list[tuple[Document, float]]:
    return [(_document(hit.record), hit.score) for hit in hits]


class MemadaptVectorStore(VectorStore):
    """Documents stored as ``fact`` records in one scope of a memadapt engine.

    Any string id works (``"1"``, ``"foo"``): the engine derives the record id from it and returns it as
    ``Document.id``; documents without an id get a fresh UUID4, and adding an id again replaces that document.
    ``Document.metadata`` (JSON) is kept under the record metadata key ``"langchain"`` and comes back unchanged;
    ``filter={"key": value}`` or ``{"key": {"$gte": 3}}`` selects on it. ``page_content`` must have words (the
    engine strips surrounding whitespace). The engine embeds with its own embedder, so there is no
    ``embedding``. The scope is the ids given, or ``agent_id="langchain"`` when none is; give the store a scope
    of its own, since ``delete()`` without ids empties that scope. Searches return the ``k`` nearest with no
    relevance floor; scores are the engine's fused scores (relative to the query, best first).

    Maximal marginal relevance (``max_marginal_relevance_search``, ``as_retriever(search_type="mmr")``) takes the
    engine's ``fetch_k`` best hits for the query and picks ``k`` of them by their stored vectors; the ``_by_vector``
    forms have no text to search with, so they scan the scope (exact, in time proportional to its size) for the
    ``fetch_k`` nearest by cosine first.
    """

    def __init__(
        self,
        memory: MemoryAPI | AsyncMemoryAPI,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> None:
        self._sync, self._async = engine_views(memory)
        scope = Scope.of(user_id, agent_id, session_id, required=False)  # a malformed id fails here
        self._scope = scope.ids() if not scope.is_empty() else Scope(agent_id=DEFAULT_AGENT_ID).ids()

    @property
    def embeddings(self) -> Embeddings | None:
        return None

    # ---- writes -------------------------------------------------------------------------------------------

    @staticmethod
    def _messages(documents: Sequence[Document], ids: Sequence[str | None] | None) -> list[dict[str, JSON]]:
        given = ids if ids is not None else [doc.id for doc in documents]
        if len(given) != len(documents):
            field = "ids"
            raise ValidationError(field, f"got {len(given)} ids for {len(documents)} documents")
        return [
            {"content": doc.page_content, "id": id_ or str(uuid.uuid4()), "metadata": {LANGCHAIN_KEY: doc.metadata}}
            for doc, id_ in zip(documents, given, strict=True)
        ]

    def add_documents(self, documents: list[Document], **kwargs: Any) -> list[str]:
        messages = self._messages(documents, kwargs.get("ids"))
        self._sync.add(messages, kind="fact", on_conflict="replace", **self._scope)
        return [str(message["id"]) for message in messages]

    async def aadd_documents(self, documents: list[Document], **kwargs: Any) -> list[str]:
        messages = self._messages(documents, kwargs.get("ids"))
        await self._async.add(messages, kind="fact", on_conflict="replace", **self._scope)
        return [str(message["id"]) for message in messages]

    def _record_ids(self, ids: Sequence[str]) -> list[str]:
        return [self._sync.record_id(id_, **self._scope) for id_ in ids]

    def delete(self, ids: list[str] | None = None, **kwargs: Any) -> bool | None:
        """Delete these ids, or every document of this store's scope when ``ids`` is None."""
        if ids is None:
            self._sync.delete_all(**self._scope)
        else:
            self._sync.delete_many(self._record_ids(ids))
        return True

    async def adelete(self, ids: list[str] | None = None, **kwargs: Any) -> bool | None:
        """Delete these ids, or every document of this store's scope when ``ids`` is None."""
        if ids is None:
            await self._async.delete_all(**self._scope)
        else:
            await self._async.delete_many(self._record_ids(ids))
        return True

    # ---- reads --------------------------------------------------------------------------------------------

    def get_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        return [_document(r) for r in self._sync.get_many(self._record_ids(ids), **self._scope)]

    async def aget_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        return [_document(r) for r in await self._async.get_many(self._record_ids(ids), **self._scope)]

    def similarity_search_with_score(
        self, query: str, k: int = 4, *, filter: dict[str, JSON] | None = None, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        hits = self._sync.search(query, limit=k, kinds=["fact"], threshold=0.0, filters=_filters(filter), **self._scope)
        return _scored(hits)

    async def asimilarity_search_with_score(
        self, query: str, k: int = 4, *, filter: dict[str, JSON] | None = None, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        hits = await self._async.search(
            query, limit=k, kinds=["fact"], threshold=0.0, filters=_filters(filter), **self._scope
        )
        return _scored(hits)

    def similarity_search(
        self, query: str, k: int = 4, *, filter: dict[str, JSON] | None = None, **kwargs: Any
    ) -> list[Document]:
        return [doc for doc, _ in self.similarity_search_with_score(query, k, filter=filter)]

    async def asimilarity_search(
        self, query: str, k: int = 4, *, filter: dict[str, JSON] | None = None, **kwargs: Any
    ) -> list[Document]:
        return [doc for doc, _ in await self.asimilarity_search_with_score(query, k, filter=filter)]

    # ---- maximal marginal relevance -----------------------------------------------------------------------

    def _fetch(self, k: int, fetch_k: int) -> int:
        return min(max(k, fetch_k), self._sync.settings.max_limit)

    def max_marginal_relevance_search(
        self, query: str, k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5, **kwargs: Any
    ) -> list[Document]:
        flt = _filters(kwargs.get("filter"))
        hits = self._sync.search(
            query, limit=self._fetch(k, fetch_k), kinds=["fact"], threshold=0.0, filters=flt, **self._scope
        )
        records = [hit.record for hit in hits]
        vectors = self._sync.vectors([r.id for r in records], **self._scope)
        picked = mmr_pick(self._sync.query_vector(query, **self._scope), records, vectors, k, lambda_mult)
        return [_document(r) for r in picked]

    async def amax_marginal_relevance_search(
        self, query: str, k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5, **kwargs: Any
    ) -> list[Document]:
        flt = _filters(kwargs.get("filter"))
        hits = await self._async.search(
            query, limit=self._fetch(k, fetch_k), kinds=["fact"], threshold=0.0, filters=flt, **self._scope
        )
        records = [hit.record for hit in hits]
        vectors = await self._async.vectors([r.id for r in records], **self._scope)
        picked = mmr_pick(await self._async.query_vector(query, **self._scope), records, vectors, k, lambda_mult)
        return [_document(r) for r in picked]

    def max_marginal_relevance_search_by_vector(
        self, embedding: list[float], k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5, **kwargs: Any
    ) -> list[Document]:
        flt = _filters(kwargs.get("filter"))
        best: list[tuple[float, MemoryRecord]] = []
        page: list[MemoryRecord] = []
        for record in self._sync.iter_records(kinds=["fact"], filters=flt, page_size=SCAN_PAGE, **self._scope):
            page.append(record)
            if len(page) == SCAN_PAGE:
                best = nearest(embedding, best, page, self._sync.vectors([r.id for r in page]), max(k, fetch_k))
                page = []
        best = nearest(embedding, best, page, self._sync.vectors([r.id for r in page]), max(k, fetch_k))
        records = [r for _, r in best]
        vectors = self._sync.vectors([r.id for r in records])
        return [_document(r) for r in mmr_pick(embedding, records, vectors, k, lambda_mult)]

    async def amax_marginal_relevance_search_by_vector(
        self, embedding: list[float], k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5, **kwargs: Any
    ) -> list[Document]:
        flt = _filters(kwargs.get("filter"))
        best: list[tuple[float, MemoryRecord]] = []
        page: list[MemoryRecord] = []
        async for record in self._async.iter_records(kinds=["fact"], filters=flt, page_size=SCAN_PAGE, **self._scope):
            page.append(record)
            if len(page) == SCAN_PAGE:
                vectors = await self._async.vectors([r.id for r in page])
                best = nearest(embedding, best, page, vectors, max(k, fetch_k))
                page = []
        best = nearest(embedding, best, page, await self._async.vectors([r.id for r in page]), max(k, fetch_k))
        records = [r for _, r in best]
        vectors = await self._async.vectors([r.id for r in records])
        return [_document(r) for r in mmr_pick(embedding, records, vectors, k, lambda_mult)]

    def _select_relevance_score_fn(self) -> Callable[[float], float]:
        # The engine's fused score is already a relevance (higher is closer), not a distance; its boosts (a
        # date named in the query, a "when" question) can lift it above 1, where LangChain wants [0, 1].
        return lambda score: min(1.0, max(0.0, score))

    # ---- construction -------------------------------------------------------------------------------------

    @classmethod
    def from_texts(
        cls,
        texts: list[str],
        embedding: Embeddings | None = None,
        metadatas: list[dict[str, Any]] | None = None,
        *,
        ids: list[str] | None = None,
        memory: MemoryAPI | AsyncMemoryAPI | None = None,
        **kwargs: Any,
    ) -> MemadaptVectorStore:
        """A store over ``memory`` (required) holding these texts; ``kwargs`` are the scope ids.

        ``embedding`` must be None: the engine embeds with the embedder it was built with.
        """
        if embedding is not None:
            field = "embedding"
            raise ValidationError(field, "the engine embeds with its own embedder (Memory(embedder=...)); pass None")
        if memory is None:
            field = "memory"
            raise ValidationError(field, "pass the engine to store in, e.g. memory=Memory(path='./memories')")
        store = cls(memory, **kwargs)
        store.add_texts(texts, metadatas, ids=ids)
        return store
