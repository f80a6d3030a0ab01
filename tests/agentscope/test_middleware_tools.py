"""The memory tools the system prompt mentions are always the agent's to call: the middleware registers them."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from agentscope.agent import Agent
from agentscope.credential import CredentialBase
from agentscope.formatter import OpenAIChatFormatter
from agentscope.message import Msg, TextBlock, ToolCallBlock, UserMsg
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.tool import ToolGroup, Toolkit
from pydantic import BaseModel

from memadapt_agentscope import MemadaptMiddleware

TOOL_INPUTS: dict[str, dict[str, Any]] = {
    "search_memory": {"keywords": ["favourite colour"]},
    "add_memory": {"thinking": "a preference", "content": ["Alice's favourite drink is mint tea."]},
}


class PromptFollowingModel(ChatModelBase):
    """Calls, at once, every memory tool its system prompt names; then answers. Keeps every input."""

    class Parameters(BaseModel):
        pass

    def __init__(self) -> None:
        super().__init__(credential=CredentialBase(), model="follower", parameters=self.Parameters(), stream=False)
        self.formatter = OpenAIChatFormatter()
        self.calls: list[list[Msg]] = []

    async def _call_api(
        self, model_name: str, messages: list[Msg], tools: Any = None, tool_choice: Any = None, **kwargs: Any
    ) -> ChatResponse:
        self.calls.append([m.model_copy(deep=True) for m in messages])
        if len(self.calls) > 1:
            return ChatResponse(content=[TextBlock(text="Done.")], is_last=True)
        prompt = "\n".join(m.get_text_content() or "" for m in messages if m.role == "system")
        named = [name for name in re.findall(r"`(\w+)`", prompt) if name in TOOL_INPUTS]
        calls = [ToolCallBlock(id=f"call-{i}", name=n, input=json.dumps(TOOL_INPUTS[n])) for i, n in enumerate(named)]
        return ChatResponse(content=calls or [TextBlock(text="Done.")], is_last=True)


def follower_agent(
    middleware: MemadaptMiddleware, toolkit: Toolkit | None = None
) -> tuple[Agent, PromptFollowingModel]:
    model = PromptFollowingModel()
    agent = Agent(name="assistant", system_prompt="Be helpful.", model=model, toolkit=toolkit, middlewares=[middleware])
    return agent, model


@pytest.mark.parametrize("mode", ["both", "agent_control", "static_control"])
async def test_a_model_that_follows_the_prompt_finds_every_tool_it_names(amemory, tool_results, mode):
    await amemory.add("Alice's favourite colour is teal.", user_id="alice", kind="fact")
    agent, model = follower_agent(MemadaptMiddleware(amemory, user_id="alice", mode=mode))

    await agent.reply(UserMsg(name="alice", content="What is my favourite colour?"))

    results = tool_results(model.calls[-1])
    assert not [r for r in results if "ToolNotFoundError" in r]
    assert len(results) == (0 if mode == "static_control" else 2)


async def test_default_mode_gives_the_agent_working_tools_without_any_wiring(amemory, tool_results):
    await amemory.add("Alice's favourite colour is teal.", user_id="alice", kind="fact")
    agent, model = follower_agent(MemadaptMiddleware(amemory, user_id="alice"))

    await agent.reply(UserMsg(name="alice", content="Tell me about me."))

    found, recorded = tool_results(model.calls[1])
    assert "Alice's favourite colour is teal." in found
    assert recorded.startswith("Recorded 1 memory")
    assert [r.text for r in (await amemory.list(user_id="alice", kinds=["fact"])).records] == [
        "Alice's favourite colour is teal.",
        "Alice's favourite drink is mint tea.",
    ]


async def test_tools_the_user_registered_are_not_registered_twice(amemory):
    mw = MemadaptMiddleware(amemory, user_id="alice")
    toolkit = Toolkit(tools=await mw.list_tools())
    agent, _ = follower_agent(mw, toolkit)

    await agent.reply(UserMsg(name="alice", content="Hi"))
    await agent.reply(UserMsg(name="alice", content="Hi again"))

    names = [tool.name for group in toolkit.tool_groups for tool in group.tools]
    assert sorted(names) == ["add_memory", "search_memory"]


async def test_static_control_leaves_the_toolkit_alone(amemory):
    toolkit = Toolkit()
    agent, _ = follower_agent(MemadaptMiddleware(amemory, user_id="alice", mode="static_control"), toolkit)

    await agent.reply(UserMsg(name="alice", content="Hi"))

    assert [tool.name for group in toolkit.tool_groups for tool in group.tools] == []


async def test_a_shared_toolkit_gives_each_agent_its_own_users_tools(amemory, tool_results):
    await amemory.add("Alice's favourite colour is teal.", user_id="alice", kind="fact")
    shared = Toolkit()
    alice, _ = follower_agent(MemadaptMiddleware(amemory, user_id="alice"), shared)
    await alice.reply(UserMsg(name="alice", content="Hi"))

    bob, model = follower_agent(MemadaptMiddleware(amemory, user_id="bob"), shared)
    await bob.reply(UserMsg(name="bob", content="What is my favourite colour?"))

    found, _ = tool_results(model.calls[1])
    assert found == "(no relevant memories found)"


async def test_the_prompt_does_not_mention_tools_in_an_inactive_group(amemory, system_prompt):
    mw = MemadaptMiddleware(amemory, user_id="alice")
    toolkit = Toolkit(
        tool_groups=[ToolGroup(name="memory", description="Long-term memory.", tools=await mw.list_tools())]
    )
    agent, model = follower_agent(mw, toolkit)

    await agent.reply(UserMsg(name="alice", content="Hi"))

    assert "`search_memory`" not in system_prompt(model.calls[0])
