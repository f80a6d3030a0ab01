"""The no-I/O half of ``add_trajectories``: check scored trajectories and render each as one record to store.

A trajectory is an agent's attempt at a task: its messages in the OpenAI chat shape (tool calls and tool results
included) and a score (0 = failed, 1 = succeeded; any finite number is kept). It is stored raw, as a ``trajectory``
record whose text is the transcript and whose metadata holds the task and the score, before any LLM sees it: the
consolidation worker draws experiences from it later, so nothing acknowledged is lost to an LLM outage.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from memadapt_core.errors import ValidationError
from memadapt_core.validation import parse_metadata, parse_number, parse_text

__all__ = ["dicts_of", "render_message", "trajectory_inputs"]

_TRAJECTORY_KEYS = frozenset({"messages", "score", "task", "id", "metadata", "timestamp"})
_MAX_TRAJECTORIES = 1_000


def trajectory_inputs(trajectories: object, *, agent_id: object, task: object) -> list[dict[str, Any]]:
    """The records ``add`` stores for ``trajectories`` (a trajectory dict or a list of them)."""
    if agent_id is None:
        field = "agent_id"
        raise ValidationError(field, "is required: experience belongs to an agent (or a workspace)")
    default_task = None if task is None else parse_text("task", task, 10_000)
    items = dicts_of("trajectories", trajectories, "a trajectory {messages, score}", _MAX_TRAJECTORIES)
    return [_one(f"trajectories[{i}]", item, default_task) for i, item in enumerate(items)]


def dicts_of(field: str, value: object, what: str, max_items: int) -> Sequence[object]:
    """``value`` as a list: one dict, or a non-empty list (of at most ``max_items``) whose items are checked later."""
    items = [value] if isinstance(value, Mapping) else value
    if not isinstance(items, Sequence) or isinstance(items, str | bytes) or not items:
        raise ValidationError(field, f"must be {what} or a non-empty list of them")
    if len(items) > max_items:
        raise ValidationError(field, f"at most {max_items} per call")
    return items


def _one(field: str, item: object, default_task: str | None) -> dict[str, Any]:
    if not isinstance(item, Mapping):
        msg = f"must be a dict with messages and score, not {type(item).__name__}"
        raise ValidationError(field, msg)
    unknown = sorted(set(item) - _TRAJECTORY_KEYS)
    if unknown:
        msg = f"unknown key; a trajectory has {sorted(_TRAJECTORY_KEYS)}"
        where = f"{field}.{unknown[0]}"
        raise ValidationError(where, msg)
    score = parse_number(f"{field}.score", item.get("score"), "(0 = failed, 1 = succeeded)")
    if not 0.0 <= score <= 1.0:  # a score of 7 would outweigh every honest run in the agent's shared lessons
        where = f"{field}.score"
        raise ValidationError(where, f"is {score:g}; give a number from 0 (failed) to 1 (succeeded)")
    task = item.get("task", default_task)
    task = None if task is None else parse_text(f"{field}.task", task, 10_000)
    messages = item.get("messages")
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes) or not messages:
        where = f"{field}.messages"
        raise ValidationError(where, "must be a non-empty list of messages {role, content}")
    lines = [f"Task: {task}"] if task else []
    lines += [render_message(f"{field}.messages[{n}]", m) for n, m in enumerate(messages)]
    metadata = parse_metadata(item.get("metadata"), f"{field}.metadata")
    metadata |= {"score": score, "steps": len(messages)}
    if task:
        metadata["task"] = task
    out: dict[str, Any] = {"content": "\n".join(lines), "metadata": metadata}
    for key in ("id", "timestamp"):
        if item.get(key) is not None:
            out[key] = item[key]
    return out


def render_message(field: str, message: object) -> str:
    """One line (or a few) of the transcript: who said what, which tool was called with what, what it returned."""
    if not isinstance(message, Mapping):
        msg = f"must be a message dict {{role, content}}, not {type(message).__name__}"
        raise ValidationError(field, msg)
    role = message.get("role")
    if not isinstance(role, str) or not role.strip():
        where = f"{field}.role"
        raise ValidationError(where, "is required (user, assistant, system, tool)")
    text = _text(f"{field}.content", message.get("content"))
    name = message.get("name")
    who = f"tool {name}" if role == "tool" and isinstance(name, str) else role
    lines = [f"[{who}] {text}"] if text else []
    for call in message.get("tool_calls") or []:
        function = call.get("function", call) if isinstance(call, Mapping) else None
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            where = f"{field}.tool_calls"
            raise ValidationError(where, "each call has a function {name, arguments}")
        arguments = function.get("arguments", "")
        shown = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
        lines.append(f"[{role} calls] {function['name']}({shown})")
    if not lines:
        where = f"{field}.content"
        raise ValidationError(where, "is empty and the message calls no tool")
    return "\n".join(lines)


def _text(field: str, content: object) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        parts = [p.get("text", "") if isinstance(p, Mapping) else p for p in content]
        return "\n".join(p for p in parts if isinstance(p, str) and p).strip()
    if isinstance(content, Mapping):
        return json.dumps(content, ensure_ascii=False)
    msg = f"must be text, not {type(content).__name__}"
    raise ValidationError(field, msg)
