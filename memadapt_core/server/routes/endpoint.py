"""A JSON route declared once: its path, method and handler with its OpenAPI operation (``Endpoint``), turned into
the starlette ``Route`` served (``served``) and into the document's ``paths`` (``openapi_paths``); and the OpenAPI
pieces the route modules share (a ``$ref``, a JSON response, a request body with the scope's fields, the errors
every route may answer)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from starlette.routing import Route

from memadapt_core.engine import AsyncMemory
from memadapt_core.models import KINDS
from memadapt_core.server.http_api import Handler, _endpoint

__all__ = [
    "ERRORS",
    "ID",
    "KINDS_SCHEMA",
    "NOT_FOUND",
    "RECORD_OUT",
    "SCOPE_BODY",
    "SCOPE_PARAMS",
    "Endpoint",
    "listed",
    "openapi_paths",
    "ref",
    "request_body",
    "response",
    "schema_body",
    "served",
]


def ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


def response(schema: dict[str, Any], description: str = "OK") -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def listed(key: str, item: str) -> dict[str, Any]:
    """A JSON response ``{key: [item, ...]}`` of the component schema ``item``."""
    return response({"type": "object", "properties": {key: {"type": "array", "items": ref(item)}}})


def schema_body(schema: dict[str, Any]) -> dict[str, Any]:
    """A required JSON request body of ``schema``."""
    return {"required": True, "content": {"application/json": {"schema": schema}}}


SCOPE_PARAMS: list[dict[str, Any]] = [
    {"name": "agent_id", "in": "query", "schema": {"type": "string"}, "description": "narrow to one agent"},
    {"name": "session_id", "in": "query", "schema": {"type": "string"}, "description": "narrow to one session"},
]
ID: dict[str, Any] = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
SCOPE_BODY = {
    "user_id": {"type": "string", "description": "optional: must be the token's user"},
    "agent_id": {"type": "string"},
    "session_id": {"type": "string"},
}


def request_body(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """A body of the scope's fields and ``properties``, nothing else."""
    schema: dict[str, Any] = {"type": "object", "properties": SCOPE_BODY | properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema_body(schema)


ERRORS = {
    "401": response(ref("Error"), "no token, or an unknown one"),
    "403": response(ref("Error"), "the request names another user's scope"),
    "413": response(ref("Error"), "the body is over the size limit (2 MB by default)"),
    "422": response(ref("Error"), "bad input; `field` names what to fix"),
}
KINDS_SCHEMA = {"type": "array", "items": {"type": "string", "enum": list(KINDS)}}
RECORD_OUT = response(ref("MemoryRecord"))
NOT_FOUND = {"404": response(ref("Error"), "no such memory in the token's scope")}


@dataclass(frozen=True)
class Endpoint:
    """One route and its OpenAPI operation; ``responses`` are the route's own, ``ERRORS`` follow them."""

    path: str
    method: str  # upper case, as starlette takes it
    handler: Handler
    summary: str
    responses: dict[str, Any]
    parameters: list[dict[str, Any]] | None = None
    body: dict[str, Any] | None = None

    def operation(self) -> dict[str, Any]:
        found: dict[str, Any] = {"summary": self.summary}
        if self.parameters is not None:
            found["parameters"] = self.parameters
        if self.body is not None:
            found["requestBody"] = self.body
        found["responses"] = {**self.responses, **ERRORS}
        return found


def served(endpoints: Iterable[Endpoint], memory: Callable[[], AsyncMemory]) -> list[Route]:
    """One ``Route`` per endpoint (one method each) over the engine ``memory()`` returns."""
    return [Route(e.path, _endpoint(e.handler, memory), methods=[e.method]) for e in endpoints]


def openapi_paths(endpoints: Iterable[Endpoint]) -> dict[str, Any]:
    """The document's ``paths``: the endpoints of one path are its methods."""
    paths: dict[str, dict[str, Any]] = {}
    for e in endpoints:
        paths.setdefault(e.path, {})[e.method.lower()] = e.operation()
    return paths
