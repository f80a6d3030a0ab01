"""The collection schema both backends build: payload indexes (docs/storage.md) and the info point's payload."""

from __future__ import annotations

from typing import Any

from memadapt_core.backends.base import CollectionInfo
from memadapt_core.errors import ConfigurationError

__all__ = [
    "KEYWORD_INDEXES", "SCHEMA_VERSION", "TENANT_INDEX", "TIME_INDEXES", "check_embedder", "info_payload",
    "read_info", "read_schema",
]  # fmt: skip

# 1: the first layout; 2: the embedded store keeps records at integer point ids (backends/edge/slots.py).
SCHEMA_VERSION = 2
TENANT_INDEX = "user_id"
KEYWORD_INDEXES = ("agent_id", "session_id", "kind")  # what filters use: an index costs every write
TIME_INDEXES = ("observed_at", "valid_to")
INTEGER_INDEXES = ("consolidated",)  # 0/1: see records.payload_of


def info_payload(info: CollectionInfo) -> dict[str, Any]:
    info_ = {"embedder": info.embedder, "dim": info.dim, "schema": SCHEMA_VERSION}
    if info.pooling != "mean":  # a store made before pooling was recorded pooled by the mean
        info_["pooling"] = info.pooling
    if info.lexicon != "words":  # ... and cut its words as "words" does
        info_["lexicon"] = info.lexicon
    return {"memadapt_info": info_}


def read_info(payload: dict[str, Any]) -> CollectionInfo | None:
    raw = payload.get("memadapt_info")
    if not isinstance(raw, dict):
        return None
    return CollectionInfo(
        name="", embedder=str(raw.get("embedder")), dim=int(raw.get("dim", 0)),
        pooling=str(raw.get("pooling", "mean")), lexicon=str(raw.get("lexicon", "words")),
    )  # fmt: skip


def read_schema(payload: dict[str, Any]) -> int:
    raw = payload.get("memadapt_info")
    return int(raw.get("schema", 1)) if isinstance(raw, dict) else 1


def check_embedder(found: CollectionInfo | None, info: CollectionInfo, where: str) -> None:
    """Refuse a collection made by another embedder (or dimension) than the one opening it."""
    if found is not None and (found.embedder != info.embedder or found.dim != info.dim):
        msg = (
            f"collection {info.name!r}{where} was made by embedder {found.embedder!r} (dim {found.dim}), not "
            f"{info.embedder!r} (dim {info.dim}): its vectors would be garbage. Use the same embedder, another "
            "collection name, or export/import to re-embed."
        )
        raise ConfigurationError(msg)
