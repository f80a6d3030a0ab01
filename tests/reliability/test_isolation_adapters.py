"""Tenant isolation through each adapter, property-based: random sequences of each adapter's own calls for
several users sharing one engine. Every memory carries a unique token; whatever a call returns or renders may
only hold tokens of the caller's scope, and after every call each user's record count is what that user's own
calls left. Framework message ids are deliberately shared between users (each user must get a record of
their own), and calls that name no user are refused."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from typing import Any

import pytest
from autogen_agentchat.messages import TextMessage
from autogen_core.memory import MemoryContent
from autogen_core.model_context import UnboundedChatCompletionContext
from autogen_core.models import SystemMessage, UserMessage
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.messages import HumanMessage
from langgraph.store.base import SearchOp

from memadapt_agentscope import MemadaptMemoryService, MemadaptMiddleware
from memadapt_autogen import MemadaptMemory
from memadapt_core import AsyncMemory, Memory, ValidationError
from memadapt_langchain import (
    MemadaptChatMessageHistory,
    MemadaptRetriever,
    MemadaptStore,
    MemadaptVectorStore,
    create_search_memory_tool,
)

from ._support import PROPERTY, new_token, tokens_in

USERS = ["alice", "bob", "carol"]
user_st = st.sampled_from(USERS)
shared_id = st.sampled_from(["m1", "m2", "m3"])  # framework ids every user may use


class Tenants:
    """The model: tokens each user's live records hold, and how many records each user has."""

    def __init__(self) -> None:
        self.prefix = new_token()
        self.tokens: dict[str, set[str]] = defaultdict(set)
        self.records: dict[str, int] = defaultdict(int)

    def uid(self, user: str) -> str:
        return f"{self.prefix}-{user}"

    def owner(self, token: str) -> str | None:
        return next((u for u, ts in self.tokens.items() if token in ts), None)

    def assert_only_own(self, user: str, text: str) -> None:
        """Every memory in ``text`` is one of ``user``'s live ones: not another user's, not a deleted one."""
        foreign = {t: self.owner(t) or "deleted or replaced" for t in tokens_in(text) if t not in self.tokens[user]}
        assert not foreign, f"{user} saw: {foreign}"

    async def assert_counts(self, engine: AsyncMemory) -> None:
        for user in USERS:
            assert await engine.count(user_id=self.uid(user)) == self.records[user], user


# -- AutoGen -------------------------------------------------------------------------------------------------------
autogen_ops = st.lists(
    st.one_of(
        st.tuples(st.just("add"), user_st),
        st.tuples(st.just("add_messages"), user_st, shared_id),
        st.tuples(st.just("query"), user_st, user_st),
        st.tuples(st.just("update_context"), user_st, user_st),
        st.tuples(st.just("clear"), user_st),
    ),
    min_size=1,
    max_size=12,
)


async def _autogen_run(engine: AsyncMemory, ops: list[tuple[Any, ...]]) -> None:
    t = Tenants()
    mems = {u: MemadaptMemory(memory=engine, user_id=t.uid(u)) for u in USERS}
    seen_ids: dict[str, set[str]] = defaultdict(set)
    for op, user, *rest in ops:
        mem = mems[user]
        if op == "add":
            token = new_token()
            await mem.add(MemoryContent(content=f"fact {token}", mime_type="text/plain"))
            t.tokens[user].add(token)
            t.records[user] += 1
        elif op == "add_messages":
            token = new_token()
            await mem.add_messages([TextMessage(content=f"said {token}", source="user", id=rest[0])])
            if rest[0] not in seen_ids[user]:  # the same id again is the same message: stored once
                seen_ids[user].add(rest[0])
                t.tokens[user].add(token)
                t.records[user] += 1
        elif op == "query":
            about = next(iter(t.tokens[rest[0]]), "fact")  # often another user's token: must not come back
            result = await mem.query(about, threshold=0.0, limit=20)
            for content in result.results:
                t.assert_only_own(user, str(content.content))
        elif op == "update_context":
            about = next(iter(t.tokens[rest[0]]), "fact")
            context = UnboundedChatCompletionContext()
            await context.add_message(UserMessage(content=f"what about {about}?", source="user"))
            await mem.update_context(context)
            for message in await context.get_messages():
                if isinstance(message, SystemMessage):
                    t.assert_only_own(user, message.content)
        else:
            await mem.clear()
            t.tokens[user].clear()
            t.records[user] = 0
            seen_ids[user].clear()
        await t.assert_counts(engine)


def test_autogen_memories_stay_in_their_users_scope() -> None:
    with Memory(location=":memory:") as mem:
        loop = asyncio.new_event_loop()
        try:

            @PROPERTY
            @given(ops=autogen_ops)
            def check(ops: list[tuple[Any, ...]]) -> None:
                loop.run_until_complete(_autogen_run(mem.as_async(), ops))

            check()
        finally:
            loop.close()


# -- AgentScope: the runtime MemoryService (dict mode) and the 2.x middleware tools --------------------------------
def _msg(text: str, msg_id: str) -> dict[str, Any]:
    return {"id": msg_id, "type": "message", "role": "user", "content": [{"type": "text", "text": text}]}


