"""Per-operation counters of the consolidation LLM: requests, retries, tokens and latency."""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass

__all__ = ["OperationStats", "UsageStats"]


@dataclass
class OperationStats:
    requests: int = 0  # HTTP requests sent
    answers: int = 0  # answers that passed validation
    retries: int = 0  # requests repeated after a failure or a malformed answer
    errors: int = 0  # requests that failed (HTTP error, timeout, unreadable body)
    malformed: int = 0  # answers that did not fit the schema
    skipped: int = 0  # calls given up because every answer was malformed
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0  # summed over requests


class UsageStats:
    """Thread-safe counters keyed by operation (``extract``, ``reconcile``, ``reflect``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._operations: dict[str, OperationStats] = {}

    def add(self, operation: str, **increments: float) -> None:
        with self._lock:
            stats = self._operations.setdefault(operation, OperationStats())
            for name, value in increments.items():
                setattr(stats, name, getattr(stats, name) + value)

    def as_dict(self) -> dict[str, dict[str, float]]:
        """A snapshot: ``{"extract": {"requests": 3, ..., "total_tokens": 120, "latency_s": 0.4}, ...}``."""
        with self._lock:
            snapshot = {op: asdict(stats) for op, stats in self._operations.items()}
        for values in snapshot.values():
            values["total_tokens"] = values["prompt_tokens"] + values["completion_tokens"]
        return snapshot
