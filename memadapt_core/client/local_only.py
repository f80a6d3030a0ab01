"""The engine's calls a client of ``memadapt serve`` does not make (``LOCAL_ONLY``): declared, as the API
(``memadapt_core.api``) has them, and refused with a ``ConfigurationError`` that names the call and says why and
what to do instead, rather than left out (an ``AttributeError``) or faked.

``open`` builds an engine over a store in this process; ``consolidate``, ``optimize`` and ``stats`` are the store
owner's upkeep and figures, across every tenant; ``import_``, ``import_reme`` and ``export_reme`` write or read a
whole store or an agent's lessons from files on the server's machine; ``answer_stream`` has no streamed route yet.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, Self

from memadapt_core.errors import ConfigurationError
from memadapt_core.models import Answer, LibraryImport

__all__ = ["LOCAL_ONLY", "AsyncLocalOnly", "LocalOnly", "refused"]

_WHY = {
    "open": "it opens a store in this process; a client is built as RemoteMemory(url, token=...)",
    "consolidate": "consolidation is the server's, across every tenant; the server consolidates in the background",
    "optimize": "optimizing the store is its owner's upkeep: run it where the store is (Memory(path=...).optimize())",
    "stats": "the store's counts and sizes span every tenant: they are its owner's (memadapt stats on the server)",
    "import_": "it writes a whole store from a file: run memadapt import where the store is",
    "import_reme": "it reads an agent's lessons from files: the operator's /vector_store route does it on the server",
    "export_reme": "it writes an agent's lessons to files: the operator's /vector_store route does it on the server",
    "answer_stream": "the server has no streamed route yet: answer() gives the whole reply",
}

LOCAL_ONLY = frozenset(_WHY)


def refused(door: str, call: str) -> ConfigurationError:
    """The error a client raises for a ``LOCAL_ONLY`` call: the call named, and why."""
    return ConfigurationError(f"{door}.{call} is not offered by a client of memadapt serve: {_WHY[call]}")


class LocalOnly:
    """``RemoteMemory``'s refusals."""

    @classmethod
    def open(cls, **options: Any) -> Self:
        raise refused(cls.__name__, "open")

    def consolidate(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> int:
        raise refused(type(self).__name__, "consolidate")

    def optimize(self) -> None:
        raise refused(type(self).__name__, "optimize")

    def stats(self) -> dict[str, Any]:
        raise refused(type(self).__name__, "stats")

    def import_(self, path: str | Path, *, progress: Callable[[int], None] | None = None, resume: bool = False) -> int:
        raise refused(type(self).__name__, "import_")

    def import_reme(
        self, path: str | Path, *, agent_id: str | None, progress: Callable[[int], None] | None = None
    ) -> LibraryImport:
        raise refused(type(self).__name__, "import_reme")

    def export_reme(
        self, path: str | Path, *, agent_id: str | None, progress: Callable[[int], None] | None = None
    ) -> int:
        raise refused(type(self).__name__, "export_reme")

    def answer_stream(
        self, question: str, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, remember: bool = True, now: datetime | None = None,
    ) -> Iterator[str | Answer]:  # fmt: skip
        raise refused(type(self).__name__, "answer_stream")


class AsyncLocalOnly:
    """``AsyncRemoteMemory``'s refusals: the same, awaited where the engine's are."""

    @classmethod
    async def open(cls, **options: Any) -> Self:
        raise refused(cls.__name__, "open")

    async def consolidate(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> int:
        raise refused(type(self).__name__, "consolidate")

    async def optimize(self) -> None:
        raise refused(type(self).__name__, "optimize")

    async def stats(self) -> dict[str, Any]:
        raise refused(type(self).__name__, "stats")

    async def import_(
        self, path: str | Path, *, progress: Callable[[int], None] | None = None, resume: bool = False
    ) -> int:
        raise refused(type(self).__name__, "import_")

    async def import_reme(
        self, path: str | Path, *, agent_id: str | None, progress: Callable[[int], None] | None = None
    ) -> LibraryImport:
        raise refused(type(self).__name__, "import_reme")

    async def export_reme(
        self, path: str | Path, *, agent_id: str | None, progress: Callable[[int], None] | None = None
    ) -> int:
        raise refused(type(self).__name__, "export_reme")

    def answer_stream(
        self, question: str, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, remember: bool = True, now: datetime | None = None,
    ) -> AsyncIterator[str | Answer]:  # fmt: skip
        raise refused(type(self).__name__, "answer_stream")
