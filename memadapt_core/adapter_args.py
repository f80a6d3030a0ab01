"""What every adapter constructor checks, written once: the engine it is handed and the result count it takes.

Adapters name their arguments as their framework does (``k``, ``limit``, ``top_k``) and fail, like the engine,
with a ``ValidationError`` (a ``MemadaptError`` and a ``ValueError``) naming the argument, at construction rather
than at the first call.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, cast

from .errors import ValidationError

if TYPE_CHECKING:
    from .engine import AsyncMemory, Memory

__all__ = ["check_count", "engine_views"]


def engine_views(memory: object, field: str = "memory") -> tuple[Memory, AsyncMemory]:
    """The sync and the async view of the same open store, whichever twin the adapter was handed: an engine, or a
    client of ``memadapt serve`` (``RemoteMemory`` / ``AsyncRemoteMemory``), which has the engine's methods the
    adapters call and stands in for it (typed as the engine, so the adapters need no second type)."""
    from .engine import AsyncMemory, Memory

    if isinstance(memory, Memory | AsyncMemory):
        return memory.as_sync(), memory.as_async()
    remote = sys.modules.get("memadapt_core.remote")  # a client exists only once its module is imported
    if remote is not None and isinstance(memory, remote.RemoteMemory | remote.AsyncRemoteMemory):
        return cast("Memory", memory.as_sync()), cast("AsyncMemory", memory.as_async())
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
