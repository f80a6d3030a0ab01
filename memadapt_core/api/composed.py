"""The calls made of other calls, written once for every door (the engine's twins and the client's):
``search_many`` (its queries searched, their hits merged) and ``iter_records`` (a door's ``list`` pages, one after
another), as the mixins ``Composed`` and ``AsyncComposed`` over any door's ``search`` and ``list``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator, Sequence
from typing import TYPE_CHECKING, Any

from memadapt_core.errors import ValidationError
from memadapt_core.models import Kind, MemoryRecord, Page, SearchHit

if TYPE_CHECKING:
    from .async_api import AsyncMemoryAPI
    from .sync_api import MemoryAPI

__all__ = ["AsyncComposed", "Composed", "arecords", "merge_hits", "records", "usable_queries"]


class Composed:
    """``search_many`` and ``iter_records`` of a sync door, over its ``search`` and ``list``."""

    def search_many(
        self: MemoryAPI, queries: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, **options: Any,
    ) -> list[SearchHit]:  # fmt: skip
        """Several queries in one scope, merged: each record once, in query order then rank (blanks skipped)."""
        scope: dict[str, Any] = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id}
        return merge_hits([self.search(q, **scope, limit=limit, **options) for q in usable_queries(queries)])

    def iter_records(
        self: MemoryAPI, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, filters: dict[str, Any] | None = None, page_size: int = 500,
    ) -> Generator[MemoryRecord, None, None]:  # fmt: skip
        """Every record of a scope, oldest first, a page (at most ``max_limit``) at a time."""
        size = min(page_size, self.settings.max_limit)
        where: dict[str, Any] = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id, "kinds": kinds}
        yield from records(lambda cursor: self.list(**where, filters=filters, limit=size, cursor=cursor))


class AsyncComposed:
    """``search_many`` and ``iter_records`` of an async door: its queries searched together."""

    async def search_many(
        self: AsyncMemoryAPI, queries: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, **options: Any,
    ) -> list[SearchHit]:  # fmt: skip
        """Several queries in one scope, merged: each record once, in query order then rank (blanks skipped)."""
        scope: dict[str, Any] = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id}
        searches = [self.search(q, **scope, limit=limit, **options) for q in usable_queries(queries)]
        return merge_hits(await asyncio.gather(*searches))

    async def iter_records(
        self: AsyncMemoryAPI, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, kinds: Sequence[Kind] | None = None, filters: dict[str, Any] | None = None,
        page_size: int = 500,
    ) -> AsyncGenerator[MemoryRecord, None]:  # fmt: skip
        """Every record of a scope, oldest first, a page (at most ``max_limit``) at a time."""
        size = min(page_size, self.settings.max_limit)
        where: dict[str, Any] = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id, "kinds": kinds}
        async for record in arecords(lambda cursor: self.list(**where, filters=filters, limit=size, cursor=cursor)):
            yield record


def records(list_page: Callable[[str | None], Page]) -> Generator[MemoryRecord, None, None]:
    """The records of ``list_page(cursor)``, from the first page (cursor None) until a page has no next cursor."""
    cursor: str | None = None
    while True:
        page = list_page(cursor)
        yield from page.records
        if (cursor := page.next_cursor) is None:
            return


async def arecords(list_page: Callable[[str | None], Awaitable[Page]]) -> AsyncGenerator[MemoryRecord, None]:
    """``records`` over an async ``list_page``."""
    cursor: str | None = None
    while True:
        page = await list_page(cursor)
        for record in page.records:
            yield record
        if (cursor := page.next_cursor) is None:
            return


def usable_queries(queries: object) -> list[str]:
    """The queries of ``search_many``: a list of strings, blank ones left out (a lone string is one query)."""
    if isinstance(queries, str):
        queries = [queries]
    if not isinstance(queries, list | tuple):
        field = "queries"
        raise ValidationError(field, f"must be a list of strings, not {type(queries).__name__}")
    for n, q in enumerate(queries):
        if not isinstance(q, str):
            field = f"queries[{n}]"
            raise ValidationError(field, f"must be a string, not {type(q).__name__}")
    return [q for q in queries if q.strip()]


def merge_hits(per_query: Sequence[Sequence[SearchHit]]) -> list[SearchHit]:
    """Each record once, where it first appears (query order, then rank)."""
    merged: dict[str, SearchHit] = {}
    for hits in per_query:
        for hit in hits:
            merged.setdefault(hit.record.id, hit)
    return list(merged.values())
