"""`MemadaptExperienceMemory`: task memory for AutoGen agents, as an `autogen_core.memory.Memory`.

``update_context`` recalls the agent's experience for the task (the last user message) and keeps it as one system
message, replaced every turn. ``record(messages, score)`` stores a run (``TaskResult.messages``, tool calls and
their results included) as a scored trajectory: the engine's worker draws lessons from it in the background, for
every user of the agent. ``add`` takes the same as JSON content (``{"messages", "score", "task"?}``).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

from memadapt_core import MemoryRecord, Scope, SearchHit, ValidationError, check_count, engine_views
from memadapt_core.api import AsyncMemoryAPI, MemoryAPI

from ._framework import (
    BaseAgentEvent,
    BaseChatMessage,
    CancellationToken,
    ChatCompletionContext,
    Memory,
    MemoryContent,
    MemoryMimeType,
    MemoryQueryResult,
    ToolCallExecutionEvent,
    ToolCallRequestEvent,
    UpdateContextResult,
)
from .context import last_user_text, replace_memory_message
from .conversation import engine_messages

__all__ = ["MemadaptExperienceMemory", "trajectory_messages"]


class MemadaptExperienceMemory(Memory):
    """The experience of one agent (shared by its users), injected before each task::

    experience = MemadaptExperienceMemory(engine, agent_id="travel-agent", user_id="alice")
    agent = AssistantAgent(..., memory=[experience])
    result = await agent.run(task="Book a flight to Berlin next Friday")
    await experience.record(result.messages, score=0.0)
    """

    def __init__(
        self,
        memory: AsyncMemoryAPI | MemoryAPI,
        *,
        agent_id: str,
        user_id: str | None = None,
        limit: int = 3,
        user_sources: Sequence[str] = ("user",),
    ) -> None:
        Scope.of(user_id, agent_id)  # a malformed id fails here
        self._engine = engine_views(memory)[1]
        self._agent_id = agent_id
        self._user_id = user_id
        self._limit = check_count("limit", limit)
        self._user_sources = list(user_sources)
        self._owner = uuid.uuid4().hex

    async def update_context(self, model_context: ChatCompletionContext) -> UpdateContextResult:
        """Recall experience for the last user message; keep it as one system message (replaced each turn)."""
        task = last_user_text(await model_context.get_messages(), self._engine.settings.max_text_chars)
        hits = await self._recall(task) if task.strip() else []
        guidance = self._engine.format_experience(hits)
        await replace_memory_message(model_context, self._owner, guidance or None)
        return UpdateContextResult(memories=MemoryQueryResult(results=[_content(h) for h in hits]))

    async def query(
        self, query: str | MemoryContent = "", cancellation_token: CancellationToken | None = None, **kwargs: Any
    ) -> MemoryQueryResult:
        """The agent's best experiences for a task: each lesson, with ``when_to_use`` and evidence in metadata."""
        text = query if isinstance(query, str) else str(query.content)
        return MemoryQueryResult(results=[_content(h) for h in await self._recall(text, **kwargs)])

    async def add(self, content: MemoryContent, cancellation_token: CancellationToken | None = None) -> None:
        """Record a trajectory given as JSON content: ``{"messages": [...], "score": 0.0, "task": "..."}``."""
        value = content.content
        if content.mime_type == MemoryMimeType.JSON and isinstance(value, str):
            value = json.loads(value)
        if not isinstance(value, dict):
            field = "content"
            raise ValidationError(field, 'give application/json {"messages": [...], "score": ...}')
        task = value.pop("task", None)
        await self._engine.add_trajectories(value, agent_id=self._agent_id, user_id=self._user_id, task=task)

    async def record(
        self, messages: Sequence[BaseAgentEvent | BaseChatMessage], score: float, *, task: str | None = None
    ) -> list[MemoryRecord]:
        """Store a run (e.g. ``TaskResult.messages``) as a trajectory with its score (0 = failed, 1 = succeeded)."""
        converted = trajectory_messages(messages, self._user_sources)
        if task is None:
            task = next((m["content"] for m in converted if m["role"] == "user"), None)
        trajectory = {"messages": converted, "score": score}
        return await self._engine.add_trajectories(
            trajectory, agent_id=self._agent_id, user_id=self._user_id, task=task
        )

    async def clear(self) -> None:
        """Forget the agent's experiences (its trajectories and other records stay)."""
        ids = [r.id async for r in self._engine.iter_records(agent_id=self._agent_id, kinds=["experience"])]
        if ids:
            await self._engine.delete_many(ids, agent_id=self._agent_id)

    async def close(self) -> None:
        """Nothing to release: the engine belongs to its owner."""

    async def _recall(self, task: str, **options: Any) -> list[SearchHit]:
        return await self._engine.experiences(task, agent_id=self._agent_id, limit=options.get("limit", self._limit))


def _content(hit: SearchHit) -> MemoryContent:
    meta = hit.record.metadata
    return MemoryContent(
        content=str(meta.get("content", "")),
        mime_type=MemoryMimeType.TEXT,
        metadata={"id": hit.record.id, "when_to_use": hit.record.text, "evidence": meta.get("evidence"),
                  "score": round(hit.score, 4)},
    )  # fmt: skip


def trajectory_messages(
    messages: Sequence[BaseAgentEvent | BaseChatMessage], user_sources: Sequence[str] = ("user",)
) -> list[dict[str, Any]]:
    """AutoGen messages and tool events as OpenAI chat messages: text messages, tool calls, tool results."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, ToolCallRequestEvent):
            calls = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                     for c in message.content]  # fmt: skip
            out.append({"role": "assistant", "content": None, "tool_calls": calls})
        elif isinstance(message, ToolCallExecutionEvent):
            out += [{"role": "tool", "name": r.name, "tool_call_id": r.call_id, "content": r.content or "-"}
                    for r in message.content]  # fmt: skip
        else:
            out += [{"role": m["role"], "content": m["content"]} for m in engine_messages([message], user_sources)]
    return out
