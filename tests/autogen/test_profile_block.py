"""``MemadaptMemory(profile=True)``: a short block of the user's profile reaches the model each turn."""

from collections.abc import Callable
from typing import Any

import pytest
from autogen_agentchat.agents import AssistantAgent
from autogen_ext.models.replay import ReplayChatCompletionClient

from memadapt_autogen import MemadaptMemory
from memadapt_core import AsyncMemory, ValidationError
from tests._planted import aplant

AgentFactory = Callable[..., tuple[AssistantAgent, ReplayChatCompletionClient]]
SystemTexts = Callable[[dict[str, Any]], list[str]]


async def test_the_profile_block_reaches_the_model(
    amemory: AsyncMemory, make_agent: AgentFactory, system_texts: SystemTexts
) -> None:
    await aplant(amemory, "Allergic to peanuts", user_id="alice", kind="profile", metadata={"section": "constraints"})
    agent, client = make_agent(MemadaptMemory(memory=amemory, user_id="alice", profile=True))

    await agent.run(task="What should I cook tonight?")

    (text,) = system_texts(client.create_calls[-1])
    assert "constraints: Allergic to peanuts" in text


async def test_without_the_option_no_profile_is_injected(
    amemory: AsyncMemory, make_agent: AgentFactory, system_texts: SystemTexts
) -> None:
    await aplant(amemory, "Allergic to peanuts", user_id="alice", kind="profile", metadata={"section": "constraints"})
    agent, client = make_agent(MemadaptMemory(memory=amemory, user_id="alice"))

    await agent.run(task="What should I cook tonight?")

    assert system_texts(client.create_calls[-1]) == []


async def test_a_profile_needs_a_user(amemory: AsyncMemory) -> None:
    with pytest.raises(ValidationError, match="profile"):
        MemadaptMemory(memory=amemory, session_id="s1", profile=True)
