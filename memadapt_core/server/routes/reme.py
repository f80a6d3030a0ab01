"""ReMe-compatible routes of ``memadapt serve``: ReMe's request bodies, answered by memadapt's engine.

``POST /summary_task_memory`` ``{workspace_id, trajectories: [{messages, score}]}``, ``POST /retrieve_task_memory``
``{workspace_id, query, top_k}``, the same pair for personal memory, and tool memory's ``add_tool_call_result``,
``summary_tool_memory`` and ``retrieve_tool_memory``, as ReMe documents them; ``workspace_id`` is
the agent scope (``agent_id``), the user is the bearer token's, as on every route. Answers keep ReMe's shape:
``{"success", "answer", "metadata": {"memory_list": [...]}}``. Summaries store the trajectories (or the
conversation) at once and return; experiences and facts are drawn in the background, as ``add`` does.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from memadapt_core.consolidation.planning.experience_plan import experience_content
from memadapt_core.engine import AsyncMemory
from memadapt_core.errors import ValidationError
from memadapt_core.formatting import render_guidance
from memadapt_core.models import MemoryRecord, SearchHit
from memadapt_core.server.http_api import Handler, _json_body, _required, _scope

from .endpoint import Endpoint, response, schema_body

__all__ = ["ENDPOINTS", "WORKSPACE", "reme_endpoint"]

_SUMMARY = {"workspace_id", "trajectories", "metadata"}
_RETRIEVE = {"workspace_id", "query", "top_k"}
_TOOL_CALLS = {"workspace_id", "tool_call_results"}
_TOOL_NAMES = {"workspace_id", "tool_names"}
# Names typed with a Chinese input method come separated by its full-width comma or the enumeration comma.
_NAME_SEPARATORS = re.compile("[,\uff0c\u3001]")


def _answer(answer: str, memories: list[dict[str, Any]], **extra: Any) -> JSONResponse:
    return JSONResponse({"success": True, "answer": answer, "metadata": {"memory_list": memories, **extra}})


def _memory(record: MemoryRecord, workspace: str, score: float | None, kind: str) -> dict[str, Any]:
    """A record in the shape of ReMe's memory objects (``memory_id``, ``when_to_use``, ``content``, ...)."""
    view: dict[str, Any] = {
        "memory_id": record.id,
        "memory_type": kind,
        "workspace_id": workspace,
        "when_to_use": record.text if kind == "task" else "",
        "content": experience_content(record) if kind == "task" else record.text,
        "time_created": record.created_at.isoformat(),
        "metadata": {**record.metadata, "kind": record.kind},
    }
    if score is not None:
        view["score"] = round(score, 4)
    return view


async def summary_task_memory(request: Request, memory: AsyncMemory) -> Response:
    body = await _json_body(request, _SUMMARY)
    workspace = _required(body, "workspace_id", "the workspace (agent) the experience belongs to")
    trajectories = _required(body, "trajectories", "a list of {messages, score}")
    scope = _scope(request, {"agent_id": workspace}, "workspace_id")
    stored = await memory.add_trajectories(trajectories, **scope, metadata=body.get("metadata"))
    listed = [_memory(r, workspace, None, "trajectory") for r in stored]
    note = f"{len(stored)} trajectories stored; experiences are drawn from them in the background"
    return _answer(note, listed)


async def retrieve_task_memory(request: Request, memory: AsyncMemory) -> Response:
    body = await _json_body(request, _RETRIEVE)
    workspace = _required(body, "workspace_id", "the workspace (agent) whose experience to recall")
    query = _required(body, "query", "the task")
    _scope(request, {"agent_id": workspace}, "workspace_id")  # a token fixed to another agent may not read this one
    hits = await memory.experiences(query, agent_id=workspace, limit=body.get("top_k", 5))
    return _answer(render_guidance(hits), [_memory(h.record, workspace, h.score, "task") for h in hits])


async def summary_personal_memory(request: Request, memory: AsyncMemory) -> Response:
    body = await _json_body(request, _SUMMARY)
    workspace = _required(body, "workspace_id", "the workspace (agent) the memories belong to")
    trajectories = _required(body, "trajectories", "a list of {messages}")
    if not isinstance(trajectories, list) or not trajectories:
        field = "trajectories"
        raise ValidationError(field, "must be a non-empty list of {messages}")
    scope = _scope(request, {"agent_id": workspace}, "workspace_id")
    stored: list[MemoryRecord] = []
    for n, trajectory in enumerate(trajectories):
        if not isinstance(trajectory, dict) or "messages" not in trajectory:
            field = f"trajectories[{n}].messages"
            raise ValidationError(field, "is required")
        stored += await memory.add(trajectory["messages"], **scope, metadata=body.get("metadata"))
    note = f"{len(stored)} messages stored; facts are drawn from them in the background"
    return _answer(note, [_memory(r, workspace, None, "personal") for r in stored])


async def retrieve_personal_memory(request: Request, memory: AsyncMemory) -> Response:
    body = await _json_body(request, _RETRIEVE)
    workspace = _required(body, "workspace_id", "the workspace (agent) whose memories to recall")
    query = _required(body, "query", "a question")
    scope = _scope(request, {"agent_id": workspace}, "workspace_id")
    hits: list[SearchHit] = await memory.search(query, **scope, limit=body.get("top_k", 5))
    answer = memory.format_context(query, hits) if hits else ""
    return _answer(answer, [_memory(h.record, workspace, h.score, "personal") for h in hits])


