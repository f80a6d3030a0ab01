"""The ``search_memory`` / ``add_memory`` tools an AgentScope 2.x agent calls in ``agent_control`` mode.

Same names, inputs and auto-allow permission as AgentScope's own memory middleware tools. The user (and agent)
come from the middleware; the session comes from the calling agent's state, injected by the toolkit.
"""

from __future__ import annotations

from dataclasses import dataclass

from memadapt_agentscope._engine import tool_texts
from memadapt_core import MemadaptError
from memadapt_core.api import AsyncMemoryAPI

from ._framework import (
    AgentState,
    FunctionTool,
    PermissionBehavior,
    PermissionDecision,
    TextBlock,
    ToolBase,
    ToolChunk,
    ToolResultState,
)

__all__ = ["MemoryTools"]

_SEARCH_SCHEMA = {
    "type": "object",
    "properties": {
        "keywords": {
            "type": "array",
            "items": {"type": "string"},
            "description": (
                "Short, targeted search phrases such as a person's name, a specific date, a location, or a "
                "phrase describing what to retrieve from memory. Each one is searched on its own."
            ),
        },
        "limit": {"type": "integer", "description": "Maximum number of memories per keyword.", "default": 5},
    },
    "required": ["keywords"],
}
_ADD_SCHEMA = {
    "type": "object",
    "properties": {
        "thinking": {
            "type": "string",
            "description": "Why this is worth remembering. Kept in the transcript, not stored.",
        },
        "content": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Facts to remember, one complete, standalone sentence each.",
        },
    },
    "required": ["thinking", "content"],
}


@dataclass(frozen=True)
class MemoryTools:
    """The two memory tools bound to one engine and one user (and optionally one agent)."""

    memory: AsyncMemoryAPI
    user_id: str
    agent_id: str | None = None
    search_agent_id: str | None = None
    top_k: int = 5
    threshold: float | None = None

    def as_tools(self) -> list[ToolBase]:
        """The tools, allowed without asking the user (like AgentScope's own memory tools)."""
        return [
            FunctionTool(
                self.search_memory,
                name="search_memory",
                description=(
                    "Retrieve memories from earlier conversations with short, targeted search keywords. "
                    "Each keyword is an independent query; results are merged and deduplicated."
                ),
                input_schema=_SEARCH_SCHEMA,
                is_concurrency_safe=True,
                is_read_only=True,
                is_state_injected=True,
                permission=_allow("search_memory"),
            ),
            FunctionTool(
                self.add_memory,
                name="add_memory",
                description=(
                    "Record important, durable information that may be useful later. Only `content` is "
                    "stored; `thinking` stays in the transcript."
                ),
                input_schema=_ADD_SCHEMA,
                is_concurrency_safe=False,
                is_read_only=False,
                is_state_injected=True,
                permission=_allow("add_memory"),
            ),
        ]

    async def search_memory(
        self, keywords: list[str], limit: int | None = None, _agent_state: AgentState | None = None
    ) -> ToolChunk:
        """Search once per keyword, merge the hits (first one wins) and render them like injected memories."""
        keywords = tool_texts(keywords)
        if not keywords:
            return _text("(no keywords supplied: nothing to search)")
        try:
            hits = await self.memory.search_many(
                keywords,
                user_id=self.user_id,
                agent_id=self.search_agent_id,
                limit=limit or self.top_k,
                threshold=self.threshold,
            )
        except MemadaptError as exc:
            return _error(f"Error retrieving memory: {exc}")
        if not hits:
            return _text("(no relevant memories found)")
        return _text(self.memory.format_context("; ".join(keywords), hits))

    async def add_memory(self, thinking: str, content: list[str], _agent_state: AgentState | None = None) -> ToolChunk:
        """Store each item as an explicit fact of this user, in the calling agent's session."""
        facts = tool_texts(content)
        if not facts:
            return _error("`content` is empty: nothing to record.")
        session_id = _agent_state.session_id if _agent_state is not None else None
        try:
            records = await self.memory.add(
                facts, user_id=self.user_id, agent_id=self.agent_id, session_id=session_id, kind="fact"
            )
        except MemadaptError as exc:
            return _error(f"Error recording memory: {exc}")
        rationale = f" (rationale: {thinking})" if thinking else ""
        return _text(f"Recorded {len(records)} memor{'y' if len(records) == 1 else 'ies'}{rationale}.")


def _allow(name: str) -> PermissionDecision:
    return PermissionDecision(
        behavior=PermissionBehavior.ALLOW, message=f"auto-allowed: memadapt long-term memory tool {name}"
    )


def _text(message: str) -> ToolChunk:
    return ToolChunk(content=[TextBlock(text=message)])


def _error(message: str) -> ToolChunk:
    return ToolChunk(content=[TextBlock(text=message)], state=ToolResultState.ERROR)
