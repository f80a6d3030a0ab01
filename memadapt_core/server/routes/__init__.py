"""The JSON routes of ``memadapt serve``, each declared once with its OpenAPI operation (``endpoint.Endpoint``):
the memory routes (``memories``), those the adapters need through ``RemoteMemory`` (``adapters``), task and
working memory (``tasks``), ReMe's (``reme``) and the operator's ``/vector_store`` (``library``). The app serves
``json_routes``; ``openapi.py`` describes ``ENDPOINTS``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from starlette.routing import Route

from memadapt_core.engine import AsyncMemory

from . import adapters, library, memories, reme, tasks
from .endpoint import Endpoint, served

__all__ = ["ENDPOINTS", "json_routes"]

_OVER_THE_ENGINE = (*memories.ENDPOINTS, *adapters.ENDPOINTS, *tasks.ENDPOINTS, *reme.ENDPOINTS)
ENDPOINTS: tuple[Endpoint, ...] = (*_OVER_THE_ENGINE, library.ENDPOINT)


def json_routes(memory: Callable[[], AsyncMemory], library_dir: Path | None) -> list[Route]:
    """Every route over the engine ``memory()`` returns (opened by the app's lifespan); ``/vector_store`` reads
    and writes inside ``library_dir``."""
    return served([*_OVER_THE_ENGINE, library.vector_store_endpoint(library_dir)], memory)