service_ops = st.lists(
    st.one_of(
        st.tuples(st.just("add"), user_st, shared_id, st.sampled_from(["s1", "s2", None])),
        st.tuples(st.just("search"), user_st, user_st),
        st.tuples(st.just("list"), user_st),
        st.tuples(st.just("delete"), user_st, st.sampled_from(["s1", "s2", None])),
        st.tuples(st.just("tool_add"), user_st),
        st.tuples(st.just("tool_search"), user_st, user_st),
    ),
    min_size=1,
    max_size=12,
)


async def _agentscope_run(engine: AsyncMemory, ops: list[tuple[Any, ...]]) -> None:
    t = Tenants()
    by_key: dict[tuple[str, str | None, str], str] = {}  # (user, session, message id) -> token
    facts: dict[str, set[str]] = defaultdict(set)  # tokens added by the tool (session None)
    async with MemadaptMemoryService(engine) as service:
        for op, user, *rest in ops:
            uid = t.uid(user)
            if op == "add":
                msg_id, session = rest
                token = new_token()
                await service.add_memory(uid, [_msg(f"said {token}", msg_id)], session_id=session)
                if (user, session, msg_id) not in by_key:
                    by_key[(user, session, msg_id)] = token
                    t.tokens[user].add(token)
                    t.records[user] += 1
            elif op == "search":
                about = next(iter(t.tokens[rest[0]]), "said")
                for found in await service.search_memory(uid, [_msg(about, "q")]):
                    t.assert_only_own(user, str(found))
            elif op == "list":
                listed = await service.list_memory(uid, {"page_size": 100})
                assert set().union(*(tokens_in(str(m)) for m in listed)) == t.tokens[user]
            elif op == "delete":
                (session,) = rest
                await service.delete_memory(uid, session_id=session)
                gone = {k: v for k, v in by_key.items() if k[0] == user and (session is None or k[1] == session)}
                for key, token in gone.items():
                    del by_key[key]
                    t.tokens[user].discard(token)
                if session is None:
                    t.tokens[user] -= facts.pop(user, set())
                t.records[user] = len(t.tokens[user])
            elif op == "tool_add":
                [_, add] = await MemadaptMiddleware(engine, user_id=uid, mode="agent_control").list_tools()
                token = new_token()
                await add(thinking="worth keeping", content=[f"fact {token}"])
                t.tokens[user].add(token)
                facts[user].add(token)
                t.records[user] += 1
            else:
                [search, _] = await MemadaptMiddleware(
                    engine, user_id=uid, mode="agent_control", threshold=0.0
                ).list_tools()
                about = next(iter(t.tokens[rest[0]]), "fact")
                chunk = await search(keywords=[about])
                t.assert_only_own(user, chunk.content[0].text)
            await t.assert_counts(engine)


def test_agentscope_service_and_tools_stay_in_their_users_scope() -> None:
    with Memory(location=":memory:") as mem:
        loop = asyncio.new_event_loop()
        try:

            @PROPERTY
            @given(ops=service_ops)
            def check(ops: list[tuple[Any, ...]]) -> None:
                loop.run_until_complete(_agentscope_run(mem.as_async(), ops))

            check()
        finally:
            loop.close()


# -- LangChain / LangGraph ---------------------------------------------------------------------------------------
langchain_ops = st.lists(
    st.one_of(
        st.tuples(st.just("vs_add"), user_st, shared_id, st.booleans()),
        st.tuples(st.just("vs_search"), user_st, user_st, st.booleans()),
        st.tuples(st.just("vs_get"), user_st, shared_id),
        st.tuples(st.just("vs_delete"), user_st, shared_id, st.booleans()),
        st.tuples(st.just("retrieve"), user_st, user_st, st.booleans()),
        st.tuples(st.just("tool"), user_st, user_st),
        st.tuples(st.just("put"), user_st, shared_id, st.booleans()),
        st.tuples(st.just("get"), user_st, shared_id),
        st.tuples(st.just("search"), user_st, user_st, st.booleans()),
        st.tuples(st.just("history_add"), user_st),
        st.tuples(st.just("history_clear"), user_st),
    ),
    min_size=1,
    max_size=12,
)


