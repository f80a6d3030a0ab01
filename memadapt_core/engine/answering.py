"""``answer`` and ``answer_stream`` of the twins: ``AsyncAnswering`` (awaited) and ``Answering`` (called).

Each is the same short sequence around ``chat``'s planning: check, recall (search, the session's latest turns,
the profile), ask the LLM, store the exchange. They are mixed into ``AsyncMemory`` and ``Memory`` so the twins'
own modules keep to their storage calls.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from memadapt_core.models import Answer, MemoryRecord, SearchHit
from memadapt_core.profile import UserProfile

from .planning import chat

if TYPE_CHECKING:
    from .async_memory import AsyncMemory
    from .sync_memory import Memory

__all__ = ["Answering", "AsyncAnswering"]

Recalled = tuple[list[SearchHit], list[MemoryRecord], UserProfile | None]


class AsyncAnswering:
    """``AsyncMemory``'s ``answer`` and ``answer_stream``."""

    async def answer(
        self, question: str, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, remember: bool = True, now: datetime | None = None,
    ) -> Answer:  # fmt: skip
        """Answer ``question`` from memory: recall, ask the configured LLM, store the exchange in the session
        (``remember``) so consolidation learns from it. ``ConfigurationError`` without an LLM."""
        me = cast("AsyncMemory", self)
        plan, llm = _planned(me, question, user_id, agent_id, session_id, limit, remember, now)
        hits, recent, profile = await self._recall(plan)
        text = await llm.complete_text(chat.OPERATION, plan.messages(_context(me, plan, hits, recent, profile)))
        return plan.result(text, hits, recent, await self._remember(plan, text))

    async def answer_stream(
        self, question: str, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, remember: bool = True, now: datetime | None = None,
    ) -> AsyncIterator[str | Answer]:  # fmt: skip
        """``answer`` a chunk at a time: the answer's text as it comes (``str``), then the ``Answer``."""
        me = cast("AsyncMemory", self)
        plan, llm = _planned(me, question, user_id, agent_id, session_id, limit, remember, now)
        hits, recent, profile = await self._recall(plan)
        parts: list[str] = []
        async for chunk in llm.stream_text(chat.OPERATION, plan.messages(_context(me, plan, hits, recent, profile))):
            parts.append(chunk)
            yield chunk
        text = "".join(parts)
        yield plan.result(text, hits, recent, await self._remember(plan, text))

    async def _recall(self, plan: chat.AnswerPlan) -> Recalled:
        me = cast("AsyncMemory", self)
        found = me.search(plan.question, **plan.recall_scope, limit=plan.limit, now=plan.now)
        recent = me.recent(**plan.scope) if plan.with_recent else _nothing([])
        profile = me.profile(**_owner(plan)) if plan.with_profile else _nothing(None)
        hits, turns, known = await asyncio.gather(found, recent, profile)
        return hits, turns, known

    async def _remember(self, plan: chat.AnswerPlan, text: str) -> list[MemoryRecord]:
        if not plan.remember:
            return []
        return await cast("AsyncMemory", self).add(plan.exchange(text), **plan.scope, observed_at=plan.now)


class Answering:
    """``Memory``'s ``answer`` and ``answer_stream``."""

    def answer(
        self, question: str, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, remember: bool = True, now: datetime | None = None,
    ) -> Answer:  # fmt: skip
        """Answer ``question`` from memory: recall, ask the configured LLM, store the exchange in the session
        (``remember``) so consolidation learns from it. ``ConfigurationError`` without an LLM."""
        me = cast("Memory", self)
        plan, llm = _planned(me, question, user_id, agent_id, session_id, limit, remember, now)
        hits, recent, profile = self._recall(plan)
        text = llm.complete_text(chat.OPERATION, plan.messages(_context(me, plan, hits, recent, profile)))
        return plan.result(text, hits, recent, self._remember(plan, text))

    def answer_stream(
        self, question: str, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, remember: bool = True, now: datetime | None = None,
    ) -> Iterator[str | Answer]:  # fmt: skip
        """``answer`` a chunk at a time: the answer's text as it comes (``str``), then the ``Answer``."""
        me = cast("Memory", self)
        plan, llm = _planned(me, question, user_id, agent_id, session_id, limit, remember, now)
        hits, recent, profile = self._recall(plan)
        parts: list[str] = []
        for chunk in llm.stream_text(chat.OPERATION, plan.messages(_context(me, plan, hits, recent, profile))):
            parts.append(chunk)
            yield chunk
        text = "".join(parts)
        yield plan.result(text, hits, recent, self._remember(plan, text))

    def _recall(self, plan: chat.AnswerPlan) -> Recalled:
        me = cast("Memory", self)
        hits = me.search(plan.question, **plan.recall_scope, limit=plan.limit, now=plan.now)
        recent = me.recent(**plan.scope) if plan.with_recent else []
        profile = me.profile(**_owner(plan)) if plan.with_profile else None
        return hits, recent, profile

    def _remember(self, plan: chat.AnswerPlan, text: str) -> list[MemoryRecord]:
        if not plan.remember:
            return []
        return cast("Memory", self).add(plan.exchange(text), **plan.scope, observed_at=plan.now)


def _planned(
    me: AsyncMemory | Memory, question: str, user_id: str | None, agent_id: str | None, session_id: str | None,
    limit: int, remember: bool, now: datetime | None,
) -> tuple[chat.AnswerPlan, Any]:  # fmt: skip
    """The answer's plan (its arguments checked) and the LLM client to ask, the same for both twins."""
    plan = chat.plan_answer(
        me.settings, question, user_id=user_id, agent_id=agent_id, session_id=session_id, limit=limit,
        remember=remember, now=now,
    )  # fmt: skip
    me._live()  # a closed memory says so (StoreUnavailableError), not that its LLM cannot answer
    me._consolidator()  # the consolidation client (built with the worker, closed by close())
    return plan, chat.text_client(me._llm, me.settings.llm.provider)


def _owner(plan: chat.AnswerPlan) -> dict[str, Any]:
    return {"user_id": plan.recall_scope["user_id"], "agent_id": plan.recall_scope["agent_id"]}


def _context(
    me: AsyncMemory | Memory, plan: chat.AnswerPlan, hits: list[SearchHit], recent: list[MemoryRecord],
    profile: UserProfile | None,
) -> str:  # fmt: skip
    if not plan.with_recent and profile is None:
        return me.format_context(plan.question, hits)
    return me.format_context(plan.question, hits, recent=recent, profile=profile)


async def _nothing(value: Any) -> Any:
    return value
