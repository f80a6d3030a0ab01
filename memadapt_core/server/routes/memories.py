"""The memory routes under ``/v1``: add, search, answer, list, get, update, delete, history and export, each the
engine's call of that name, declared with its OpenAPI operation."""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from typing import Any

from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response

from memadapt_core.api.options import SEARCH_OPTIONS, search_options_schema
from memadapt_core.engine import AsyncMemory
from memadapt_core.errors import ValidationError
from memadapt_core.models import WRITABLE_KINDS
from memadapt_core.server.http_api import _SCOPE_KEYS, _json_body, _query, _scope, error_response

from .endpoint import (
    ID,
    KINDS_SCHEMA,
    NOT_FOUND,
    RECORD_OUT,
    SCOPE_PARAMS,
    Endpoint,
    listed,
    ref,
    request_body,
    response,
)

__all__ = ["ENDPOINTS"]


def _json_param(field: str, raw: str) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise ValidationError(field, "must be JSON (a metadata filter object, not nested too deeply)") from exc


def _flag(field: str, raw: str) -> bool:
    if raw.lower() in ("true", "1"):
        return True
    if raw.lower() in ("false", "0"):
        return False
    raise ValidationError(field, "must be true or false")


async def add(request: Request, memory: AsyncMemory) -> Response:
    body = await _json_body(request, _SCOPE_KEYS | {"messages", "kind", "metadata", "observed_at", "on_conflict"})
    if "messages" not in body:
        field = "messages"
        raise ValidationError(field, "is required: a string, a message object or a list of them")
    options = {k: body[k] for k in ("kind", "metadata", "observed_at", "on_conflict") if k in body}
    records = await memory.add(body["messages"], **_scope(request, body), **options)
    return JSONResponse({"records": [r.model_dump(mode="json") for r in records]}, status_code=201)


async def search(request: Request, memory: AsyncMemory) -> Response:
    body = await _json_body(request, _SCOPE_KEYS | {"query"} | SEARCH_OPTIONS)  # the options as declared once
    if "query" not in body:
        field = "query"
        raise ValidationError(field, "is required")
    options: dict[str, Any] = {k: body[k] for k in SEARCH_OPTIONS if k in body}
    hits = await memory.search(body["query"], **_scope(request, body), **options)
    return JSONResponse({"hits": [h.model_dump(mode="json") for h in hits]})


async def answer(request: Request, memory: AsyncMemory) -> Response:
    body = await _json_body(request, _SCOPE_KEYS | {"question", "limit", "remember", "now"})
    if "question" not in body:
        field = "question"
        raise ValidationError(field, "is required")
    options = {k: body[k] for k in ("limit", "remember", "now") if k in body}
    found = await memory.answer(body["question"], **_scope(request, body), **options)
    return JSONResponse(found.model_dump(mode="json"))


async def list_records(request: Request, memory: AsyncMemory) -> Response:
    params = _query(request, _SCOPE_KEYS | {"limit", "cursor", "kinds", "filters", "include_archived"})
    options: dict[str, Any] = {k: params[k] for k in ("limit", "cursor", "kinds") if k in params}
    if "filters" in params:  # JSON in a query parameter: a GET has no body
        options["filters"] = _json_param("filters", params["filters"])
    if "include_archived" in params:
        options["include_archived"] = _flag("include_archived", params["include_archived"])
    page = await memory.list(**_scope(request, params), **options)
    return JSONResponse(page.model_dump(mode="json"))


async def delete_all(request: Request, memory: AsyncMemory) -> Response:
    params = _query(request, _SCOPE_KEYS)
    return JSONResponse({"deleted": await memory.delete_all(**_scope(request, params))})


async def get(request: Request, memory: AsyncMemory) -> Response:
    params = _query(request, _SCOPE_KEYS)
    record = await memory.get(request.path_params["id"], **_scope(request, params))
    if record is None:
        return _not_found(request)
    return JSONResponse(record.model_dump(mode="json"))


async def update(request: Request, memory: AsyncMemory) -> Response:
    body = await _json_body(request, _SCOPE_KEYS | {"text", "metadata"})
    options = {k: body[k] for k in ("text", "metadata") if k in body}
    record = await memory.update(request.path_params["id"], **_scope(request, body), **options)
    return JSONResponse(record.model_dump(mode="json"))


async def delete(request: Request, memory: AsyncMemory) -> Response:
    params = _query(request, _SCOPE_KEYS)
    if not await memory.delete(request.path_params["id"], **_scope(request, params)):
        return _not_found(request)
    return JSONResponse({"deleted": True})


async def history(request: Request, memory: AsyncMemory) -> Response:
    params = _query(request, _SCOPE_KEYS)
    events = await memory.history(request.path_params["id"], **_scope(request, params))
    return JSONResponse({"events": [e.model_dump(mode="json") for e in events]})


