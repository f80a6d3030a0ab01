"""``RemoteMemory`` / ``AsyncRemoteMemory``: the engine's calls against ``memadapt serve``, over httpx.

Same method names, keyword arguments and return models as ``Memory`` / ``AsyncMemory`` for what the HTTP API
offers (add, search, list, get, update, delete, delete_all, history, export), so code written for the engine runs
against the service. The twins share ``_RemoteBase``, which builds requests and reads responses without I/O;
HTTP errors come back as the engine's errors (422 -> ``ValidationError`` naming the field, 503 ->
``StoreUnavailableError``; a refused token is a ``ConfigurationError``). The token decides the user: a
``user_id`` given must be the token's.
"""

from __future__ import annotations

import asyncio
import builtins
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal
from urllib.parse import quote

import httpx

from .errors import (
    ConfigurationError,
    MemadaptError,
    StoreError,
    StoreFullError,
    StoreUnavailableError,
    ValidationError,
)
from .models import HistoryEvent, Kind, MemoryRecord, Page, SearchHit

__all__ = ["AsyncRemoteMemory", "RemoteMemory"]

Moment = datetime | str | None


@dataclass
class _Call:
    """One HTTP request to make; ``missing`` is what a 404 means (None: an error)."""

    method: str
    path: str
    json: dict[str, Any] | None = None
    params: dict[str, Any] = field(default_factory=dict)
    missing: object = None
    missing_is_value: bool = False


def _moment(value: Moment) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else value


def _scope(user_id: str | None, agent_id: str | None, session_id: str | None) -> dict[str, Any]:
    given = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id}
    return {k: v for k, v in given.items() if v is not None}


def _error(response: httpx.Response) -> MemadaptError:
    try:
        body = response.json()
    except ValueError:
        body = {}
    message = body.get("message") if isinstance(body, dict) else None
    message = message or f"HTTP {response.status_code}: {response.text[:200]}"
    status = response.status_code
    if status in (404, 422):
        name = body.get("field") or "id"
        return ValidationError(name, message.removeprefix(f"{name}: "))
    if status in (401, 403):
        return ConfigurationError(f"the server refused this token: {message}")
    if status == 413:
        return ValidationError("body", message)
    if status == 507:
        return StoreFullError(message)
    if status == 503:
        return StoreUnavailableError(message)
    return StoreError(message)


class _RemoteBase:
    """Requests and responses, no I/O."""

    def __init__(self, url: str, *, token: str, timeout: float = 30.0) -> None:
        self._url = url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {token}"}
        self._timeout = timeout

    @staticmethod
    def _add(
        messages: Any, scope: dict[str, Any], kind: Kind, metadata: dict[str, Any] | None, observed_at: Moment,
        on_conflict: str,
    ) -> _Call:  # fmt: skip
        body: dict[str, Any] = {"messages": messages, "kind": kind, "on_conflict": on_conflict, **scope}
        if metadata is not None:
            body["metadata"] = metadata
        if observed_at is not None:
            body["observed_at"] = _moment(observed_at)
        return _Call("POST", "/v1/memories", json=body)

    @staticmethod
    def _search(query: str, scope: dict[str, Any], options: dict[str, Any]) -> _Call:
        body: dict[str, Any] = {"query": query, **scope}
        for key, value in options.items():
            if value is None or (key == "include_superseded" and value is False):
                continue
            if key == "time_range":
                value = [_moment(value[0]), _moment(value[1])]
            elif key in ("now", "as_of"):
                value = _moment(value)
            elif key == "kinds":
                value = list(value)
            body[key] = value
        return _Call("POST", "/v1/search", json=body)

    @staticmethod
    def _list(
        scope: dict[str, Any], kinds: Sequence[Kind] | None, limit: int, cursor: str | None,
        filters: dict[str, Any] | None, include_archived: bool,
    ) -> _Call:  # fmt: skip
        params: dict[str, Any] = {**scope, "limit": limit}
        if kinds is not None:
            params["kinds"] = list(kinds)
        if cursor is not None:
            params["cursor"] = cursor
        if filters is not None:
            params["filters"] = json.dumps(filters)
        if include_archived:
            params["include_archived"] = "true"
        return _Call("GET", "/v1/memories", params=params)

    @staticmethod
    def _by_id(method: str, id: str, scope: dict[str, Any], suffix: str = "", **kw: Any) -> _Call:
        return _Call(method, f"/v1/memories/{quote(id, safe='')}{suffix}", params=scope, **kw)

    @staticmethod
    def _read(call: _Call, response: httpx.Response) -> Any:
        if response.status_code == 404 and call.missing_is_value:
            return call.missing
        if response.is_error:
            raise _error(response)
        return response.json()

    @staticmethod
    def _transport_error(exc: httpx.HTTPError) -> StoreUnavailableError:
        return StoreUnavailableError(f"the memadapt server cannot be reached: {exc}")


