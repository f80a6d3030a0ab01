"""Per-turn factories for AgentScope 2.x's service.

``create_app(extra_agent_middlewares=..., extra_agent_tools=...)`` calls them with ``(user_id, agent_id,
session_id)`` each time it assembles an agent."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeAlias

from memadapt_agentscope._engine import EngineLike

from ._framework import MiddlewareBase, ToolBase
from .middleware import DEFAULT_TOOL_INSTRUCTIONS, MemadaptMiddleware, Mode

__all__ = ["MiddlewareFactory", "ToolFactory", "memadapt_middleware_factory", "memadapt_tools_factory"]

MiddlewareFactory: TypeAlias = Callable[[str, str, str], Awaitable[list[MiddlewareBase]]]
ToolFactory: TypeAlias = Callable[[str, str, str], Awaitable[list[ToolBase]]]


def memadapt_middleware_factory(
    memory: EngineLike,
    *,
    mode: Mode = "both",
    top_k: int = 5,
    threshold: float | None = None,
    scope_search_by_agent: bool = True,
    background: bool = False,
    tool_instructions: str = DEFAULT_TOOL_INSTRUCTIONS,
) -> MiddlewareFactory:
    """``extra_agent_middlewares`` for ``create_app``: one `MemadaptMiddleware` per turn, scoped to the turn's
    user and agent (the session is read from the agent's state, which the service sets to the same id).

    The service puts each middleware's ``list_tools()`` in the turn's toolkit (and the middleware would register
    them itself otherwise): `memadapt_tools_factory` is not needed beside this factory. With ``background=True``
    nothing closes a per-turn middleware: the engine's ``close()`` waits for its writes.
    """

    async def build(user_id: str, agent_id: str, session_id: str) -> list[MiddlewareBase]:
        return [
            MemadaptMiddleware(
                memory,
                user_id=user_id,
                agent_id=agent_id or None,
                mode=mode,
                top_k=top_k,
                threshold=threshold,
                scope_search_by_agent=scope_search_by_agent,
                background=background,
                tool_instructions=tool_instructions,
            )
        ]

    return build


def memadapt_tools_factory(
    memory: EngineLike,
    *,
    top_k: int = 5,
    threshold: float | None = None,
    scope_search_by_agent: bool = True,
) -> ToolFactory:
    """``extra_agent_tools`` for ``create_app``: the ``search_memory`` / ``add_memory`` tools for the turn's
    user and agent, with the same scoping as `memadapt_middleware_factory`, for an app that gives agents the
    memory tools without the middleware (beside the middleware factory they would only duplicate its tools)."""

    async def build(user_id: str, agent_id: str, session_id: str) -> list[ToolBase]:
        middleware = MemadaptMiddleware(
            memory,
            user_id=user_id,
            agent_id=agent_id or None,
            mode="agent_control",
            top_k=top_k,
            threshold=threshold,
            scope_search_by_agent=scope_search_by_agent,
        )
        return await middleware.list_tools()

    return build
