"""How the JSON routes of ``memadapt serve`` (``routes/``) read a request and answer: the engine's calls over
HTTP, scoped by the request's bearer token.

The token fixes the user (and the server's ``--agent-id``, if given); a request may name an agent or session
inside that scope, never another user (403). Errors are JSON ``{"error", "message", "field"?}``: a
``ValidationError`` is 422 naming the field, an unknown id 404, a store that cannot be reached 503.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from memadapt_core.engine import AsyncMemory
from memadapt_core.errors import (
    ConfigurationError,
    LLMError,
    MemadaptError,
    StoreFullError,
    StoreUnavailableError,
    ValidationError,
)
from memadapt_core.models import Scope, ScopeIds

from .auth import Access, Forbidden

__all__ = ["ACCESS_STATE", "SCOPE_STATE", "Handler", "error_response"]

SCOPE_STATE = "memadapt_scope"  # the key under which the auth middleware leaves the token's Scope in scope["state"]
ACCESS_STATE = "memadapt_access"  # ... and what the token reaches (its granted agents)

Handler = Callable[[Request, AsyncMemory], Awaitable[Response]]


def error_response(status: int, error: str, message: str, field: str | None = None) -> JSONResponse:
    body: dict[str, Any] = {"error": error, "message": message}
    if field is not None:
        body["field"] = field
    return JSONResponse(body, status_code=status)


def _scope(request: Request, given: dict[str, Any], agent_field: str = "agent_id") -> ScopeIds:
    """The token's scope narrowed by the ids a request names; naming another user, or an agent the token is not
    granted (``agent_field`` names it: ``workspace_id`` on ReMe's routes), is ``Forbidden``."""
    fixed: Scope = request.scope["state"][SCOPE_STATE]
    ids = fixed.ids()
    for key in ("user_id", "agent_id", "session_id"):
        value = given.get(key)
        if value is None:
            continue
        if ids[key] is not None and ids[key] != value:
            field = agent_field if key == "agent_id" else key
            msg = f"{field}: this token acts for {key}={ids[key]!r} only"
            raise Forbidden(msg)
        ids[key] = value
    access: Access = request.scope["state"][ACCESS_STATE]
    access.check_agent(ids["agent_id"], agent_field)
    return ids


class UnsupportedMediaType(Exception):
    """A JSON route was sent something else: 415 (a ``text/plain`` post is a browser's "simple request", sent
    cross-origin without asking)."""


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


async def _json_body(request: Request, allowed: set[str]) -> dict[str, Any]:
    if not _is_json(request.headers.get("content-type", "")):
        msg = "send the body as JSON with Content-Type: application/json"
        raise UnsupportedMediaType(msg)
    raw = await request.body()
    try:
        data = json.loads(raw or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        field = "body"
        raise ValidationError(field, f"is not JSON ({exc})") from exc
    except RecursionError as exc:  # the decoder recurses once per level: 100,000 "[" would be a 500
        field = "body"
        raise ValidationError(field, "is nested too deeply") from exc
    if not isinstance(data, dict):
        field = "body"
        raise ValidationError(field, "must be a JSON object")
    for key in data:
        if key not in allowed:
            raise ValidationError(key, f"unknown field; expected one of {', '.join(sorted(allowed))}")
    return data


def _required(given: dict[str, Any], key: str, what: str) -> Any:
    """The value of a field a route needs (422 naming it when absent or null)."""
    if given.get(key) is None:
        raise ValidationError(key, f"is required: {what}")
    return given[key]


def _query(request: Request, allowed: set[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for key in request.query_params:
        if key not in allowed:
            raise ValidationError(key, f"unknown parameter; expected one of {', '.join(sorted(allowed))}")
        values = request.query_params.getlist(key)
        params[key] = values if key == "kinds" else values[-1]
    if "limit" in params:
        try:
            params["limit"] = int(params["limit"])
        except ValueError as exc:
            field = "limit"
            raise ValidationError(field, "must be an integer") from exc
    return params


_SCOPE_KEYS = {"user_id", "agent_id", "session_id"}


def _endpoint(handler: Handler, memory: Callable[[], AsyncMemory]) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request, memory())
        except Forbidden as exc:
            return error_response(403, "forbidden", str(exc))
        except UnsupportedMediaType as exc:
            return error_response(415, "unsupported_media_type", str(exc))
        except ValidationError as exc:
            if "no memory with id" in exc.problem:
                return error_response(404, "not_found", str(exc))
            message = str(exc).replace("(max_text_chars)", "(the service's limit: memadapt serve --max-text-chars)")
            return error_response(422, "validation", message, exc.field)
        except StoreFullError as exc:
            return error_response(507, "store_full", str(exc))
        except ConfigurationError as exc:  # answer without an LLM: the service was started without one
            return error_response(501, "not_configured", str(exc).replace("llm.model", "the service's llm.model", 1))
        except LLMError as exc:
            return error_response(502, "llm_error", str(exc))
        except StoreUnavailableError as exc:
            return error_response(503, "store_unavailable", str(exc))
        except MemadaptError as exc:
            return error_response(500, type(exc).__name__, str(exc))

    return endpoint
