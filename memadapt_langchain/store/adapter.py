"""``MemadaptStore``: LangGraph's long-term ``BaseStore`` on the memadapt engine."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from typing import TypeVar

from memadapt_core import JSON, MemoryRecord, Scope, ScopeIds, SearchHit, ValidationError
from memadapt_core.api import AsyncMemoryAPI, MemoryAPI
from memadapt_langchain._engine import engine_views
from memadapt_langchain._framework import (
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

from ._codec import (
    VALUE_PATH,
    NamespaceScope,
    PutInput,
    item_external_id,
    item_of,
    matches,
    namespace_of,
    part_external_ids,
    prefix_filter,
    put_input,
    stored_value,
)
from ._filter import check_filter, pushdown, value_matches

__all__ = ["DEFAULT_AGENT_ID", "MemadaptStore"]

DEFAULT_AGENT_ID = "langgraph"
_PAGE = 100
_FIRST_FETCH = 20  # hits a filtered query search asks for at least, before it widens (x4) for want of matches
T = TypeVar("T")


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


def _pages(items: Iterator[T], size: int) -> Iterator[list[T]]:
    page: list[T] = []
    for item in items:
        page.append(item)
        if len(page) == size:
            yield page
            page = []
    if page:
        yield page


async def _apages(items: AsyncIterator[T], size: int) -> AsyncIterator[list[T]]:
    page: list[T] = []
    async for item in items:
        page.append(item)
        if len(page) == size:
            yield page
            page = []
    if page:
        yield page


def _plain(item: SearchItem) -> Item:
    return Item(
        value=item.value, key=item.key, namespace=item.namespace, created_at=item.created_at, updated_at=item.updated_at
    )


def _checked(ops: Iterable[Op]) -> list[Op]:
    """Every operation validated before any runs, so a bad one late in a batch writes nothing."""
    checked = list(ops)
    for op in checked:
        validate_op_namespace(op)
        if isinstance(op, SearchOp):
            check_filter(op.filter)
        elif not isinstance(op, GetOp | PutOp | ListNamespacesOp):
            msg = f"unknown operation type: {type(op).__name__}"
            raise TypeError(msg)
    return checked


def _last_puts(ops: Sequence[Op]) -> list[PutOp]:
    """A batch's puts, the last to each place winning (as in LangGraph's stores)."""
    return list({(op.namespace, op.key): op for op in ops if isinstance(op, PutOp)}.values())


class MemadaptStore(BaseStore):
    """Items live as ``fact`` records of one engine, so agents built on other frameworks can recall them.

    Namespaces map onto scope: every item is in ``agent_id``'s scope (default ``"langgraph"``), and the
    namespace's label at index ``user_id_position`` (default ``1``: LangGraph's and langmem's
    ``("memories", <user id>)``) is also the record's ``user_id``, so a user's items are found by a retriever, an
    AutoGen memory or an AgentScope service scoped to that user (docs/adapters.md); ``0`` suits
    ``(<user id>, "memories")``, ``None`` keeps items out of every user's scope. The text embedded for an item is
    its strings, one per line (``fields=None``, the default), or the value at ``fields`` (LangGraph path syntax;
    ``["$"]`` is the whole value as JSON, InMemoryStore's default) or at a put's ``index``; an item put with
    ``index=False`` is found by ``get`` and filter searches, not by query searches (as in PostgresStore). A query
    search is the engine's hybrid search with no relevance floor (``score`` = its fused score) over at most the
    engine's ``max_limit`` best hits. Filters behave as LangGraph's (``_filter`` says exactly how), evaluated
    in Python on candidates the engine pre-selects by namespace (and by plain string equalities). A batch answers
    its reads first and then applies its puts, the last to each place winning, as LangGraph's stores do. Values of
    any size are kept (those metadata cannot hold as parts: records of the item's own user and agent in the session
    ``"langgraph.values"``, so erasing the user erases them). Unranked results come oldest update first. TTL is
    not supported.
    """

    supports_ttl = False

    def __init__(
        self,
        memory: MemoryAPI | AsyncMemoryAPI,
        *,
        agent_id: str = DEFAULT_AGENT_ID,
        user_id_position: int | None = 1,
        fields: Sequence[str] | None = None,
    ) -> None:
        if user_id_position is not None and user_id_position < 0:
            field = "user_id_position"
            raise ValidationError(field, f"must be a label index from the start (>= 0), not {user_id_position}")
        self._sync, self._async = engine_views(memory)
        Scope.of(agent_id=agent_id)  # a missing or malformed agent id fails here, not at the first put
        self._scope = NamespaceScope(agent_id, user_id_position)
        self._fields = None if fields is None else tuple(fields)

    # ---- shared, no I/O -----------------------------------------------------------------------------------

    def _record_id(self, namespace: tuple[str, ...], key: str) -> str:
        return self._sync.record_id(item_external_id(namespace, key), **self._scope(namespace))

    def _part_ids(self, records: Iterable[MemoryRecord | None]) -> dict[str, list[str]]:
        """The record ids of the parts of each record's value (only records whose value is in parts)."""
        return {
            r.id: [self._sync.record_id(ext, **self._scope.parts(r)) for ext in exts]
            for r in records
            if r is not None and (exts := part_external_ids(r))
        }

    @staticmethod
    def _items(
        records: Sequence[MemoryRecord], parts: dict[str, list[str]], found: dict[str, MemoryRecord]
    ) -> list[SearchItem]:
        values = [stored_value(r, [found[i] for i in parts.get(r.id, []) if i in found]) for r in records]
        return [item_of(r, v) for r, v in zip(records, values, strict=True)]

    def _prepare(self, op: PutOp) -> PutInput | None:
        if op.value is None:
            return None
        max_chars = self._sync.settings.max_text_chars
        return put_input(op.namespace, op.key, op.value, op.index, self._fields, max_chars)

    def _fetch(self, op: SearchOp, fetched: int | None, got: int, matched: int) -> int | None:
        """How many hits a query search asks for next (None: it has what it can get)."""
        want, most = op.offset + op.limit, self._sync.settings.max_limit
        if fetched is None:
            return min(want if not op.filter else max(2 * want, _FIRST_FETCH), most)
        if matched >= want or got < fetched or fetched >= most:
            return None
        return min(fetched * 4, most)

    # ---- sync ---------------------------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        checked = _checked(ops)
        prepared = [(op, self._prepare(op)) for op in _last_puts(checked)]
        results: list[Result] = [None if isinstance(op, PutOp) else self._read(op) for op in checked]
        for op, inp in prepared:
            self._put(op, inp)
        return results

    def _read(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            record = self._sync.get(self._record_id(op.namespace, op.key), **self._scope(op.namespace))
            return None if record is None else _plain(self._load([record])[0])
        if isinstance(op, SearchOp):
            return self._search(op)
        assert isinstance(op, ListNamespacesOp)
        # The engine has no "distinct values" query: page through the items under the leading prefix.
        flt = prefix_filter(_leading_prefix(op), indexed_only=False)
        records = self._sync.iter_records(kinds=["fact"], filters=flt, page_size=_PAGE, **self._scope(()))
        return _namespaces(records, op)

    def _load(self, records: Sequence[MemoryRecord]) -> list[SearchItem]:
        parts = self._part_ids(records)
        wanted = [i for ids in parts.values() for i in ids]
        found = {p.id: p for p in self._sync.get_many(wanted, **self._scope.all_parts)} if wanted else {}
        return self._items(records, parts, found)

    def _put(self, op: PutOp, inp: PutInput | None) -> None:
        scope, rid = self._scope(op.namespace), self._record_id(op.namespace, op.key)
        stale = self._part_ids([self._sync.get(rid, **scope)]).get(rid, [])
        if inp is None:
            self._sync.delete(rid, **scope)
        else:
            if inp.parts:
                self._sync.add(inp.parts, kind="fact", on_conflict="replace", **self._scope.parts(scope))
            self._sync.add(inp.item, kind="fact", on_conflict="replace", **scope)
            kept = {self._sync.record_id(ext, **self._scope.parts(scope)) for ext in inp.part_ids}
            stale = [i for i in stale if i not in kept]
        if stale:
            self._sync.delete_many(stale)

    def _filters(self, op: SearchOp, scope: ScopeIds) -> dict[str, JSON]:
        """The namespace prefix, and the filter's string equalities when no item in reach keeps its value in parts
        (the engine cannot see into those)."""
        flt = prefix_filter(op.namespace_prefix, indexed_only=bool(op.query))
        extra = pushdown(op.filter, VALUE_PATH)
        if extra and not self._sync.count(kinds=["fact"], filters={**flt, "langgraph.blob": 1}, **scope):
            flt.update(extra)
        return flt

    def _search(self, op: SearchOp) -> list[SearchItem]:
        scope, want = self._scope(op.namespace_prefix), op.offset + op.limit
        if want <= 0:
            return []
        flt, found = self._filters(op, scope), list[SearchItem]()
        if op.query:
            fetched, got = None, 0
            while (n := self._fetch(op, fetched, got, len(found))) is not None:
                hits = self._sync.search(op.query, limit=n, kinds=["fact"], threshold=0.0, filters=flt, **scope)
                found = self._matching(op, hits)
                fetched, got = n, len(hits)
            return found[op.offset : want]
        records = self._sync.iter_records(kinds=["fact"], filters=flt, page_size=_PAGE, **scope)
        for page in _pages(records, _PAGE):
            found += [item for item in self._load(page) if value_matches(item.value, op.filter)]
            if len(found) >= want:
                break
        return found[op.offset : want]

    def _matching(self, op: SearchOp, hits: list[SearchHit]) -> list[SearchItem]:
        items = self._load([hit.record for hit in hits])
        return [
            item_of(hit.record, item.value, hit)
            for hit, item in zip(hits, items, strict=True)
            if value_matches(item.value, op.filter)
        ]

    # ---- async --------------------------------------------------------------------------------------------

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        checked = _checked(ops)
        prepared = [(op, self._prepare(op)) for op in _last_puts(checked)]
        results: list[Result] = [None if isinstance(op, PutOp) else await self._aread(op) for op in checked]
        for op, inp in prepared:
            await self._aput(op, inp)
        return results

    async def _aread(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            record = await self._async.get(self._record_id(op.namespace, op.key), **self._scope(op.namespace))
            return None if record is None else _plain((await self._aload([record]))[0])
        if isinstance(op, SearchOp):
            return await self._asearch(op)
        assert isinstance(op, ListNamespacesOp)
        flt = prefix_filter(_leading_prefix(op), indexed_only=False)
        records = self._async.iter_records(kinds=["fact"], filters=flt, page_size=_PAGE, **self._scope(()))
        return _namespaces([r async for r in records], op)

    async def _aload(self, records: Sequence[MemoryRecord]) -> list[SearchItem]:
        parts = self._part_ids(records)
        wanted = [i for ids in parts.values() for i in ids]
        found = {p.id: p for p in await self._async.get_many(wanted, **self._scope.all_parts)} if wanted else {}
        return self._items(records, parts, found)

    async def _aput(self, op: PutOp, inp: PutInput | None) -> None:
        scope, rid = self._scope(op.namespace), self._record_id(op.namespace, op.key)
        stale = self._part_ids([await self._async.get(rid, **scope)]).get(rid, [])
        if inp is None:
            await self._async.delete(rid, **scope)
        else:
            if inp.parts:
                await self._async.add(inp.parts, kind="fact", on_conflict="replace", **self._scope.parts(scope))
            await self._async.add(inp.item, kind="fact", on_conflict="replace", **scope)
            kept = {self._sync.record_id(ext, **self._scope.parts(scope)) for ext in inp.part_ids}
            stale = [i for i in stale if i not in kept]
        if stale:
            await self._async.delete_many(stale)

    async def _afilters(self, op: SearchOp, scope: ScopeIds) -> dict[str, JSON]:
        flt = prefix_filter(op.namespace_prefix, indexed_only=bool(op.query))
        extra = pushdown(op.filter, VALUE_PATH)
        if extra and not await self._async.count(kinds=["fact"], filters={**flt, "langgraph.blob": 1}, **scope):
            flt.update(extra)
        return flt

    async def _asearch(self, op: SearchOp) -> list[SearchItem]:
        scope, want = self._scope(op.namespace_prefix), op.offset + op.limit
        if want <= 0:
            return []
        flt, found = await self._afilters(op, scope), list[SearchItem]()
        if op.query:
            fetched, got = None, 0
            while (n := self._fetch(op, fetched, got, len(found))) is not None:
                hits = await self._async.search(op.query, limit=n, kinds=["fact"], threshold=0.0, filters=flt, **scope)
                found = await self._amatching(op, hits)
                fetched, got = n, len(hits)
            return found[op.offset : want]
        records = self._async.iter_records(kinds=["fact"], filters=flt, page_size=_PAGE, **scope)
        async for page in _apages(records, _PAGE):
            found += [item for item in await self._aload(page) if value_matches(item.value, op.filter)]
            if len(found) >= want:
                break
        return found[op.offset : want]

    async def _amatching(self, op: SearchOp, hits: list[SearchHit]) -> list[SearchItem]:
        items = await self._aload([hit.record for hit in hits])
        return [
            item_of(hit.record, item.value, hit)
            for hit, item in zip(hits, items, strict=True)
            if value_matches(item.value, op.filter)
        ]
