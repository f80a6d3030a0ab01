"""Task memory for LangChain: an agent's experience as a retriever and as tools.

``MemadaptExperienceRetriever`` returns the agent's experiences for a task (ranked by task similarity, strength of
evidence and recency), each a ``Document`` whose content is the lesson. ``create_experience_tool`` answers with
the guidance block for a prompt; ``create_trajectory_tool`` lets an agent report how an attempt went.
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, PrivateAttr

from memadapt_core import Scope, SearchHit, check_count
from memadapt_core.api import AsyncMemoryAPI, MemoryAPI

from ._engine import engine_views
from ._framework import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
    Document,
    StructuredTool,
)
from ._validated import EngineField, ValidatedRetriever

__all__ = ["MemadaptExperienceRetriever", "create_experience_tool", "create_trajectory_tool", "experience_document"]

_NO_EXPERIENCE = "No experience with similar tasks yet."


def experience_document(hit: SearchHit) -> Document:
    """An experience as a ``Document``: the lesson, with ``when_to_use``, evidence and scores in metadata."""
    meta = hit.record.metadata
    return Document(
        id=hit.record.id,
        page_content=str(meta.get("content", "")),
        metadata={
            "when_to_use": hit.record.text,
            "evidence": meta.get("evidence"),
            "evidence_score": meta.get("score"),
            "score": hit.score,
            "agent_id": hit.record.agent_id,
            "source_ids": list(hit.record.source_ids),
        },
    )


class MemadaptExperienceRetriever(ValidatedRetriever):
    """The agent's experiences for a task, best first (``k`` per call: ``retriever.invoke(task, k=2)``)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: EngineField
    agent_id: str
    k: int = 3

    _sync: MemoryAPI = PrivateAttr()
    _async: AsyncMemoryAPI = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        self._sync, self._async = engine_views(self.memory)
        Scope.of(agent_id=self.agent_id)  # a malformed agent id fails here
        check_count("k", self.k)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, k: int | None = None
    ) -> list[Document]:
        hits = self._sync.experiences(query, agent_id=self.agent_id, limit=self.k if k is None else k)
        return [experience_document(hit) for hit in hits]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, k: int | None = None
    ) -> list[Document]:
        hits = await self._async.experiences(query, agent_id=self.agent_id, limit=self.k if k is None else k)
        return [experience_document(hit) for hit in hits]


def create_experience_tool(
    memory: MemoryAPI | AsyncMemoryAPI,
    *,
    agent_id: str,
    limit: int = 3,
    name: str = "recall_experience",
    description: str = "Before a task, recall lessons learnt from earlier attempts at similar tasks.",
) -> StructuredTool:
    """A tool that answers with the agent's experience for a task, as the guidance block."""
    sync, async_ = engine_views(memory)
    Scope.of(agent_id=agent_id)
    limit = check_count("limit", limit)

    def recall_experience(task: str) -> str:
        return sync.experience_guidance(task, agent_id=agent_id, limit=limit) or _NO_EXPERIENCE

    async def arecall_experience(task: str) -> str:
        return await async_.experience_guidance(task, agent_id=agent_id, limit=limit) or _NO_EXPERIENCE

    return StructuredTool.from_function(recall_experience, arecall_experience, name=name, description=description)


def create_trajectory_tool(
    memory: MemoryAPI | AsyncMemoryAPI,
    *,
    agent_id: str,
    user_id: str | None = None,
    name: str = "report_attempt",
    description: str = (
        "After a task, report how it went so lessons can be learnt: the task, what was done step by step "
        "(tools called and their results), and a score from 0 (failed) to 1 (succeeded)."
    ),
) -> StructuredTool:
    """A tool that stores the agent's account of an attempt as a scored trajectory."""
    sync, async_ = engine_views(memory)
    Scope.of(user_id, agent_id)  # a malformed id fails here

    def trajectory(task: str, steps: list[str], score: float) -> dict[str, Any]:
        messages = [{"role": "user", "content": task}, *({"role": "assistant", "content": s} for s in steps)]
        return {"messages": messages, "score": score, "task": task}

    def report_attempt(task: str, steps: list[str], score: float) -> str:
        [record] = sync.add_trajectories(trajectory(task, steps, score), agent_id=agent_id, user_id=user_id)
        return f"Recorded attempt {record.id}."

    async def areport_attempt(task: str, steps: list[str], score: float) -> str:
        [record] = await async_.add_trajectories(trajectory(task, steps, score), agent_id=agent_id, user_id=user_id)
        return f"Recorded attempt {record.id}."

    return StructuredTool.from_function(report_attempt, areport_attempt, name=name, description=description)
