"""``AsyncMemoryAPI``: every public call of an async memadapt memory, declared once.

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
from collections.abc import AsyncIterator, Callable, Sequence
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

    from .background import Pending
    from .sync_api import MemoryAPI

__all__ = ["AsyncMemoryAPI"]


@runtime_checkable
class AsyncMemoryAPI(Protocol):
    """An async memadapt memory: the engine ``AsyncMemory`` or the client ``AsyncRemoteMemory``."""

    # -- the door itself -------------------------------------------------------------------------------------------
    @classmethod
    async def open(cls, **options: Any) -> Self:
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

    async def flush(self) -> None: ...

    async def close(self) -> None: ...

    # -- writing ---------------------------------------------------------------------------------------------------
    async def add(
        self, messages: str | dict[str, Any] | Sequence[str | dict[str, Any]], *, user_id: str | None = None,
        agent_id: str | None = None, session_id: str | None = None, kind: Kind = "message",
        metadata: dict[str, Any] | None = None, observed_at: datetime | str | None = None,
        on_conflict: Literal["skip", "replace"] = "skip",
    ) -> builtins.list[MemoryRecord]: ...  # fmt: skip

    async def update(
        self, id: str, *, text: str | None = None, metadata: dict[str, Any] | None = None,
        user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
    ) -> MemoryRecord: ...  # fmt: skip

    async def delete(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> bool: ...

    async def delete_many(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> int: ...  # fmt: skip

    async def delete_all(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> int: ...

    # -- reading ---------------------------------------------------------------------------------------------------
    async def search(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        **options: Unpack[SearchOptions],
    ) -> builtins.list[SearchHit]: ...  # fmt: skip

    async def search_many(
        self, queries: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, **options: Any,
    ) -> builtins.list[SearchHit]: ...  # fmt: skip

    async def get(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> MemoryRecord | None: ...

    async def get_many(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> builtins.list[MemoryRecord]: ...  # fmt: skip

    async def vectors(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> dict[str, builtins.list[float]]: ...  # fmt: skip

    async def query_vector(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> builtins.list[float]: ...

    async def list(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, limit: int = 50, cursor: str | None = None,
        filters: dict[str, Any] | None = None, include_archived: bool = False,
    ) -> Page: ...  # fmt: skip

    def iter_records(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, filters: dict[str, Any] | None = None, page_size: int = 500,
    ) -> AsyncIterator[MemoryRecord]: ...  # fmt: skip

    async def count(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, filters: dict[str, Any] | None = None,
    ) -> int: ...  # fmt: skip

    async def recent(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        limit: int | None = None, kinds: Sequence[Kind] | None = ("message",),
    ) -> builtins.list[MemoryRecord]: ...  # fmt: skip

    async def profile(
        self, *, user_id: str | None = None, agent_id: str | None = None, as_of: datetime | str | None = None
    ) -> UserProfile: ...

    async def history(
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

    async def answer(
        self, question: str, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, remember: bool = True, now: datetime | None = None,
    ) -> Answer: ...  # fmt: skip

    def answer_stream(
        self, question: str, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, remember: bool = True, now: datetime | None = None,
    ) -> AsyncIterator[str | Answer]: ...  # fmt: skip

    # -- task memory -----------------------------------------------------------------------------------------------
    async def add_trajectories(
        self, trajectories: dict[str, Any] | Sequence[dict[str, Any]], *, agent_id: str | None,
        task: str | None = None, user_id: str | None = None, session_id: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> builtins.list[MemoryRecord]: ...  # fmt: skip

    async def experiences(
        self, task: str, *, agent_id: str | None, limit: int = 3, threshold: float | None = None
    ) -> builtins.list[SearchHit]: ...

    async def experience_guidance(self, task: str, *, agent_id: str | None, limit: int = 3) -> str: ...

    async def record_tool_calls(
        self, calls: dict[str, Any] | Sequence[dict[str, Any]], *, agent_id: str | None, user_id: str | None = None,
        session_id: str | None = None,
    ) -> builtins.list[MemoryRecord]: ...  # fmt: skip

    async def tool_stats(self, tool_name: str, *, agent_id: str | None) -> ToolStats: ...

    async def tool_guide(self, tool_name: str, *, agent_id: str | None) -> ToolGuide: ...

    # -- the store's files and upkeep ------------------------------------------------------------------------------
    async def export(
        self, path: str | Path, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, kinds: Sequence[Kind] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> int: ...  # fmt: skip

    async def import_(
        self, path: str | Path, *, progress: Callable[[int], None] | None = None, resume: bool = False
    ) -> int: ...

    async def export_reme(
        self, path: str | Path, *, agent_id: str | None, progress: Callable[[int], None] | None = None
    ) -> int: ...

    async def import_reme(
        self, path: str | Path, *, agent_id: str | None, progress: Callable[[int], None] | None = None
    ) -> LibraryImport: ...

    async def consolidate(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> int: ...

    async def optimize(self) -> None: ...

    async def stats(self) -> dict[str, Any]: ...
