"""`MemadaptMemory`: an AutoGen `Memory` component backed by the memadapt engine."""

from __future__ import annotations

import asyncio
import os
import uuid
import warnings
from collections.abc import Coroutine, Sequence
from typing import Any, Self, TypeVar

import pydantic
from pydantic import SecretStr

from memadapt_core import (
    AsyncMemory,
    ConfigurationError,
    EmbedderSettings,
    Kind,
    MemoryRecord,
    Scope,
    SearchHit,
    ValidationError,
    engine_views,
)
from memadapt_core.api import AsyncMemoryAPI, MemoryAPI
from memadapt_core.client import TOKEN_ENV, AsyncRemoteMemory

from ._framework import (
    BaseAgentEvent,
    BaseChatMessage,
    CancellationToken,
    ChatCompletionContext,
    Component,
    Memory,
    MemoryContent,
    MemoryQueryResult,
    UpdateContextResult,
)
from .config import MemadaptMemoryConfig
from .contents import content_from_hit, fact_from_content
from .context import last_user_text, replace_memory_message
from .conversation import engine_messages

__all__ = ["MemadaptMemory"]

T = TypeVar("T")
_STORE_FIELDS = ("path", "location", "url", "backend", "collection", "api_key", "embedder")


class MemadaptMemory(Memory, Component[MemadaptMemoryConfig]):
    """Long-term memory for AutoGen agents: facts you add, conversations you store, hybrid search.

    Give it an engine to share one store between several memories (one per user or agent)::

        engine = AsyncMemory(path="./memories")
        alice = MemadaptMemory(memory=engine, user_id="alice")

    or let it open its own store from the same settings as the engine (``path``, ``location``, ``url``, ...);
    only a store it opened itself is closed by `close`. A component loaded from a dump while the original lives
    shares its open store (one per folder in a process); dumping a ``location=":memory:"`` memory warns that its
    copy would start empty. Every read and write is limited to its scope
    (``user_id`` / ``agent_id`` / ``session_id``; at least one is required).
    """

    component_type = "memory"
    component_provider_override = "memadapt_autogen.MemadaptMemory"
    component_config_schema = MemadaptMemoryConfig

    def __init__(
        self,
        memory: AsyncMemoryAPI | MemoryAPI | None = None,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        limit: int = 5,
        threshold: float | None = None,
        kinds: Sequence[Kind] | None = None,
        user_sources: Sequence[str] = ("user",),
        profile: bool = False,
        path: str | None = None,
        location: str | None = None,
        url: str | None = None,
        backend: str | None = None,
        collection: str | None = None,
        api_key: str | SecretStr | None = None,
        embedder: str | dict[str, Any] | EmbedderSettings | None = None,
        server: str | None = None,
        token: str | SecretStr | None = None,
    ) -> None:
        self._config = _config(
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            limit=limit,
            threshold=threshold,
            kinds=None if kinds is None else list(kinds),
            user_sources=list(user_sources),
            profile=profile,
            path=path,
            location=location,
            url=url,
            backend=backend,
            collection=collection,
            api_key=api_key,
            embedder=EmbedderSettings(provider=embedder) if isinstance(embedder, str) else embedder,
            server=server,
            token=token,
        )
        self._scope = Scope.of(user_id, agent_id, session_id)  # fails here, not at the first call
        if profile and user_id is None and agent_id is None:
            field = "profile"
            raise ValidationError(field, "a profile belongs to a user (or an agent): give user_id")
        store = {name: getattr(self._config, name) for name in _STORE_FIELDS}
        store = {name: value for name, value in store.items() if value is not None}
        given = [*sorted(store), *(["server"] if server is not None else [])]
        if (memory is not None and given) or (server is not None and store):
            problem = f"give one of memory=, server= or store settings, not several ({', '.join(given)})"
            raise ConfigurationError(problem)
        self._engine: AsyncMemoryAPI
        if memory is not None:
            self._engine = engine_views(memory)[1]
            self._owns_engine = False
        elif server is not None:
            self._engine = AsyncRemoteMemory(server, token=_server_token(self._config.token))
            self._owns_engine = True
        else:
            if isinstance(api_key := store.get("api_key"), SecretStr):
                store["api_key"] = api_key.get_secret_value()
            if isinstance(embedder_settings := store.get("embedder"), EmbedderSettings):
                # as a dict, so MEMADAPT_EMBEDDER__* fills what a dumped config leaves out (its key)
                store["embedder"] = embedder_settings.model_dump(exclude_none=True)
            self._engine = AsyncMemory(**store)
            self._owns_engine = True
        self._owner = uuid.uuid4().hex  # tells this memory's context message from other memories'
        self._closed = False

    @property
    def engine(self) -> AsyncMemoryAPI:
        """The engine this memory reads and writes through (shared or its own)."""
        return self._engine

    @property
    def scope(self) -> Scope:
        return self._scope

    async def add(self, content: MemoryContent, cancellation_token: CancellationToken | None = None) -> None:
        """Store ``content`` as a fact in this memory's scope: text/plain and text/markdown as they are,
        application/json (a dict or JSON text) as its text with the value kept in metadata, images and bytes
        only through ``metadata["caption"]``. Anything else raises `memadapt_core.ValidationError`."""
        fact = fact_from_content(content)
        await _cancellable(
            self._engine.add(fact.text, kind="fact", metadata=fact.metadata, **self._scope.ids()),
            cancellation_token,
        )

    async def add_messages(
        self,
        messages: Sequence[BaseAgentEvent | BaseChatMessage],
        cancellation_token: CancellationToken | None = None,
    ) -> list[MemoryRecord]:
        """Store a conversation (e.g. ``TaskResult.messages``) as message records so consolidation can learn
        from it. Idempotent: each message's id becomes the record's external id."""
        converted = engine_messages(messages, self._config.user_sources)
        if not converted:
            return []
        return await _cancellable(self._engine.add(converted, kind="message", **self._scope.ids()), cancellation_token)

    async def query(
        self,
        query: str | MemoryContent = "",
        cancellation_token: CancellationToken | None = None,
        **kwargs: Any,
    ) -> MemoryQueryResult:
        """Search this memory's scope. Keyword arguments are passed to the engine's ``search`` (``limit``,
        ``threshold``, ``kinds``, ``filters``, ``time_range``, ``now``, ``include_superseded``); ``limit``,
        ``threshold`` and ``kinds`` default to this memory's settings."""
        text = query if isinstance(query, str) else fact_from_content(query).text
        hits = await _cancellable(self._search(text, **kwargs), cancellation_token)
        return MemoryQueryResult(results=[content_from_hit(hit) for hit in hits])

    async def update_context(self, model_context: ChatCompletionContext) -> UpdateContextResult:
        """Search with the last user message and keep one system message with what was found (rendered by
        the engine's ``format_context``, after the user's profile when ``profile``), replacing the one this memory
        added on the previous turn."""
        query = last_user_text(await model_context.get_messages(), self._engine.settings.max_text_chars)
        hits = await self._search(query) if query.strip() else []
        found = await self._engine.profile(**self._profile_owner()) if self._config.profile else None
        profile = found if found is not None and not found.is_empty() else None
        text = self._engine.format_context(query, hits, profile=profile) if hits or profile else None
        await replace_memory_message(model_context, self._owner, text)
        return UpdateContextResult(memories=MemoryQueryResult(results=[content_from_hit(hit) for hit in hits]))

    async def clear(self) -> None:
        """Delete every memory in exactly this scope (other users' and agents' memories stay)."""
        await self._engine.delete_all(**self._scope.ids())

    async def close(self) -> None:
        """Close the engine if this memory opened it; an engine it was given stays open for its owner."""
        if self._owns_engine and not self._closed:
            self._closed = True
            await self._engine.close()

    def _profile_owner(self) -> dict[str, str | None]:
        return {"user_id": self._scope.user_id, "agent_id": self._scope.agent_id}

    async def _search(self, query: str, **kwargs: Any) -> list[SearchHit]:
        options: dict[str, Any] = {
            "limit": self._config.limit,
            "threshold": self._config.threshold,
            "kinds": self._config.kinds,
        }
        options.update({key: value for key, value in kwargs.items() if value is not None})
        return await self._engine.search(query, **options, **self._scope.ids())

    def _to_config(self) -> MemadaptMemoryConfig:
        if isinstance(self._engine, AsyncRemoteMemory):
            # A client of memadapt serve: the loaded copy connects to the same server (its token never dumped).
            return self._config.model_copy(update={"server": self._engine.url})
        # The embedder the engine really uses (settings, environment or defaults): it names the collection.
        settings = self._engine.settings
        if settings.location == ":memory:" and not settings.path and settings.resolved_backend() != "qdrant":
            warnings.warn(
                "this memory's store is location=':memory:': a component loaded from this dump opens a new, empty "
                "store; give the memory a path= (or a url=) to reload its memories",
                UserWarning,
                stacklevel=3,
            )
        if self._owns_engine:
            return self._config.model_copy(update={"embedder": settings.embedder})
        # A shared engine: describe where its store lives so a loaded copy opens the same one (never its key).
        store = {name: getattr(settings, name) for name in _STORE_FIELDS if name != "api_key"}
        return self._config.model_copy(update=store)

    @classmethod
    def _from_config(cls, config: MemadaptMemoryConfig) -> Self:
        return cls(
            user_id=config.user_id,
            agent_id=config.agent_id,
            session_id=config.session_id,
            limit=config.limit,
            threshold=config.threshold,
            kinds=config.kinds,
            user_sources=config.user_sources,
            profile=config.profile,
            path=config.path,
            location=config.location,
            url=config.url,
            backend=config.backend,
            collection=config.collection,
            api_key=config.api_key,
            embedder=config.embedder,
            server=config.server,
            token=config.token,
        )


def _server_token(token: SecretStr | None) -> str:
    """The bearer token for ``server=``: the one given, else ``MEMADAPT_TOKEN`` (what a loaded dump reads)."""
    if token is not None:
        return token.get_secret_value()
    if (found := os.environ.get(TOKEN_ENV)) is not None:
        return found
    problem = f"server= needs its bearer token: give token= or set {TOKEN_ENV}"
    raise ConfigurationError(problem)


def _config(**values: Any) -> MemadaptMemoryConfig:
    try:
        return MemadaptMemoryConfig(**values)
    except pydantic.ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"]) or "config"
        raise ValidationError(field, error["msg"]) from exc


async def _cancellable(work: Coroutine[Any, Any, T], token: CancellationToken | None) -> T:
    """Run ``work`` so that cancelling ``token`` cancels it (AutoGen's convention)."""
    if token is None:
        return await work
    task = asyncio.ensure_future(work)
    token.link_future(task)
    return await task
