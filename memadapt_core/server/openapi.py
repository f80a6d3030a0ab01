"""The OpenAPI 3.1 document of the JSON routes (served at ``/openapi.json``): written by hand, but for what an
options declaration of ``memadapt_core.api`` gives (the search options)."""

from __future__ import annotations

from typing import Any

from memadapt_core.api.options import search_options_schema
from memadapt_core.models import KINDS, WRITABLE_KINDS

__all__ = ["openapi_document"]

_SCOPE_PARAMS = [
    {"name": "agent_id", "in": "query", "schema": {"type": "string"}, "description": "narrow to one agent"},
    {"name": "session_id", "in": "query", "schema": {"type": "string"}, "description": "narrow to one session"},
]
_ID = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
_SCOPE_BODY = {
    "user_id": {"type": "string", "description": "optional: must be the token's user"},
    "agent_id": {"type": "string"},
    "session_id": {"type": "string"},
}


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str = "OK") -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _body(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": _SCOPE_BODY | properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return {"required": True, "content": {"application/json": {"schema": schema}}}


_ERRORS = {
    "401": _json(_ref("Error"), "no token, or an unknown one"),
    "403": _json(_ref("Error"), "the request names another user's scope"),
    "413": _json(_ref("Error"), "the body is over the size limit (2 MB by default)"),
    "422": _json(_ref("Error"), "bad input; `field` names what to fix"),
}
_KINDS = {"type": "array", "items": {"type": "string", "enum": list(KINDS)}}
_RECORD_OUT = _json(_ref("MemoryRecord"))
_NOT_FOUND = {"404": _json(_ref("Error"), "no such memory in the token's scope")}


def openapi_document() -> dict[str, Any]:
    """The document; records are described loosely (their fields may grow, see ``memadapt_core.models``)."""
    paths: dict[str, Any] = {
        "/v1/memories": {
            "post": {
                "summary": "add: store messages or facts",
                "requestBody": _body(
                    {
                        "messages": {"description": "a string, a message object {role, content, ...} or a list"},
                        "kind": {"type": "string", "enum": list(WRITABLE_KINDS)},
                        "metadata": {"type": "object"},
                        "observed_at": {"type": "string", "format": "date-time"},
                        "on_conflict": {"type": "string", "enum": ["skip", "replace"]},
                    },
                    ["messages"],
                ),
                "responses": {
                    "201": _json(
                        {"type": "object", "properties": {"records": {"type": "array", "items": _ref("MemoryRecord")}}}
                    ),
                    **_ERRORS,
                },
            },
            "get": {
                "summary": "list: a page of records, oldest first",
                "parameters": [
                    *_SCOPE_PARAMS,
                    {"name": "limit", "in": "query", "schema": {"type": "integer"}},
                    {"name": "cursor", "in": "query", "schema": {"type": "string"}},
                    {"name": "kinds", "in": "query", "schema": _KINDS, "explode": True},
                    {
                        "name": "filters",
                        "in": "query",
                        "schema": {"type": "string"},
                        "description": "a metadata filter as JSON, as search's `filters`",
                    },
                    {"name": "include_archived", "in": "query", "schema": {"type": "boolean"}},
                ],
                "responses": {"200": _json(_ref("Page")), **_ERRORS},
            },
            "delete": {
                "summary": "delete_all: every record of the scope",
                "parameters": _SCOPE_PARAMS,
                "responses": {
                    "200": _json({"type": "object", "properties": {"deleted": {"type": "integer"}}}),
                    **_ERRORS,
                },
            },
        },
        "/v1/answer": {
            "post": {
                "summary": "answer: recall, ask the service's LLM, store the exchange in the session (remember)",
                "requestBody": _body(
                    {
                        "question": {"type": "string"},
                        "limit": {"type": "integer", "default": 5},
                        "remember": {"type": "boolean", "default": True},
                        "now": {"type": "string", "format": "date-time"},
                    },
                    ["question"],
                ),
                "responses": {
                    "200": _json(_ref("Answer")),
                    "501": _json(_ref("Error"), "the service has no LLM (MEMADAPT_LLM__MODEL, MEMADAPT_LLM__BASE_URL)"),
                    "502": _json(_ref("Error"), "the LLM failed"),
                    **_ERRORS,
                },
            }
        },
        "/v1/search": {
            "post": {
                "summary": "search: hybrid, time-aware search in the token's scope",
                "requestBody": _body({"query": {"type": "string"}, **search_options_schema()}, ["query"]),
                "responses": {
                    "200": _json(
                        {"type": "object", "properties": {"hits": {"type": "array", "items": _ref("SearchHit")}}}
                    ),
                    **_ERRORS,
                },
            }
        },
        "/v1/export": {
            "get": {
                "summary": "export: the scope's records as JSON Lines",
                "parameters": [*_SCOPE_PARAMS, {"name": "kinds", "in": "query", "schema": _KINDS, "explode": True}],
                "responses": {
                    "200": {"description": "one record per line", "content": {"application/x-ndjson": {}}},
                    **_ERRORS,
                },
            }
        },
        "/v1/memories/{id}": {
            "get": {
                "summary": "get: one record",
                "parameters": [_ID, *_SCOPE_PARAMS],
                "responses": {"200": _RECORD_OUT, **_NOT_FOUND, **_ERRORS},
            },
            "patch": {
                "summary": "update: change the text (re-embedded) or replace the metadata",
                "parameters": [_ID],
                "requestBody": _body({"text": {"type": "string"}, "metadata": {"type": "object"}}),
                "responses": {"200": _RECORD_OUT, **_NOT_FOUND, **_ERRORS},
            },
            "delete": {
                "summary": "delete: one record",
                "parameters": [_ID, *_SCOPE_PARAMS],
                "responses": {
                    "200": _json({"type": "object", "properties": {"deleted": {"type": "boolean"}}}),
                    **_NOT_FOUND,
                    **_ERRORS,
                },
            },
        },
        "/v1/memories/{id}/history": {
            "get": {
                "summary": "history: the changes to a record, oldest first (empty when no such record)",
                "parameters": [_ID, *_SCOPE_PARAMS],
                "responses": {
                    "200": _json(
                        {"type": "object", "properties": {"events": {"type": "array", "items": _ref("HistoryEvent")}}}
                    ),
                    **_ERRORS,
                },
            }
        },
    }
    paths.update(_adapter_paths())
    paths.update(_task_paths())
    paths.update(_reme_paths())
    record = {"type": "object", "required": ["id", "text", "kind", "observed_at"], "additionalProperties": True}
    return {
        "openapi": "3.1.0",
        "info": {"title": "memadapt", "version": "1", "description": "Long-term memory for LLM agents."},
        "paths": paths,
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "MemoryRecord": record,
                "SearchHit": {
                    "type": "object",
                    "properties": {
                        "record": _ref("MemoryRecord"),
                        "score": {"type": "number"},
                        "scores": {"type": "object"},
                    },
                },
                "Page": {
                    "type": "object",
                    "properties": {
                        "records": {"type": "array", "items": _ref("MemoryRecord")},
                        "next_cursor": {"type": ["string", "null"]},
                    },
                },
                "HistoryEvent": {"type": "object", "required": ["record_id", "event", "at"]},
                "Answer": {
                    "type": "object",
                    "required": ["answer", "memories"],
                    "properties": {
                        "answer": {"type": "string"},
                        "memories": {"type": "array", "items": _ref("SearchHit")},
                        "recent": {"type": "array", "items": _ref("MemoryRecord")},
                        "stored": {"type": "array", "items": {"type": "string"}},
                    },
                },
                "Error": {
                    "type": "object",
                    "required": ["error", "message"],
                    "properties": {
                        "error": {"type": "string"},
                        "message": {"type": "string"},
                        "field": {"type": "string"},
                    },
                },
            },
        },
        "security": [{"bearer": []}],
    }


