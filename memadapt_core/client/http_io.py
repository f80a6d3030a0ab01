"""The I/O of the client twins: ``AsyncRemoteIO`` and ``RemoteIO`` send a request (retrying while the server
says it is busy) and stream an export to a file (``search_many`` and ``iter_records`` are every door's:
``api.composed``). Written by hand as a pair, as httpcore writes its synchronization primitives: everything
else the client does is ``async_calls``, written once.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx

from memadapt_core.api.composed import AsyncComposed, Composed
from memadapt_core.models import Kind
from memadapt_core.validation import parse_path

from .async_calls import AsyncRemoteCalls
from .base import RemoteBase, _Call, _Link
from .base import scope_of as _scope
from .exports import counted, open_export
from .sync_calls import RemoteCalls

__all__ = ["AsyncRemoteIO", "RemoteIO"]


class AsyncRemoteIO(AsyncComposed, AsyncRemoteCalls):
    """The async client's I/O; its connections are kept alive in the event loop that opened them."""

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


class RemoteIO(Composed, RemoteCalls):
    """The sync client's I/O: the twin of ``AsyncRemoteIO``."""

    def __init__(
        self, url: str, *, token: str, timeout: float = 30.0, transport: httpx.BaseTransport | None = None,
        plugins: Sequence[object] = (), _link: _Link | None = None,
    ) -> None:  # fmt: skip
        super().__init__(url, token=token, timeout=timeout, plugins=plugins, _link=_link)
        self._client = httpx.Client(base_url=self._url, headers=self._headers, timeout=timeout, transport=transport)

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
                with open_export(target) as out:
                    for chunk in response.iter_bytes():
                        out.write(chunk)
                        lines += counted(chunk, progress)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        return lines
