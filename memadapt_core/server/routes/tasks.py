"""The JSON routes of task memory and working memory, so ``RemoteMemory`` has the engine's task-memory calls.

Task memory belongs to an agent (docs/task-memory.md): ``agent_id`` names it, or the server's ``--agent-id``; a
token reaches only the agents it is granted (403), as on every route. A client stores what happened, never what
was learnt: trajectories and tool calls go in under the token's user, while experiences and tool guides, shared
by every user of the agent, have one writer, the consolidation worker. So these routes read lessons and guides and
write neither (``POST /v1/memories`` refuses those kinds too).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from memadapt_core.engine import AsyncMemory
from memadapt_core.server.http_api import _SCOPE_KEYS, _json_body, _query, _required, _scope

from .endpoint import KINDS_SCHEMA, SCOPE_PARAMS, Endpoint, listed, request_body, response, schema_body

__all__ = ["ENDPOINTS"]


def _agent(request: Request, given: dict[str, object]) -> str | None:
    """The agent a shared read names (or the server's), checked against the token's grants; no user in it."""
    return _scope(request, {"agent_id": given.get("agent_id")})["agent_id"]


async def add_trajectories(request: Request, memory: AsyncMemory) -> Response:
    body = await _json_body(request, _SCOPE_KEYS | {"trajectories", "task", "metadata"})
    trajectories = _required(body, "trajectories", "a trajectory {messages, score} or a list of them")
    ids = _scope(request, body)
    records = await memory.add_trajectories(trajectories, **ids, task=body.get("task"), metadata=body.get("metadata"))
    return JSONResponse({"records": [r.model_dump(mode="json") for r in records]}, status_code=201)


async def experiences(request: Request, memory: AsyncMemory) -> Response:
    body = await _json_body(request, {"agent_id", "task", "limit", "threshold"})
    task = _required(body, "task", "the task to recall experience for")
    options = {k: body[k] for k in ("limit", "threshold") if k in body}
    hits = await memory.experiences(task, agent_id=_agent(request, body), **options)
    return JSONResponse({"hits": [h.model_dump(mode="json") for h in hits]})


async def record_tool_calls(request: Request, memory: AsyncMemory) -> Response:
    body = await _json_body(request, _SCOPE_KEYS | {"calls"})
    calls = _required(body, "calls", "a tool call {name, arguments, result, success, duration, tokens} or a list")
    records = await memory.record_tool_calls(calls, **_scope(request, body))
    return JSONResponse({"records": [r.model_dump(mode="json") for r in records]}, status_code=201)


async def tool_stats(request: Request, memory: AsyncMemory) -> Response:
    params = _query(request, {"agent_id", "tool_name"})
    tool = _required(params, "tool_name", "the tool's name")
    found = await memory.tool_stats(tool, agent_id=_agent(request, params))
    return JSONResponse(found.model_dump(mode="json"))


async def tool_guide(request: Request, memory: AsyncMemory) -> Response:
    params = _query(request, {"agent_id", "tool_name"})
    tool = _required(params, "tool_name", "the tool's name")
    found = await memory.tool_guide(tool, agent_id=_agent(request, params))
    return JSONResponse(found.model_dump(mode="json"))


async def recent(request: Request, memory: AsyncMemory) -> Response:
    params = _query(request, _SCOPE_KEYS | {"limit", "kinds"})
    options = {k: params[k] for k in ("limit", "kinds") if k in params}
    records = await memory.recent(**_scope(request, params), **options)
    return JSONResponse({"records": [r.model_dump(mode="json") for r in records]})


_RECORDS = listed("records", "MemoryRecord")
_HITS = listed("hits", "SearchHit")
_STATS = response({"type": "object"})
_SEARCH = {
    "type": "object",
    "required": ["task"],
    "additionalProperties": False,
    "properties": {
        "agent_id": {"type": "string", "description": "the agent (or the server's --agent-id)"},
        "task": {"type": "string"},
        "limit": {"type": "integer", "default": 3},
        "threshold": {"type": "number"},
    },
}
_TRAJECTORIES: dict[str, Any] = {
    "trajectories": {"description": "a trajectory {messages, score} or a list of them"},
    "task": {"type": "string"},
    "metadata": {"type": "object"},
}
_CALLS = {"calls": {"description": "a tool call {name, arguments, result, success, duration, tokens} or a list"}}
_TOOL: list[dict[str, Any]] = [
    {"name": "tool_name", "in": "query", "required": True, "schema": {"type": "string"}},
    {"name": "agent_id", "in": "query", "schema": {"type": "string"}},
]
_RECENT = [
    *SCOPE_PARAMS,
    {"name": "limit", "in": "query", "schema": {"type": "integer"}},
    {"name": "kinds", "in": "query", "schema": KINDS_SCHEMA, "explode": True},
]

ENDPOINTS = (
    Endpoint("/v1/trajectories", "POST", add_trajectories,
             "add_trajectories: store scored trajectories; lessons follow in the background", {"201": _RECORDS},
             body=request_body(_TRAJECTORIES, ["trajectories"])),
    Endpoint("/v1/experiences/search", "POST", experiences,
             "experiences: the agent's lessons for a task, best first (read only)", {"200": _HITS},
             body=schema_body(_SEARCH)),
    Endpoint("/v1/tool_calls", "POST", record_tool_calls,
             "record_tool_calls: store tool calls; the guides follow in the background", {"201": _RECORDS},
             body=request_body(_CALLS, ["calls"])),
    Endpoint("/v1/tool_stats", "GET", tool_stats,
             "tool_stats: success rate, latency and tokens of a tool's latest calls", {"200": _STATS},
             parameters=_TOOL),
    Endpoint("/v1/tool_guide", "GET", tool_guide,
             "tool_guide: a tool's statistics and guidelines (null until written)", {"200": _STATS},
             parameters=_TOOL),
    Endpoint("/v1/recent", "GET", recent,
             "recent: working memory, the scope's latest messages (or kinds), oldest first", {"200": _RECORDS},
             parameters=_RECENT),
)  # fmt: skip
