"""agentscope-runtime's ``MemoryService`` interface, for when agentscope-runtime is not installed.

The runtime's own ABC (``ServiceWithLifecycleManager``: start / stop / health, an async context manager, and
the four memory methods) is used instead whenever it can be imported.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Any, Self

__all__ = ["MemoryServiceShape"]


class MemoryServiceShape(ABC):
    """The methods, arguments and lifecycle of agentscope-runtime's ``MemoryService``."""

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    @abstractmethod
    async def start(self) -> None: ...

    @abstractmethod
    async def stop(self) -> None: ...

    @abstractmethod
    async def health(self) -> bool: ...

    @abstractmethod
    async def add_memory(self, user_id: str, messages: list[Any], session_id: str | None = None) -> None: ...

    @abstractmethod
    async def search_memory(
        self, user_id: str, messages: list[Any], filters: dict[str, Any] | None = None
    ) -> list[Any]: ...

    @abstractmethod
    async def list_memory(self, user_id: str, filters: dict[str, Any] | None = None) -> list[Any]: ...

    @abstractmethod
    async def delete_memory(self, user_id: str, session_id: str | None = None) -> None: ...
