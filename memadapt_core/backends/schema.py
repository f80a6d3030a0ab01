"""The collection schema both backends build: payload indexes (docs/storage.md) and the info point's payload."""

from __future__ import annotations

from typing import Any

from memadapt_core.backends.base import CollectionInfo

__all__ = [
    "KEYWORD_INDEXES", "SCHEMA_VERSION", "TENANT_INDEX", "TIME_INDEXES", "info_payload", "read_info", "read_schema",
]  # fmt: skip

# 1: the first layout; 2: the embedded store keeps records at integer point ids (backends/_slots.py).
SCHEMA_VERSION = 2
TENANT_INDEX = "user_id"
KEYWORD_INDEXES = ("agent_id", "session_id", "kind")  # what filters use: an index costs every write
TIME_INDEXES = ("observed_at", "valid_to")
INTEGER_INDEXES = ("consolidated",)  # 0/1: see records.payload_of


def info_payload(info: CollectionInfo) -> dict[str, Any]:
    return {"memadapt_info": {"embedder": info.embedder, "dim": info.dim, "schema": SCHEMA_VERSION}}


def read_info(payload: dict[str, Any]) -> CollectionInfo | None:
    raw = payload.get("memadapt_info")
    if not isinstance(raw, dict):
        return None
    return CollectionInfo(name="", embedder=str(raw.get("embedder")), dim=int(raw.get("dim", 0)))


def read_schema(payload: dict[str, Any]) -> int:
    raw = payload.get("memadapt_info")
    return int(raw.get("schema", 1)) if isinstance(raw, dict) else 1
