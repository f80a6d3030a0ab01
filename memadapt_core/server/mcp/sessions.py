"""An MCP session belongs to the token that opened it.

The streamable-HTTP transport names a session by the ``Mcp-Session-Id`` its first answer gives; the MCP SDK checks
no token, so any tenant who learns the id could post into the session or end it (``DELETE /mcp``). This middleware,
between the bearer check and the MCP app, notes which token (a digest of it, never the token) each session id was
handed to, and answers a request naming that session with another token as the transport answers an unknown session:
404. Sessions it has not seen (opened before a restart) go on to the SDK, which knows none of them either.
"""

from __future__ import annotations

from collections import OrderedDict

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memadapt_core.server.http_api import error_response
from memadapt_core.server.token_limit import token_digest

__all__ = ["McpSessions"]

_HEADER = b"mcp-session-id"
_KEPT = 100_000  # sessions remembered, oldest forgotten first (an ended session is forgotten at once)


class McpSessions:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._owners: OrderedDict[bytes, bytes] = OrderedDict()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        owner = token_digest(scope)
        session = dict(scope["headers"]).get(_HEADER)
        if session is not None and self._owners.get(session, owner) != owner:
            await error_response(404, "not_found", "no such MCP session for this token")(scope, receive, send)
            return

        async def noting(message: Message) -> None:
            if message["type"] == "http.response.start":
                given = dict(message.get("headers") or []).get(_HEADER)
                if given is not None and given not in self._owners:
                    self._owners[given] = owner
                    while len(self._owners) > _KEPT:
                        self._owners.popitem(last=False)
                elif session is not None and scope["method"] == "DELETE" and message["status"] < 300:
                    self._owners.pop(session, None)
            await send(message)

        await self.app(scope, receive, noting)
