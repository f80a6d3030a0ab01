"""agentscope-runtime's MemoryService on memadapt, offline.

`MemadaptMemoryService` has the interface of agentscope-runtime 1.0.x's ``MemoryService`` (and is a subclass of it
when the runtime is installed): start/stop, add_memory, search_memory (``top_k``), list_memory (``page_num``,
``page_size``), delete_memory. This example drives it directly, so it also runs without the runtime: then the
messages are the runtime ``Message``'s JSON dicts; with the runtime installed they come back as ``Message``s.

Plugging it into agentscope-runtime 1.0.5.post1 (``pip install 'memadapt[agentscope-runtime]'``, AgentScope 1.x)::

    from agentscope.agent import ReActAgent
    from agentscope_runtime.adapters.agentscope.long_term_memory import AgentScopeLongTermMemory

    service = MemadaptMemoryService(AsyncMemory(path="./memdir"))
    await service.start()
    agent = ReActAgent(
        name="Friday", sys_prompt="...", model=model, formatter=formatter,
        long_term_memory=AgentScopeLongTermMemory(service, user_id="alice", session_id="s1"),
        long_term_memory_mode="both",
    )

Through the runtime's service factory (its backends are chosen by name, e.g. ``MEMORY_BACKEND=memadapt``)::

    from agentscope_runtime.engine.services.memory.memory_service_factory import MemoryServiceFactory

    MemoryServiceFactory.register_backend("memadapt", MemadaptMemoryService)
    service = await MemoryServiceFactory.create("memadapt")
    await service.start()   # with no engine given, opens AsyncMemory() from its MEMADAPT_* settings

(In 1.0.5.post1 that factory module imports its mem0 and ReMe backends eagerly, so importing it needs the
``mem0ai`` and ``reme_ai`` packages too; `MemadaptMemoryService` itself needs neither.)

For AgentScope 1.x without the runtime, `memadapt_agentscope.MemadaptLongTermMemory` is the direct adapter.

    python examples/agentscope_service.py
"""

from __future__ import annotations

import asyncio
from typing import Any

from memadapt_agentscope import MemadaptMemoryService
from memadapt_core import AsyncMemory


def message(text: str, role: str = "user") -> dict[str, Any]:
    """A runtime ``Message`` as JSON (with the runtime: ``Message(role=..., content=[TextContent(text=...)])``)."""
    return {"type": "message", "role": role, "content": [{"type": "text", "text": text}]}


def text_of(msg: Any) -> str:
    content = msg["content"] if isinstance(msg, dict) else msg.content
    part = content[0]
    return str(part["text"] if isinstance(part, dict) else part.text)


async def main() -> None:
    async with AsyncMemory(location=":memory:") as memory, MemadaptMemoryService(memory) as service:
        await service.add_memory(
            "alice",
            [
                message("I'm allergic to peanuts."),
                message("Noted, no peanuts in your recipes.", role="assistant"),
            ],
            session_id="monday",
        )
        await service.add_memory("alice", [message("My sister lives in Lisbon.")], session_id="tuesday")
        await service.add_memory("bob", [message("I'm allergic to cats.")], session_id="monday")

        found = await service.search_memory("alice", [message("Any food allergies?")], filters={"top_k": 3})
        print("search 'Any food allergies?' ->", [text_of(m) for m in found])
        print("search 'xylophone'          ->", await service.search_memory("alice", [message("xylophone")]))

        page = await service.list_memory("alice", filters={"page_num": 1, "page_size": 2})
        print("list page 1 (size 2)        ->", [text_of(m) for m in page])

        await service.delete_memory("alice", session_id="monday")
        print("after deleting 'monday'     ->", [text_of(m) for m in await service.list_memory("alice")])
        print("bob is untouched            ->", [text_of(m) for m in await service.list_memory("bob")])


if __name__ == "__main__":
    asyncio.run(main())