async def export(request: Request, memory: AsyncMemory) -> Response:
    params = _query(request, _SCOPE_KEYS | {"kinds"})
    kinds = params.pop("kinds", None)
    fd, path = tempfile.mkstemp(prefix="memadapt-export-", suffix=".jsonl")
    os.close(fd)
    try:
        await memory.export(path, **_scope(request, params), kinds=kinds)
    except BaseException:
        await asyncio.to_thread(os.unlink, path)
        raise
    return FileResponse(path, media_type="application/x-ndjson", background=BackgroundTask(os.unlink, path))


def _not_found(request: Request) -> Response:
    return error_response(404, "not_found", f"no memory with id {request.path_params['id']!r} in this scope")


_ADD_BODY = {
    "messages": {"description": "a string, a message object {role, content, ...} or a list"},
    "kind": {"type": "string", "enum": list(WRITABLE_KINDS)},
    "metadata": {"type": "object"},
    "observed_at": {"type": "string", "format": "date-time"},
    "on_conflict": {"type": "string", "enum": ["skip", "replace"]},
}
_LIST_PARAMS = [
    *SCOPE_PARAMS,
    {"name": "limit", "in": "query", "schema": {"type": "integer"}},
    {"name": "cursor", "in": "query", "schema": {"type": "string"}},
    {"name": "kinds", "in": "query", "schema": KINDS_SCHEMA, "explode": True},
    {
        "name": "filters",
        "in": "query",
        "schema": {"type": "string"},
        "description": "a metadata filter as JSON, as search's `filters`",
    },
    {"name": "include_archived", "in": "query", "schema": {"type": "boolean"}},
]
_ANSWER_BODY = {
    "question": {"type": "string"},
    "limit": {"type": "integer", "default": 5},
    "remember": {"type": "boolean", "default": True},
    "now": {"type": "string", "format": "date-time"},
}
_ANSWER_OUT = {
    "200": response(ref("Answer")),
    "501": response(ref("Error"), "the service has no LLM (MEMADAPT_LLM__MODEL, MEMADAPT_LLM__BASE_URL)"),
    "502": response(ref("Error"), "the LLM failed"),
}
_EXPORT_OUT = {"200": {"description": "one record per line", "content": {"application/x-ndjson": {}}}}
_ONE = [ID, *SCOPE_PARAMS]

ENDPOINTS = (
    Endpoint("/v1/memories", "POST", add, "add: store messages or facts", {"201": listed("records", "MemoryRecord")},
             body=request_body(_ADD_BODY, ["messages"])),
    Endpoint("/v1/memories", "GET", list_records, "list: a page of records, oldest first",
             {"200": response(ref("Page"))}, parameters=_LIST_PARAMS),
    Endpoint("/v1/memories", "DELETE", delete_all, "delete_all: every record of the scope",
             {"200": response({"type": "object", "properties": {"deleted": {"type": "integer"}}})},
             parameters=SCOPE_PARAMS),
    Endpoint("/v1/search", "POST", search, "search: hybrid, time-aware search in the token's scope",
             {"200": listed("hits", "SearchHit")},
             body=request_body({"query": {"type": "string"}, **search_options_schema()}, ["query"])),
    Endpoint("/v1/answer", "POST", answer,
             "answer: recall, ask the service's LLM, store the exchange in the session (remember)", _ANSWER_OUT,
             body=request_body(_ANSWER_BODY, ["question"])),
    Endpoint("/v1/export", "GET", export, "export: the scope's records as JSON Lines", _EXPORT_OUT,
             parameters=[*SCOPE_PARAMS, {"name": "kinds", "in": "query", "schema": KINDS_SCHEMA, "explode": True}]),
    Endpoint("/v1/memories/{id}", "GET", get, "get: one record", {"200": RECORD_OUT, **NOT_FOUND}, parameters=_ONE),
    Endpoint("/v1/memories/{id}", "PATCH", update, "update: change the text (re-embedded) or replace the metadata",
             {"200": RECORD_OUT, **NOT_FOUND}, parameters=[ID],
             body=request_body({"text": {"type": "string"}, "metadata": {"type": "object"}})),
    Endpoint("/v1/memories/{id}", "DELETE", delete, "delete: one record",
             {"200": response({"type": "object", "properties": {"deleted": {"type": "boolean"}}}), **NOT_FOUND},
             parameters=_ONE),
    Endpoint("/v1/memories/{id}/history", "GET", history,
             "history: the changes to a record, oldest first (empty when no such record)",
             {"200": listed("events", "HistoryEvent")}, parameters=_ONE),
)  # fmt: skip
