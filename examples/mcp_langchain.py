"""A LangGraph agent using memadapt through langchain-mcp-adapters (stdio to `memadapt mcp`), offline.

langchain-mcp-adapters starts `memadapt mcp` for the user alice and turns its tools into LangChain tools for a
LangGraph ReAct agent (a model node and a tool node). In the first thread the agent stores what Alice says; in the
second, with an empty history, it finds it with `search_memory`. The chat model is a stand-in that calls those
tools from a script and answers from what they return, so the example runs without a key or a network; swap in a
real one (``ChatOpenAI(...)``) and let it choose the tools itself.

langchain-mcp-adapters 0.3.2 needs mcp 1.x, and AgentScope 2.x needs mcp 2.x, so it does not install beside the
dev environment (docs/mcp.md); it runs in an environment with mcp 1.x, such as ``.venv-runtime``:

    pip install 'memadapt[langchain,mcp]' 'langchain-mcp-adapters>=0.3' 'mcp<2'
    python examples/mcp_langchain.py
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

try:
    from langchain_mcp_adapters.client import MultiServerMCPClient
    from langchain_mcp_adapters.tools import load_mcp_tools
except ImportError:  # not in memadapt[all]: it needs mcp 1.x (see the docstring)
    sys.exit(
        "examples/mcp_langchain.py needs langchain-mcp-adapters, which memadapt[all] does not bring (it needs mcp 1.x):"
        "\n    pip install 'memadapt[langchain,mcp]' 'langchain-mcp-adapters>=0.3' 'mcp<2'"
    )
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode, tools_condition


class ToolCallingModel(BaseChatModel):
    """A stand-in chat model: makes one tool call, then answers with the tool's result."""

    tool: str
    arguments: dict[str, Any]

    @property
    def _llm_type(self) -> str:
        return "offline"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ToolCallingModel:  # type: ignore[override]
        return self  # the script already names its tool

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        results = [m for m in messages if isinstance(m, ToolMessage)]
        if not results:
            call = {"name": self.tool, "args": self.arguments, "id": "call-1", "type": "tool_call"}
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content="", tool_calls=[call]))])
        content = results[-1].content
        parts = [content] if isinstance(content, str) else [b.get("text", "") for b in content if isinstance(b, dict)]
        text = "".join(parts)
        found = json.loads(text)
        if "hits" in found:  # search_memory: the memories found, best first
            answer = "From memory: " + " / ".join(hit["text"] for hit in found["hits"])
        else:  # add_memory: the ids stored
            answer = f"Noted ({len(found['ids'])} memory stored)."
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=answer))])


def react_agent(model: BaseChatModel, tools: Sequence[Any]) -> CompiledStateGraph[Any]:
    """The ReAct loop as a LangGraph graph: the model, then its tool calls, until it answers without one
    (``langchain.agents.create_agent`` builds the same, where the langchain package is installed)."""

    async def think(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [await model.bind_tools(tools).ainvoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("model", think)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", tools_condition)
    graph.add_edge("tools", "model")
    return graph.compile()


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:  # a real application keeps its memories: a fixed --path
        client = MultiServerMCPClient(
            {
                "memadapt": {
                    "transport": "stdio",
                    "command": sys.executable,  # or "memadapt", as a desktop client's config says (docs/mcp.md)
                    "args": ["-m", "memadapt_core.cli", "--path", folder, "mcp", "--user-id", "alice"],
                    "env": dict(os.environ),  # MEMADAPT_* settings reach the server
                }
            }
        )
        async with client.session("memadapt") as session:  # one server process for the whole run
            tools = await load_mcp_tools(session)

            said = "I'm flying to Lisbon on Friday for my sister's wedding."
            model = ToolCallingModel(tool="add_memory", arguments={"content": said, "kind": "fact"})
            first = await react_agent(model, tools).ainvoke({"messages": [HumanMessage(said)]})
            print(f"thread 1 | alice: {said}\nthread 1 | assistant: {first['messages'][-1].content}\n")

            asked = "When is my sister's wedding?"
            model = ToolCallingModel(tool="search_memory", arguments={"query": asked, "limit": 3})
            second = await react_agent(model, tools).ainvoke({"messages": [HumanMessage(asked)]})
            print(f"thread 2 | alice: {asked}\nthread 2 | assistant: {second['messages'][-1].content}")


if __name__ == "__main__":
    asyncio.run(main())