def _reme_paths() -> dict[str, Any]:
    """ReMe's routes (docs/task-memory.md): its request bodies, ``workspace_id`` as the agent."""
    answer = _json({"type": "object", "properties": {"success": {"type": "boolean"}, "answer": {"type": "string"},
                                                      "metadata": {"type": "object"}}})  # fmt: skip
    workspace: dict[str, Any] = {"workspace_id": {"type": "string", "description": "the agent scope"}}
    trajectories = {"type": "array", "items": {"type": "object", "required": ["messages"]}}
    summary = {**workspace, "trajectories": trajectories, "metadata": {"type": "object"}}
    retrieve = {**workspace, "query": {"type": "string"}, "top_k": {"type": "integer", "default": 5}}
    routes: dict[str, tuple[str, dict[str, Any]]] = {
        "summary_task_memory": ("store scored trajectories {messages, score}; experiences follow", summary),
        "retrieve_task_memory": ("the workspace's experience for a task", retrieve),
        "summary_personal_memory": ("store the user's conversations {messages}; facts follow", summary),
        "retrieve_personal_memory": ("the user's memories in the workspace", retrieve),
        "add_tool_call_result": ("record tool calls", {**workspace, "tool_call_results": {"type": "array"}}),
        "summary_tool_memory": ("the tools' current guides", {**workspace, "tool_names": {"type": "string"}}),
        "retrieve_tool_memory": ("the tools' guides and statistics", {**workspace, "tool_names": {"type": "string"}}),
        "vector_store": (
            "the operator's workspace actions: load, dump, list or delete the agent's lessons (an operator token "
            "only; path inside --library-dir)",
            {
                **workspace,
                "action": {"type": "string", "enum": ["load", "dump", "list", "delete"]},
                "path": {"type": "string", "description": "relative to the library folder"},
            },
        ),
    }
    out: dict[str, Any] = {}
    for name, (summary_text, properties) in routes.items():
        required = ["workspace_id", next(k for k in properties if k not in ("workspace_id", "metadata"))]
        schema = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
        out[f"/{name}"] = {
            "post": {
                "summary": f"ReMe {name}: {summary_text}",
                "requestBody": {"required": True, "content": {"application/json": {"schema": schema}}},
                "responses": {"200": answer, **_ERRORS},
            }
        }
    return out


