"""The hooks third parties implement to change memadapt without forking it.

Hooks are sync, pure and fast: no I/O inside a hook (I/O lives in the providers that the ``register`` hooks hand
over). Implement them in a module or class marked with ``memadapt_core.hookimpl`` and expose it through the
entry-point group ``memadapt``::

    [project.entry-points.memadapt]
    redact = "my_package.plugin"

``MEMADAPT_DISABLE_PLUGINS=1`` disables every entry-point plugin; ``=a,b`` disables those names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pluggy

from .models import MemoryRecord, Scope, SearchHit

__all__ = ["PROJECT", "hookimpl", "hookspec"]

PROJECT = "memadapt"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def memadapt_register_embedders(register: Callable[[str, Callable[[Any], Any]], None]) -> None:
    """Hand over embedder providers by name.

    :param register: call ``register(name, factory)``; ``factory(settings: EmbedderSettings) -> Embedder`` is
        called when ``embedder.provider`` equals ``name``.
    """


@hookspec
def memadapt_register_llms(register: Callable[[str, Callable[[Any], Any]], None]) -> None:
    """Hand over LLM client providers by name for consolidation.

    :param register: call ``register(name, factory)``; ``factory(settings: LLMSettings, asynchronous: bool)``
        returns a client shaped like ``consolidation.AsyncLLMClient`` (asynchronous) or ``LLMClient``; it is
        used when ``llm.provider`` equals ``name``.
    """


@hookspec(firstresult=True)
def memadapt_accept_message(message: MemoryRecord, scope: Scope) -> bool | None:
    """Decide whether a message or fact is stored at all. Stops at the first non-None result.

    :param message: the record about to be stored (not yet embedded).
    :param scope: the scope it is stored in.
    :return: False to skip it silently, True to accept it, None to let other plugins decide.
    """


@hookspec
def memadapt_prepare_record(record: MemoryRecord) -> MemoryRecord | None:
    """Change a record before it is stored (redaction, tags). Each plugin sees the previous plugin's result.

    :param record: the record about to be embedded and stored.
    :return: a changed copy (``record.model_copy(update=...)``), or None to leave it as it is.
    """


@hookspec
def memadapt_prepare_query(query: str) -> str | None:
    """Rewrite a search query before it is embedded. Each plugin sees the previous plugin's result.

    :param query: the query text.
    :return: the new query text, or None to leave it.
    """


@hookspec(firstresult=True)
def memadapt_rerank(query: str, hits: Sequence[SearchHit]) -> list[SearchHit] | None:
    """Reorder (or drop) hits after fusion. Stops at the first non-None result.

    :param query: the query text (after ``memadapt_prepare_query``).
    :param hits: the fused hits, best first, at most ``limit``.
    :return: the hits in the new order, or None to keep the engine's order.
    """


@hookspec(firstresult=True)
def memadapt_format_context(query: str, hits: Sequence[SearchHit]) -> str | None:
    """Render recalled memories as the text an adapter injects into an agent's context. Stops at the first
    non-None result; the built-in plugin renders a delimited block marked as recalled data.

    :param query: what the memories were recalled for.
    :param hits: the hits to render, best first.
    :return: the text, or None to let the next plugin (finally the built-in) render it.
    """


@hookspec
def memadapt_extraction_instructions(scope: Scope) -> str | None:
    """Extra instructions for the LLM that extracts facts from a scope's messages (all results are joined).

    :param scope: the scope whose messages are being consolidated.
    :return: instructions text, or None.
    """


@hookspec
def memadapt_on_added(records: Sequence[MemoryRecord]) -> None:
    """Notification: records were stored. Errors are logged, never raised into the caller.

    :param records: the new records.
    """


@hookspec
def memadapt_on_superseded(old: MemoryRecord, new: MemoryRecord) -> None:
    """Notification: consolidation superseded ``old`` with ``new``. Errors are logged.

    :param old: the fact that stopped being valid (now with ``valid_to`` and ``superseded_by``).
    :param new: the fact that replaced it.
    """


@hookspec
def memadapt_on_deleted(ids: Sequence[str]) -> None:
    """Notification: records were deleted by id. Errors are logged.

    :param ids: the deleted record ids.
    """
