"""``MemadaptProfileRetriever``: the user's (or agent's) profile, one ``Document`` per statement."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, PrivateAttr

from memadapt_core.api import AsyncMemoryAPI, MemoryAPI

from ._engine import engine_views
from ._framework import AsyncCallbackManagerForRetrieverRun, BaseRetriever, CallbackManagerForRetrieverRun, Document
from ._validated import EngineField

__all__ = ["MemadaptProfileRetriever"]


class MemadaptProfileRetriever(BaseRetriever):
    """What is known about the user as documents (``"section: statement"``, with the section and the facts it
    cites in ``metadata``), whatever the query: the profile is short and always relevant, so a chain can put it
    before the memories a ``MemadaptRetriever`` finds. With only ``agent_id``: the agent's own profile."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: EngineField
    user_id: str | None = None
    agent_id: str | None = None

    _sync: MemoryAPI = PrivateAttr()
    _async: AsyncMemoryAPI = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        self._sync, self._async = engine_views(self.memory)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return _documents(self._sync.profile(user_id=self.user_id, agent_id=self.agent_id).model_dump())

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        return _documents((await self._async.profile(user_id=self.user_id, agent_id=self.agent_id)).model_dump())


def _documents(profile: dict[str, Any]) -> list[Document]:
    return [
        Document(
            id=s["id"],
            page_content=f"{section}: {s['text']}",
            metadata={
                "kind": "profile",
                "section": section,
                "source_ids": s["source_ids"],
                "version": profile["version"],
            },
        )
        for section, statements in profile["sections"].items()
        for s in statements
    ]
