"""``MemadaptStore``: LangGraph's long-term ``BaseStore`` on the memadapt engine."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import islice

from memadapt_core import JSON, AsyncMemory, Memory, MemoryRecord, ScopeIds, ValidationError

from ._engine import engine_views
from ._framework import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    validate_op_namespace,
)
from ._store_codec import (
    NamespaceScope,
    hit_item,
    item_external_id,
    matches,
    namespace_of,
    put_input,
    record_item,
    search_filters,
    search_item,
)

__all__ = ["DEFAULT_AGENT_ID", "MemadaptStore"]

DEFAULT_AGENT_ID = "langgraph"
_PAGE = 100


def _namespaces(records: Iterable[MemoryRecord], op: ListNamespacesOp) -> list[tuple[str, ...]]:
    found = {ns for ns in map(namespace_of, records) if matches(ns, op.match_conditions or ())}
    if op.max_depth is not None:
        found = {ns[: op.max_depth] for ns in found}
    return sorted(found)[op.offset : op.offset + op.limit]


def _leading_prefix(op: ListNamespacesOp) -> tuple[str, ...]:
    """The labels every listed namespace must start with (a prefix condition up to its first wildcard)."""
    for cond in op.match_conditions or ():
        if cond.match_type == "prefix":
            labels = list(cond.path)
            return tuple(labels[: labels.index("*")] if "*" in labels else labels)
    return ()


class MemadaptStore(BaseStore):
    """Items live as ``fact`` records of one engine, so agents built on other frameworks can recall them.

    Namespaces map onto scope: every item is in ``agent_id``'s scope (default ``"langgraph"``); with
    ``user_id_position=i`` the namespace's label at index ``i`` is also the record's ``user_id`` (langmem's
    ``("memories", "{langgraph_user_id}")`` wants ``1``), so a user's items are visible to a retriever or an
    agent scoped to that user. The text embedded for an item is the value at ``fields`` (LangGraph path
    syntax; ``"$"``, the default, is the whole value as JSON) or at a put's ``index``; an item put with
    ``index=False`` is found by ``get`` and filter searches, not by query searches. A query search is the
    engine's hybrid search with no relevance floor (``score`` = its fused score); filters take ``$eq $ne $gt
    $gte $lt $lte`` and nested dicts on value fields (range operators compare numbers); ``offset + limit`` of a
    query search is at most the engine's ``max_limit``. TTL is not supported.
    """

    supports_ttl = False

    def __init__(
        self,
        memory: Memory | AsyncMemory,
        *,
        agent_id: str = DEFAULT_AGENT_ID,
        user_id_position: int | None = None,
        fields: Sequence[str] = ("$",),
    ) -> None:
        if user_id_position is not None and user_id_position < 0:
            field = "user_id_position"
            raise ValidationError(field, f"must be a label index from the start (>= 0), not {user_id_position}")
        self._sync, self._async = engine_views(memory)
        self._scope = NamespaceScope(agent_id, user_id_position)
        self._fields = tuple(fields)

    # ---- sync ---------------------------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        results: list[Result] = []
        for op in ops:
            validate_op_namespace(op)
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, PutOp):
                self._put(op)
                results.append(None)
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                msg = f"unknown operation type: {type(op).__name__}"
                raise TypeError(msg)
        return results

    def _record_id(self, namespace: tuple[str, ...], key: str) -> str:
        return self._sync.record_id(item_external_id(namespace, key), **self._scope(namespace))

    def _get(self, op: GetOp) -> Item | None:
        record = self._sync.get(self._record_id(op.namespace, op.key), **self._scope(op.namespace))
        return None if record is None else record_item(record)

    def _put(self, op: PutOp) -> None:
        if op.value is None:
            self._sync.delete(self._record_id(op.namespace, op.key))
        else:
            item = put_input(op.namespace, op.key, op.value, op.index, self._fields)
            self._sync.add(item, kind="fact", on_conflict="replace", **self._scope(op.namespace))

    def _search(self, op: SearchOp) -> list[SearchItem]:
        scope = self._scope(op.namespace_prefix)
        if op.query:
            flt = search_filters(op.namespace_prefix, op.filter, indexed_only=True)
            hits = self._sync.search(
                op.query, limit=op.offset + op.limit, kinds=["fact"], threshold=0.0, filters=flt, **scope
            )
            return [hit_item(hit) for hit in hits[op.offset :]]
        flt = search_filters(op.namespace_prefix, op.filter, indexed_only=False)
        records = self._items(scope, flt, op.offset + op.limit)
        return [search_item(r) for r in records[op.offset : op.offset + op.limit]]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        # The engine has no "distinct values" query: page through the items under the leading prefix.
        flt = search_filters(_leading_prefix(op), None, indexed_only=False)
        return _namespaces(self._items(self._scope(()), flt, None), op)

    def _items(self, scope: ScopeIds, flt: dict[str, JSON], want: int | None) -> list[MemoryRecord]:
        """The first ``want`` item records (None: all), oldest first."""
        records = self._sync.iter_records(kinds=["fact"], filters=flt, page_size=_PAGE, **scope)
        return list(records if want is None else islice(records, max(want, 0)))

    # ---- async --------------------------------------------------------------------------------------------

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        results: list[Result] = []
        for op in ops:
            validate_op_namespace(op)
            if isinstance(op, GetOp):
                results.append(await self._aget(op))
            elif isinstance(op, PutOp):
                await self._aput(op)
                results.append(None)
            elif isinstance(op, SearchOp):
                results.append(await self._asearch(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(await self._alist_namespaces(op))
            else:
                msg = f"unknown operation type: {type(op).__name__}"
                raise TypeError(msg)
        return results

    async def _aget(self, op: GetOp) -> Item | None:
        record = await self._async.get(self._record_id(op.namespace, op.key), **self._scope(op.namespace))
        return None if record is None else record_item(record)

    async def _aput(self, op: PutOp) -> None:
        if op.value is None:
            await self._async.delete(self._record_id(op.namespace, op.key))
        else:
            item = put_input(op.namespace, op.key, op.value, op.index, self._fields)
            await self._async.add(item, kind="fact", on_conflict="replace", **self._scope(op.namespace))

    async def _asearch(self, op: SearchOp) -> list[SearchItem]:
        scope = self._scope(op.namespace_prefix)
        if op.query:
            flt = search_filters(op.namespace_prefix, op.filter, indexed_only=True)
            hits = await self._async.search(
                op.query, limit=op.offset + op.limit, kinds=["fact"], threshold=0.0, filters=flt, **scope
            )
            return [hit_item(hit) for hit in hits[op.offset :]]
        flt = search_filters(op.namespace_prefix, op.filter, indexed_only=False)
        records = await self._aitems(scope, flt, op.offset + op.limit)
        return [search_item(r) for r in records[op.offset : op.offset + op.limit]]

    async def _alist_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        # The engine has no "distinct values" query: page through the items under the leading prefix.
        flt = search_filters(_leading_prefix(op), None, indexed_only=False)
        return _namespaces(await self._aitems(self._scope(()), flt, None), op)

    async def _aitems(self, scope: ScopeIds, flt: dict[str, JSON], want: int | None) -> list[MemoryRecord]:
        """The first ``want`` item records (None: all), oldest first."""
        records: list[MemoryRecord] = []
        if want is not None and want <= 0:
            return records
        async for record in self._async.iter_records(kinds=["fact"], filters=flt, page_size=_PAGE, **scope):
            records.append(record)
            if len(records) == want:
                break
        return records
