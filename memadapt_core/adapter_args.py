"""What every adapter constructor checks, written once: the engine it is handed and the result count it takes.

Adapters name their arguments as their framework does (``k``, ``limit``, ``top_k``) and fail, like the engine,
with a ``ValidationError`` (a ``MemadaptError`` and a ``ValueError``) naming the argument, at construction rather
than at the first call.
"""

from __future__ import annotations

from .api import AsyncMemoryAPI, MemoryAPI
from .errors import ValidationError

__all__ = ["check_count", "engine_views"]


def engine_views(memory: object, field: str = "memory") -> tuple[MemoryAPI, AsyncMemoryAPI]:
    """The sync and the async view of the same memory, whichever twin and whichever door the adapter was handed:
    an engine (``Memory`` / ``AsyncMemory``) or a client of ``memadapt serve`` (``RemoteMemory`` /
    ``AsyncRemoteMemory``). Each implements the API (``memadapt_core.api``), so the adapters are typed to it."""
    if isinstance(memory, MemoryAPI | AsyncMemoryAPI):
        return memory.as_sync(), memory.as_async()
    problem = (
        "must be a memadapt engine, Memory(path='./memories') or AsyncMemory(...), or a client of memadapt serve, "
        f"RemoteMemory(url, token=...), not {type(memory).__name__}"
    )
    raise ValidationError(field, problem)


def check_count(field: str, value: object) -> int:
    """A number of results an adapter returns by default (``k``, ``limit``, ``top_k``): a positive integer."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError(field, f"must be an integer, not {type(value).__name__}")
    if value <= 0:
        raise ValidationError(field, f"must be at least 1, not {value}")
    return value
