"""The OpenAPI 3.1 document of the JSON routes (served at ``/openapi.json``): its ``paths`` are the operations the
route modules declare beside their handlers (``routes.ENDPOINTS``, so a route and its operation are written once);
here are the rest, written by hand: ``info``, the record schemas the operations refer to, the bearer scheme."""

from __future__ import annotations

from typing import Any

from .routes import ENDPOINTS
from .routes.endpoint import openapi_paths, ref

__all__ = ["openapi_document"]


def openapi_document() -> dict[str, Any]:
    """The document; records are described loosely (their fields may grow, see ``memadapt_core.models``)."""
    record = {"type": "object", "required": ["id", "text", "kind", "observed_at"], "additionalProperties": True}
    return {
        "openapi": "3.1.0",
        "info": {"title": "memadapt", "version": "1", "description": "Long-term memory for LLM agents."},
        "paths": openapi_paths(ENDPOINTS),
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "MemoryRecord": record,
                "SearchHit": {
                    "type": "object",
                    "properties": {
                        "record": ref("MemoryRecord"),
                        "score": {"type": "number"},
                        "scores": {"type": "object"},
                    },
                },
                "Page": {
                    "type": "object",
                    "properties": {
                        "records": {"type": "array", "items": ref("MemoryRecord")},
                        "next_cursor": {"type": ["string", "null"]},
                    },
                },
                "HistoryEvent": {"type": "object", "required": ["record_id", "event", "at"]},
                "Answer": {
                    "type": "object",
                    "required": ["answer", "memories"],
                    "properties": {
                        "answer": {"type": "string"},
                        "memories": {"type": "array", "items": ref("SearchHit")},
                        "recent": {"type": "array", "items": ref("MemoryRecord")},
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
