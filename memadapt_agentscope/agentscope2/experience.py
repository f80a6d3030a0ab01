"""`MemadaptExperienceMiddleware`: task memory for AgentScope 2.x agents.

Before each reply it recalls the agent's experience for the task (the user's input) and appends it to the system
prompt (``experience_guidance``: ranked by task similarity, strength of evidence and recency). After the reply, when
a ``score`` callback is given, it records the reply's trajectory (the user's input, the model's tool calls, the tool
results and the final answer, from the agent's context) with that score: the engine's worker draws lessons from it
in the background, for every user of the agent. A score of None records nothing (the outcome is not known yet).
A memory outage never breaks the reply: it is logged.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any, TypeAlias

from memadapt_agentscope._engine import EngineLike, as_async
from memadapt_core import MemadaptError, Scope, check_count
from memadapt_core.api import AsyncMemoryAPI

from ._framework import Agent, AgentEvent, MiddlewareBase, Msg, TextBlock, ToolCallBlock, ToolResultBlock

__all__ = ["MemadaptExperienceMiddleware", "Score", "trajectory_messages"]

logger = logging.getLogger(__name__)

Score: TypeAlias = Callable[[str, Msg], Awaitable[float | None] | float | None]
"""``score(task, final_reply)``: how well the reply did the task (0 = failed, 1 = succeeded), or None."""


class MemadaptExperienceMiddleware(MiddlewareBase):
    """Injects the agent's experience before a task and records the scored trajectory after it.

    Example::

        mw = MemadaptExperienceMiddleware(engine, agent_id="travel-agent", user_id="alice", score=grade)
        agent = Agent(..., middlewares=[mw])
    """

    def __init__(
        self,
        memory: EngineLike,
        *,
        agent_id: str,
        user_id: str | None = None,
        score: Score | None = None,
        top_k: int = 3,
        inject: bool = True,
    ) -> None:
        """
        :param memory: the engine (``AsyncMemory``, or a ``Memory`` used through its async view).
        :param agent_id: whose experience this is (shared by every user of the agent).
        :param user_id: the user the recorded trajectories belong to (optional).
        :param score: ``score(task, final_reply)`` -> a score, None to skip recording; no callback: no recording.
        :param top_k: experiences injected per reply.
        :param inject: False records only.
        """
        Scope.of(user_id, agent_id)  # a malformed id fails here, not at the first reply
        self._memory: AsyncMemoryAPI = as_async(memory)
        self._agent_id = agent_id
        self._user_id = user_id
        self._score = score
        self._top_k = check_count("top_k", top_k)
        self._inject = inject
        self._guidance: dict[int, str] = {}  # per agent object, for the reply under way

    async def on_reply(
        self,
        agent: Agent,
        input_kwargs: dict[str, Any],
        next_handler: Callable[..., AsyncGenerator[AgentEvent | Msg, None]],
    ) -> AsyncGenerator[AgentEvent | Msg, None]:
        task = _task_text(input_kwargs.get("inputs"))
        if task and self._inject:
            self._guidance[id(agent)] = await self._recall(task)
        start = len(agent.state.context)
        final: Msg | None = None
        try:
            async for item in next_handler(**input_kwargs):
                if isinstance(item, Msg) and item.role == "assistant":
                    final = item
                yield item
        finally:
            self._guidance.pop(id(agent), None)
        if task and final is not None and self._score is not None:
            await self._record(task, final, agent.state.context[start:])

    async def on_system_prompt(self, agent: Agent, current_prompt: str) -> str:
        guidance = self._guidance.get(id(agent))
        return f"{current_prompt}\n\n{guidance}" if guidance else current_prompt

    async def _recall(self, task: str) -> str:
        try:
            return await self._memory.experience_guidance(task, agent_id=self._agent_id, limit=self._top_k)
        except MemadaptError as exc:
            logger.warning("memadapt could not recall experience for agent_id=%s: %s", self._agent_id, exc)
            return ""

    async def _record(self, task: str, final: Msg, context: list[Msg]) -> None:
        assert self._score is not None
        value = self._score(task, final)
        score = await value if inspect.isawaitable(value) else value
        messages = trajectory_messages(context)
        if score is None or not messages:
            return
        trajectory = {"messages": messages, "score": score}
        try:
            await self._memory.add_trajectories(trajectory, agent_id=self._agent_id, user_id=self._user_id, task=task)
        except MemadaptError as exc:
            logger.warning("memadapt could not record a trajectory for agent_id=%s: %s", self._agent_id, exc)


def trajectory_messages(context: list[Msg]) -> list[dict[str, Any]]:
    """AgentScope messages as OpenAI chat messages: text, tool calls, and each tool result as a ``tool`` message.
    Memory notes (hint blocks) are left out: they are what the agent was told, not what it did."""
    out: list[dict[str, Any]] = []
    for msg in context:
        texts = [b.text for b in msg.content if isinstance(b, TextBlock)]
        calls = [
            {"id": b.id, "type": "function", "function": {"name": b.name, "arguments": b.input}}
            for b in msg.content
            if isinstance(b, ToolCallBlock)
        ]
        if texts or calls:
            message: dict[str, Any] = {"role": msg.role, "content": "\n".join(texts) or None}
            if calls:
                message["tool_calls"] = calls
            out.append(message)
        for block in msg.content:
            if isinstance(block, ToolResultBlock):
                output = block.output if isinstance(block.output, str) else _text_of(block.output)
                out.append({"role": "tool", "name": block.name, "tool_call_id": block.id, "content": output or "-"})
    return out


def _text_of(blocks: list[Any]) -> str:
    return "\n".join(b.text for b in blocks if isinstance(b, TextBlock))


def _task_text(inputs: object) -> str:
    items = inputs if isinstance(inputs, list) else [inputs]
    texts = [m.get_text_content() or "" for m in items if isinstance(m, Msg) and m.role == "user"]
    return "\n".join(t for t in texts if t.strip()).strip()
