"""An AgentScope 2.x agent using memadapt through AgentScope's own MCP client, offline.

AgentScope starts `memadapt mcp` (stdio) for the user alice and hands its tools (`add_memory`, `search_memory`, ...)
to the agent's toolkit. In the first session the agent stores what Alice says; in the second, a fresh agent with an
empty context finds it with `search_memory`. The chat model is a stand-in that calls those tools from a script and
answers from what they return, so the example runs without a key or a network; swap in a real one, e.g.
``agentscope.model.OpenAIChatModel(...)``, and let it choose the tools itself.

    python examples/mcp_agentscope.py
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from typing import Any

from agentscope.agent import Agent
from agentscope.credential import CredentialBase
from agentscope.formatter import OpenAIChatFormatter
from agentscope.mcp import MCPClient, StdioMCPConfig
from agentscope.message import Msg, TextBlock, ToolCallBlock, ToolResultBlock, UserMsg
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.permission import PermissionBehavior, PermissionContext, PermissionRule
from agentscope.state import AgentState
from agentscope.tool import Toolkit
from pydantic import BaseModel


class ToolCallingModel(ChatModelBase):
    """A stand-in chat model: makes one tool call, then answers with the tool's result."""

    class Parameters(BaseModel):
        pass

    def __init__(self, tool: str, arguments: dict[str, Any]) -> None:
        super().__init__(credential=CredentialBase(), model="offline", parameters=self.Parameters(), stream=False)
        self.formatter = OpenAIChatFormatter()
        self.tool, self.arguments = tool, arguments

    async def _call_api(self, model_name: str, messages: list[Msg], *args: Any, **kwargs: Any) -> ChatResponse:
        results = [b.output for m in messages for b in m.content if isinstance(b, ToolResultBlock)]
        if not results:
            call = ToolCallBlock(id="call-1", name=self.tool, input=json.dumps(self.arguments))
            return ChatResponse(content=[call], is_last=True)
        output = results[-1]
        found = json.loads(
            output if isinstance(output, str) else "".join(b.text for b in output if isinstance(b, TextBlock))
        )
        if "hits" in found:  # search_memory: the memories found, best first
            text = "From memory: " + " / ".join(hit["text"] for hit in found["hits"])
        else:  # add_memory: the ids stored
            text = f"Noted ({len(found['ids'])} memory stored)."
        return ChatResponse(content=[TextBlock(text=text)], is_last=True)


def memory_allowed(tool_names: list[str]) -> AgentState:
    """An agent state whose permission rules let the memory tools run without asking (AgentScope asks before any
    tool that is not read-only, by default)."""
    rule = {n: [PermissionRule(tool_name=n, rule_content=None, behavior=PermissionBehavior.ALLOW, source="app")]
            for n in tool_names}  # fmt: skip
    return AgentState(permission_context=PermissionContext(allow_rules=rule))


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:  # a real application keeps its memories: a fixed --path
        memadapt = MCPClient(
            name="memadapt",
            is_stateful=True,  # stdio servers are stateful: one process for the whole run
            mcp_config=StdioMCPConfig(
                command=sys.executable,  # or "memadapt", as a desktop client's config says (docs/mcp.md)
                args=["-m", "memadapt_core.cli", "--path", folder, "mcp", "--user-id", "alice"],
                env=dict(os.environ),  # MEMADAPT_* settings reach the server
            ),
        )
        await memadapt.connect()
        try:
            mcp_tools = await memadapt.list_tools()
            tools = Toolkit(tools=mcp_tools)
            named = {t.name.rsplit("__", 1)[-1]: t.name for t in mcp_tools}  # AgentScope: mcp__memadapt__add_memory
            said = "I'm flying to Lisbon on Friday for my sister's wedding."
            first = Agent(
                name="assistant",
                system_prompt="You are a helpful assistant with long-term memory tools.",
                model=ToolCallingModel(named["add_memory"], {"content": said, "kind": "fact"}),
                toolkit=tools,
                state=memory_allowed(list(named.values())),
            )
            reply = await first.reply(UserMsg(name="alice", content=said))
            print(f"session 1 | alice: {said}\nsession 1 | assistant: {reply.get_text_content()}\n")

            asked = "When is my sister's wedding?"
            second = Agent(  # a new session: nothing of session 1 in its context, only the memory server
                name="assistant",
                system_prompt="You are a helpful assistant with long-term memory tools.",
                model=ToolCallingModel(named["search_memory"], {"query": asked, "limit": 3}),
                toolkit=tools,
                state=memory_allowed(list(named.values())),
            )
            reply = await second.reply(UserMsg(name="alice", content=asked))
            print(f"session 2 | alice: {asked}\nsession 2 | assistant: {reply.get_text_content()}")
        finally:
            await memadapt.close()


if __name__ == "__main__":
    asyncio.run(main())
