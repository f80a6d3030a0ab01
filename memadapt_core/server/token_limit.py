"""Bounded work per token: a token with ``limit`` requests already in flight gets 429 with ``Retry-After``.

Each request that embeds costs CPU in proportion to its text (about 25 ms per 1,000 characters): without a bound, one
tenant sending many at once holds every core and the others wait behind it. The bound is per token, so a flooding
tenant is refused while the others' requests go on. It counts requests in flight (a streaming MCP answer holds its
slot until it ends), not requests per second: a client that waits for its answers is never refused.
"""

from __future__ import annotations

import hashlib

from starlette.types import ASGIApp, Receive, Scope, Send

from .auth import bearer_token
from .http_api import error_response

__all__ = ["DEFAULT_REQUESTS_PER_TOKEN", "TokenLimit", "token_digest"]

DEFAULT_REQUESTS_PER_TOKEN = 8
RETRY_AFTER_S = 1


def token_digest(scope: Scope) -> bytes:
    """A digest of the request's bearer token (never the token itself), to key what is kept per token."""
    token = bearer_token(dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")) or ""
    return hashlib.sha256(token.encode("utf-8", "replace")).digest()


class TokenLimit:
    """Between the bearer check (an unknown token never gets here) and the routes."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit
        self._in_flight: dict[bytes, int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.limit < 1:
            await self.app(scope, receive, send)
            return
        key = token_digest(scope)
        busy = self._in_flight.get(key, 0)
        if busy >= self.limit:
            message = f"this token has {busy} requests in flight (the service's limit): retry when one has answered"
            response = error_response(429, "too_many_requests", message)
            response.headers["Retry-After"] = str(RETRY_AFTER_S)
            await response(scope, receive, send)
            return
        self._in_flight[key] = busy + 1
        try:
            await self.app(scope, receive, send)
        finally:
            left = self._in_flight[key] - 1
            if left:
                self._in_flight[key] = left
            else:
                del self._in_flight[key]
