"""A real AgentScope 2.x ``Agent`` on a scripted chat model; the engine is the root conftest's ``amemory``."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from agentscope.agent import Agent
from agentscope.credential import CredentialBase
from agentscope.formatter import OpenAIChatFormatter
from agentscope.message import HintBlock, Msg, TextBlock, ToolCallBlock, ToolResultBlock
from agentscope.middleware import MiddlewareBase
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.state import AgentState
from agentscope.tool import ToolBase, Toolkit
from pydantic import BaseModel

Step = str | tuple[str, dict[str, Any]]
"""One scripted model answer: a text reply, or a tool call ``(tool name, input)``."""


class ScriptedModel(ChatModelBase):
    """Answers from a script, one step per call, and keeps a copy of every input it was given."""

    class Parameters(BaseModel):
        pass

    def __init__(self, steps: Sequence[Step]) -> None:
        super().__init__(credential=CredentialBase(), model="scripted", parameters=self.Parameters(), stream=False)
        self.formatter = OpenAIChatFormatter()
        self.steps = list(steps)
        self.calls: list[list[Msg]] = []

    async def _call_api(
        self, model_name: str, messages: list[Msg], tools: Any = None, tool_choice: Any = None, **kwargs: Any
    ) -> ChatResponse:
        self.calls.append([m.model_copy(deep=True) for m in messages])
        step = self.steps.pop(0)
        if isinstance(step, str):
            return ChatResponse(content=[TextBlock(text=step)], is_last=True)
        name, tool_input = step
        call = ToolCallBlock(id=f"call-{len(self.calls)}", name=name, input=json.dumps(tool_input))
        return ChatResponse(content=[call], is_last=True)


AgentFactory = Callable[..., tuple[Agent, ScriptedModel]]


@pytest.fixture
def make_agent() -> AgentFactory:
    """``make_agent(middleware, steps, tools=..., state=...)``: an agent with that middleware on a scripted
    model (and that state, e.g. one restored from a saved session)."""

    def build(
        middleware: MiddlewareBase,
        steps: Sequence[Step],
        tools: Sequence[ToolBase] = (),
        state: AgentState | None = None,
    ) -> tuple[Agent, ScriptedModel]:
        model = ScriptedModel(steps)
        agent = Agent(
            name="assistant",
            system_prompt="You are a helpful assistant.",
            model=model,
            toolkit=Toolkit(tools=list(tools)),
            middlewares=[middleware],
            state=state,
        )
        return agent, model

    return build


def _memory_hints(messages: Sequence[Msg]) -> list[str]:
    return [
        block.hint
        for msg in messages
        if msg.name == "memory"
        for block in msg.content
        if isinstance(block, HintBlock) and isinstance(block.hint, str)
    ]


def _tool_results(messages: Sequence[Msg]) -> list[str]:
    texts: list[str] = []
    for msg in messages:
        for block in msg.content:
            if isinstance(block, ToolResultBlock):
                output = block.output
                if isinstance(output, str):
                    texts.append(output)
                else:
                    texts.extend(b.text for b in output if isinstance(b, TextBlock))
    return texts


def _system_prompt(messages: Sequence[Msg]) -> str:
    return "\n".join(m.get_text_content() or "" for m in messages if m.role == "system")


@pytest.fixture
def memory_hints() -> Callable[[Sequence[Msg]], list[str]]:
    """The memory notes a middleware put into one model input."""
    return _memory_hints


@pytest.fixture
def tool_results() -> Callable[[Sequence[Msg]], list[str]]:
    """The text of every tool result in one model input."""
    return _tool_results


@pytest.fixture
def system_prompt() -> Callable[[Sequence[Msg]], str]:
    """The system prompt of one model input."""
    return _system_prompt
