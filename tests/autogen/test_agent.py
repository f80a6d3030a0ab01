"""A real AssistantAgent on a scripted model: what the model receives from a MemadaptMemory."""

from collections.abc import Callable
from typing import Any

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import MemoryQueryEvent
from autogen_core.memory import MemoryContent
from autogen_ext.models.replay import ReplayChatCompletionClient

from memadapt_autogen import MemadaptMemory
from memadapt_core import AsyncMemory

AgentFactory = Callable[..., tuple[AssistantAgent, ReplayChatCompletionClient]]
SystemTexts = Callable[[dict[str, Any]], list[str]]


async def test_second_turn_model_call_carries_one_memory_message_with_the_fact(
    amemory: AsyncMemory, make_agent: AgentFactory, system_texts: SystemTexts
) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice")
    agent, client = make_agent(memory)
    await agent.run(task="By the way, my favourite tea is oolong.")
    await memory.add(MemoryContent(content="Alice's favourite tea is oolong.", mime_type="text/plain"))

    await agent.run(task="Which tea should you brew for me?")

    memory_texts = system_texts(client.create_calls[-1])
    assert len(memory_texts) == 1
    assert "oolong" in memory_texts[0]


async def test_memory_message_is_replaced_on_every_turn_instead_of_piling_up(
    amemory: AsyncMemory, make_agent: AgentFactory, system_texts: SystemTexts
) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice")
    await memory.add(MemoryContent(content="Alice's favourite tea is oolong.", mime_type="text/plain"))
    await memory.add(MemoryContent(content="Alice plays the cello on Sundays.", mime_type="text/plain"))
    agent, client = make_agent(memory)

    await agent.run(task="Which tea do I like?")
    await agent.run(task="Which instrument do I play, the cello?")
    await agent.run(task="Remind me which tea I like.")

    assert [len(system_texts(call)) for call in client.create_calls] == [1, 1, 1]
    assert "cello" in system_texts(client.create_calls[1])[0]


async def test_memory_message_follows_the_newest_user_message(amemory: AsyncMemory, make_agent: AgentFactory) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice")
    await memory.add(MemoryContent(content="Alice's favourite tea is oolong.", mime_type="text/plain"))
    agent, client = make_agent(memory)

    await agent.run(task="Which tea do I like?")
    await agent.run(task="And which tea should I buy?")

    kinds = [type(message).__name__ for message in client.create_calls[-1]["messages"]]
    assert kinds == ["UserMessage", "AssistantMessage", "UserMessage", "SystemMessage"]


async def test_agent_emits_a_memory_query_event_with_the_hits(amemory: AsyncMemory, make_agent: AgentFactory) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice")
    await memory.add(MemoryContent(content="Alice's favourite tea is oolong.", mime_type="text/plain"))
    agent, _ = make_agent(memory)

    result = await agent.run(task="Which tea do I like?")

    events = [message for message in result.messages if isinstance(message, MemoryQueryEvent)]
    assert len(events) == 1
    assert events[0].content[0].content == "Alice's favourite tea is oolong."
    assert events[0].content[0].metadata is not None
    assert events[0].content[0].metadata["kind"] == "fact"


async def test_unrelated_question_adds_no_memory_message_and_no_event(
    amemory: AsyncMemory, make_agent: AgentFactory, system_texts: SystemTexts
) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice")
    await memory.add(MemoryContent(content="Alice's favourite tea is oolong.", mime_type="text/plain"))
    agent, client = make_agent(memory)

    result = await agent.run(task="quantum xyzzy lattice")

    assert system_texts(client.create_calls[-1]) == []
    assert not any(isinstance(message, MemoryQueryEvent) for message in result.messages)


async def test_another_users_memories_never_reach_the_model(
    amemory: AsyncMemory, make_agent: AgentFactory, system_texts: SystemTexts
) -> None:
    alice = MemadaptMemory(memory=amemory, user_id="alice")
    bob = MemadaptMemory(memory=amemory, user_id="bob")
    await alice.add(MemoryContent(content="Alice's favourite tea is oolong.", mime_type="text/plain"))
    await bob.add(MemoryContent(content="My favourite tea is earl grey.", mime_type="text/plain"))
    agent, client = make_agent(alice)

    result = await agent.run(task="What is my favourite tea? Earl grey?")

    sent = " ".join(system_texts(client.create_calls[-1]))
    assert "oolong" in sent
    assert "earl grey" not in sent.lower()
    events = [message for message in result.messages if isinstance(message, MemoryQueryEvent)]
    assert all("earl grey" not in str(item.content).lower() for event in events for item in event.content)


async def test_two_memories_on_one_agent_each_keep_their_own_single_message(
    amemory: AsyncMemory, make_agent: AgentFactory, system_texts: SystemTexts
) -> None:
    personal = MemadaptMemory(memory=amemory, user_id="alice")
    team = MemadaptMemory(memory=amemory, agent_id="support-team")
    await personal.add(MemoryContent(content="Alice's favourite tea is oolong.", mime_type="text/plain"))
    await team.add(MemoryContent(content="The shop sells oolong tea in 100 g tins.", mime_type="text/plain"))
    agent, client = make_agent(personal, team)

    await agent.run(task="Which oolong tea should I buy?")
    await agent.run(task="Is oolong tea sold in tins?")

    last = system_texts(client.create_calls[-1])
    assert len(last) == 2
    assert any("Alice's favourite" in text for text in last)
    assert any("100 g tins" in text for text in last)


async def test_conversation_stored_with_add_messages_is_recalled_by_a_new_agent(
    amemory: AsyncMemory, make_agent: AgentFactory, system_texts: SystemTexts
) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice")
    first, _ = make_agent(memory)
    result = await first.run(task="I adopted a greyhound called Biscuit last spring.")
    await memory.add_messages(result.messages)

    second, client = make_agent(memory)
    await second.run(task="What is the name of my greyhound?")

    sent = system_texts(client.create_calls[-1])
    assert len(sent) == 1
    assert "Biscuit" in sent[0]
