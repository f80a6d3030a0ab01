"""Every record of a scope, page after page: the loop of ``iter_records``, over whichever twin's ``list`` (the
engine's, or a ``RemoteMemory``'s), written once."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Generator

from memadapt_core.models import MemoryRecord, Page

__all__ = ["arecords", "records"]


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
