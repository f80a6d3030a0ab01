"""The ASGI app of ``memadapt serve``: streamable-HTTP MCP at ``/mcp`` beside the JSON routes under ``/v1``.

One engine per process, opened before the app and closed by its lifespan. Every request but ``/health`` and
``/openapi.json`` carries a bearer token from the token map (401 otherwise); bodies over ``max_body_bytes`` are
refused with 413 before the engine sees them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Match, Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memadapt_core.engine import AsyncMemory
from memadapt_core.models import Scope as MemoryScope

from .auth import Forbidden, TokenMap, bearer_token, is_loopback
from .http_api import ACCESS_STATE, SCOPE_STATE, error_response
from .idle_trim import ReleaseWhenIdle
from .mcp.sessions import McpSessions
from .mcp.task_tools import register_task_tools
from .mcp.tools import Context, ToolError, build_mcp_server
from .openapi import openapi_document
from .routes import json_routes
from .token_limit import DEFAULT_REQUESTS_PER_TOKEN, TokenLimit

__all__ = ["DEFAULT_MAX_BODY_BYTES", "DoorCheck", "build_app"]

DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024
_OPEN_PATHS = {"/health", "/openapi.json"}


class _TooLarge(Exception):
    pass


class BodyLimit:
    """413 for a body over the limit: by its Content-Length, or while it streams in without one."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_bytes):
            await self._refuse(scope, receive, send)
            return
        if length is None and scope.get("method") in ("POST", "PUT", "PATCH"):
            await self._buffered(scope, receive, send)
            return
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.max_bytes:
                raise _TooLarge
            return message

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, tracked)
        except _TooLarge:
            if not started:
                await self._refuse(scope, receive, send)

    async def _buffered(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A body without a length (chunked): read it whole, up to the limit, before the app starts, so one over the
        limit is a 413 from here rather than an error raised inside a route (a 500)."""
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > self.max_bytes:
                await self._refuse(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        message = f"the request body is larger than {self.max_bytes} bytes"
        await error_response(413, "too_large", message)(scope, receive, send)


class DoorCheck:
    """Host and Origin allow-lists for every route, ``/mcp`` included, whatever the bind and the MCP SDK's major:
    a request whose ``Host`` is not in ``allowed_hosts`` (when given) is 421; one carrying an ``Origin`` (a
    browser's) not in ``allowed_origins`` is 403, so a web page cannot drive the service from a user's browser
    (DNS rebinding, cross-site posts). Programs and MCP clients send no Origin and pass."""

    def __init__(self, app: ASGIApp, allowed_hosts: Sequence[str], allowed_origins: Sequence[str]) -> None:
        self.app = app
        self.hosts = {h.lower() for h in allowed_hosts}
        self.origins = {o.lower().rstrip("/") for o in allowed_origins}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        host = headers.get(b"host", b"").decode("latin-1").lower()
        if self.hosts and host not in self.hosts and host.rsplit(":", 1)[0] not in self.hosts:
            message = f"Host {host!r} is not served here (memadapt serve --allowed-host)"
            await error_response(421, "misdirected", message)(scope, receive, send)
            return
        origin = headers.get(b"origin")
        if origin is not None and origin.decode("latin-1").lower().rstrip("/") not in self.origins:
            message = "a browser Origin not listed by memadapt serve --allowed-origin"
            await error_response(403, "forbidden_origin", message)(scope, receive, send)
            return
        await self.app(scope, receive, send)


class BearerAuth:
    """401 without a known bearer token; with one, its memory scope in ``scope["state"]``."""

    def __init__(self, app: ASGIApp, tokens: TokenMap) -> None:
        self.app, self.tokens = app, tokens

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in _OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        header = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
        found = self.tokens.access_of(bearer_token(header))
        if found is None:
            response = error_response(401, "unauthorized", "give a known token: Authorization: Bearer <token>")
            response.headers["WWW-Authenticate"] = 'Bearer realm="memadapt"'
            await response(scope, receive, send)
            return
        try:  # a server acting for one agent (--agent-id) serves only the tokens granted it
            found.check_agent(found.scope.agent_id)
        except Forbidden as exc:
            await error_response(403, "forbidden", str(exc))(scope, receive, send)
            return
        state = scope.setdefault("state", {})
        state[SCOPE_STATE], state[ACCESS_STATE] = found.scope, found
        await self.app(scope, receive, send)


class _WrongMethod:
    """405 with ``Allow`` for a JSON route asked with another method (a GET of ``/v1/search``): Starlette would
    pass it on to the MCP app mounted at ``/``, which knows no such path (404)."""

    def __init__(self, app: ASGIApp, routes: Sequence[Route]) -> None:
        self.app, self.routes = app, routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            for route in self.routes:
                if route.matches(scope)[0] is Match.PARTIAL:  # the path, not the method
                    allow = ", ".join(sorted(route.methods or ()))
                    response = error_response(405, "method_not_allowed", f"{scope['path']} takes {allow}")
                    response.headers["Allow"] = allow
                    await response(scope, receive, send)
                    return
        await self.app(scope, receive, send)


def build_app(
    memory: AsyncMemory, tokens: TokenMap, *, host: str = "127.0.0.1", max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    allowed_hosts: Sequence[str] = (), allowed_origins: Sequence[str] = (), library_dir: Path | None = None,
    requests_per_token: int = DEFAULT_REQUESTS_PER_TOKEN,
) -> ASGIApp:  # fmt: skip
    """The whole service over ``memory`` (closed when the app shuts down), scoped by ``tokens``; the operator's
    ``/vector_store`` reads and writes libraries inside ``library_dir`` only; a token with ``requests_per_token``
    requests in flight gets 429 (0: no limit)."""

    def scope_for(ctx: Context) -> MemoryScope:
        headers = getattr(ctx.request_context.request, "headers", None) or {}  # mcp 1.x has no ctx.headers
        found = tokens.access_of(bearer_token(headers.get("authorization")))
        if found is None:  # the middleware let no such request through; refuse rather than guess
            msg = "unauthorized: give a known bearer token"
            raise ToolError(msg)
        try:
            found.check_agent(found.scope.agent_id)
        except Forbidden as exc:  # refused by the middleware too
            raise ToolError(str(exc)) from exc
        return found.scope

    mcp = build_mcp_server(memory, scope_for)
    register_task_tools(mcp, memory, scope_for)
    try:
        mcp_app = mcp.streamable_http_app(host=host)  # mcp 2.x: DNS-rebinding protection when host is loopback
    except TypeError:  # pragma: no cover - mcp 1.x takes no arguments, and protects as if bound to 127.0.0.1
        if not is_loopback(host):  # it would answer every remote client 421; DoorCheck checks Host and Origin
            from mcp.server.transport_security import TransportSecuritySettings

            off = TransportSecuritySettings(enable_dns_rebinding_protection=False)
            mcp.settings.transport_security = off  # type: ignore[attr-defined]  # 1.x settings
        mcp_app = mcp.streamable_http_app()

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        try:
            async with mcp.session_manager.run():
                yield
        finally:
            await memory.close()

    async def health(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def openapi(_: Request) -> Response:
        return JSONResponse(openapi_document())

    served = [
        Route("/health", health, methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
        *json_routes(lambda: memory, library_dir),
    ]
    routes: list[Route | Mount] = [*served, Mount("/", app=_WrongMethod(McpSessions(mcp_app), served))]
    app = Starlette(routes=routes, lifespan=lifespan)
    limited = TokenLimit(ReleaseWhenIdle(app), requests_per_token)
    return DoorCheck(BodyLimit(BearerAuth(limited, tokens), max_body_bytes), allowed_hosts, allowed_origins)
