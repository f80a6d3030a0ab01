"""ReMe's experience-library lines <-> records, without I/O.

A line of ReMe's libraries and workspace dumps (``docs/library/appworld.jsonl`` and ``bfcl_v3.jsonl`` in ReMe's
repository) is one memory: ``{"workspace_id", "memory_id", "memory_type", "when_to_use", "content", "score",
"time_created", "time_modified", "author", "metadata"}``. A ``task`` line becomes one of the agent's experiences,
exactly as the consolidation worker writes them (kind ``experience``, no user and no session, its text the
situation ``when_to_use``, the lesson in ``metadata.content``), so every read of experience finds it. A
``personal`` line becomes a fact of the user its ``target`` names (for the same agent); one naming nobody is
skipped. The origin is kept: ``metadata.origin = "reme"`` and ``metadata.memory_id``; ReMe's own metadata rides
along under ``metadata.reme``.

Record ids derive from the scope and the ``memory_id``, so loading a library twice stores nothing new. A
``memory_id`` that is a record id of this store (a lesson memadapt learnt, exported with ``export_reme``) maps back
to that record: ``LibraryLine.alias``.
"""

from __future__ import annotations

import json
import math
import uuid
from datetime import UTC, datetime
from typing import Any, NamedTuple

from memadapt_core.engine.transfer.jsonl import Imported, decode_line
from memadapt_core.errors import ValidationError
from memadapt_core.models import HistoryEvent, MemoryRecord, Scope
from memadapt_core.record_codec import normalised_hash, record_id
from memadapt_core.validation import parse_metadata, parse_text

__all__ = ["REME_TIME_FORMAT", "LibraryLine", "parse_reme_line", "reme_memory"]

REME_TIME_FORMAT = "%Y-%m-%d %H:%M:%S"  # ReMe's times: naive, read as UTC
_MAX_MEMORY_ID = 200


class LibraryLine(NamedTuple):
    """One parsed line: what to store and, for a lesson exported from this store, the record it already is."""

    item: Imported
    alias: str | None


def parse_reme_line(line: str, where: str, agent_id: str, now: datetime, max_chars: int) -> LibraryLine | None:
    """One line, checked; None for a personal memory that names no user (``target``). ``ValidationError`` names
    ``where`` (the file and line) and the field."""
    try:
        data = decode_line(line)
    except ValueError as exc:
        raise ValidationError(where, f"is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ValidationError(where, "is not a ReMe memory (a JSON object with memory_id, when_to_use, content)")
    try:
        return _parse(data, agent_id, now, max_chars)
    except ValidationError as exc:
        raise ValidationError(where, f"{exc.field}: {exc.problem}") from exc


def _parse(data: dict[str, Any], agent_id: str, now: datetime, max_chars: int) -> LibraryLine | None:
    memory_id = data.get("memory_id")
    if not isinstance(memory_id, str) or not memory_id.strip() or len(memory_id) > _MAX_MEMORY_ID:
        field = "memory_id"
        raise ValidationError(field, f"must be a non-empty string of at most {_MAX_MEMORY_ID} characters")
    memory_type = data.get("memory_type", "task")
    if memory_type not in ("task", "personal"):
        field = "memory_type"
        raise ValidationError(field, f"{memory_type!r} is neither a lesson ('task') nor a personal memory")
    when_to_use, content = _string(data, "when_to_use"), _string(data, "content")
    created = _moment(data, "time_created", now)
    modified = max(created, _moment(data, "time_modified", created))
    metadata: dict[str, Any] = {"origin": "reme", "memory_id": memory_id, "score": _score(data)}
    if isinstance(author := data.get("author"), str) and author:
        metadata["author"] = author
    if reme := _reme_metadata(data.get("metadata")):
        metadata["reme"] = reme
    if memory_type == "task":
        scope = Scope.of(agent_id=agent_id)
        text = when_to_use.strip() or content
        metadata["content"] = content
        kind = "experience"
    else:
        target = data.get("target")
        if not isinstance(target, str) or not target.strip():
            return None
        scope = Scope.of(user_id=target, agent_id=agent_id)
        text = content.strip() or when_to_use
        metadata["when_to_use"] = when_to_use
        kind = "fact"
    text = parse_text("when_to_use" if kind == "experience" else "content", text, max_chars)
    rid = record_id(scope, f"reme:{memory_id}")
    record = MemoryRecord(
        id=rid, text=text, kind=kind, **scope.model_dump(), observed_at=created, created_at=created,
        updated_at=modified, valid_from=created, hash=normalised_hash(text), metadata=parse_metadata(metadata),
    )  # fmt: skip
    history = [HistoryEvent(record_id=rid, event="add", at=now, new_text=text)]
    return LibraryLine(Imported(record, history, scope), _alias(memory_id) if kind == "experience" else None)


def _string(data: dict[str, Any], field: str) -> str:
    value = data.get(field, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValidationError(field, f"must be a string, not {type(value).__name__}")
    return value


def _score(data: dict[str, Any]) -> float:
    value = data.get("score", 0.0)
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        field = "score"
        raise ValidationError(field, f"must be a finite number, not {value!r}")
    return float(value)


def _moment(data: dict[str, Any], field: str, default: datetime) -> datetime:
    value = data.get(field)
    if value in (None, ""):
        return default
    if not isinstance(value, str):
        raise ValidationError(field, f"must be a time like '2025-07-24 21:15:17', not {type(value).__name__}")
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError as exc:
        raise ValidationError(field, f"{value[:40]!r} is not a time like '2025-07-24 21:15:17'") from exc
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _reme_metadata(value: object) -> dict[str, Any]:
    """ReMe's own metadata (a dict, or the JSON string its vector nodes keep), without empty values."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {"text": value}
    if not isinstance(value, dict):
        return {}
    return {str(k): v for k, v in value.items() if v is not None}


def _alias(memory_id: str) -> str | None:
    """The record id a ``memory_id`` names when it is a UUID (with or without dashes): a lesson of this store."""
    try:
        return str(uuid.UUID(memory_id))
    except ValueError:
        return None


def reme_memory(record: MemoryRecord, workspace_id: str) -> dict[str, Any]:
    """An experience as a line of ReMe's format (``memory_id``: ReMe's own for a lesson loaded from ReMe, else
    the record id without dashes, as ReMe writes its ids)."""
    meta = record.metadata
    from_reme = meta.get("origin") == "reme" and isinstance(meta.get("memory_id"), str)
    memory_id = meta["memory_id"] if from_reme else record.id.replace("-", "")
    score = meta.get("score")
    kept = meta.get("reme")
    own = {k: v for k, v in meta.items() if k not in ("origin", "memory_id", "content", "score", "author", "reme")}
    if record.source_ids:
        own["source_ids"] = list(record.source_ids)
    author = meta.get("author")
    return {
        "workspace_id": workspace_id,
        "memory_id": memory_id,
        "memory_type": "task",
        "when_to_use": record.text,
        "content": meta.get("content") if isinstance(meta.get("content"), str) else "",
        "score": float(score) if isinstance(score, int | float) and not isinstance(score, bool) else 0.0,
        "time_created": (record.valid_from or record.observed_at).astimezone(UTC).strftime(REME_TIME_FORMAT),
        "time_modified": record.updated_at.astimezone(UTC).strftime(REME_TIME_FORMAT),
        "author": author if isinstance(author, str) else "memadapt",
        "metadata": kept if isinstance(kept, dict) else own,
    }
