"""The engine's public calls a client of ``memadapt serve`` does not make (``LOCAL_ONLY``)."""

from __future__ import annotations

__all__ = ["LOCAL_ONLY"]

LOCAL_ONLY = frozenset(
    {"answer_stream", "consolidate", "export_reme", "import_", "import_reme", "open", "optimize", "stats"}
)
