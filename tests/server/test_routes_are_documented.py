"""Every JSON route the app serves has exactly one OpenAPI operation and every operation is a served route (path and
method): both come from one declaration per route (``server/routes``), and this keeps them from drifting."""

from __future__ import annotations

from collections import Counter
from typing import Any

from starlette.applications import Starlette
from starlette.routing import Route

from memadapt_core import AsyncMemory
from memadapt_core.server.app import build_app
from memadapt_core.server.auth import TokenMap
from memadapt_core.server.openapi import openapi_document

_UNDOCUMENTED = {"/health", "/openapi.json"}  # the open doors, outside the API


def _starlette(app: Any) -> Starlette:
    while not isinstance(app, Starlette):  # under the middleware (door check, body limit, auth, ...)
        app = app.app
    return app


async def test_the_served_routes_and_the_documented_operations_are_the_same() -> None:
    async with AsyncMemory(location=":memory:") as memory:
        app = _starlette(build_app(memory, TokenMap({"token-ann": "ann"})))
    served = Counter(
        (route.path, method.lower())
        for route in app.routes
        if isinstance(route, Route) and route.path not in _UNDOCUMENTED
        for method in route.methods or ()
        if method != "HEAD"  # starlette's own, beside every GET
    )
    documented = Counter((path, method) for path, item in openapi_document()["paths"].items() for method in item)

    assert served == documented
    assert set(documented.values()) == {1}
    assert ("/v1/memories", "post") in served
    assert ("/vector_store", "post") in served
