"""Every adapter takes a `RemoteMemory` / `AsyncRemoteMemory` where it takes an engine, and works unchanged against
`memadapt serve` (a real subprocess on 127.0.0.1, one for the module: each test is its own user); the experience
adapters against one that consolidates with a scripted LLM (each test its own agent)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from agentscope.agent import Agent
from agentscope.credential import CredentialBase
from agentscope.formatter import OpenAIChatFormatter
from agentscope.message import HintBlock, Msg, TextBlock, UserMsg
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.tool import Toolkit
from autogen_agentchat.messages import TextMessage
from autogen_core.memory import MemoryContent
from autogen_core.model_context import UnboundedChatCompletionContext
from autogen_core.models import SystemMessage, UserMessage
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, HumanMessage
from pydantic import BaseModel

from memadapt_agentscope import MemadaptExperienceMiddleware, MemadaptMiddleware
from memadapt_autogen import MemadaptExperienceMemory, MemadaptMemory
from memadapt_core import ConfigurationError
from memadapt_core.remote import AsyncRemoteMemory, RemoteMemory
from memadapt_core.testing import ScriptedLLMServer
from memadapt_langchain import (
    MemadaptChatMessageHistory,
    MemadaptExperienceRetriever,
    MemadaptRetriever,
    MemadaptStore,
    MemadaptVectorStore,
    create_experience_tool,
    create_trajectory_tool,
)

from .conftest import LESSON, Server, by_operation, eventually, running_server, taught_server, until

TOKENS = {"token-autogen": "ag", "token-agentscope": "as", "token-langchain": "lc", "token-langgraph": "lg"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("serve"), TOKENS) as running:
        yield running


@pytest.fixture(scope="module")
def taught(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose consolidation draws lessons (a scripted LLM): experience adapters need them."""
    with (
        ScriptedLLMServer(responder=by_operation) as llm,
        taught_server(tmp_path_factory.mktemp("taught"), llm, TOKENS) as up,
    ):
        yield up


async def test_autogen_memory_runs_against_the_service(server: Server) -> None:
    async with AsyncRemoteMemory(server.url, token="token-autogen") as remote:
        memory = MemadaptMemory(memory=remote, user_id="ag")
        await memory.add(MemoryContent(content="My favourite tea is oolong.", mime_type="text/plain"))
        found = await memory.query("favourite tea")
        context = UnboundedChatCompletionContext()
        await context.add_message(UserMessage(content="Which tea should I buy?", source="user"))
        await memory.update_context(context)
        await memory.clear()
        await memory.close()  # a memory handed its engine leaves it open
        left = await remote.count(user_id="ag")
    [system] = [m for m in await context.get_messages() if isinstance(m, SystemMessage)]
    assert [r.content for r in found.results] == ["My favourite tea is oolong."]
    assert "oolong" in system.content
    assert left == 0


