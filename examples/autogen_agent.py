"""An AutoGen AssistantAgent with long-term memory from memadapt.

Runs offline with a scripted model; set OPENAI_API_KEY (and optionally OPENAI_MODEL) to use a real one:

    python examples/autogen_agent.py

1. Alice's memory gets two facts (text and JSON) and Bob's one, in one shared store.
2. Session 1: Alice chats; the conversation is stored with add_messages (idempotent).
3. Session 2: a new agent answers from memory; the model sees one memadapt system message per turn.
4. The agent is dumped as a component (no secret inside) and loaded back.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.base import TaskResult
from autogen_agentchat.messages import MemoryQueryEvent
from autogen_core.memory import MemoryContent
from autogen_core.models import ChatCompletionClient, SystemMessage
from autogen_ext.models.replay import ReplayChatCompletionClient

from memadapt_autogen import MemadaptMemory
from memadapt_core import AsyncMemory

SCRIPT = [
    "Congratulations on Biscuit! Greyhounds are lovely.",  # session 1
    "You like oolong, and with your peanut allergy I'd skip the peanut cookies.",  # session 2, turn 1
    "Biscuit, your greyhound.",  # session 2, turn 2
]  # a loaded copy of the scripted model replays from the start


def model_client() -> ChatCompletionClient:
    if os.environ.get("OPENAI_API_KEY"):
        from autogen_ext.models.openai import OpenAIChatCompletionClient

        model = os.environ.get("OPENAI_MODEL", "gpt-4o-mini")
        print(f"model: {model} (OpenAI)")
        return OpenAIChatCompletionClient(model=model)
    print("model: scripted (offline); set OPENAI_API_KEY to use a real one")
    return ReplayChatCompletionClient(SCRIPT)


def show_turn(result: TaskResult) -> None:
    for message in result.messages:
        if isinstance(message, MemoryQueryEvent):
            print(f"  recalled {len(message.content)} memories:")
            for item in message.content:
                score = (item.metadata or {}).get("score", 0.0)
                print(f"    {score:.2f}  {item.content}")
    print(f"  assistant: {result.messages[-1].to_text()}")


async def main() -> None:
    client = model_client()
    with tempfile.TemporaryDirectory() as folder:
        engine = AsyncMemory(path=folder)
        alice = MemadaptMemory(memory=engine, user_id="alice")
        bob = MemadaptMemory(memory=engine, user_id="bob")

        print("\n1. facts")
        await alice.add(MemoryContent(content="Alice's favourite tea is oolong.", mime_type="text/plain"))
        await alice.add(MemoryContent(content={"allergy": "peanuts", "severity": "high"}, mime_type="application/json"))
        await bob.add(MemoryContent(content="Bob's favourite tea is earl grey.", mime_type="text/plain"))
        print(f"  alice: {await engine.count(user_id='alice')} facts, bob: {await engine.count(user_id='bob')}")

        print("\n2. session 1")
        agent = AssistantAgent("assistant", model_client=client, memory=[alice])
        task = "I adopted a greyhound called Biscuit last spring."
        print(f"  user: {task}")
        result = await agent.run(task=task)
        show_turn(result)
        stored = await alice.add_messages(result.messages)
        again = await alice.add_messages(result.messages)
        total = await engine.count(user_id="alice")
        print(f"  stored {len(stored)} messages; sent again: {len(again)} returned, total still {total}")

        print("\n3. session 2: a new agent, the same memory")
        agent = AssistantAgent("assistant", model_client=client, memory=[alice])
        for task in (
            "What tea should I brew, and can I have peanut cookies with it?",
            "What is my dog called?",
        ):
            print(f"  user: {task}")
            show_turn(await agent.run(task=task))
        if isinstance(client, ReplayChatCompletionClient):
            last_call = client.create_calls[-1]["messages"]
            memory_messages = [m for m in last_call if isinstance(m, SystemMessage) and "memadapt" in m.content]
            print(f"  the last model call carried {len(memory_messages)} memadapt system message:")
            print("    " + memory_messages[0].content.replace("\n", "\n    "))

        print("\n4. component round trip")
        dumped = agent.dump_component()
        memory_config = dumped.config["memory"][0]["config"]
        print(f"  memory config in the dump (no secret): {json.dumps(memory_config)}")
        loaded = AssistantAgent.load_component(dumped)  # shares the open folder with `engine`
        task = "What is my dog called?"
        print(f"  user, to the loaded agent: {task}")
        for message in (await loaded.run(task=task)).messages:
            if isinstance(message, MemoryQueryEvent):
                print(f"  it recalled: {[item.content for item in message.content]}")
        for memory in loaded._memory or []:  # AutoGen's agent.close() leaves memories open
            await memory.close()
        await engine.close()  # the last engine on the folder: this closes the store
    await client.close()


if __name__ == "__main__":
    asyncio.run(main())
