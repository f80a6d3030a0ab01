"""Tools an agent calls to search and save its long-term memories, straight on the engine."""

from __future__ import annotations

from collections.abc import Sequence

from memadapt_core import Kind, Scope, ScopeIds, check_count
from memadapt_core.api import AsyncMemoryAPI, MemoryAPI

from ._engine import engine_views
from ._framework import RunnableConfig, StructuredTool

__all__ = ["create_save_memory_tool", "create_search_memory_tool"]

_NOTHING_FOUND = "No memories matched."


def _scope_for(fixed: ScopeIds, config: RunnableConfig) -> ScopeIds:
    """The ids given when the tool was made; a missing ``user_id`` comes from ``configurable["user_id"]``."""
    if fixed["user_id"] is not None:
        return fixed
    user_id = (config.get("configurable") or {}).get("user_id")
    return ScopeIds(user_id=user_id, agent_id=fixed["agent_id"], session_id=fixed["session_id"])


def create_search_memory_tool(
    memory: MemoryAPI | AsyncMemoryAPI,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    limit: int = 5,
    kinds: Sequence[Kind] | None = None,
    name: str = "search_memory",
    description: str = "Search long-term memory for facts and past conversation relevant to the query.",
) -> StructuredTool:
    """A tool that answers with the engine's rendering of the memories found (``format_context``).

    Scope: the ids given here; without ``user_id``, the run's ``configurable["user_id"]``.
    """
    sync, async_ = engine_views(memory)
    fixed = Scope.of(user_id, agent_id, session_id, required=False).ids()
    kind_list = None if kinds is None else list(kinds)
    limit = check_count("limit", limit)

    def search_memory(query: str, config: RunnableConfig) -> str:
        hits = sync.search(query, limit=limit, kinds=kind_list, **_scope_for(fixed, config))
        return sync.format_context(query, hits) or _NOTHING_FOUND

    async def asearch_memory(query: str, config: RunnableConfig) -> str:
        hits = await async_.search(query, limit=limit, kinds=kind_list, **_scope_for(fixed, config))
        return async_.format_context(query, hits) or _NOTHING_FOUND

    return StructuredTool.from_function(search_memory, asearch_memory, name=name, description=description)


def create_save_memory_tool(
    memory: MemoryAPI | AsyncMemoryAPI,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    name: str = "save_memory",
    description: str = "Save one fact worth remembering in later conversations (one short sentence).",
) -> StructuredTool:
    """A tool that stores what the agent gives it as a ``fact`` record and answers with its id.

    Scope: the ids given here; without ``user_id``, the run's ``configurable["user_id"]``.
    """
    sync, async_ = engine_views(memory)
    fixed = Scope.of(user_id, agent_id, session_id, required=False).ids()

    def save_memory(content: str, config: RunnableConfig) -> str:
        [record] = sync.add(content, kind="fact", **_scope_for(fixed, config))
        return f"Saved memory {record.id}."

    async def asave_memory(content: str, config: RunnableConfig) -> str:
        [record] = await async_.add(content, kind="fact", **_scope_for(fixed, config))
        return f"Saved memory {record.id}."

    return StructuredTool.from_function(save_memory, asave_memory, name=name, description=description)
