"""The JSON routes the adapters need beyond the basic ones, so ``RemoteMemory`` can stand in for the engine.

The adapters (AutoGen, AgentScope, LangChain, LangGraph, agentscope-runtime) read records by id, delete several at
once, count, fetch stored vectors, a query's embedding (MMR re-ranking), the profile and the token's own scope
(record ids derive from it): one route each, with the same token scoping and errors as ``http_api``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from memadapt_core.engine import AsyncMemory
from memadapt_core.errors import ValidationError

from .http_api import _SCOPE_KEYS, SCOPE_STATE, Handler, _endpoint, _json_body, _query, _scope

__all__ = ["adapter_routes"]


def _ids(body: dict[str, Any]) -> list[str]:
    ids = body.get("ids")
    if not isinstance(ids, list):
        field = "ids"
        raise ValidationError(field, "is required: a list of record ids")
    return ids


async def get_many(request: Request, memory: AsyncMemory) -> Response:
    body = await _json_body(request, _SCOPE_KEYS | {"ids"})
    records = await memory.get_many(_ids(body), **_scope(request, body))
    return JSONResponse({"records": [r.model_dump(mode="json") for r in records]})


async def delete_many(request: Request, memory: AsyncMemory) -> Response:
    body = await _json_body(request, _SCOPE_KEYS | {"ids"})
    return JSONResponse({"deleted": await memory.delete_many(_ids(body), **_scope(request, body))})


async def vectors(request: Request, memory: AsyncMemory) -> Response:
    body = await _json_body(request, _SCOPE_KEYS | {"ids"})
    return JSONResponse({"vectors": await memory.vectors(_ids(body), **_scope(request, body))})


async def count(request: Request, memory: AsyncMemory) -> Response:
    body = await _json_body(request, _SCOPE_KEYS | {"kinds", "filters"})
    options = {k: body[k] for k in ("kinds", "filters") if k in body}
    return JSONResponse({"count": await memory.count(**_scope(request, body), **options)})


async def profile(request: Request, memory: AsyncMemory) -> Response:
    params = _query(request, {"user_id", "agent_id", "as_of"})
    ids = _scope(request, params)
    found = await memory.profile(user_id=ids["user_id"], agent_id=ids["agent_id"], as_of=params.get("as_of"))
    return JSONResponse(found.model_dump(mode="json"))


async def embed(request: Request, memory: AsyncMemory) -> Response:
    body = await _json_body(request, _SCOPE_KEYS | {"query"})
    ids = _scope(request, body)  # the same 403 for another user's scope as every route
    query = body.get("query")
    if not isinstance(query, str):
        field = "query"
        raise ValidationError(field, "is required: a string")
    return JSONResponse({"vector": await memory.query_vector(query, **ids)})


async def token_scope(request: Request, memory: AsyncMemory) -> Response:
    """The scope the token stands for: a client derives record ids (``record_id``) as the server will."""
    _query(request, set())
    return JSONResponse(request.scope["state"][SCOPE_STATE].ids())


def adapter_routes(memory: Callable[[], AsyncMemory]) -> list[Route]:
    """The routes over the engine ``memory()`` returns (opened by the app's lifespan)."""
    table: list[tuple[str, Handler, list[str]]] = [
        ("/v1/get", get_many, ["POST"]),
        ("/v1/delete", delete_many, ["POST"]),
        ("/v1/vectors", vectors, ["POST"]),
        ("/v1/count", count, ["POST"]),
        ("/v1/profile", profile, ["GET"]),
        ("/v1/embed", embed, ["POST"]),
        ("/v1/scope", token_scope, ["GET"]),
    ]
    return [Route(path, _endpoint(handler, memory), methods=methods) for path, handler, methods in table]