async def test_an_autogen_memory_over_the_service_dumps_its_server_not_its_token(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with AsyncRemoteMemory(server.url, token="token-autogen") as remote:
        memory = MemadaptMemory(memory=remote, user_id="ag", session_id="dumped")
        await memory.add(MemoryContent(content="I keep bees on the roof.", mime_type="text/plain"))
        dumped = memory.dump_component().model_dump_json()
        monkeypatch.setenv("MEMADAPT_TOKEN", "token-autogen")
        loaded = MemadaptMemory.load_component(json.loads(dumped))
        found = await loaded.query("bees")
        await loaded.close()
        await remote.delete_all(user_id="ag", session_id="dumped")
    assert json.loads(dumped)["config"]["server"] == server.url
    assert "token-autogen" not in dumped
    assert isinstance(loaded.engine, AsyncRemoteMemory)
    assert [r.content for r in found.results] == ["I keep bees on the roof."]


def test_an_autogen_memory_loaded_for_a_server_without_a_token_names_the_variable(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMADAPT_TOKEN", raising=False)

    with pytest.raises(ConfigurationError, match="MEMADAPT_TOKEN"):
        MemadaptMemory(server=server.url, user_id="ag")


class _RecallingModel(ChatModelBase):
    """Replies "Noted", keeping every memory note it is shown."""

    class Parameters(BaseModel):
        pass

    def __init__(self) -> None:
        super().__init__(credential=CredentialBase(), model="offline", parameters=self.Parameters(), stream=False)
        self.formatter = OpenAIChatFormatter()
        self.notes: list[str] = []
        self.prompts: list[str] = []

    async def _call_api(self, model_name: str, messages: list[Msg], *args: Any, **kwargs: Any) -> ChatResponse:
        self.notes += [b.hint for m in messages if m.name == "memory" for b in m.content if isinstance(b, HintBlock)]
        self.prompts += [m.get_text_content() or "" for m in messages if m.role == "system"]
        return ChatResponse(content=[TextBlock(text="Noted")], is_last=True)


async def test_agentscope_middleware_runs_against_the_service(server: Server) -> None:
    remote = RemoteMemory(server.url, token="token-agentscope")  # the sync client, through its async view
    middleware = MemadaptMiddleware(remote, user_id="as", mode="both", background=True)
    tools = Toolkit(tools=await middleware.list_tools())

    def agent(model: _RecallingModel) -> Agent:
        return Agent(name="assistant", system_prompt="Be brief.", model=model, toolkit=tools, middlewares=[middleware])

    await agent(_RecallingModel()).reply(UserMsg(name="as", content="I'm flying to Lisbon on Friday."))
    await middleware.wait_idle()
    second = _RecallingModel()
    await agent(second).reply(UserMsg(name="as", content="When do I fly to Lisbon?"))
    await remote.as_async().close()  # waits for the background write the middleware handed over (track)
    remote.close()
    assert any("flying to Lisbon on Friday" in note for note in second.notes)


def test_langchain_retriever_runs_against_the_service(server: Server) -> None:
    with RemoteMemory(server.url, token="token-langchain") as remote:
        remote.add(["Maya's cat is called Pixel", "Maya's dog is called Rex"], user_id="lc", session_id="ret")
        similar = MemadaptRetriever(memory=remote, user_id="lc", k=1).invoke("what is the cat called")
        diverse = MemadaptRetriever(memory=remote, user_id="lc", k=2, search_type="mmr", threshold=0.0)
        picked = diverse.invoke("what are the pets called")
    assert [d.page_content for d in similar] == ["Maya's cat is called Pixel"]
    assert len(picked) == 2


def test_a_sync_clients_async_view_serves_one_event_loop_after_another(server: Server) -> None:
    with RemoteMemory(server.url, token="token-langchain") as remote:
        remote.add("Maya's bike is red", user_id="lc", session_id="loops")
        retriever = MemadaptRetriever(memory=remote, user_id="lc", session_id="loops", k=1)
        first = asyncio.run(retriever.ainvoke("what colour is the bike"))  # sync code, as a script's
        second = asyncio.run(retriever.ainvoke("what colour is the bike"))
    assert [d.page_content for d in first] == [d.page_content for d in second] == ["Maya's bike is red"]


async def test_langchain_vector_store_runs_against_the_service(server: Server) -> None:
    async with AsyncRemoteMemory(server.url, token="token-langchain") as remote:
        store = MemadaptVectorStore(remote, agent_id="docs")  # no user: the token's, as the server completes it
        docs = [Document(page_content="Lisbon is the capital of Portugal", metadata={"n": 1}, id="a"),
                Document(page_content="Porto is famous for its wine", metadata={"n": 2}, id="b")]  # fmt: skip
        await store.aadd_documents(docs)
        found = await store.asimilarity_search("capital of Portugal", k=1)
        by_id = await store.aget_by_ids(["b"])
        mmr = await store.amax_marginal_relevance_search("Portugal", k=2, fetch_k=2)
        await store.adelete(["a"])
        left = await store.aget_by_ids(["a", "b"])
    assert [(d.page_content, d.metadata) for d in found] == [("Lisbon is the capital of Portugal", {"n": 1})]
    assert [d.page_content for d in by_id] == ["Porto is famous for its wine"]
    assert len(mmr) == 2
    assert [d.page_content for d in left] == ["Porto is famous for its wine"]


def test_langchain_chat_history_runs_against_the_service(server: Server) -> None:
    with RemoteMemory(server.url, token="token-langchain") as remote:
        history = MemadaptChatMessageHistory(remote, "chat", user_id="lc")
        history.add_messages([HumanMessage(content="Hi, I'm Maya"), AIMessage(content="Hello Maya!")])
        kept = history.messages
        history.clear()
        cleared = history.messages
    assert [(m.type, m.content) for m in kept] == [("human", "Hi, I'm Maya"), ("ai", "Hello Maya!")]
    assert cleared == []


async def test_langgraph_store_runs_against_the_service(server: Server) -> None:
    async with AsyncRemoteMemory(server.url, token="token-langgraph") as remote:
        store = MemadaptStore(remote)
        await store.aput(("memories", "lg"), "sister", {"content": "My sister lives in Porto"})
        await store.aput(("memories", "lg"), "big", {"content": "notes", "blob": "x" * 20_000})
        item = await store.aget(("memories", "lg"), "sister")
        hits = await store.asearch(("memories", "lg"), query="where does my sister live", limit=1)
        big = await store.aget(("memories", "lg"), "big")
        await store.adelete(("memories", "lg"), "sister")
        gone = await store.aget(("memories", "lg"), "sister")
        with pytest.raises(ConfigurationError):  # another user's namespace: the token does not stand for it
            await store.aput(("memories", "lc"), "x", {"content": "not mine"})
    assert item is not None
    assert item.value == {"content": "My sister lives in Porto"}
    assert [h.key for h in hits] == ["sister"]
    assert big is not None
    assert json.dumps(big.value) == json.dumps({"content": "notes", "blob": "x" * 20_000})
    assert gone is None


PLAN = "Help me create a project plan"
NEXT = "Plan the next project"


async def test_autogen_experience_memory_runs_against_the_service(taught: Server) -> None:
    async with AsyncRemoteMemory(taught.url, token="token-autogen") as remote:
        experience = MemadaptExperienceMemory(remote, agent_id="ag-bot", user_id="ag")
        await experience.record([TextMessage(content=PLAN, source="user")], score=1.0)

        async def recalled() -> list[MemoryContent]:
            return (await experience.query(NEXT)).results

        found = await until(recalled)
        context = UnboundedChatCompletionContext()
        await context.add_message(UserMessage(content=NEXT, source="user"))
        await experience.update_context(context)
    [system] = [m for m in await context.get_messages() if isinstance(m, SystemMessage)]
    assert [r.content for r in found] == [LESSON["content"]]
    assert LESSON["content"] in system.content


async def test_agentscope_experience_middleware_runs_against_the_service(taught: Server) -> None:
    remote = RemoteMemory(taught.url, token="token-agentscope")  # the sync client, through its async view

    def agent(middleware: MemadaptExperienceMiddleware, model: _RecallingModel) -> Agent:
        return Agent(name="assistant", system_prompt="Be brief.", model=model, toolkit=Toolkit(tools=[]),
                     middlewares=[middleware])  # fmt: skip

    graded = MemadaptExperienceMiddleware(remote, agent_id="as-bot", user_id="as", score=lambda task, reply: 1.0)
    await agent(graded, _RecallingModel()).reply(UserMsg(name="as", content=PLAN))
    await until(lambda: remote.as_async().experiences(NEXT, agent_id="as-bot"))
    second = _RecallingModel()
    await agent(MemadaptExperienceMiddleware(remote, agent_id="as-bot"), second).reply(UserMsg(name="as", content=NEXT))
    await remote.as_async().close()
    remote.close()
    assert second.prompts
    assert LESSON["content"] in second.prompts[0]


def test_langchain_experience_retriever_and_tools_run_against_the_service(taught: Server) -> None:
    with RemoteMemory(taught.url, token="token-langchain") as remote:
        reported = create_trajectory_tool(remote, agent_id="lc-bot", user_id="lc").invoke(
            {"task": PLAN, "steps": ["Listed the milestones"], "score": 1.0}
        )
        retriever = MemadaptExperienceRetriever(memory=remote, agent_id="lc-bot")
        documents = eventually(lambda: retriever.invoke(NEXT))
        guidance = create_experience_tool(remote, agent_id="lc-bot").invoke({"task": NEXT})
    assert reported.startswith("Recorded attempt")
    assert [d.page_content for d in documents] == [LESSON["content"]]
    assert LESSON["content"] in guidance
