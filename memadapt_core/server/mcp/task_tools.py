"""The task-memory MCP tools: add_trajectory, retrieve_experience, record_tool_call and get_tool_guide.

Experience and tool guides belong to an agent: the server's ``--agent-id`` (or the token's agent). The model never
names the agent, as it never names the user; a server started without one answers with a tool error saying so.
"""

from __future__ import annotations

from typing import Any

from memadapt_core.engine import AsyncMemory
from memadapt_core.formatting import render_guidance

from .tools import Context, MCPServer, ScopeResolver, ToolError, _guarded

__all__ = ["register_task_tools"]

ADD_TRAJECTORY = (
    "Report how an attempt at a task went, so the agent learns from it: `messages` are the attempt's messages "
    "(OpenAI chat shape, tool calls and tool results included), `score` how well it went (0 = failed, 1 = "
    "succeeded), `task` a short description. Lessons are drawn from it in the background and shared with every "
    "user of this agent. Returns the stored trajectory's id."
)
RETRIEVE_EXPERIENCE = (
    "Before starting a task, recall what this agent learnt from earlier attempts at similar tasks. `task` "
    "describes the task. Returns the best `limit` experiences (when_to_use, lesson, evidence) and `guidance`: "
    "the same as a block to follow. An empty list means no relevant experience yet."
)
RECORD_TOOL_CALL = (
    "Record one tool call's outcome so the agent learns how to use the tool: `tool_name`, `arguments`, a short "
    "`result`, `success`, `duration` in seconds and `tokens` if known."
)
GET_TOOL_GUIDE = (
    "Before calling a tool, read what this agent learnt about it: statistics (calls, success rate, latency "
    "percentiles) and usage guidelines written from earlier calls (null until enough calls were recorded)."
)


def register_task_tools(server: MCPServer, memory: AsyncMemory, scope_for: ScopeResolver) -> None:
    """Add the task-memory tools to ``server``; they act for ``scope_for(ctx)``'s user and agent."""

    def agent_of(ctx: Context) -> tuple[str | None, str]:
        scope = scope_for(ctx)
        if scope.agent_id is None:
            msg = "task memory belongs to an agent: start the server with --agent-id"
            raise ToolError(msg)
        return scope.user_id, scope.agent_id

    async def add_trajectory(
        messages: list[dict[str, Any]], score: float, ctx: Context, task: str | None = None
    ) -> dict[str, Any]:
        user_id, agent_id = agent_of(ctx)
        trajectory = {"messages": messages, "score": score}
        stored = await _guarded(memory.add_trajectories(trajectory, agent_id=agent_id, user_id=user_id, task=task))
        return {"ids": [r.id for r in stored]}

    async def retrieve_experience(task: str, ctx: Context, limit: int = 3) -> dict[str, Any]:
        _, agent_id = agent_of(ctx)
        hits = await _guarded(memory.experiences(task, agent_id=agent_id, limit=limit))
        experiences = [
            {
                "id": h.record.id,
                "when_to_use": h.record.text,
                "lesson": h.record.metadata.get("content"),
                "evidence": h.record.metadata.get("evidence"),
                "score": round(h.score, 4),
            }
            for h in hits
        ]
        return {"experiences": experiences, "guidance": render_guidance(hits)}

    async def record_tool_call(
        tool_name: str,
        ctx: Context,
        arguments: dict[str, Any] | None = None,
        result: str | None = None,
        success: bool = True,
        duration: float | None = None,
        tokens: int | None = None,
    ) -> dict[str, Any]:
        user_id, agent_id = agent_of(ctx)
        call = {"name": tool_name, "arguments": arguments, "result": result, "success": success,
                "duration": duration, "tokens": tokens}  # fmt: skip
        stored = await _guarded(memory.record_tool_calls(call, agent_id=agent_id, user_id=user_id))
        return {"ids": [r.id for r in stored]}

    async def get_tool_guide(tool_name: str, ctx: Context) -> dict[str, Any]:
        _, agent_id = agent_of(ctx)
        guide = await _guarded(memory.tool_guide(tool_name, agent_id=agent_id))
        return guide.model_dump(mode="json", exclude={"guide_id"})

    for fn, description in (
        (add_trajectory, ADD_TRAJECTORY),
        (retrieve_experience, RETRIEVE_EXPERIENCE),
        (record_tool_call, RECORD_TOOL_CALL),
        (get_tool_guide, GET_TOOL_GUIDE),
    ):
        server.add_tool(fn, name=fn.__name__, description=description)
