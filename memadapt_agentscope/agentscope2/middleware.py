"""`MemadaptMiddleware`: long-term memory for AgentScope 2.x agents, like AgentScope's own memory middleware.

Modes, as AgentScope defines them:

- ``static_control``: before each reply, search with the user's input and put the memories in the agent's
  context (an ``AssistantMsg(name="memory")`` holding a ``HintBlock``, right after the user message; it replaces
  the note of the previous turn, so the context holds one); after the final reply, store the exchange.
- ``agent_control``: no automatic retrieval or write-back; the agent gets ``search_memory`` and ``add_memory``
  tools and the system prompt says so.
- ``both`` (the default, as in AgentScope): the two at once.

The tools are registered in the agent's toolkit by the middleware itself at the start of each reply (as the
agent registers its own compression tool), so a model that follows the prompt always finds them; the prompt
mentions them only while they are available. Passing ``list_tools()`` to the ``Toolkit`` as well is harmless.

The exchange is stored before ``reply()`` returns, as AgentScope's memory middlewares do by default.
``background=True`` trades that for latency: the write then runs in a task that ``aclose()`` (or leaving
``async with middleware``) waits for, and so does closing the engine (the task is handed to ``engine.track``).

Memories belong to the middleware's user (and agent, if given); writes also record the agent state's session.
Searches span the user's sessions: that is what makes the memory long-term.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Callable
from types import TracebackType
from typing import Any, Literal, Self, TypeAlias

from memadapt_agentscope._engine import EngineLike, as_async, user_scope
from memadapt_core import MemadaptError, SearchHit, StoreUnavailableError, ValidationError, check_count
from memadapt_core.api import AsyncMemoryAPI

from ._framework import (
    Agent,
    AgentEvent,
    MiddlewareBase,
    Msg,
    ReplyStartEvent,
    ToolBase,
)
from .notes import replace_note
from .tools import MemoryTools

__all__ = ["DEFAULT_TOOL_INSTRUCTIONS", "MemadaptMiddleware", "Mode"]

logger = logging.getLogger(__name__)

Mode: TypeAlias = Literal["static_control", "agent_control", "both"]
_MODES: tuple[Mode, ...] = ("static_control", "agent_control", "both")

DEFAULT_TOOL_INSTRUCTIONS = (
    "## Long-term memory\n\n"
    "You have `search_memory` and `add_memory` tools. Use them whenever the conversation depends on (search) "
    "or contributes (add) a durable fact about the user; each tool's description gives its input."
)


class MemadaptMiddleware(MiddlewareBase):
    """AgentScope 2.x middleware that gives an agent memadapt long-term memory.

    Example::

        mw = MemadaptMiddleware(engine, user_id="alice")
        agent = Agent(..., middlewares=[mw])   # the memory tools join the agent's toolkit on its first reply
    """

    def __init__(
        self,
        memory: EngineLike,
        *,
        user_id: str,
        agent_id: str | None = None,
        mode: Mode = "both",
        top_k: int = 5,
        threshold: float | None = None,
        scope_search_by_agent: bool = True,
        background: bool = False,
        tool_instructions: str = DEFAULT_TOOL_INSTRUCTIONS,
        profile: bool = False,
    ) -> None:
        """
        :param memory: the engine (``AsyncMemory``, or a ``Memory`` used through its async view).
        :param user_id: whose memories these are; required, like AgentScope's memory middlewares.
        :param agent_id: optional finer scope; writes carry it, and searches filter on it when
            ``scope_search_by_agent`` is true.
        :param mode: ``static_control``, ``agent_control`` or ``both`` (see the module docstring).
        :param top_k: memories injected per reply, and the tools' default per-keyword limit.
        :param threshold: relevance floor passed to the engine; None keeps the engine's default floor.
        :param scope_search_by_agent: False shares one user's memories across all their agents.
        :param background: False (the default) stores the exchange before the reply finishes; True stores it
            in a background task, for latency, which ``aclose()`` and the engine's ``close()`` wait for.
        :param tool_instructions: appended to the system prompt in ``agent_control`` and ``both`` modes, while
            the memory tools are available to the agent.
        :param profile: in ``static_control`` and ``both``, also put a short block of the user's profile (kept by
            consolidation, docs/tiers.md) in the note, before the memories.
        """
        user_scope(user_id, agent_id)  # a missing or malformed id fails here, not at the first reply
        if mode not in _MODES:
            field = "mode"
            raise ValidationError(field, f"unknown mode {mode!r}; use one of {', '.join(_MODES)}")
        self._memory: AsyncMemoryAPI = as_async(memory)
        self._user_id = user_id
        self._agent_id = agent_id
        self._search_agent_id = agent_id if scope_search_by_agent else None
        self._mode: Mode = mode
        self._top_k = check_count("top_k", top_k)
        self._threshold = threshold
        self._background = background
        self._tool_instructions = tool_instructions
        self._profile = profile
        self._note_scope: dict[str, str | None] = {"user_id": user_id, "agent_id": agent_id}
        self._pending: set[asyncio.Task[None]] = set()
        self._tools: list[ToolBase] = (
            []
            if mode == "static_control"
            else MemoryTools(
                memory=self._memory,
                user_id=user_id,
                agent_id=agent_id,
                search_agent_id=self._search_agent_id,
                top_k=top_k,
                threshold=threshold,
            ).as_tools()
        )

    @property
    def mode(self) -> Mode:
        return self._mode

    @property
    def user_id(self) -> str:
        return self._user_id

    async def on_reply(
        self,
        agent: Agent,
        input_kwargs: dict[str, Any],
        next_handler: Callable[..., AsyncGenerator[AgentEvent | Msg, None]],
    ) -> AsyncGenerator[AgentEvent | Msg, None]:
        await self._register_tools(agent)
        if self._mode == "agent_control":
            async for item in next_handler(**input_kwargs):
                yield item
            return

        user_msgs = _user_messages(input_kwargs.get("inputs"))
        query = "\n".join(text for _, text in user_msgs)
        hits = await self._search(query) if query else []
        found = await self._memory.profile(user_id=self._user_id) if self._profile and query else None
        profile = found if found is not None and not found.is_empty() else None
        session_id = agent.state.session_id

        final: Msg | None = None
        noted = not query  # a resumed reply keeps the note of the input it started with
        try:
            async for item in next_handler(**input_kwargs):
                if not noted and isinstance(item, ReplyStartEvent):  # the user's input is in the context now
                    hint = self._memory.format_context(query, hits, profile=profile) if hits or profile else None
                    replace_note(agent.state.context, self._note_scope, hint)
                    noted = True
                if isinstance(item, Msg) and item.role == "assistant":
                    final = item
                yield item
        finally:
            # The final Msg ends the reply stream: store the exchange even if the consumer stops right after it.
            reply_text = final.get_text_content() if final is not None else None
            if user_msgs and final is not None and reply_text:
                exchange = [
                    {"role": "user", "content": text, "name": msg.name, "id": msg.id} for msg, text in user_msgs
                ]
                exchange.append({"role": "assistant", "content": reply_text, "name": final.name, "id": final.id})
                await self._dispatch_write(exchange, session_id)

    async def on_system_prompt(self, agent: Agent, current_prompt: str) -> str:
        if not self._tools_available(agent):
            return current_prompt
        return f"{current_prompt}\n\n{self._tool_instructions}"

    async def list_tools(self) -> list[ToolBase]:
        """``search_memory`` and ``add_memory`` in ``agent_control`` / ``both`` modes (always the same two
        objects). The middleware registers them in the agent's toolkit itself; AgentScope's service and
        ``Toolkit(tools=await mw.list_tools())`` also work."""
        return list(self._tools)

    async def wait_idle(self) -> None:
        """Wait until every background write has finished (re-raising a write's unexpected error)."""
        while self._pending:
            await asyncio.gather(*self._pending)

    async def aclose(self) -> None:
        """Wait for the background writes (``background=True``); the engine stays open for its owner."""
        await self.wait_idle()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def _register_tools(self, agent: Agent) -> None:
        """Put this middleware's tools in the agent's toolkit unless they are in it already (in any group): a
        same-named tool of another middleware (e.g. another user's, in a shared toolkit) is replaced. Agents of
        different users sharing one toolkit must then not reply at the same time (nor may they for AgentScope's
        own per-reply tools)."""
        if not self._tools:
            return
        present = {id(tool) for group in agent.toolkit.tool_groups for tool in group.tools}
        missing = [tool for tool in self._tools if id(tool) not in present]
        if not missing:
            return
        try:
            await agent.toolkit.add_tool(missing)
        except ValueError as exc:  # a toolkit without its "basic" group: the prompt will not mention the tools
            logger.warning("memadapt could not register its memory tools: %s", exc)

    def _tools_available(self, agent: Agent) -> bool:
        """Whether the agent can call every memory tool now: registered in the basic or an activated group."""
        if not self._tools:
            return False
        active = {"basic", *agent.state.tool_context.activated_groups}
        callable_now = {id(tool) for group in agent.toolkit.tool_groups if group.name in active for tool in group.tools}
        return all(id(tool) in callable_now for tool in self._tools)

    async def _search(self, query: str) -> list[SearchHit]:
        try:
            return await self._memory.search(
                query,
                user_id=self._user_id,
                agent_id=self._search_agent_id,
                limit=self._top_k,
                threshold=self._threshold,
            )
        except MemadaptError as exc:
            # A memory outage must not break the agent's reply; AgentScope's middlewares log and go on too.
            logger.warning("memadapt search failed for user_id=%s: %s", self._user_id, exc)
            return []

    async def _dispatch_write(self, exchange: list[dict[str, str]], session_id: str) -> None:
        if not self._background:
            await self._write(exchange, session_id)
            return
        task = asyncio.create_task(self._write(exchange, session_id))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)
        self._memory.track(task)  # the engine's close() waits for it too

    async def _write(self, exchange: list[dict[str, str]], session_id: str) -> None:
        try:
            await self._memory.add(exchange, user_id=self._user_id, agent_id=self._agent_id, session_id=session_id)
        except StoreUnavailableError as exc:
            hint = " (with background=True, await middleware.aclose() before closing the engine)"
            logger.warning("memadapt write failed for user_id=%s: %s%s", self._user_id, exc, hint * self._background)
        except MemadaptError as exc:
            logger.warning("memadapt write failed for user_id=%s: %s", self._user_id, exc)


def _user_messages(inputs: object) -> list[tuple[Msg, str]]:
    """The user messages with text among a reply's inputs; resumption events carry none."""
    items = inputs if isinstance(inputs, list) else [inputs]
    found: list[tuple[Msg, str]] = []
    for item in items:
        if isinstance(item, Msg) and item.role == "user":
            text = item.get_text_content()
            if text and text.strip():
                found.append((item, text))
    return found
