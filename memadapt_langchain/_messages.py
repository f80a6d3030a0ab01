"""LangChain messages <-> the engine's message dicts and records, losing nothing LangChain needs back."""

from __future__ import annotations

import json
import uuid

from memadapt_core import JSON, MemoryRecord

from ._engine import LANGCHAIN_KEY
from ._framework import BaseMessage, message_to_dict, messages_from_dict

__all__ = ["message_input", "record_message"]

_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool", "function": "function"}
_TYPES = {"user": "human", "assistant": "ai", "system": "system"}  # roles any framework's turn can come back as


def _role(message: BaseMessage) -> str:
    role = getattr(message, "role", None)  # ChatMessage carries its own role
    return role if isinstance(role, str) and role else _ROLES.get(message.type, message.type)


def _text(message: BaseMessage) -> str:
    """The words the engine stores and searches; a turn without text (a bare tool call) says what it did."""
    if message.text.strip():
        return message.text
    calls = getattr(message, "tool_calls", None) or []
    if calls:
        return "; ".join(f"called {c['name']}({json.dumps(c['args'], sort_keys=True)})" for c in calls)
    return f"({message.type} message without text)"


def message_input(message: BaseMessage) -> dict[str, JSON]:
    """The dict ``add`` takes. Every message gets an id (its own, else a new one) so repeated words are kept."""
    data = message_to_dict(message)
    text = _text(message)
    if data["data"].get("content") == text == text.strip():
        del data["data"]["content"]  # the record's text (which the engine strips): store it once
    entry: dict[str, JSON] = {
        "role": _role(message),
        "content": text,
        "id": message.id or str(uuid.uuid4()),
        "metadata": {LANGCHAIN_KEY: data},
    }
    if message.name:
        entry["name"] = message.name
    return entry


def record_message(record: MemoryRecord) -> BaseMessage:
    """The LangChain message a record was made from; a turn stored by another framework by its role."""
    stored = record.metadata.get(LANGCHAIN_KEY)
    if isinstance(stored, dict) and isinstance(stored.get("data"), dict):
        data = {**stored["data"]}
        data.setdefault("content", record.text)
        return messages_from_dict([{"type": stored["type"], "data": data}])[0]
    role = record.role or "user"
    message_type = _TYPES.get(role, "chat")
    data = {"content": record.text, "name": record.name}
    if message_type == "chat":
        data["role"] = role
    return messages_from_dict([{"type": message_type, "data": data}])[0]
