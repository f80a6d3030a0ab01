"""Validation of the messages given to ``add``: each one's keys, role, text, id, moment and metadata."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from memadapt_core.errors import ValidationError
from memadapt_core.models import MAX_ID_CHARS, Kind, refuse_surrogates
from memadapt_core.validation.values import parse_metadata, parse_moment, parse_speaker, parse_text

__all__ = ["MessageInput", "parse_messages"]

_MESSAGE_KEYS = frozenset({"role", "content", "name", "id", "timestamp", "metadata"})


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
    role = None if role is None else parse_speaker(f"{field}.role", role)
    text = parse_text(f"{field}.content", _content_text(f"{field}.content", item.get("content")), max_chars)
    name = item.get("name")
    name = None if name is None else parse_speaker(f"{field}.name", name)
    raw_id = item.get("id")
    if raw_id is not None:
        if isinstance(raw_id, bool) or not isinstance(raw_id, str | int) or not str(raw_id).strip():
            msg = f"{field}.id"
            raise ValidationError(msg, "must be a non-empty string or an integer")
        if len(str(raw_id)) > MAX_ID_CHARS:
            msg = f"{field}.id"
            raise ValidationError(msg, f"must be at most {MAX_ID_CHARS} characters")
        refuse_surrogates(f"{field}.id", str(raw_id))
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
