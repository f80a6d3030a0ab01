"""``RemoteMemory`` / ``AsyncRemoteMemory``: the engine's calls against ``memadapt serve``, over httpx.

Same method names, keyword arguments and return models as ``Memory`` / ``AsyncMemory`` for what the HTTP API offers
(add, search, list, get, update, delete, delete_all, history, export, answer), for what the adapters call (the
many-id reads and deletes, ``iter_records``, ``count``, ``vectors``, ``profile``, ``search_many``, ``as_sync`` /
``as_async``, ``track``, ``flush``, ``format_context``), task memory and ``recent``, so every adapter takes a client
where it takes an engine and code written for the engine runs against the service. The twins share ``RemoteBase``
(``base``), which builds requests and reads responses without I/O; HTTP errors come back as the engine's errors (422
-> ``ValidationError`` naming the field, 503 -> ``StoreUnavailableError``; a refused token is a
``ConfigurationError``). The token decides the user: a ``user_id`` given must be the token's.

The store owner's calls (``LOCAL_ONLY``: ``open``, ``consolidate``, ``optimize``, ``stats``, the imports, the
ReMe export and ``answer_stream``) are declared and refused with a ``ConfigurationError`` saying why
(``local_only``), so each client implements the whole API (``memadapt_core.api``).

Here: the two doors, each over its calls (``async_calls``, written once; ``sync_calls``, generated) and its I/O
(``http_io``), with the views of the other twin, the server's embedder and the context managers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from types import TracebackType
from typing import TYPE_CHECKING

import httpx
import numpy as np
import numpy.typing as npt

from .base import RemoteBase, _Link
from .http_io import AsyncRemoteIO, RemoteIO
from .local_only import AsyncLocalOnly, LocalOnly

if TYPE_CHECKING:
    from memadapt_core.api import AsyncMemoryAPI, MemoryAPI

__all__ = ["AsyncRemoteMemory", "RemoteEmbedder", "RemoteMemory"]


class RemoteEmbedder:
    """The server's embedder, for a query (what the LangChain adapters' MMR re-ranking embeds)."""

    def __init__(self, sync: RemoteMemory, asynchronous: AsyncRemoteMemory) -> None:
        self._sync, self._async = sync, asynchronous

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        return np.asarray(self._sync._send(RemoteBase._embed(text))["vector"], dtype=np.float32)

    async def aembed_query(self, text: str) -> npt.NDArray[np.float32]:
        return np.asarray((await self._async._send(RemoteBase._embed(text)))["vector"], dtype=np.float32)


class AsyncRemoteMemory(AsyncLocalOnly, AsyncRemoteIO):
    """``AsyncMemory``'s calls against a ``memadapt serve`` at ``url`` (e.g. ``http://127.0.0.1:8765``).

    Its connections are kept alive in the event loop that opened them: use it from one loop (sync code hands the
    adapters a ``RemoteMemory``, whose async view keeps no connection between calls)."""

    def __init__(
        self, url: str, *, token: str, timeout: float = 30.0, transport: httpx.AsyncBaseTransport | None = None,
        plugins: Sequence[object] = (), _link: _Link | None = None,
    ) -> None:  # fmt: skip
        super().__init__(url, token=token, timeout=timeout, transport=transport, plugins=plugins, _link=_link)
        self._twin: RemoteMemory | None = None

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


class RemoteMemory(LocalOnly, RemoteIO):
    """``Memory``'s calls against a ``memadapt serve`` at ``url``: the sync twin of ``AsyncRemoteMemory``."""

    def __init__(
        self, url: str, *, token: str, timeout: float = 30.0, transport: httpx.BaseTransport | None = None,
        plugins: Sequence[object] = (), _link: _Link | None = None,
    ) -> None:  # fmt: skip
        super().__init__(url, token=token, timeout=timeout, transport=transport, plugins=plugins, _link=_link)
        self._twin: AsyncRemoteMemory | None = None

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


if TYPE_CHECKING:  # mypy holds each client to the API it implements
    _sync_door: type[MemoryAPI] = RemoteMemory
    _async_door: type[AsyncMemoryAPI] = AsyncRemoteMemory