def _adapter_paths() -> dict[str, Any]:
    """The routes ``RemoteMemory`` uses so the adapters run against the service (``adapter_routes``)."""
    ids = {"ids": {"type": "array", "items": {"type": "string"}}}
    obj: dict[str, Any] = {"type": "object"}
    integer = {"type": "integer"}
    records = {"records": {"type": "array", "items": _ref("MemoryRecord")}}
    posts: dict[str, tuple[str, dict[str, Any], list[str], dict[str, Any]]] = {
        "get": ("get_many: records by id, in the order asked, only the scope's", ids, ["ids"], records),
        "delete": ("delete_many: these records, only the scope's", ids, ["ids"], {"deleted": integer}),
        "vectors": ("vectors: stored dense vectors by id (MMR re-ranking)", ids, ["ids"], {"vectors": obj}),
        "count": ("count: the scope's records", {"kinds": _KINDS, "filters": obj}, [], {"count": integer}),
        "embed": ("a query's dense embedding, by the server's embedder", {"query": {"type": "string"}}, ["query"],
                  {"vector": {"type": "array", "items": {"type": "number"}}}),
    }  # fmt: skip
    out: dict[str, Any] = {
        f"/v1/{name}": {
            "post": {
                "summary": summary,
                "requestBody": _body(properties, required),
                "responses": {"200": _json({"type": "object", "properties": returns}), **_ERRORS},
            }
        }
        for name, (summary, properties, required, returns) in posts.items()
    }
    as_of = {"name": "as_of", "in": "query", "schema": {"type": "string", "format": "date-time"}}
    out["/v1/profile"] = {
        "get": {
            "summary": "profile: the user's (or the agent's) profile, now or as it stood at as_of",
            "parameters": [_SCOPE_PARAMS[0], as_of],
            "responses": {"200": _json(obj), **_ERRORS},
        }
    }
    out["/v1/scope"] = {
        "get": {
            "summary": "the scope the token stands for (user_id, agent_id), to derive record ids as the server does",
            "responses": {"200": _json(obj), **_ERRORS},
        }
    }
    return out


def _task_paths() -> dict[str, Any]:
    """Task memory and working memory (``task_routes``): trajectories and tool calls in, lessons and guides out."""
    records = _json({"type": "object", "properties": {"records": {"type": "array", "items": _ref("MemoryRecord")}}})
    hits = _json({"type": "object", "properties": {"hits": {"type": "array", "items": _ref("SearchHit")}}})
    search = {
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
    trajectories = {
        "trajectories": {"description": "a trajectory {messages, score} or a list of them"},
        "task": {"type": "string"},
        "metadata": {"type": "object"},
    }
    calls = {"calls": {"description": "a tool call {name, arguments, result, success, duration, tokens} or a list"}}
    tool = [
        {"name": "tool_name", "in": "query", "required": True, "schema": {"type": "string"}},
        {"name": "agent_id", "in": "query", "schema": {"type": "string"}},
    ]
    recent = [
        *_SCOPE_PARAMS,
        {"name": "limit", "in": "query", "schema": {"type": "integer"}},
        {"name": "kinds", "in": "query", "schema": _KINDS, "explode": True},
    ]
    content = {"required": True, "content": {"application/json": {"schema": search}}}
    stats = _json({"type": "object"})
    table: list[tuple[str, str, str, dict[str, Any], str, dict[str, Any]]] = [
        ("/v1/trajectories", "post", "add_trajectories: store scored trajectories; lessons follow in the background",
         {"requestBody": _body(trajectories, ["trajectories"])}, "201", records),
        ("/v1/experiences/search", "post", "experiences: the agent's lessons for a task, best first (read only)",
         {"requestBody": content}, "200", hits),
        ("/v1/tool_calls", "post", "record_tool_calls: store tool calls; the guides follow in the background",
         {"requestBody": _body(calls, ["calls"])}, "201", records),
        ("/v1/tool_stats", "get", "tool_stats: success rate, latency and tokens of a tool's latest calls",
         {"parameters": tool}, "200", stats),
        ("/v1/tool_guide", "get", "tool_guide: a tool's statistics and guidelines (null until written)",
         {"parameters": tool}, "200", stats),
        ("/v1/recent", "get", "recent: working memory, the scope's latest messages (or kinds), oldest first",
         {"parameters": recent}, "200", records),
    ]  # fmt: skip
    return {
        path: {method: {"summary": summary, **spec, "responses": {status: ok, **_ERRORS}}}
        for path, method, summary, spec, status, ok in table
    }
