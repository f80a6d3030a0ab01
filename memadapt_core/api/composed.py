"""The calls made of other calls, written once for every door (the engine's twins and the client's): the loop of
``iter_records`` over a door's ``list`` pages, and the queries of ``search_many`` and the merge of their hits."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Generator, Sequence

from memadapt_core.errors import ValidationError
from memadapt_core.models import MemoryRecord, Page, SearchHit

__all__ = ["arecords", "merge_hits", "records", "usable_queries"]


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
