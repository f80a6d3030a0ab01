"""The no-I/O half of tool memory: check recorded tool calls, and the statistics and guide of a tool.

A tool call is stored as one ``tool_call`` record (the text ``name(arguments) -> result``, cut short; metadata:
``tool``, ``success``, ``duration_s``, ``tokens``), with no LLM involved: recording is one embedding and one write.
ReMe's field names are accepted too (``tool_name``, ``input``, ``output``, ``time_cost``, ``token_cost``,
``create_time``). Identical calls are distinct records unless they carry the same ``id``. Statistics are
computed when asked, from a tool's latest calls; the usage guide is written by the consolidation worker once
``task_memory.tool_guide_every`` new calls have come in.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from memadapt_core.engine.tasks.trajectories import dicts_of
from memadapt_core.errors import ValidationError
from memadapt_core.models import MemoryRecord
from memadapt_core.tool_stats import ToolGuide, ToolStats
from memadapt_core.validation import parse_json_object, parse_number, parse_text

__all__ = ["ToolGuide", "guide_of", "tool_call_inputs"]

_ALIASES = {"input": "arguments", "output": "result", "time_cost": "duration", "token_cost": "tokens",
            "create_time": "timestamp", "tool_name": "name"}  # fmt: skip
_KEYS = frozenset({"id", "name", "arguments", "result", "success", "duration", "tokens", "timestamp", "metadata"})
_SHOWN_CHARS = 500  # of the arguments and of the result, in the stored text
_MAX_CALLS = 10_000


def tool_call_inputs(calls: object) -> list[dict[str, Any]]:
    """The records ``add`` stores for ``calls`` (a call dict or a list of them)."""
    items = dicts_of("calls", calls, "a tool call {name, arguments, result, success, ...}", _MAX_CALLS)
    return [_one(f"calls[{i}]", item) for i, item in enumerate(items)]


def _one(field: str, item: object) -> dict[str, Any]:
    if not isinstance(item, Mapping):
        msg = f"must be a tool call dict, not {type(item).__name__}"
        raise ValidationError(field, msg)
    call = {_ALIASES.get(str(k), str(k)): v for k, v in item.items()}
    # Errors name a key as the caller typed it ("time_cost" in ReMe's words, "duration" in ours).
    # A missing name is named in the words of the keys given.
    typed = {_ALIASES.get(str(k), str(k)): str(k) for k in item}
    typed.setdefault("name", "tool_name" if _ALIASES.keys() & set(map(str, item)) else "name")
    typed.setdefault("duration", "duration")
    typed.setdefault("tokens", "tokens")
    unknown = sorted(set(call) - _KEYS)
    if unknown:
        where, msg = f"{field}.{typed[unknown[0]]}", f"unknown key; a tool call has {sorted(_KEYS)}"
        raise ValidationError(where, msg)
    name = parse_text(f"{field}.{typed['name']}", call.get("name"), 200)
    success = call.get("success", True)
    if not isinstance(success, bool):
        where = f"{field}.success"
        raise ValidationError(where, "must be true or false")
    metadata: dict[str, Any] = {**parse_json_object(f"{field}.metadata", call.get("metadata") or {})}
    metadata |= {"tool": name, "success": success}
    for key, unit in (("duration", "seconds"), ("tokens", "a count")):
        if call.get(key) is not None:
            value = parse_number(f"{field}.{typed[key]}", call[key], f"({unit})")
            if value < 0:
                where = f"{field}.{typed[key]}"
                raise ValidationError(where, "must not be negative")
            metadata["duration_s" if key == "duration" else "tokens"] = value
    arguments = _shown(call.get("arguments"))
    result = _shown(call.get("result"))
    text = f"{name}({arguments})" + (f" -> {result}" if result else "") + ("" if success else " [failed]")
    # A call is an event: the same call made twice is two calls. Its own id (e.g. the model's tool_call_id) makes
    # recording it idempotent; without one each recording is new.
    call_id = call.get("id") if call.get("id") is not None else uuid.uuid4().hex
    out: dict[str, Any] = {"content": text, "name": name, "metadata": metadata, "id": call_id}
    if call.get("timestamp") is not None:
        out["timestamp"] = call["timestamp"]
    return out


def _shown(value: object) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"


def guide_of(tool: str, stats: ToolStats, guides: Sequence[MemoryRecord]) -> ToolGuide:
    """The tool's guide: its statistics and the latest valid ``tool_guide`` record's guidelines."""
    valid = [g for g in guides if g.valid_to is None]
    if not valid:
        return ToolGuide(tool=tool, stats=stats)
    latest = max(valid, key=lambda g: g.created_at)
    text = latest.metadata.get("guidelines")
    return ToolGuide(
        tool=tool, stats=stats, guidelines=text if isinstance(text, str) else latest.text,
        updated_at=latest.created_at, guide_id=latest.id,
    )  # fmt: skip
