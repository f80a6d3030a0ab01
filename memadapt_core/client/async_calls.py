"""``AsyncRemoteCalls``: the calls of ``AsyncRemoteMemory`` (``doors``) that are a request to ``memadapt serve``.

Each is one route (``RemoteBase`` builds the request and reads the answer without I/O), with the engine's names,
arguments and return models; the task-memory calls and ``recent`` come from ``AsyncRemoteTasks`` (``tasks``). Its
connections are kept alive in the event loop that opened them.
"""

from __future__ import annotations

import asyncio
import builtins
import itertools
from collections.abc import AsyncGenerator, Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, Unpack

import httpx

from memadapt_core.api import composed
from memadapt_core.api.options import SearchOptions
from memadapt_core.models import Answer, HistoryEvent, Kind, MemoryRecord, Page, SearchHit
from memadapt_core.profile import UserProfile
from memadapt_core.validation import parse_path

from .base import RemoteBase, _Call, _Link
from .base import scope_of as _scope
from .exports import counted, open_export
from .tasks import AsyncRemoteTasks

__all__ = ["AsyncRemoteCalls"]


class AsyncRemoteCalls(AsyncRemoteTasks):
    """``AsyncMemory``'s calls as requests: the I/O half of ``AsyncRemoteMemory``."""

    def __init__(
        self, url: str, *, token: str, timeout: float = 30.0, transport: httpx.AsyncBaseTransport | None = None,
        plugins: Sequence[object] = (), _link: _Link | None = None,
    ) -> None:  # fmt: skip
        super().__init__(url, token=token, timeout=timeout, plugins=plugins, _link=_link)
        self._transport = transport
        # A sync client's async view is driven by sync code, often one ``asyncio.run`` after another: a connection
        # kept alive would outlive its loop, so the view closes each one after its response.
        self._limits = httpx.Limits(max_keepalive_connections=0) if _link is not None else httpx.Limits()
        self._client: httpx.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _http(self) -> httpx.AsyncClient:
        """This loop's client: an httpx async client's connections belong to the loop that opened them, and an
        adapter may drive this view from one ``asyncio.run`` after another."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = httpx.AsyncClient(
                base_url=self._url, headers=self._headers, timeout=self._timeout, transport=self._transport,
                limits=self._limits,
            )  # fmt: skip
            self._loop = loop
        return self._client

    async def _send(self, call: _Call) -> Any:
        for attempt in itertools.count():
            try:
                response = await self._http().request(call.method, call.path, json=call.json, params=call.params)
            except httpx.HTTPError as exc:
                raise self._transport_error(exc) from exc
            if (wait := RemoteBase._busy_wait(response, attempt)) is None:
                return self._read(call, response)
            await asyncio.sleep(wait)
        raise AssertionError  # pragma: no cover - the loop returns or raises

    async def add(
        self, messages: str | dict[str, Any] | Sequence[str | dict[str, Any]], *, user_id: str | None = None,
        agent_id: str | None = None, session_id: str | None = None, kind: Kind = "message",
        metadata: dict[str, Any] | None = None, observed_at: datetime | str | None = None,
        on_conflict: Literal["skip", "replace"] = "skip",
    ) -> builtins.list[MemoryRecord]:  # fmt: skip
        scope = _scope(user_id, agent_id, session_id)
        data = await self._send(self._add(messages, scope, kind, metadata, observed_at, on_conflict))
        return [MemoryRecord.model_validate(r) for r in data["records"]]

    async def search(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        **options: Unpack[SearchOptions],
    ) -> builtins.list[SearchHit]:  # fmt: skip
        data = await self._send(self._search(query, _scope(user_id, agent_id, session_id), options))
        return [SearchHit.model_validate(h) for h in data["hits"]]

    async def list(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, limit: int = 50, cursor: str | None = None,
        filters: dict[str, Any] | None = None, include_archived: bool = False,
    ) -> Page:  # fmt: skip
        call = self._list(_scope(user_id, agent_id, session_id), kinds, limit, cursor, filters, include_archived)
        return Page.model_validate(await self._send(call))

    async def get(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> MemoryRecord | None:
        call = self._by_id("GET", id, _scope(user_id, agent_id, session_id), missing=None, missing_is_value=True)
        data = await self._send(call)
        return None if data is None else MemoryRecord.model_validate(data)

    async def update(
        self, id: str, *, text: str | None = None, metadata: dict[str, Any] | None = None,
        user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
    ) -> MemoryRecord:  # fmt: skip
        body: dict[str, Any] = {**_scope(user_id, agent_id, session_id)}
        if text is not None:
            body["text"] = text
        if metadata is not None:
            body["metadata"] = metadata
        return MemoryRecord.model_validate(await self._send(self._by_id("PATCH", id, {}, json=body)))

    async def delete(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> bool:
        call = self._by_id("DELETE", id, _scope(user_id, agent_id, session_id), missing=None, missing_is_value=True)
        return await self._send(call) is not None

    async def delete_all(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> int:
        data = await self._send(_Call("DELETE", "/v1/memories", params=_scope(user_id, agent_id, session_id)))
        return int(data["deleted"])

    async def history(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> builtins.list[HistoryEvent]:
        data = await self._send(self._by_id("GET", id, _scope(user_id, agent_id, session_id), "/history"))
        return [HistoryEvent.model_validate(e) for e in data["events"]]

    async def answer(
        self, question: str, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, remember: bool = True, now: datetime | None = None,
    ) -> Answer:  # fmt: skip
        """The service's ``answer`` (its LLM): ``ConfigurationError`` when it was started without one."""
        call = self._answer(question, _scope(user_id, agent_id, session_id), limit, remember, now)
        return Answer.model_validate(await self._send(call))

    async def search_many(
        self, queries: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, **options: Any,
    ) -> builtins.list[SearchHit]:  # fmt: skip
        """Several queries in one scope, merged: each record once, in query order then rank (blanks skipped)."""
        scope: dict[str, Any] = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id}
        searches = [self.search(q, **scope, limit=limit, **options) for q in composed.usable_queries(queries)]
        return composed.merge_hits(await asyncio.gather(*searches))

    async def iter_records(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, filters: dict[str, Any] | None = None, page_size: int = 500,
    ) -> AsyncGenerator[MemoryRecord, None]:  # fmt: skip
        """Every record of a scope, oldest first, a page at a time."""
        size = min(page_size, self.settings.max_limit)
        where: dict[str, Any] = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id, "kinds": kinds}
        pages = composed.arecords(lambda cursor: self.list(**where, filters=filters, limit=size, cursor=cursor))
        async for record in pages:
            yield record

    async def get_many(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> builtins.list[MemoryRecord]:  # fmt: skip
        data = await self._send(self._ids("/v1/get", ids, _scope(user_id, agent_id, session_id)))
        return [MemoryRecord.model_validate(r) for r in data["records"]]

    async def vectors(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> dict[str, builtins.list[float]]:  # fmt: skip
        data = await self._send(self._ids("/v1/vectors", ids, _scope(user_id, agent_id, session_id)))
        return dict(data["vectors"])

    async def query_vector(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> builtins.list[float]:
        data = await self._send(self._embed(query, _scope(user_id, agent_id, session_id)))
        return [float(x) for x in data["vector"]]

    async def count(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, filters: dict[str, Any] | None = None,
    ) -> int:  # fmt: skip
        return int((await self._send(self._count(_scope(user_id, agent_id, session_id), kinds, filters)))["count"])

    async def delete_many(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> int:  # fmt: skip
        data = await self._send(self._ids("/v1/delete", ids, _scope(user_id, agent_id, session_id)))
        return int(data["deleted"])

    async def profile(
        self, *, user_id: str | None = None, agent_id: str | None = None, as_of: datetime | str | None = None
    ) -> UserProfile:
        return UserProfile.model_validate(await self._send(self._profile(user_id, agent_id, as_of)))

    async def export(
        self, path: str | Path, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, kinds: Sequence[Kind] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> int:  # fmt: skip
        """Write the scope's records as JSON Lines at ``path``; returns how many. ``progress`` is called with the
        number of records each received chunk completed, as the engine calls it with each page's."""
        params = _scope(user_id, agent_id, session_id) | ({"kinds": list(kinds)} if kinds is not None else {})
        target = parse_path(path)
        try:
            async with self._http().stream("GET", "/v1/export", params=params) as response:
                if response.is_error:
                    await response.aread()
                    raise self._export_error(response)
                lines = 0
                out = await asyncio.to_thread(open_export, target)  # file I/O off the event loop
                try:
                    async for chunk in response.aiter_bytes():
                        await asyncio.to_thread(out.write, chunk)
                        lines += counted(chunk, progress)
                finally:
                    await asyncio.to_thread(out.close)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        return lines
