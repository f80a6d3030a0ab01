"""``MemadaptChatMessageHistory``: one session's turns, stored as message records that feed long-term memory."""

from __future__ import annotations

from collections.abc import Sequence

from memadapt_core import MemoryRecord, Scope
from memadapt_core.api import AsyncMemoryAPI, MemoryAPI

from ._engine import engine_views
from ._framework import BaseChatMessageHistory, BaseMessage
from ._messages import message_input, record_message

__all__ = ["MemadaptChatMessageHistory"]

_PAGE = 100


class MemadaptChatMessageHistory(BaseChatMessageHistory):
    """The messages of ``session_id`` (optionally also of one user or agent), oldest first.

    Each message is a ``message`` record, so it is searchable and consolidated like any other turn; its
    LangChain type and fields are kept in the record's metadata, so ``messages`` returns equal objects.
    ``clear`` deletes this session's messages only: facts already learnt from them stay.
    """

    def __init__(
        self,
        memory: MemoryAPI | AsyncMemoryAPI,
        session_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
    ) -> None:
        self._sync, self._async = engine_views(memory)
        self._scope = Scope.of(user_id, agent_id, session_id).ids()  # a missing or malformed id fails here
        self.session_id = session_id

    def _records(self) -> list[MemoryRecord]:
        return list(self._sync.iter_records(kinds=["message"], page_size=_PAGE, **self._scope))

    async def _arecords(self) -> list[MemoryRecord]:
        return [r async for r in self._async.iter_records(kinds=["message"], page_size=_PAGE, **self._scope)]

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        return [record_message(r) for r in self._records()]

    async def aget_messages(self) -> list[BaseMessage]:
        return [record_message(r) for r in await self._arecords()]

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        if messages:
            self._sync.add([message_input(m) for m in messages], **self._scope)

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        if messages:
            await self._async.add([message_input(m) for m in messages], **self._scope)

    def clear(self) -> None:
        self._sync.delete_many([r.id for r in self._records()])

    async def aclear(self) -> None:
        await self._async.delete_many([r.id for r in await self._arecords()])
