"""The JSON routes of task memory and working memory, so ``RemoteMemory`` has the engine's task-memory calls.

Task memory belongs to an agent (docs/task-memory.md): ``agent_id`` names it, or the server's ``--agent-id``; a
token reaches only the agents it is granted (403), as on every route. A client stores what happened, never what
was learnt: trajectories and tool calls go in under the token's user, while experiences and tool guides, shared
by every user of the agent, have one writer, the consolidation worker. So these routes read lessons and guides and
write neither (``POST /v1/memories`` refuses those kinds too).
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from memadapt_core.engine import AsyncMemory

from .http_api import _SCOPE_KEYS, Handler, _endpoint, _json_body, _query, _required, _scope

__all__ = ["task_routes"]


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


def task_routes(memory: Callable[[], AsyncMemory]) -> list[Route]:
    """The routes over the engine ``memory()`` returns (opened by the app's lifespan)."""
    table: list[tuple[str, Handler, list[str]]] = [
        ("/v1/trajectories", add_trajectories, ["POST"]),
        ("/v1/experiences/search", experiences, ["POST"]),
        ("/v1/tool_calls", record_tool_calls, ["POST"]),
        ("/v1/tool_stats", tool_stats, ["GET"]),
        ("/v1/tool_guide", tool_guide, ["GET"]),
        ("/v1/recent", recent, ["GET"]),
    ]
    return [Route(path, _endpoint(handler, memory), methods=methods) for path, handler, methods in table]
