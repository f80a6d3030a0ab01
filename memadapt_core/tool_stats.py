"""A tool's statistics from its calls (``tool_call`` records): success rate, latency percentiles, tokens."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel

from memadapt_core.models import MemoryRecord

__all__ = ["ToolGuide", "ToolStats", "tool_stats"]


class ToolStats(BaseModel):
    """What a tool's latest calls say: how often it works, how long it takes, what it costs."""

    tool: str
    calls: int = 0
    successes: int = 0
    success_rate: float | None = None
    latency_p50_s: float | None = None
    latency_p95_s: float | None = None
    mean_tokens: float | None = None
    last_called: datetime | None = None


def _percentile(values: list[float], q: float) -> float | None:
    """The nearest-rank percentile (``q`` in [0, 1]) of ``values``."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _numbers(calls: Sequence[MemoryRecord], key: str) -> list[float]:
    values = (c.metadata.get(key) for c in calls)
    return [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]


def tool_stats(tool: str, calls: Sequence[MemoryRecord]) -> ToolStats:
    """Statistics of ``calls`` (the tool's latest)."""
    if not calls:
        return ToolStats(tool=tool)
    successes = sum(1 for c in calls if c.metadata.get("success") is True)
    latencies = [
        float(c.metadata["duration_s"]) for c in calls if isinstance(c.metadata.get("duration_s"), int | float)
    ]
    tokens = [float(c.metadata["tokens"]) for c in calls if isinstance(c.metadata.get("tokens"), int | float)]
    return ToolStats(
        tool=tool,
        calls=len(calls),
        successes=successes,
        success_rate=successes / len(calls),
        latency_p50_s=_percentile(latencies, 0.5),
        latency_p95_s=_percentile(latencies, 0.95),
        mean_tokens=sum(tokens) / len(tokens) if tokens else None,
        last_called=max(c.observed_at for c in calls),
    )


class ToolGuide(BaseModel):
    """A tool's statistics and its usage guidelines (None until the LLM has written them)."""

    tool: str
    stats: ToolStats
    guidelines: str | None = None
    updated_at: datetime | None = None
    guide_id: str | None = None
