"""The engines the adapters accept: the async one, or its sync twin (used through its async view)."""

from __future__ import annotations

from typing import TypeAlias

from memadapt_core import AsyncMemory, Memory

__all__ = ["EngineLike", "as_async"]

EngineLike: TypeAlias = AsyncMemory | Memory


def as_async(memory: EngineLike) -> AsyncMemory:
    """AgentScope is async throughout: a sync ``Memory`` is used through its async view of the same store."""
    return memory.as_async()
