"""The search options are declared once (``memadapt_core.api.options``): the engine reads each, the HTTP route takes
exactly them, the OpenAPI body is their schema, and the MCP tool offers only declared ones."""

from __future__ import annotations

import inspect
from typing import Any, cast

from memadapt_core import AsyncMemory, Scope
from memadapt_core.api.options import SEARCH_OPTIONS, search_options_schema
from memadapt_core.engine.planning import reads
from memadapt_core.server.mcp.tools import build_mcp_server
from memadapt_core.server.openapi import openapi_document

SCOPE_KEYS = {"user_id", "agent_id", "session_id"}


def test_the_engine_reads_every_declared_search_option() -> None:
    read = set(inspect.signature(reads.plan_search).parameters)

    assert SEARCH_OPTIONS - read == set()


def test_the_openapi_search_body_is_the_query_the_scope_and_the_declared_options() -> None:
    body = openapi_document()["paths"]["/v1/search"]["post"]["requestBody"]["content"]["application/json"]["schema"]

    assert set(body["properties"]) == {"query"} | SCOPE_KEYS | SEARCH_OPTIONS
    assert {name: body["properties"][name] for name in SEARCH_OPTIONS} == search_options_schema()


async def test_the_mcp_search_tool_offers_only_declared_options() -> None:
    server = build_mcp_server(cast(AsyncMemory, object()), lambda ctx: Scope.of("ann"))
    tools = {tool.name: tool for tool in await server.list_tools()}
    schema: dict[str, Any] = getattr(tools["search_memory"], "inputSchema", None) or tools["search_memory"].input_schema

    offered = set(schema["properties"]) - {"query", "session_id"}

    assert offered
    assert offered - SEARCH_OPTIONS == set()
