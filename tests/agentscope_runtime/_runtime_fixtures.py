"""Fixtures of the agentscope-runtime environment: agentscope-runtime 1.0.5.post1 on AgentScope 1.x (see
requirements/agentscope-runtime.txt). A scripted AgentScope 1.x chat model; the engine is the root
conftest's ``amemory``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from agentscope.agent import ReActAgent
from agentscope.formatter import OpenAIChatFormatter
from agentscope.memory import LongTermMemoryBase
from agentscope.message import TextBlock, ToolUseBlock
from agentscope.model import ChatModelBase, ChatResponse
from agentscope_runtime.engine.schemas.agent_schemas import Message, TextContent

import memadapt_agentscope  # noqa: F401  (before any test imports the runtime's memory services: see memadapt_agentscope/runtime/_framework.py)

Step = str | tuple[str, dict[str, Any]]
"""One scripted model answer: a text reply, or a tool call ``(tool name, input)``."""


class ScriptedModel(ChatModelBase):
    """An AgentScope 1.x chat model answering from a script; keeps every (formatted) prompt it was given."""

    def __init__(self, steps: Sequence[Step]) -> None:
        super().__init__(model_name="scripted", stream=False)
        self.steps = list(steps)
        self.prompts: list[list[dict[str, Any]]] = []

    async def __call__(self, messages: list[dict[str, Any]], **kwargs: Any) -> ChatResponse:
        self.prompts.append(messages)
        step = self.steps.pop(0)
        if isinstance(step, str):
            return ChatResponse(content=[TextBlock(type="text", text=step)])
        name, tool_input = step
        return ChatResponse(
            content=[ToolUseBlock(type="tool_use", id=f"call-{len(self.prompts)}", name=name, input=tool_input)]
        )


def prompt_text(prompt: list[dict[str, Any]]) -> str:
    """Everything the model was shown in one call, as one string."""
    parts: list[str] = []
    for message in prompt:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(str(block.get("text", "")) for block in content if isinstance(block, dict))
    return "\n".join(parts)


AgentFactory = Callable[..., tuple[ReActAgent, ScriptedModel]]


@pytest.fixture
def make_agent() -> AgentFactory:
    """``make_agent(long_term_memory, steps, mode=...)``: a ReActAgent with that memory on a scripted model."""

    def build(
        long_term_memory: LongTermMemoryBase, steps: Sequence[Step], mode: str = "static_control"
    ) -> tuple[ReActAgent, ScriptedModel]:
        model = ScriptedModel(steps)
        agent = ReActAgent(
            name="Friday",
            sys_prompt="You are a helpful assistant.",
            model=model,
            formatter=OpenAIChatFormatter(),
            long_term_memory=long_term_memory,
            long_term_memory_mode=mode,
        )
        agent.set_console_output_enabled(False)
        return agent, model

    return build


@pytest.fixture
def prompt_of() -> Callable[[list[dict[str, Any]]], str]:
    """Everything the model was shown in one call, as one string."""
    return prompt_text


@pytest.fixture
def message() -> Callable[..., Message]:
    """``message(text, role="user", **fields)``: a runtime text ``Message``."""

    def build(text: str, role: str = "user", **fields: Any) -> Message:
        return Message(role=role, content=[TextContent(text=text)], **fields)

    return build
