"""`MemadaptLongTermMemory`: AgentScope 1.x's ``LongTermMemoryBase`` on the memadapt engine.

``ReActAgent(long_term_memory=..., long_term_memory_mode="static_control" | "agent_control" | "both")`` calls
``retrieve`` before reasoning and ``record`` after each reply, with the whole short-term history every time:
messages are keyed by their ids, so the engine stores each one once. ``record_to_memory`` and
``retrieve_from_memory`` are the agent's tools.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from memadapt_agentscope._engine import EngineLike, as_async, tool_texts
from memadapt_core import MemadaptError, Scope, ValidationError, check_count
from memadapt_core.api import AsyncMemoryAPI

from ._framework import LongTermMemoryBase, Msg, TextBlock, ToolResponse

__all__ = ["MemadaptLongTermMemory"]


class MemadaptLongTermMemory(LongTermMemoryBase):  # type: ignore[misc, unused-ignore]
    """Long-term memory of one user (and optionally one agent) for an AgentScope 1.x agent."""

    def __init__(
        self,
        memory: EngineLike,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        top_k: int = 5,
        threshold: float | None = None,
        skip_names: Collection[str] = ("long_term_memory",),
        profile: bool = False,
    ) -> None:
        """
        :param memory: the engine (``AsyncMemory``, or a ``Memory`` used through its async view).
        :param user_id: whose memories; with ``agent_id`` at least one is needed (``session_id`` alone would
            make the memory short-term).
        :param agent_id: optional finer scope; searches filter on it too.
        :param session_id: recorded with each message; searches span all sessions.
        :param top_k: default number of memories per query.
        :param threshold: relevance floor passed to the engine; None keeps the engine's default floor.
        :param skip_names: senders whose messages are not recorded: ``ReActAgent`` adds the memory it
            retrieved to its history as ``long_term_memory`` and re-sends it to ``record``.
        :param profile: ``retrieve`` (``static_control`` and ``both``) also starts with a short block of the
            user's profile (the agent's, without a user), kept by consolidation (docs/tiers.md).
        """
        super().__init__()
        scope = Scope.of(user_id, agent_id, session_id, required=False)
        if scope.user_id is None and scope.agent_id is None:
            field = "user_id"
            problem = "MemadaptLongTermMemory needs a user_id or an agent_id: memories belong to someone"
            raise ValidationError(field, problem)
        self._memory: AsyncMemoryAPI = as_async(memory)
        self.user_id = user_id
        self.agent_id = agent_id
        self.session_id = session_id
        self._top_k = check_count("top_k", top_k)
        self._threshold = threshold
        self._skip_names = frozenset(skip_names)
        self._profile = profile

    async def record(self, msgs: Sequence[Msg | None] | Msg | None, **kwargs: Any) -> None:
        """Store the messages' text, each message once however often it is sent."""
        items = [msgs] if isinstance(msgs, Msg) else list(msgs or [])
        entries: list[dict[str, str]] = []
        for msg in items:
            text = msg.get_text_content() if isinstance(msg, Msg) else None
            if msg is None or not text or not text.strip() or msg.name in self._skip_names:
                continue
            entries.append({"role": msg.role, "content": text, "name": msg.name, "id": msg.id})
        if entries:
            await self._memory.add(
                entries,
                user_id=self.user_id,
                agent_id=self.agent_id,
                session_id=self.session_id,
            )

    async def retrieve(self, msg: Msg | Sequence[Msg] | None, limit: int | None = None, **kwargs: Any) -> str:
        """The memories relevant to the messages' text, rendered by the engine (empty when none is)."""
        items = [msg] if isinstance(msg, Msg) else list(msg or [])
        queries = [text for m in items if (text := m.get_text_content()) and text.strip()]
        return await self._render(queries, limit, with_profile=self._profile and bool(queries))

    async def record_to_memory(self, thinking: str, content: list[str], **kwargs: Any) -> ToolResponse:
        """Use this function to record important information that you may need later. The target content
        should be specific and concise, e.g. who, when, where, do what, why, how, etc.

        Args:
            thinking (`str`):
                Your thinking and reasoning about what to record.
            content (`list[str]`):
                The content to remember, which is a list of strings.
        """
        facts = tool_texts(content)
        if not facts:
            return _response("Nothing to record: `content` is empty.")
        try:
            records = await self._memory.add(
                facts, user_id=self.user_id, agent_id=self.agent_id, session_id=self.session_id, kind="fact"
            )
        except MemadaptError as exc:
            return _response(f"Error recording content to memory: {exc}")
        return _response(f"Successfully recorded {len(records)} item(s) to memory.")

    async def retrieve_from_memory(self, keywords: list[str], limit: int = 5, **kwargs: Any) -> ToolResponse:
        """Retrieve the memory based on the given keywords.

        Args:
            keywords (`list[str]`):
                Short, targeted search phrases, such as a person's name, a date, a location, or a phrase
                describing what to retrieve. Each keyword is searched on its own.
            limit (`int`, optional):
                The maximum number of memories to retrieve per keyword. Defaults to 5.
        """
        try:
            text = await self._render(tool_texts(keywords), limit)
        except MemadaptError as exc:
            return _response(f"Error retrieving memory: {exc}")
        return _response(text or "No relevant memories found.")

    async def _render(self, queries: list[str], limit: int | None, *, with_profile: bool = False) -> str:
        hits = await self._memory.search_many(
            queries, user_id=self.user_id, agent_id=self.agent_id, limit=limit or self._top_k, threshold=self._threshold
        )
        found = await self._memory.profile(user_id=self.user_id, agent_id=self.agent_id) if with_profile else None
        profile = found if found is not None and not found.is_empty() else None
        return self._memory.format_context("; ".join(queries), hits, profile=profile) if hits or profile else ""


def _response(text: str) -> ToolResponse:
    return ToolResponse(content=[TextBlock(type="text", text=text)])
