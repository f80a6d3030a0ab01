"""The engines the adapters accept: the async one, or its sync twin (used through its async view)."""

from __future__ import annotations

from typing import TypeAlias

from memadapt_core import AsyncMemory, Memory

__all__ = ["EngineLike", "as_async", "tool_texts"]

EngineLike: TypeAlias = AsyncMemory | Memory


def as_async(memory: EngineLike) -> AsyncMemory:
    """AgentScope is async throughout: a sync ``Memory`` is used through its async view of the same store."""
    return memory.as_async()


def tool_texts(value: object) -> list[str]:
    """A tool argument typed ``list[str]``, as a model may really send it: a lone string is one item (not one
    per character), and blank or non-string items are dropped."""
    items = [value] if isinstance(value, str) else value if isinstance(value, list | tuple) else []
    return [item for item in items if isinstance(item, str) and item.strip()]
