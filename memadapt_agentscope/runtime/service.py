"""`MemadaptMemoryService`: agentscope-runtime's ``MemoryService`` on the memadapt engine.

Semantics follow the runtime's reference ``InMemoryMemoryService``: messages are stored per user (and
session); ``search_memory`` searches with the text of the last message and honours ``filters["top_k"]``;
``list_memory`` pages with ``filters["page_num"]`` (1-based) and ``filters["page_size"]`` (default 10);
``delete_memory`` drops a session, or the whole user; every call before ``start()`` raises
``RuntimeError("Service not started")``.
The differences are the engine's: search is hybrid (meaning and words) with a relevance floor, so an unrelated
query returns ``[]``; a re-sent message (same id or same ``metadata["original_id"]``) is stored once.

With agentscope-runtime installed this is a subclass of its ``MemoryService`` and speaks its ``Message``;
without it, the same methods take and return the ``Message`` JSON dicts.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from memadapt_agentscope._engine import EngineLike, as_async, user_scope
from memadapt_core import AsyncMemory, MemoryRecord, Scope, ValidationError, check_count, engine_views
from memadapt_core.api import AsyncMemoryAPI

from ._framework import MemoryServiceBase
from .messages import from_record, profile_message, query_text, to_engine_messages

__all__ = ["MemadaptMemoryService"]

_DEFAULT_PAGE_SIZE = 10


class MemadaptMemoryService(MemoryServiceBase):
    """Long-term memory for agentscope-runtime agents, on one memadapt engine.

    Plug it into the runtime's AgentScope adapter::

        service = MemadaptMemoryService(AsyncMemory(path="./memdir"))
        await service.start()
        agent = ReActAgent(..., long_term_memory=AgentScopeLongTermMemory(service, user_id, session_id))
    """

    def __init__(
        self,
        memory: EngineLike | None = None,
        *,
        agent_id: str | None = None,
        top_k: int = 5,
        threshold: float | None = None,
        skip_names: Collection[str] = ("long_term_memory",),
        profile: bool = False,
    ) -> None:
        """
        :param memory: the engine to use (not closed by ``stop``). None: ``start`` opens ``AsyncMemory()``
            with its settings (``MEMADAPT_*`` environment variables) and ``stop`` closes it.
        :param agent_id: optional extra scope, for several applications sharing one store.
        :param top_k: results when ``filters`` carries no ``top_k``.
        :param threshold: relevance floor passed to the engine; None keeps the engine's default floor.
        :param skip_names: senders (``metadata["original_name"]``) whose messages are not stored. AgentScope
            1.x's ``ReActAgent`` re-sends the memory it was given under the name ``long_term_memory``;
            storing it would feed memories back into memory.
        :param profile: ``search_memory`` starts with one system message holding the user's profile (kept by
            consolidation, docs/tiers.md) when there is one.
        """
        if memory is not None:
            engine_views(memory)  # a wrong engine fails here, not at start()
        Scope.of(agent_id=agent_id, required=False)  # a malformed agent id fails here
        self._given = memory
        self._agent_id = agent_id
        self._top_k = check_count("top_k", top_k)
        self._threshold = threshold
        self._skip_names = frozenset(skip_names)
        self._profile = profile
        self._engine: AsyncMemoryAPI | None = None

    async def start(self) -> None:
        if self._engine is None:
            # Opening the embedded store loads the embedder: off the event loop.
            self._engine = as_async(self._given) if self._given is not None else await AsyncMemory.open()

    async def stop(self) -> None:
        engine, self._engine = self._engine, None
        if engine is not None and self._given is None:
            await engine.close()

    async def health(self) -> bool:
        return self._engine is not None

    async def add_memory(self, user_id: str, messages: list[Any], session_id: str | None = None) -> None:
        engine = self._started()
        scope = user_scope(user_id, self._agent_id, session_id or None)
        if messages is not None and not isinstance(messages, list | tuple):
            field = "messages"
            raise ValidationError(field, f"must be a list of runtime Messages, not {type(messages).__name__}")
        entries = to_engine_messages(messages or [], skip_names=self._skip_names)
        if entries:
            await engine.add(entries, **scope.ids())

    async def search_memory(
        self, user_id: str, messages: list[Any], filters: dict[str, Any] | None = None
    ) -> list[Any]:
        engine = self._started()
        scope = user_scope(user_id, self._agent_id)
        if not messages or not isinstance(messages, list):
            return []
        query = query_text(messages[-1])
        top_k = _int_filter(filters, "top_k", self._top_k)
        if not query or top_k <= 0:
            return []
        hits = await engine.search(query, **scope.ids(), limit=top_k, threshold=self._threshold)
        # The best ``top_k``, in the order they were said, as the runtime's own services return them (a
        # conversation reads in order; the engine breaks near-ties towards the newest).
        said = sorted(hits, key=lambda hit: (hit.record.observed_at, hit.record.id))
        found = [from_record(hit.record) for hit in said]
        if self._profile and not (known := await engine.profile(user_id=user_id)).is_empty():
            return [profile_message(known), *found]
        return found

    async def list_memory(self, user_id: str, filters: dict[str, Any] | None = None) -> list[Any]:
        engine = self._started()
        scope = user_scope(user_id, self._agent_id)
        page_num = _int_filter(filters, "page_num", 1)
        page_size = _int_filter(filters, "page_size", _DEFAULT_PAGE_SIZE)
        if page_num < 1 or page_size < 1:
            return []
        records = await _page(engine, scope, offset=(page_num - 1) * page_size, size=page_size)
        return [from_record(record) for record in records]

    async def delete_memory(self, user_id: str, session_id: str | None = None) -> None:
        engine = self._started()
        # Without a user the engine would delete the whole agent scope: every user's memories of this app.
        await engine.delete_all(**user_scope(user_id, self._agent_id, session_id or None).ids())

    def _started(self) -> AsyncMemoryAPI:
        if self._engine is None:
            msg = "Service not started"  # the runtime's built-in services raise exactly this
            raise RuntimeError(msg)
        return self._engine


async def _page(engine: AsyncMemoryAPI, scope: Scope, *, offset: int, size: int) -> list[MemoryRecord]:
    """Records ``offset`` to ``offset + size`` of the scope, oldest first, read in engine pages of at most
    ``max_limit``: a page bigger than that is gathered from several, as the runtime's own service returns it."""
    records: list[MemoryRecord] = []
    position = 0
    page_size = min(offset + size, engine.settings.max_limit)
    async for record in engine.iter_records(**scope.ids(), page_size=page_size):
        if position >= offset:
            records.append(record)
            if len(records) == size:
                break
        position += 1
    return records


def _int_filter(filters: dict[str, Any] | None, key: str, default: int) -> int:
    value = (filters or {}).get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else default