async def _langchain_run(mem: Memory, ops: list[tuple[Any, ...]]) -> None:
    t = Tenants()
    amem = mem.as_async()
    docs: dict[str, dict[str, str]] = defaultdict(dict)  # user -> document id -> token
    items: dict[str, dict[str, str]] = defaultdict(dict)  # user -> item key -> token
    history: dict[str, set[str]] = defaultdict(set)
    store = MemadaptStore(mem, user_id_position=1)  # namespace ("memories", <user>) is that user's scope

    def refresh(user: str) -> None:
        t.tokens[user] = set(docs[user].values()) | set(items[user].values()) | history[user]
        t.records[user] = len(t.tokens[user])

    for op, user, *rest in ops:
        uid = t.uid(user)
        vs = MemadaptVectorStore(mem, user_id=uid)
        if op == "vs_add":
            doc_id, use_async = rest
            token = new_token()
            if use_async:
                await vs.aadd_texts([f"doc {token}"], ids=[doc_id])
            else:
                vs.add_texts([f"doc {token}"], ids=[doc_id])
            docs[user][doc_id] = token  # the same id in the same scope replaces the document
        elif op == "vs_search":
            about = next(iter(t.tokens[rest[0]]), "doc")
            found = await vs.asimilarity_search(about, k=20) if rest[1] else vs.similarity_search(about, k=20)
            for doc in found:
                t.assert_only_own(user, doc.page_content)
        elif op == "vs_get":
            got = vs.get_by_ids([rest[0]])
            assert [tokens_in(d.page_content) for d in got] == (
                [{docs[user][rest[0]]}] if rest[0] in docs[user] else []
            )
        elif op == "vs_delete":
            doc_id, use_async = rest
            await vs.adelete([doc_id]) if use_async else vs.delete([doc_id])
            docs[user].pop(doc_id, None)
        elif op == "retrieve":
            retriever = MemadaptRetriever(memory=mem, user_id=uid, threshold=0.0, k=20)
            about = next(iter(t.tokens[rest[0]]), "doc")
            found = await retriever.ainvoke(about) if rest[1] else retriever.invoke(about)
            for doc in found:
                assert doc.metadata["user_id"] == uid
                t.assert_only_own(user, doc.page_content)
        elif op == "tool":
            about = next(iter(t.tokens[rest[0]]), "doc")
            answer = await create_search_memory_tool(amem, user_id=uid).ainvoke({"query": about})
            t.assert_only_own(user, answer)
        elif op == "put":
            key, use_async = rest
            token = new_token()
            if use_async:
                await store.aput(("memories", uid), key, {"text": f"item {token}"})
            else:
                store.put(("memories", uid), key, {"text": f"item {token}"})
            items[user][key] = token
        elif op == "get":
            item = store.get(("memories", uid), rest[0])
            assert (item.value["text"] if item else None) == (
                f"item {items[user][rest[0]]}" if rest[0] in items[user] else None
            )
        elif op == "search":
            about = next(iter(t.tokens[rest[0]]), "item")
            ops_ = [SearchOp(("memories", uid), query=about, limit=20)]
            [found] = await store.abatch(ops_) if rest[1] else store.batch(ops_)
            for hit in found:
                assert hit.namespace == ("memories", uid)
                t.assert_only_own(user, str(hit.value))
        elif op == "history_add":
            token = new_token()
            MemadaptChatMessageHistory(mem, "chat", user_id=uid).add_messages([HumanMessage(f"chat {token}")])
            history[user].add(token)
        else:
            await MemadaptChatMessageHistory(mem, "chat", user_id=uid).aclear()
            history[user].clear()
        refresh(user)
        await t.assert_counts(amem)


def test_langchain_components_stay_in_their_users_scope() -> None:
    with Memory(location=":memory:") as mem:
        loop = asyncio.new_event_loop()
        try:

            @PROPERTY
            @given(ops=langchain_ops)
            def check(ops: list[tuple[Any, ...]]) -> None:
                loop.run_until_complete(_langchain_run(mem, ops))

            check()
        finally:
            loop.close()


# -- calls that name nobody ----------------------------------------------------------------------------------------
def test_an_autogen_memory_without_a_scope_is_refused(memory: Memory) -> None:
    with pytest.raises(ValidationError, match="user_id"):
        MemadaptMemory(memory=memory)


def test_an_agentscope_middleware_without_a_user_is_refused(memory: Memory) -> None:
    with pytest.raises(ValueError, match="user_id"):
        MemadaptMiddleware(memory, user_id="")


async def test_an_agentscope_service_call_without_a_user_is_refused(memory: Memory) -> None:
    async with MemadaptMemoryService(memory) as service:
        with pytest.raises(ValidationError):
            await service.list_memory(None)  # type: ignore[arg-type]
        with pytest.raises(ValidationError):
            await service.delete_memory("")


async def test_an_agentscope_service_with_an_agent_scope_refuses_a_call_without_a_user(memory: Memory) -> None:
    async with MemadaptMemoryService(memory, agent_id="app") as service:
        await service.add_memory("alice", [_msg("alice's door code is 1234", "m1")])
        with pytest.raises(ValidationError):
            await service.list_memory(None)  # type: ignore[arg-type]
        with pytest.raises(ValidationError):
            await service.delete_memory(None)  # type: ignore[arg-type]
        assert await memory.as_async().count(user_id="alice") == 1


def test_a_langchain_retriever_without_a_scope_is_refused(memory: Memory) -> None:
    with pytest.raises(ValidationError, match="user_id"):
        MemadaptRetriever(memory=memory).invoke("anything")


def test_a_langchain_search_tool_without_a_user_is_refused(memory: Memory) -> None:
    with pytest.raises(ValidationError, match="user_id"):
        create_search_memory_tool(memory).invoke({"query": "anything"})


def test_a_langchain_chat_history_without_a_session_is_refused(memory: Memory) -> None:
    with pytest.raises(ValidationError, match="session_id"):
        MemadaptChatMessageHistory(memory, "").add_messages([HumanMessage("hello")])