class AsyncRemoteMemory(_RemoteBase):
    """``AsyncMemory``'s calls against a ``memadapt serve`` at ``url`` (e.g. ``http://127.0.0.1:8765``)."""

    def __init__(
        self, url: str, *, token: str, timeout: float = 30.0, transport: httpx.AsyncBaseTransport | None = None
    ) -> None:
        super().__init__(url, token=token, timeout=timeout)
        self._client = httpx.AsyncClient(
            base_url=self._url, headers=self._headers, timeout=timeout, transport=transport
        )

    async def _send(self, call: _Call) -> Any:
        try:
            response = await self._client.request(call.method, call.path, json=call.json, params=call.params)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        return self._read(call, response)

    async def __aenter__(self) -> AsyncRemoteMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._client.aclose()

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

    async def export(
        self, path: str | Path, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, kinds: Sequence[Kind] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> int:  # fmt: skip
        """Write the scope's records as JSON Lines at ``path``; returns how many. ``progress`` is called with the
        number of records each received chunk completed, as the engine calls it with each page's."""
        params = _scope(user_id, agent_id, session_id) | ({"kinds": list(kinds)} if kinds is not None else {})
        try:
            async with self._client.stream("GET", "/v1/export", params=params) as response:
                if response.is_error:
                    await response.aread()
                    raise _error(response)
                lines = 0
                out = await asyncio.to_thread(open, path, "wb")  # file I/O off the event loop
                try:
                    async for chunk in response.aiter_bytes():
                        await asyncio.to_thread(out.write, chunk)
                        lines += _counted(chunk, progress)
                finally:
                    await asyncio.to_thread(out.close)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        return lines


def _counted(chunk: bytes, progress: Callable[[int], None] | None) -> int:
    """The records a chunk of an export completes (its line ends), reported to ``progress`` when there are any."""
    n = chunk.count(b"\n")
    if n and progress is not None:
        progress(n)
    return n


class RemoteMemory(_RemoteBase):
    """``Memory``'s calls against a ``memadapt serve`` at ``url``: the sync twin of ``AsyncRemoteMemory``."""

    def __init__(
        self, url: str, *, token: str, timeout: float = 30.0, transport: httpx.BaseTransport | None = None
    ) -> None:
        super().__init__(url, token=token, timeout=timeout)
        self._client = httpx.Client(base_url=self._url, headers=self._headers, timeout=timeout, transport=transport)

    def _send(self, call: _Call) -> Any:
        try:
            response = self._client.request(call.method, call.path, json=call.json, params=call.params)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        return self._read(call, response)

    def __enter__(self) -> RemoteMemory:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

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

    def export(
        self, path: str | Path, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, kinds: Sequence[Kind] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> int:  # fmt: skip
        """Write the scope's records as JSON Lines at ``path``; returns how many. ``progress`` is called with the
        number of records each received chunk completed, as the engine calls it with each page's."""
        params = _scope(user_id, agent_id, session_id) | ({"kinds": list(kinds)} if kinds is not None else {})
        try:
            with self._client.stream("GET", "/v1/export", params=params) as response:
                if response.is_error:
                    response.read()
                    raise _error(response)
                lines = 0
                with open(path, "wb") as out:
                    for chunk in response.iter_bytes():
                        out.write(chunk)
                        lines += _counted(chunk, progress)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        return lines
