"""``MemoryBase``: everything ``AsyncMemory`` and ``Memory`` share that does no I/O.

The constructor (settings, plugins, embedder, the opened backend: ``Resources``), the views of one twin as the
other, record ids, context formatting and the wiring of consolidation live here once. Each twin only sequences
its I/O (awaited or called) around the planning functions of ``planning`` (``reads``, ``writes``, ``updates``) and
``transfer``, as httpx's clients do over ``BaseClient``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from memadapt_core.api.background import Pending
from memadapt_core.config import EmbedderSettings, MemorySettings
from memadapt_core.embedders.base import Embedder
from memadapt_core.errors import StoreUnavailableError
from memadapt_core.formatting import check_context_args
from memadapt_core.models import MemoryRecord, Scope, SearchHit
from memadapt_core.profile import UserProfile
from memadapt_core.record_codec import parse_id
from memadapt_core.record_codec import record_id as _record_id
from memadapt_core.validation import parse_scope

from . import tiers
from .llm_notice import warn_without_llm
from .open_stores import open_resources, release
from .resources import Resources, build_settings
from .tasks.recall import render_guidance

if TYPE_CHECKING:
    from memadapt_core.consolidation.worker_base import WorkerOptions

__all__ = ["Backend", "MemoryBase"]

Backend = Literal["edge", "qdrant", "qdrant-local"]

# The twins register here as they are defined, so each can hand out a view of the other without importing it.
_TWINS: dict[bool, type[MemoryBase]] = {}


class MemoryBase:
    """Opens (or borrows) the store; see ``MemorySettings`` for every option. Not used directly."""

    _asynchronous: ClassVar[bool]
    _released = False  # this owner gave its reference to the store back (close)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if hasattr(cls, "_asynchronous"):  # a door, not the calls it is made of
            _TWINS[cls._asynchronous] = cls

    def __init__(
        self,
        *,
        path: str | Path | None = None,
        location: str | None = None,
        url: str | None = None,
        api_key: str | None = None,
        backend: Backend | None = None,
        collection: str | None = None,
        embedder: str | dict[str, Any] | EmbedderSettings | Embedder | None = None,
        plugins: Sequence[object] = (),
        settings: MemorySettings | None = None,
        _resources: Resources | None = None,
        **options: Any,
    ) -> None:
        if _resources is not None:  # a view: the store belongs to the object that opened it
            self._resources, self._owner = _resources, False
            return
        given_embedder = embedder if isinstance(embedder, Embedder) else None
        cfg = build_settings(
            settings,
            {
                "path": None if path is None else str(path), "location": location, "url": url, "api_key": api_key,
                "backend": backend, "collection": collection,
                "embedder": None if isinstance(embedder, Embedder) else embedder, **options,
            },
        )  # fmt: skip
        # The store this process already holds on that folder is shared (memadapt_core.engine.open_stores).
        self._resources, self._owner = open_resources(cfg, embedder=given_embedder, plugins=plugins), True
        if cfg.tiers.profile:
            warn_without_llm(cfg, "tiers.profile")

    @property
    def settings(self) -> MemorySettings:
        return self._resources.settings

    @property
    def embedder(self) -> Embedder:
        return self._resources.embedder

    def _live(self) -> Resources:
        """The opened resources; ``StoreUnavailableError`` once this memory (or the one it views) is closed."""
        if self._released or self._resources.closed:
            msg = "this memory is closed"
            raise StoreUnavailableError(msg)
        return self._resources

    def _give_back(self) -> bool:
        """This owner's reference to the store returned, once; True when that closed the store (the last one)."""
        if not self._owner or self._released:
            return False
        self._released = True
        return release(self._resources)

    def _view(self, asynchronous: bool) -> MemoryBase:
        """The other twin over this same store (closing the view does not close the store)."""
        return _TWINS[asynchronous](_resources=self._resources)

    def record_id(
        self, external_id: str, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> str:  # fmt: skip
        """The record id that ``add`` gives a message whose ``id`` is ``external_id`` in this scope."""
        return _record_id(parse_scope(user_id, agent_id, session_id), parse_id(external_id, "external_id"))

    def track(self, pending: Pending) -> None:
        """Hand the engine a background write (an asyncio task, or a thread's ``concurrent.futures.Future``) that
        an adapter acknowledged before it ran: ``close()`` and ``flush()`` wait for it, so none is lost."""
        self._resources.background.track(pending)

    def format_context(
        self, query: str, hits: Sequence[SearchHit], *, recent: Sequence[MemoryRecord] | None = None,
        profile: UserProfile | None = None,
    ) -> str:  # fmt: skip
        """The delimited text block adapters inject into an agent's context (``memadapt_format_context``); with
        ``profile`` (from ``profile()``) a short profile block first, with ``recent`` (from ``recent()``) the
        working memory before the recalled memories, which skip what it already shows."""
        r = self._resources
        check_context_args(query, hits)
        if recent is None and profile is None:
            return r.hooks.format_context(query, hits)
        return tiers.context_with_tiers(
            r.hooks.format_context, query, hits, recent, profile, r.settings.tiers.profile_block
        )

    def format_experience(self, hits: Sequence[SearchHit]) -> str:
        """Experiences (from ``experiences()``) as the delimited guidance block for a system prompt."""
        return render_guidance(hits)

    # -- consolidation wiring ------------------------------------------------------------------------------------------
    def _consolidates(self) -> bool:
        """Whether an LLM is configured (and the store open): only then is a worker built."""
        return self._resources.settings.llm.configured and not self._resources.closed

    def _worker_options(self) -> WorkerOptions:
        from memadapt_core.consolidation.worker_base import WorkerOptions

        return WorkerOptions.from_settings(self._resources.settings)

    def _pending_within(self, pending: list[Scope], scope: Scope) -> list[Scope]:
        return self._resources.pending_within(pending, scope)

    def _with_engine_stats(self, out: dict[str, Any], worker_stats: object | None) -> dict[str, Any]:
        r = self._resources
        out.update(
            {
                "embedder": r.embedder.name,
                "dim": r.embedder.dim,
                "pooling": r.collection.pooling,
                "lexicon": r.collection.lexicon,
            }
        )
        if worker_stats is not None:
            out["consolidation"] = worker_stats
        return out
