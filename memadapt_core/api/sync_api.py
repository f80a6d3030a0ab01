# Generated from memadapt_core/api/async_api.py by scripts/unasync.py: edit that file, never this one.
"""``MemoryAPI``: every public call of a sync memadapt memory, declared once.

``MemoryAPI`` (``sync_api``), the same calls with the same names and arguments, called rather than awaited, is
generated from this file by ``scripts/unasync.py``. Two doors implement each: the engine (``AsyncMemory`` /
``Memory``, over a store in this process) and the client of ``memadapt serve`` (``AsyncRemoteMemory`` /
``RemoteMemory``, over HTTP). Adapters are typed to them, so mypy sees any call a door lacks; a test holds each
door to them, signatures included (``tests/core/test_api_doors.py``). A call that has no meaning through a door is
still declared and raises a ``MemadaptError`` naming it and why (the client's ``LOCAL_ONLY``). A call that does
I/O is awaited; the no-I/O ones (``record_id``, ``format_context``, ``track``, the views) and the two that return
iterators (``iter_records``, ``answer_stream``) are plain calls, as on the engine.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, Self, Unpack, runtime_checkable

from memadapt_core.config import MemorySettings
from memadapt_core.models import Answer, HistoryEvent, Kind, LibraryImport, MemoryRecord, Page, SearchHit
from memadapt_core.profile import UserProfile
from memadapt_core.tool_stats import ToolStats

from .embedder import QueryEmbedder
from .options import SearchOptions

if TYPE_CHECKING:
    from memadapt_core.tool_stats import ToolGuide

    from .async_api import AsyncMemoryAPI
    from .background import Pending

__all__ = ["MemoryAPI"]


@runtime_checkable
class MemoryAPI(Protocol):
    """A sync memadapt memory: the engine ``Memory`` or the client ``RemoteMemory``."""

    # -- the door itself -------------------------------------------------------------------------------------------
    @classmethod
    def open(cls, **options: Any) -> Self:
        """A door built from its constructor's options."""
        ...

    @property
    def settings(self) -> MemorySettings:
        """The limits adapters read (``max_limit``, ``max_text_chars``)."""
        ...

    @property
    def embedder(self) -> QueryEmbedder: ...

    def as_sync(self) -> MemoryAPI:
        """The sync door over the same store or server: itself on a sync door, else its twin (closing a twin
        closes only the twin)."""
        ...

    def as_async(self) -> AsyncMemoryAPI:
        """The async door over the same store or server: itself on an async door, else its twin."""
        ...

    def track(self, pending: Pending) -> None:
        """A background write an adapter acknowledged: ``close()`` and ``flush()`` wait for it."""
        ...

    def flush(self) -> None: ...

    def close(self) -> None: ...

    # -- writing ---------------------------------------------------------------------------------------------------
    def add(
        self, messages: str | dict[str, Any] | Sequence[str | dict[str, Any]], *, user_id: str | None = None,
        agent_id: str | None = None, session_id: str | None = None, kind: Kind = "message",
        metadata: dict[str, Any] | None = None, observed_at: datetime | str | None = None,
        on_conflict: Literal["skip", "replace"] = "skip",
    ) -> builtins.list[MemoryRecord]: ...  # fmt: skip

    def update(
        self, id: str, *, text: str | None = None, metadata: dict[str, Any] | None = None,
        user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
    ) -> MemoryRecord: ...  # fmt: skip

    def delete(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> bool: ...

    def delete_many(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> int: ...  # fmt: skip

    def delete_all(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> int: ...

    # -- reading ---------------------------------------------------------------------------------------------------
    def search(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        **options: Unpack[SearchOptions],
    ) -> builtins.list[SearchHit]: ...  # fmt: skip

    def search_many(
        self, queries: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, **options: Any,
    ) -> builtins.list[SearchHit]: ...  # fmt: skip

    def get(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> MemoryRecord | None: ...

    def get_many(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> builtins.list[MemoryRecord]: ...  # fmt: skip

    def vectors(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> dict[str, builtins.list[float]]: ...  # fmt: skip

    def query_vector(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> builtins.list[float]: ...

    def list(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, limit: int = 50, cursor: str | None = None,
        filters: dict[str, Any] | None = None, include_archived: bool = False,
    ) -> Page: ...  # fmt: skip

    def iter_records(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, filters: dict[str, Any] | None = None, page_size: int = 500,
    ) -> Iterator[MemoryRecord]: ...  # fmt: skip

    def count(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, filters: dict[str, Any] | None = None,
    ) -> int: ...  # fmt: skip

    def recent(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        limit: int | None = None, kinds: Sequence[Kind] | None = ("message",),
    ) -> builtins.list[MemoryRecord]: ...  # fmt: skip

    def profile(
        self, *, user_id: str | None = None, agent_id: str | None = None, as_of: datetime | str | None = None
    ) -> UserProfile: ...

    def history(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> builtins.list[HistoryEvent]: ...

    def record_id(
        self, external_id: str, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> str: ...  # fmt: skip

    # -- context for a prompt --------------------------------------------------------------------------------------
    def format_context(
        self, query: str, hits: Sequence[SearchHit], *, recent: Sequence[MemoryRecord] | None = None,
        profile: UserProfile | None = None,
    ) -> str: ...  # fmt: skip

    def format_experience(self, hits: Sequence[SearchHit]) -> str: ...

    def answer(
        self, question: str, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, remember: bool = True, now: datetime | None = None,
    ) -> Answer: ...  # fmt: skip

    def answer_stream(
        self, question: str, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, remember: bool = True, now: datetime | None = None,
    ) -> Iterator[str | Answer]: ...  # fmt: skip

    # -- task memory -----------------------------------------------------------------------------------------------
    def add_trajectories(
        self, trajectories: dict[str, Any] | Sequence[dict[str, Any]], *, agent_id: str | None,
        task: str | None = None, user_id: str | None = None, session_id: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> builtins.list[MemoryRecord]: ...  # fmt: skip

    def experiences(
        self, task: str, *, agent_id: str | None, limit: int = 3, threshold: float | None = None
    ) -> builtins.list[SearchHit]: ...

    def experience_guidance(self, task: str, *, agent_id: str | None, limit: int = 3) -> str: ...

    def record_tool_calls(
        self, calls: dict[str, Any] | Sequence[dict[str, Any]], *, agent_id: str | None, user_id: str | None = None,
        session_id: str | None = None,
    ) -> builtins.list[MemoryRecord]: ...  # fmt: skip

    def tool_stats(self, tool_name: str, *, agent_id: str | None) -> ToolStats: ...

    def tool_guide(self, tool_name: str, *, agent_id: str | None) -> ToolGuide: ...

    # -- the store's files and upkeep ------------------------------------------------------------------------------
    def export(
        self, path: str | Path, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, kinds: Sequence[Kind] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> int: ...  # fmt: skip

    def import_(
        self, path: str | Path, *, progress: Callable[[int], None] | None = None, resume: bool = False
    ) -> int: ...

    def export_reme(
        self, path: str | Path, *, agent_id: str | None, progress: Callable[[int], None] | None = None
    ) -> int: ...

    def import_reme(
        self, path: str | Path, *, agent_id: str | None, progress: Callable[[int], None] | None = None
    ) -> LibraryImport: ...

    def consolidate(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> int: ...

    def optimize(self) -> None: ...

    def stats(self) -> dict[str, Any]: ...
