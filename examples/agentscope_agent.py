"""Long-term memory for an AgentScope 2.x agent, offline.

Two sessions of the same user: in the first Alice says where she is going; in the second, a fresh agent with an
empty context is reminded of it by `MemadaptMiddleware`. The chat model is a stand-in that answers from the memory
note it is given, so the example runs without a key or a network; swap in a real one, e.g.
``agentscope.model.OpenAIChatModel(...)``, and nothing else changes.

    python examples/agentscope_agent.py
"""

from __future__ import annotations

import asyncio
from typing import Any

from agentscope.agent import Agent
from agentscope.credential import CredentialBase
from agentscope.formatter import OpenAIChatFormatter
from agentscope.message import HintBlock, Msg, TextBlock, UserMsg
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.tool import Toolkit
from pydantic import BaseModel

from memadapt_agentscope import MemadaptMiddleware
from memadapt_core import AsyncMemory


class RecallingModel(ChatModelBase):
    """A stand-in chat model: repeats the memory note it sees, or acknowledges."""

    class Parameters(BaseModel):
        pass

    def __init__(self) -> None:
        super().__init__(credential=CredentialBase(), model="offline", parameters=self.Parameters(), stream=False)
        self.formatter = OpenAIChatFormatter()

    async def _call_api(self, model_name: str, messages: list[Msg], *args: Any, **kwargs: Any) -> ChatResponse:
        notes = [b.hint for m in messages if m.name == "memory" for b in m.content if isinstance(b, HintBlock)]
        text = f"From memory:\n{notes[-1]}" if notes else "Noted!"
        return ChatResponse(content=[TextBlock(text=text)], is_last=True)


def new_agent(middleware: MemadaptMiddleware, tools: Toolkit) -> Agent:
    return Agent(
        name="assistant",
        system_prompt="You are a helpful assistant.",
        model=RecallingModel(),
        toolkit=tools,
        middlewares=[middleware],
    )


async def main() -> None:
    # A real application keeps its memories: AsyncMemory(path="./memdir"), or AsyncMemory() for the default folder.
    async with AsyncMemory(location=":memory:") as memory:
        # "both": memories are injected before each reply AND the agent gets search_memory / add_memory tools.
        middleware = MemadaptMiddleware(memory, user_id="alice", mode="both")
        tools = Toolkit(tools=await middleware.list_tools())

        first = new_agent(middleware, tools)
        said = "I'm flying to Lisbon on Friday for my sister's wedding."
        reply = await first.reply(UserMsg(name="alice", content=said))
        print(f"session 1 | alice: {said}\nsession 1 | assistant: {reply.get_text_content()}\n")
        # The exchange is stored before reply() returns (background=True would store it after, for latency).

        second = new_agent(middleware, tools)  # a new session: nothing of session 1 in its context
        asked = "When is my sister's wedding?"
        reply = await second.reply(UserMsg(name="alice", content=asked))
        print(f"session 2 | alice: {asked}\nsession 2 | assistant: {reply.get_text_content()}")
        await middleware.wait_idle()


if __name__ == "__main__":
    asyncio.run(main())
