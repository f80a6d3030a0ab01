"""``RemoteMemory`` / ``AsyncRemoteMemory``: the engine's calls against ``memadapt serve``, over httpx.

Same method names, keyword arguments and return models as ``Memory`` / ``AsyncMemory`` for what the HTTP API
offers (add, search, list, get, update, delete, delete_all, history, export, answer), for what the adapters call
(the many-id reads and deletes, ``iter_records``, ``count``, ``vectors``, ``profile``, ``search_many``,
``as_sync`` / ``as_async``, ``track``, ``flush``, ``format_context``) and, from ``remote_tasks``, task memory and
``recent``, so every adapter takes a client where it takes an engine and code written for the engine runs against
the service. The twins share ``RemoteBase`` (``remote_base``), which builds requests and reads responses without
I/O; HTTP errors come back as the engine's errors (422 -> ``ValidationError`` naming the field, 503 ->
``StoreUnavailableError``; a refused token is a ``ConfigurationError``). The token decides the user: a ``user_id``
given must be the token's.

Local-only (``LOCAL_ONLY``), left out rather than faked: ``open`` builds an engine over a store in this process;
``consolidate``, ``optimize`` and ``stats`` are the store owner's upkeep and figures, across every tenant;
``import_``, ``import_reme`` and ``export_reme`` write or read a whole store or an agent's lessons from files on
the server's machine (the operator's ``/vector_store`` route does the latter); ``answer_stream`` has no streamed
route yet (``answer`` gives the whole reply). Over 400 lines: two hand-written twins of the same calls.
"""

from __future__ import annotations

import asyncio
import builtins
import itertools
import time
from collections.abc import AsyncGenerator, Callable, Generator, Sequence
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO, Literal

import httpx
import numpy as np
import numpy.typing as npt

from .engine import paging, reads
from .errors import ValidationError
from .models import Answer, HistoryEvent, Kind, MemoryRecord, Page, SearchHit
from .profile import UserProfile
from .remote_base import RemoteBase, _Call, _Link
from .remote_base import scope_of as _scope
from .remote_tasks import AsyncRemoteTasks, RemoteTasks
from .validation import parse_path

__all__ = ["LOCAL_ONLY", "AsyncRemoteMemory", "RemoteEmbedder", "RemoteMemory"]

# The engine's public calls a client does not have (see the module docstring for why each).
LOCAL_ONLY = frozenset(
    {"answer_stream", "consolidate", "export_reme", "import_", "import_reme", "open", "optimize", "stats"}
)


class RemoteEmbedder:
    """The server's embedder, for a query (what the LangChain adapters' MMR re-ranking embeds)."""

    def __init__(self, sync: RemoteMemory, asynchronous: AsyncRemoteMemory) -> None:
        self._sync, self._async = sync, asynchronous

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        return np.asarray(self._sync._send(RemoteBase._embed(text))["vector"], dtype=np.float32)

    async def aembed_query(self, text: str) -> npt.NDArray[np.float32]:
        return np.asarray((await self._async._send(RemoteBase._embed(text)))["vector"], dtype=np.float32)


class AsyncRemoteMemory(AsyncRemoteTasks, RemoteBase):
    """``AsyncMemory``'s calls against a ``memadapt serve`` at ``url`` (e.g. ``http://127.0.0.1:8765``).

    Its connections are kept alive in the event loop that opened them: use it from one loop (sync code hands the
    adapters a ``RemoteMemory``, whose async view keeps no connection between calls)."""

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
        self._twin: RemoteMemory | None = None

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

    def as_sync(self) -> RemoteMemory:
        """A sync client of the same server, token and background writes (closing it closes only its connections)."""
        if self._twin is None:
            self._twin = RemoteMemory(self._url, token="", timeout=self._timeout, _link=self._link)
            self._twin._twin = self
        return self._twin

    def as_async(self) -> AsyncRemoteMemory:
        """This client itself: adapters call ``as_async()`` on whichever twin they were handed."""
        return self

    @property
    def embedder(self) -> RemoteEmbedder:
        return RemoteEmbedder(self.as_sync(), self)

    async def __aenter__(self) -> AsyncRemoteMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def flush(self) -> None:
        """Wait for the background writes adapters handed over (``track``); the server made the others durable."""
        await self._link.background.drain()

    async def close(self) -> None:
        """Wait for tracked background writes, then close this client's connections (the server stays up)."""
        await self._link.background.drain()
        client, self._client = self._client, None
        if client is not None and self._loop is asyncio.get_running_loop():
            await client.aclose()
        if self._twin is not None:
            self._twin._client.close()  # the sync view's idle connections (closing sockets does not block)

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
        limit: int = 5, kinds: Sequence[Kind] | None = None, threshold: float | None = None,
        time_range: tuple[datetime | str | None, datetime | str | None] | None = None, now: datetime | None = None,
        filters: dict[str, Any] | None = None, include_superseded: bool = False, as_of: datetime | None = None,
        include_archived: bool = False,
    ) -> builtins.list[SearchHit]:  # fmt: skip
        options = {
            "limit": limit, "kinds": kinds, "threshold": threshold, "time_range": time_range, "now": now,
            "filters": filters, "include_superseded": include_superseded, "as_of": as_of,
            "include_archived": include_archived,
        }  # fmt: skip
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
        searches = [self.search(q, **scope, limit=limit, **options) for q in reads.usable_queries(queries)]
        return reads.merge_hits(await asyncio.gather(*searches))

    async def iter_records(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, filters: dict[str, Any] | None = None, page_size: int = 500,
    ) -> AsyncGenerator[MemoryRecord, None]:  # fmt: skip
        """Every record of a scope, oldest first, a page at a time."""
        size = min(page_size, self.settings.max_limit)
        where: dict[str, Any] = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id, "kinds": kinds}
        pages = paging.arecords(lambda cursor: self.list(**where, filters=filters, limit=size, cursor=cursor))
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
                out = await asyncio.to_thread(_open_export, target)  # file I/O off the event loop
                try:
                    async for chunk in response.aiter_bytes():
                        await asyncio.to_thread(out.write, chunk)
                        lines += _counted(chunk, progress)
                finally:
                    await asyncio.to_thread(out.close)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        return lines


