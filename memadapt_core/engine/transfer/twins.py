"""Export and import of the twins, as JSON Lines and as ReMe's experience libraries: ``AsyncTransfers`` (each a
thread: files are read and written a batch at a time) and ``Transfers``. Mixed into ``AsyncMemory`` and ``Memory``
so the twins' own modules keep to their storage calls; the work is in ``jsonl`` and ``tasks/reme_libraries``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from memadapt_core.engine.tasks import reme_libraries
from memadapt_core.models import Kind, LibraryImport

from . import jsonl

if TYPE_CHECKING:
    from memadapt_core.engine.async_memory import AsyncMemory
    from memadapt_core.engine.sync_memory import Memory

__all__ = ["AsyncTransfers", "Transfers"]


class AsyncTransfers:
    """``AsyncMemory``'s export and import."""

    async def export(
        self, path: str | Path, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, kinds: Sequence[Kind] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> int:  # fmt: skip
        """Write records (all, or one scope's) as JSON Lines, streaming; returns how many."""
        r = cast("AsyncMemory", self)._live()
        flt = jsonl.export_filter(user_id, agent_id, session_id, kinds)
        return await asyncio.to_thread(jsonl.export_records, r, path, flt, progress)

    async def import_(
        self, path: str | Path, *, progress: Callable[[int], None] | None = None, resume: bool = False
    ) -> int:
        """Read a JSON Lines export, re-embedding with this store's embedder; returns how many records it wrote.
        ``resume``: skip the records already stored (same id, same scope), to finish an import that stopped."""
        return await asyncio.to_thread(
            jsonl.import_records, cast("AsyncMemory", self)._live(), path, progress, resume=resume
        )

    async def import_reme(
        self, path: str | Path, *, agent_id: str | None, progress: Callable[[int], None] | None = None
    ) -> LibraryImport:
        """Load an experience library in ReMe's format (a ``.jsonl`` file or a folder of them) as the agent's
        lessons, re-embedding; idempotent by ``memory_id`` (docs/task-memory.md)."""
        return await asyncio.to_thread(
            reme_libraries.import_library, cast("AsyncMemory", self)._live(), path, agent_id, progress
        )

    async def export_reme(
        self, path: str | Path, *, agent_id: str | None, progress: Callable[[int], None] | None = None
    ) -> int:
        """Write the agent's current lessons in ReMe's line format (ReMe's ``load`` reads it); returns how many."""
        return await asyncio.to_thread(
            reme_libraries.export_library, cast("AsyncMemory", self)._live(), path, agent_id, progress
        )


class Transfers:
    """``Memory``'s export and import."""

    def export(
        self, path: str | Path, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, kinds: Sequence[Kind] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> int:  # fmt: skip
        """Write records (all, or one scope's) as JSON Lines, streaming; returns how many."""
        r = cast("Memory", self)._live()
        return jsonl.export_records(r, path, jsonl.export_filter(user_id, agent_id, session_id, kinds), progress)

    def import_(self, path: str | Path, *, progress: Callable[[int], None] | None = None, resume: bool = False) -> int:
        """Read a JSON Lines export, re-embedding with this store's embedder; returns how many records it wrote.
        ``resume``: skip the records already stored (same id, same scope), to finish an import that stopped."""
        return jsonl.import_records(cast("Memory", self)._live(), path, progress, resume=resume)

    def import_reme(
        self, path: str | Path, *, agent_id: str | None, progress: Callable[[int], None] | None = None
    ) -> LibraryImport:
        """Load an experience library in ReMe's format (a ``.jsonl`` file or a folder of them) as the agent's
        lessons, re-embedding; idempotent by ``memory_id`` (docs/task-memory.md)."""
        return reme_libraries.import_library(cast("Memory", self)._live(), path, agent_id, progress)

    def export_reme(
        self, path: str | Path, *, agent_id: str | None, progress: Callable[[int], None] | None = None
    ) -> int:
        """Write the agent's current lessons in ReMe's line format (ReMe's ``load`` reads it); returns how many."""
        return reme_libraries.export_library(cast("Memory", self)._live(), path, agent_id, progress)
