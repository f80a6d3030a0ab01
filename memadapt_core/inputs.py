"""Validation of everything a caller passes in. No I/O; each error names the field and changes nothing."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, cast, get_args

from .backends.base import MetaCondition
from .errors import ValidationError
from .models import KINDS, Kind, Scope

__all__ = [
    "RESERVED_METADATA_KEYS",
    "MessageInput",
    "fit_query",
    "parse_filters",
    "parse_kinds",
    "parse_limit",
    "parse_messages",
    "parse_metadata",
    "parse_moment",
    "parse_scope",
    "parse_text",
    "parse_time_range",
    "require_id",
]

# Metadata is stored apart from system fields, but a key that names one is almost surely a mistake (or an
# attempt to move a record to another scope): refuse it instead of silently keeping two meanings.
RESERVED_METADATA_KEYS = frozenset(
    {
        "id", "user_id", "agent_id", "session_id", "kind", "hash", "external_id", "consolidated", "created_at",
        "updated_at", "observed_at", "valid_from", "valid_to", "supersedes", "superseded_by", "source_ids",
    }
)  # fmt: skip
_MAX_ID_CHARS = 512
_MAX_METADATA_BYTES = 64_000
_MESSAGE_KEYS = frozenset({"role", "content", "name", "id", "timestamp", "metadata"})


def parse_scope(
    user_id: object = None, agent_id: object = None, session_id: object = None, *, required: bool = True
) -> Scope:
    values: dict[str, str | None] = {}
    for name, value in (("user_id", user_id), ("agent_id", agent_id), ("session_id", session_id)):
        values[name] = _scope_id(name, value)
    scope = Scope(**values)
    if required and scope.is_empty():
        msg = "name at least one of user_id, agent_id or session_id: every memory belongs to a scope"
        msg_0 = "user_id"
        raise ValidationError(msg_0, msg)
    return scope


def require_id(field: str, value: object) -> str:
    """A scope id that must be given (an adapter whose framework always names the user, say)."""
    found = _scope_id(field, value)
    if found is None:
        raise ValidationError(field, "is required: every call is scoped by it")
    return found


def _scope_id(field: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationError(field, f"must be a string, not {type(value).__name__}")
    if not value.strip():
        raise ValidationError(field, "must be a non-empty string")
    if len(value) > _MAX_ID_CHARS or any(ord(c) < 32 for c in value):
        raise ValidationError(field, f"must be at most {_MAX_ID_CHARS} printable characters")
    return value


def parse_text(field: str, value: object, max_chars: int) -> str:
    if not isinstance(value, str):
        raise ValidationError(field, f"must be a string, not {type(value).__name__}")
    text = value.strip()
    if not text:
        raise ValidationError(field, "must not be empty or whitespace")
    if len(text) > max_chars:
        raise ValidationError(field, f"has {len(text)} characters; the limit is {max_chars} (max_text_chars)")
    if "\x00" in text:
        raise ValidationError(field, "must not contain NUL characters")
    return text


def parse_kinds(kinds: object) -> tuple[Kind, ...] | None:
    if kinds is None:
        return None
    items = [kinds] if isinstance(kinds, str) else kinds
    if not isinstance(items, Sequence | set | frozenset) or not items:
        field = "kinds"
        raise ValidationError(field, f"must be a non-empty list of {', '.join(KINDS)}")
    out: list[Kind] = []
    for k in items:
        if k not in get_args(Kind):
            field = "kinds"
            raise ValidationError(field, f"unknown kind {k!r}; use {', '.join(KINDS)}")
        out.append(cast(Kind, k))
    return tuple(dict.fromkeys(out))


def parse_kind(kind: object) -> Kind:
    if kind not in get_args(Kind):
        field = "kind"
        raise ValidationError(field, f"unknown kind {kind!r}; use {', '.join(KINDS)}")
    return cast(Kind, kind)


def parse_limit(limit: object, max_limit: int, field: str = "limit") -> int:
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise ValidationError(field, f"must be an integer, not {type(limit).__name__}")
    if limit <= 0:
        raise ValidationError(field, "must be at least 1")
    if limit > max_limit:
        raise ValidationError(field, f"must be at most {max_limit} (max_limit)")
    return limit


def parse_moment(field: str, value: object) -> datetime:
    """A datetime (naive = UTC), an ISO 8601 string, or a Unix timestamp in seconds."""
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError as exc:
            raise ValidationError(field, f"{value!r} is not an ISO 8601 date-time") from exc
        return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        try:
            return datetime.fromtimestamp(value, tz=UTC)
        except (OverflowError, OSError, ValueError) as exc:
            raise ValidationError(field, f"{value!r} is not a valid Unix timestamp") from exc
    raise ValidationError(field, f"must be a datetime or an ISO 8601 string, not {type(value).__name__}")


def parse_time_range(value: object) -> tuple[datetime | None, datetime | None] | None:
    if value is None:
        return None
    if not isinstance(value, tuple | list) or len(value) != 2:
        field = "time_range"
        raise ValidationError(field, "must be a (start, end) pair; either end may be None")
    start = None if value[0] is None else parse_moment("time_range[0]", value[0])
    end = None if value[1] is None else parse_moment("time_range[1]", value[1])
    if start is None and end is None:
        field = "time_range"
        raise ValidationError(field, "give a start, an end or both")
    if start is not None and end is not None and start >= end:
        field = "time_range"
        raise ValidationError(field, "start must be before end")
    return start, end


def parse_metadata(value: object, field: str = "metadata") -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValidationError(field, f"must be a dict, not {type(value).__name__}")
    for key in value:
        if not isinstance(key, str):
            raise ValidationError(field, f"keys must be strings, not {type(key).__name__}")
        if key in RESERVED_METADATA_KEYS:
            msg = f"{field}.{key}"
            raise ValidationError(msg, "is a system field; choose another key")
    try:
        encoded = json.dumps(value, allow_nan=False, check_circular=True)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValidationError(field, f"must be JSON-serialisable (finite numbers, no cycles): {exc}") from exc
    if len(encoded) > _MAX_METADATA_BYTES:
        raise ValidationError(field, f"is {len(encoded)} bytes as JSON; the limit is {_MAX_METADATA_BYTES}")
    result: dict[str, Any] = json.loads(encoded)  # a deep copy in plain JSON types
    return result


class MessageInput:
    """One validated message as given to ``add`` (before hooks, dedup and embedding)."""

    __slots__ = ("external_id", "metadata", "name", "observed_at", "role", "text")

    def __init__(
        self,
        text: str,
        role: str | None,
        name: str | None,
        external_id: str | None,
        observed_at: datetime | None,
        metadata: dict[str, Any],
    ) -> None:
        self.text = text
        self.role = role
        self.name = name
        self.external_id = external_id
        self.observed_at = observed_at
        self.metadata = metadata


def parse_messages(messages: object, *, kind: Kind, max_chars: int, max_items: int = 10_000) -> list[MessageInput]:
    if isinstance(messages, str | Mapping):
        items: list[object] = [messages]
    elif isinstance(messages, Sequence) and not isinstance(messages, bytes | bytearray):
        items = list(messages)
    else:
        field = "messages"
        raise ValidationError(field, f"must be a str, a dict or a list of them, not {type(messages).__name__}")
    if not items:
        field = "messages"
        raise ValidationError(field, "must not be empty")
    if len(items) > max_items:
        field = "messages"
        raise ValidationError(field, f"at most {max_items} per call")
    return [_message(f"messages[{i}]", item, kind, max_chars) for i, item in enumerate(items)]


def _message(field: str, item: object, kind: Kind, max_chars: int) -> MessageInput:
    if isinstance(item, str):
        return MessageInput(
            parse_text(field, item, max_chars), "user" if kind == "message" else None, None, None, None, {}
        )
    if not isinstance(item, Mapping):
        raise ValidationError(field, f"must be a str or a dict, not {type(item).__name__}")
    unknown = set(item) - _MESSAGE_KEYS - {"tool_calls", "tool_call_id", "refusal", "audio", "type"}
    if unknown:
        msg = f"{field}.{sorted(unknown)[0]}"
        raise ValidationError(msg, f"unknown key; a message has {sorted(_MESSAGE_KEYS)}")
    role = item.get("role")
    if role is None and kind == "message":
        msg = f"{field}.role"
        raise ValidationError(msg, "is required for a message (user, assistant, system, tool)")
    if role is not None and (not isinstance(role, str) or not role.strip()):
        msg = f"{field}.role"
        raise ValidationError(msg, "must be a non-empty string")
    text = parse_text(f"{field}.content", _content_text(f"{field}.content", item.get("content")), max_chars)
    name = item.get("name")
    if name is not None and (not isinstance(name, str) or not name.strip() or len(name) > _MAX_ID_CHARS):
        msg = f"{field}.name"
        raise ValidationError(msg, "must be a non-empty string")
    raw_id = item.get("id")
    if raw_id is not None:
        if isinstance(raw_id, bool) or not isinstance(raw_id, str | int) or not str(raw_id).strip():
            msg = f"{field}.id"
            raise ValidationError(msg, "must be a non-empty string or an integer")
        if len(str(raw_id)) > _MAX_ID_CHARS:
            msg = f"{field}.id"
            raise ValidationError(msg, f"must be at most {_MAX_ID_CHARS} characters")
    ts = item.get("timestamp")
    observed = None if ts is None else parse_moment(f"{field}.timestamp", ts)
    meta = parse_metadata(item.get("metadata"), f"{field}.metadata")
    return MessageInput(text, role, name, None if raw_id is None else str(raw_id), observed, meta)


def _content_text(field: str, content: object) -> object:
    """OpenAI content may be a list of parts: the text parts are joined; anything else is refused."""
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, Mapping) and part.get("type") == "text" and isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif isinstance(part, str):
                parts.append(part)
        if not parts:
            raise ValidationError(field, "has no text part; only text can be stored")
        return "\n".join(parts)
    return content


def fit_query(text: str, max_chars: int) -> str:
    """A conversation turn made fit to be a search query: a turn can be longer than the engine accepts (a pasted
    document) or carry NUL characters, and a memory must not break an agent's turn for that. Keeps the last
    ``max_chars`` characters, where the question usually is, and drops NULs. Adapters call this; ``search``
    itself stays strict."""
    return text.replace("\x00", "").strip()[-max_chars:].strip()


_OPS = {"$eq": "eq", "$ne": "ne", "$gt": "gt", "$gte": "gte", "$lt": "lt", "$lte": "lte", "$in": "in"}


def parse_filters(filters: object) -> tuple[MetaCondition, ...]:
    """``{"key": value}`` or ``{"key": {"$gt": 3, ...}}`` on the user's metadata."""
    if filters is None:
        return ()
    if not isinstance(filters, Mapping):
        field = "filters"
        raise ValidationError(field, f"must be a dict, not {type(filters).__name__}")
    out: list[MetaCondition] = []
    for key, cond in filters.items():
        if not isinstance(key, str) or not key:
            field = "filters"
            raise ValidationError(field, "keys must be non-empty strings")
        ops = cond if isinstance(cond, Mapping) else {"$eq": cond}
        for op, value in ops.items():
            if op not in _OPS:
                msg = f"filters.{key}"
                raise ValidationError(msg, f"unknown operator {op!r}; use {', '.join(_OPS)}")
            name = _OPS[op]
            _check_filter_value(f"filters.{key}.{op}", name, value)
            out.append(MetaCondition(key, name, value))  # type: ignore[arg-type]
    return tuple(out)


def _check_filter_value(field: str, op: str, value: object) -> None:
    if op in ("gt", "gte", "lt", "lte"):
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise ValidationError(field, "range operators compare finite numbers")
    elif op == "in":
        if not isinstance(value, list | tuple) or not value:
            raise ValidationError(field, "$in takes a non-empty list")
        if not (
            all(isinstance(v, str) for v in value) or all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            raise ValidationError(field, "$in takes a list of strings or a list of integers")
    elif not isinstance(value, str | int | float | bool) or (isinstance(value, float) and not math.isfinite(value)):
        raise ValidationError(field, "equality compares a string, a number or a boolean")