def _open_export(path: Path) -> BinaryIO:
    try:
        return path.open("wb")
    except OSError as exc:
        field = "path"
        raise ValidationError(field, f"cannot write {path}: {exc}") from exc


def _counted(chunk: bytes, progress: Callable[[int], None] | None) -> int:
    """The records a chunk of an export completes (its line ends), reported to ``progress`` when there are any."""
    n = chunk.count(b"\n")
    if n and progress is not None:
        progress(n)
    return n


class RemoteMemory(RemoteTasks, RemoteBase):
    """``Memory``'s calls against a ``memadapt serve`` at ``url``: the sync twin of ``AsyncRemoteMemory``."""

    def __init__(
        self, url: str, *, token: str, timeout: float = 30.0, transport: httpx.BaseTransport | None = None,
        plugins: Sequence[object] = (), _link: _Link | None = None,
    ) -> None:  # fmt: skip
        super().__init__(url, token=token, timeout=timeout, plugins=plugins, _link=_link)
        self._client = httpx.Client(base_url=self._url, headers=self._headers, timeout=timeout, transport=transport)
        self._twin: AsyncRemoteMemory | None = None

    def _send(self, call: _Call) -> Any:
        for attempt in itertools.count():
            try:
                response = self._client.request(call.method, call.path, json=call.json, params=call.params)
            except httpx.HTTPError as exc:
                raise self._transport_error(exc) from exc
            if (wait := RemoteBase._busy_wait(response, attempt)) is None:
                return self._read(call, response)
            time.sleep(wait)
        raise AssertionError  # pragma: no cover - the loop returns or raises

    def as_sync(self) -> RemoteMemory:
        """This client itself: adapters call ``as_sync()`` on whichever twin they were handed."""
        return self

    def as_async(self) -> AsyncRemoteMemory:
        """An async client of the same server, token and background writes (closing it closes only its
        connections)."""
        if self._twin is None:
            self._twin = AsyncRemoteMemory(self._url, token="", timeout=self._timeout, _link=self._link)
            self._twin._twin = self
        return self._twin

    @property
    def embedder(self) -> RemoteEmbedder:
        return RemoteEmbedder(self, self.as_async())

    def __enter__(self) -> RemoteMemory:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def flush(self) -> None:
        """Wait for the background writes adapters handed over (``track``); the server made the others durable."""
        self._link.background.drain_blocking()

    def close(self) -> None:
        """Wait for tracked background writes, then close this client's connections (the server stays up)."""
        self._link.background.drain_blocking()
        self._client.close()  # its async view keeps no connection between calls: nothing of it to close

    def add(
        self, messages: str | dict[str, Any] | Sequence[str | dict[str, Any]], *, user_id: str | None = None,
        agent_id: str | None = None, session_id: str | None = None, kind: Kind = "message",
        metadata: dict[str, Any] | None = None, observed_at: datetime | str | None = None,
        on_conflict: Literal["skip", "replace"] = "skip",
    ) -> builtins.list[MemoryRecord]:  # fmt: skip
        scope = _scope(user_id, agent_id, session_id)
        data = self._send(self._add(messages, scope, kind, metadata, observed_at, on_conflict))
        return [MemoryRecord.model_validate(r) for r in data["records"]]

    def search(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        limit: int = 5, kinds: Sequence[Kind] | None = None, threshold: float | None = None,
        time_range: tuple[datetime | str | None, datetime | str | None] | None = None, now: datetime | None = None,
        filters: dict[str, Any] | None = None, include_superseded: bool = False, as_of: datetime | None = None,
        include_archived: bool = False,
    ) -> builtins.list[SearchHit]:  # fmt: skip
        options = {
            "limit": limit, "kinds": kinds, "threshold": threshold, "time_range": time_range, "now": now,
            "filters": filters, "include_superseded": include_superseded, "as_of": as_of,
            "include_archived": include_archived,
        }  # fmt: skip
        data = self._send(self._search(query, _scope(user_id, agent_id, session_id), options))
        return [SearchHit.model_validate(h) for h in data["hits"]]

    def list(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, limit: int = 50, cursor: str | None = None,
        filters: dict[str, Any] | None = None, include_archived: bool = False,
    ) -> Page:  # fmt: skip
        call = self._list(_scope(user_id, agent_id, session_id), kinds, limit, cursor, filters, include_archived)
        return Page.model_validate(self._send(call))

    def get(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> MemoryRecord | None:
        call = self._by_id("GET", id, _scope(user_id, agent_id, session_id), missing=None, missing_is_value=True)
        data = self._send(call)
        return None if data is None else MemoryRecord.model_validate(data)

    def update(
        self, id: str, *, text: str | None = None, metadata: dict[str, Any] | None = None,
        user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
    ) -> MemoryRecord:  # fmt: skip
        body: dict[str, Any] = {**_scope(user_id, agent_id, session_id)}
        if text is not None:
            body["text"] = text
        if metadata is not None:
            body["metadata"] = metadata
        return MemoryRecord.model_validate(self._send(self._by_id("PATCH", id, {}, json=body)))

    def delete(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> bool:
        call = self._by_id("DELETE", id, _scope(user_id, agent_id, session_id), missing=None, missing_is_value=True)
        return self._send(call) is not None

    def delete_all(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> int:
        data = self._send(_Call("DELETE", "/v1/memories", params=_scope(user_id, agent_id, session_id)))
        return int(data["deleted"])

    def history(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> builtins.list[HistoryEvent]:
        data = self._send(self._by_id("GET", id, _scope(user_id, agent_id, session_id), "/history"))
        return [HistoryEvent.model_validate(e) for e in data["events"]]

    def answer(
        self, question: str, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, remember: bool = True, now: datetime | None = None,
    ) -> Answer:  # fmt: skip
        """The service's ``answer`` (its LLM): ``ConfigurationError`` when it was started without one."""
        call = self._answer(question, _scope(user_id, agent_id, session_id), limit, remember, now)
        return Answer.model_validate(self._send(call))

    def search_many(
        self, queries: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, **options: Any,
    ) -> builtins.list[SearchHit]:  # fmt: skip
        """Several queries in one scope, merged: each record once, in query order then rank (blanks skipped)."""
        scope: dict[str, Any] = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id}
        per_query = [self.search(q, **scope, limit=limit, **options) for q in reads.usable_queries(queries)]
        return reads.merge_hits(per_query)

    def iter_records(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, filters: dict[str, Any] | None = None, page_size: int = 500,
    ) -> Generator[MemoryRecord, None, None]:  # fmt: skip
        """Every record of a scope, oldest first, a page at a time."""
        size = min(page_size, self.settings.max_limit)
        where: dict[str, Any] = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id, "kinds": kinds}
        yield from paging.records(lambda cursor: self.list(**where, filters=filters, limit=size, cursor=cursor))

    def get_many(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> builtins.list[MemoryRecord]:  # fmt: skip
        data = self._send(self._ids("/v1/get", ids, _scope(user_id, agent_id, session_id)))
        return [MemoryRecord.model_validate(r) for r in data["records"]]

    def vectors(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> dict[str, builtins.list[float]]:  # fmt: skip
        data = self._send(self._ids("/v1/vectors", ids, _scope(user_id, agent_id, session_id)))
        return dict(data["vectors"])

    def query_vector(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> builtins.list[float]:
        data = self._send(self._embed(query, _scope(user_id, agent_id, session_id)))
        return [float(x) for x in data["vector"]]

    def count(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, filters: dict[str, Any] | None = None,
    ) -> int:  # fmt: skip
        return int((self._send(self._count(_scope(user_id, agent_id, session_id), kinds, filters)))["count"])

    def delete_many(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> int:  # fmt: skip
        data = self._send(self._ids("/v1/delete", ids, _scope(user_id, agent_id, session_id)))
        return int(data["deleted"])

    def profile(
        self, *, user_id: str | None = None, agent_id: str | None = None, as_of: datetime | str | None = None
    ) -> UserProfile:
        return UserProfile.model_validate(self._send(self._profile(user_id, agent_id, as_of)))

    def export(
        self, path: str | Path, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, kinds: Sequence[Kind] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> int:  # fmt: skip
        """Write the scope's records as JSON Lines at ``path``; returns how many. ``progress`` is called with the
        number of records each received chunk completed, as the engine calls it with each page's."""
        params = _scope(user_id, agent_id, session_id) | ({"kinds": list(kinds)} if kinds is not None else {})
        target = parse_path(path)
        try:
            with self._client.stream("GET", "/v1/export", params=params) as response:
                if response.is_error:
                    response.read()
                    raise self._export_error(response)
                lines = 0
                with _open_export(target) as out:
                    for chunk in response.iter_bytes():
                        out.write(chunk)
                        lines += _counted(chunk, progress)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        return lines
