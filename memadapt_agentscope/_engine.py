"""The engines the adapters accept: the async one, or its sync twin (used through its async view)."""

from __future__ import annotations

from typing import TypeAlias

from memadapt_core import Scope, ValidationError, engine_views
from memadapt_core.api import AsyncMemoryAPI, MemoryAPI

__all__ = ["EngineLike", "as_async", "tool_texts", "user_scope"]

EngineLike: TypeAlias = AsyncMemoryAPI | MemoryAPI


def as_async(memory: EngineLike) -> AsyncMemoryAPI:
    """AgentScope is async throughout: a sync ``Memory`` is used through its async view of the same store."""
    return engine_views(memory)[1]


def user_scope(user_id: object, agent_id: object = None, session_id: object = None) -> Scope:
    """A scope that names its user (``Scope.of``'s checks, plus a user): AgentScope's memory services and
    middlewares always scope by user, and without one a delete would reach every user of the agent."""
    scope = Scope.of(user_id, agent_id, session_id, required=False)
    if scope.user_id is None:
        field = "user_id"
        raise ValidationError(field, "is required: memories belong to a user")
    return scope


def tool_texts(value: object) -> list[str]:
    """A tool argument typed ``list[str]``, as a model may really send it: a lone string is one item (not one
    per character), and blank or non-string items are dropped."""
    items = [value] if isinstance(value, str) else value if isinstance(value, list | tuple) else []
    return [item for item in items if isinstance(item, str) and item.strip()]