async def add_tool_call_result(request: Request, memory: AsyncMemory) -> Response:
    body = await _json_body(request, _TOOL_CALLS)
    workspace = _required(body, "workspace_id", "the workspace (agent) whose tools these are")
    calls = _required(body, "tool_call_results", "a list of {tool_name, input, output, success, time_cost, ...}")
    scope = _scope(request, {"agent_id": workspace}, "workspace_id")
    stored = await memory.record_tool_calls(calls, **scope)
    return _answer(f"{len(stored)} tool calls recorded", [_memory(r, workspace, None, "tool_call") for r in stored])


async def retrieve_tool_memory(request: Request, memory: AsyncMemory) -> Response:
    """Also ``summary_tool_memory``: guides are rewritten in the background as calls accumulate, so a summary
    is the current guide."""
    body = await _json_body(request, _TOOL_NAMES)
    workspace = _required(body, "workspace_id", "the workspace (agent) whose tools to describe")
    names = _required(body, "tool_names", "one tool name, or several separated by commas")
    if not isinstance(names, str) or not names.strip():
        field = "tool_names"
        raise ValidationError(field, "must be a tool name, or several separated by commas")
    scope = _scope(request, {"agent_id": workspace}, "workspace_id")
    wanted = [name.strip() for name in _NAME_SEPARATORS.split(names)]
    guides = [await memory.tool_guide(name, agent_id=scope["agent_id"]) for name in wanted]
    listed = [{"memory_type": "tool", "workspace_id": workspace, "tool_name": g.tool, "content": g.guidelines or "",
               "statistics": g.stats.model_dump(mode="json")} for g in guides]  # fmt: skip
    answer = "\n\n".join(f"{g.tool}:\n{g.guidelines or '(no guidelines yet)'}" for g in guides)
    return _answer(answer, listed)


# The engine's argument names in ReMe's words, so an error names the field the caller sent.
_REME_NAMES = {"limit": "top_k", "agent_id": "workspace_id", "calls": "tool_call_results"}
_LEADING_NAME = re.compile(r"[A-Za-z_]+")


def _in_reme_terms(handler: Handler) -> Handler:
    async def run(request: Request, memory: AsyncMemory) -> Response:
        try:
            return await handler(request, memory)
        except ValidationError as e:
            head = _LEADING_NAME.match(e.field)
            if head is None or head.group() not in _REME_NAMES:
                raise
            raise ValidationError(_REME_NAMES[head.group()] + e.field[head.end() :], e.problem) from None

    return run


_ANSWER = response({"type": "object", "properties": {"success": {"type": "boolean"}, "answer": {"type": "string"},
                                                    "metadata": {"type": "object"}}})  # fmt: skip
WORKSPACE: dict[str, Any] = {"workspace_id": {"type": "string", "description": "the agent scope"}}


def reme_endpoint(name: str, handler: Handler, summary: str, properties: dict[str, Any]) -> Endpoint:
    """``POST /<name>`` in ReMe's terms: its body needs ``workspace_id`` and the first field after it."""
    required = ["workspace_id", next(k for k in properties if k not in ("workspace_id", "metadata"))]
    schema = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    return Endpoint(f"/{name}", "POST", handler, f"ReMe {name}: {summary}", {"200": _ANSWER},
                    body=schema_body(schema))  # fmt: skip


_TRAJECTORIES = {"type": "array", "items": {"type": "object", "required": ["messages"]}}
_SUMMARY_BODY = {**WORKSPACE, "trajectories": _TRAJECTORIES, "metadata": {"type": "object"}}
_RETRIEVE_BODY = {**WORKSPACE, "query": {"type": "string"}, "top_k": {"type": "integer", "default": 5}}
_TOOL_NAMES_BODY = {**WORKSPACE, "tool_names": {"type": "string"}}

# ReMe's task, personal and tool memory routes; their errors name ReMe's fields (``top_k``, ``workspace_id``,
# ``tool_call_results[0].time_cost``).
_DECLARED = (
    reme_endpoint("summary_task_memory", summary_task_memory,
                  "store scored trajectories {messages, score}; experiences follow", _SUMMARY_BODY),
    reme_endpoint("retrieve_task_memory", retrieve_task_memory, "the workspace's experience for a task",
                  _RETRIEVE_BODY),
    reme_endpoint("summary_personal_memory", summary_personal_memory,
                  "store the user's conversations {messages}; facts follow", _SUMMARY_BODY),
    reme_endpoint("retrieve_personal_memory", retrieve_personal_memory, "the user's memories in the workspace",
                  _RETRIEVE_BODY),
    reme_endpoint("add_tool_call_result", add_tool_call_result, "record tool calls",
                  {**WORKSPACE, "tool_call_results": {"type": "array"}}),
    reme_endpoint("summary_tool_memory", retrieve_tool_memory, "the tools' current guides", _TOOL_NAMES_BODY),
    reme_endpoint("retrieve_tool_memory", retrieve_tool_memory, "the tools' guides and statistics",
                  _TOOL_NAMES_BODY),
)  # fmt: skip
ENDPOINTS = tuple(replace(e, handler=_in_reme_terms(e.handler)) for e in _DECLARED)
