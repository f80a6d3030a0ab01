"""Task memory and working memory of the remote twins: ``AsyncRemoteTasks`` (awaited) and ``RemoteTasks`` (called).

The engine's ``add_trajectories``, ``experiences``, ``experience_guidance``, ``record_tool_calls``, ``tool_stats``,
``tool_guide`` and ``recent``, with its arguments and models, each one route of ``server/routes/tasks`` (requests
built by ``RemoteBase``). ``experience_guidance`` formats the recalled lessons here, as ``format_experience`` does.
A client writes trajectories and tool calls only: the lessons and guides drawn from them are the server's
consolidation worker's to write. Under ``AsyncRemoteCalls`` and ``RemoteCalls``, so those keep to the
calls every adapter makes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memadapt_core.models import Kind, MemoryRecord, SearchHit
from memadapt_core.tool_stats import ToolGuide, ToolStats

from .base import RemoteBase, _Call
from .base import scope_of as _scope

__all__ = ["AsyncRemoteTasks", "RemoteTasks"]


class AsyncRemoteTasks(RemoteBase):
    """``AsyncRemoteMemory``'s task-memory calls and ``recent``."""

    async def _send(self, call: _Call) -> Any:  # pragma: no cover - AsyncRemoteCalls sends
        raise NotImplementedError

    async def add_trajectories(
        self, trajectories: dict[str, Any] | Sequence[dict[str, Any]], *, agent_id: str | None,
        task: str | None = None, user_id: str | None = None, session_id: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> list[MemoryRecord]:  # fmt: skip
        """Store scored trajectories ({messages, score}) under the token's user; the server draws the agent's
        lessons from them in the background."""
        call = RemoteBase._trajectories(trajectories, _scope(user_id, agent_id, session_id), task, metadata)
        return RemoteBase._records(await self._send(call))

    async def experiences(
        self, task: str, *, agent_id: str | None, limit: int = 3, threshold: float | None = None
    ) -> list[SearchHit]:
        """The agent's experiences for ``task``, ranked as the engine ranks them."""
        call = RemoteBase._experiences(task, agent_id, limit, threshold)
        return RemoteBase._hits(await self._send(call))

    async def experience_guidance(self, task: str, *, agent_id: str | None, limit: int = 3) -> str:
        """The top experiences for ``task`` as a delimited block for a system prompt ("" when there are none)."""
        hits = await self.experiences(task, agent_id=agent_id, limit=limit)
        return self.format_experience(hits)

    async def record_tool_calls(
        self, calls: dict[str, Any] | Sequence[dict[str, Any]], *, agent_id: str | None, user_id: str | None = None,
        session_id: str | None = None,
    ) -> list[MemoryRecord]:  # fmt: skip
        """Record tool calls ({name, arguments, result, success, duration, tokens}; ReMe's names too)."""
        call = RemoteBase._tool_calls(calls, _scope(user_id, agent_id, session_id))
        return RemoteBase._records(await self._send(call))

    async def tool_stats(self, tool_name: str, *, agent_id: str | None) -> ToolStats:
        """Success rate, latency percentiles and tokens of the agent's latest calls of ``tool_name``."""
        data = await self._send(RemoteBase._tool("tool_stats", tool_name, agent_id))
        return ToolStats.model_validate(data)

    async def tool_guide(self, tool_name: str, *, agent_id: str | None) -> ToolGuide:
        """The agent's usage guide of ``tool_name``: its statistics and guidelines (None until written)."""
        data = await self._send(RemoteBase._tool("tool_guide", tool_name, agent_id))
        return ToolGuide.model_validate(data)

    async def recent(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        limit: int | None = None, kinds: Sequence[Kind] | None = ("message",),
    ) -> list[MemoryRecord]:  # fmt: skip
        """Working memory: the latest ``limit`` messages of a scope (other ``kinds`` if given), oldest first."""
        call = RemoteBase._recent(_scope(user_id, agent_id, session_id), limit, kinds)
        return RemoteBase._records(await self._send(call))


class RemoteTasks(RemoteBase):
    """``RemoteMemory``'s task-memory calls and ``recent``: the sync twin of ``AsyncRemoteTasks``."""

    def _send(self, call: _Call) -> Any:  # pragma: no cover - RemoteCalls sends
        raise NotImplementedError

    def add_trajectories(
        self, trajectories: dict[str, Any] | Sequence[dict[str, Any]], *, agent_id: str | None,
        task: str | None = None, user_id: str | None = None, session_id: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> list[MemoryRecord]:  # fmt: skip
        """Store scored trajectories ({messages, score}) under the token's user; the server draws the agent's
        lessons from them in the background."""
        call = RemoteBase._trajectories(trajectories, _scope(user_id, agent_id, session_id), task, metadata)
        return RemoteBase._records(self._send(call))

    def experiences(
        self, task: str, *, agent_id: str | None, limit: int = 3, threshold: float | None = None
    ) -> list[SearchHit]:
        """The agent's experiences for ``task``, ranked as the engine ranks them."""
        call = RemoteBase._experiences(task, agent_id, limit, threshold)
        return RemoteBase._hits(self._send(call))

    def experience_guidance(self, task: str, *, agent_id: str | None, limit: int = 3) -> str:
        """The top experiences for ``task`` as a delimited block for a system prompt ("" when there are none)."""
        hits = self.experiences(task, agent_id=agent_id, limit=limit)
        return self.format_experience(hits)

    def record_tool_calls(
        self, calls: dict[str, Any] | Sequence[dict[str, Any]], *, agent_id: str | None, user_id: str | None = None,
        session_id: str | None = None,
    ) -> list[MemoryRecord]:  # fmt: skip
        """Record tool calls ({name, arguments, result, success, duration, tokens}; ReMe's names too)."""
        call = RemoteBase._tool_calls(calls, _scope(user_id, agent_id, session_id))
        return RemoteBase._records(self._send(call))

    def tool_stats(self, tool_name: str, *, agent_id: str | None) -> ToolStats:
        """Success rate, latency percentiles and tokens of the agent's latest calls of ``tool_name``."""
        data = self._send(RemoteBase._tool("tool_stats", tool_name, agent_id))
        return ToolStats.model_validate(data)

    def tool_guide(self, tool_name: str, *, agent_id: str | None) -> ToolGuide:
        """The agent's usage guide of ``tool_name``: its statistics and guidelines (None until written)."""
        data = self._send(RemoteBase._tool("tool_guide", tool_name, agent_id))
        return ToolGuide.model_validate(data)

    def recent(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        limit: int | None = None, kinds: Sequence[Kind] | None = ("message",),
    ) -> list[MemoryRecord]:  # fmt: skip
        """Working memory: the latest ``limit`` messages of a scope (other ``kinds`` if given), oldest first."""
        call = RemoteBase._recent(_scope(user_id, agent_id, session_id), limit, kinds)
        return RemoteBase._records(self._send(call))
