"""The JSON routes the adapters need beyond the basic ones, so ``RemoteMemory`` can stand in for the engine.

The adapters (AutoGen, AgentScope, LangChain, LangGraph, agentscope-runtime) read records by id, delete several at
once, count, fetch stored vectors, a query's embedding (MMR re-ranking), the profile and the token's own scope
(record ids derive from it): one route each, with the same token scoping and errors as ``http_api``.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from memadapt_core.engine import AsyncMemory
from memadapt_core.errors import ValidationError
from memadapt_core.server.http_api import _SCOPE_KEYS, SCOPE_STATE, Handler, _json_body, _query, _scope

from .endpoint import KINDS_SCHEMA, SCOPE_PARAMS, Endpoint, ref, request_body, response

__all__ = ["ENDPOINTS"]


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


_IDS = {"ids": {"type": "array", "items": {"type": "string"}}}
_OBJECT: dict[str, Any] = {"type": "object"}
_AS_OF = {"name": "as_of", "in": "query", "schema": {"type": "string", "format": "date-time"}}


def _post(path: str, handler: Handler, summary: str, properties: dict[str, Any], required: list[str],
          returns: dict[str, Any]) -> Endpoint:  # fmt: skip
    ok = {"200": response({"type": "object", "properties": returns})}
    return Endpoint(path, "POST", handler, summary, ok, body=request_body(properties, required))


ENDPOINTS = (
    _post("/v1/get", get_many, "get_many: records by id, in the order asked, only the scope's", _IDS, ["ids"],
          {"records": {"type": "array", "items": ref("MemoryRecord")}}),
    _post("/v1/delete", delete_many, "delete_many: these records, only the scope's", _IDS, ["ids"],
          {"deleted": {"type": "integer"}}),
    _post("/v1/vectors", vectors, "vectors: stored dense vectors by id (MMR re-ranking)", _IDS, ["ids"],
          {"vectors": _OBJECT}),
    _post("/v1/count", count, "count: the scope's records", {"kinds": KINDS_SCHEMA, "filters": _OBJECT}, [],
          {"count": {"type": "integer"}}),
    Endpoint("/v1/profile", "GET", profile,
             "profile: the user's (or the agent's) profile, now or as it stood at as_of", {"200": response(_OBJECT)},
             parameters=[SCOPE_PARAMS[0], _AS_OF]),
    _post("/v1/embed", embed, "a query's dense embedding, by the server's embedder", {"query": {"type": "string"}},
          ["query"], {"vector": {"type": "array", "items": {"type": "number"}}}),
    Endpoint("/v1/scope", "GET", token_scope,
             "the scope the token stands for (user_id, agent_id), to derive record ids as the server does",
             {"200": response(_OBJECT)}),
)  # fmt: skip
