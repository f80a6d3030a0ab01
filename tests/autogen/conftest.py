from collections.abc import Callable
from typing import Any

import pytest
from autogen_agentchat.agents import AssistantAgent
from autogen_core.memory import Memory
from autogen_core.models import SystemMessage
from autogen_ext.models.replay import ReplayChatCompletionClient

AgentFactory = Callable[..., tuple[AssistantAgent, ReplayChatCompletionClient]]


@pytest.fixture
def make_agent() -> AgentFactory:
    """A real AssistantAgent on a scripted model, with no system prompt of its own: every system message the
    model receives comes from a memory."""

    def build(*memories: Memory, answers: list[str] | None = None) -> tuple[AssistantAgent, ReplayChatCompletionClient]:
        client = ReplayChatCompletionClient(answers or ["Noted."] * 5)
        agent = AssistantAgent("assistant", model_client=client, memory=list(memories), system_message=None)
        return agent, client

    return build


@pytest.fixture
def system_texts() -> Callable[[dict[str, Any]], list[str]]:
    """The system messages of one recorded model call."""

    def extract(call: dict[str, Any]) -> list[str]:
        return [m.content for m in call["messages"] if isinstance(m, SystemMessage)]

    return extract
