"""MemadaptMiddleware in agent_control: the agent calls search_memory / add_memory, nothing happens on its own."""

from __future__ import annotations

from agentscope.message import UserMsg
from agentscope.permission import PermissionBehavior, PermissionContext

from memadapt_agentscope import MemadaptMiddleware


async def test_agent_finds_memories_with_the_search_tool(amemory, make_agent, tool_results):
    await amemory.add("Alice's favourite colour is teal.", user_id="alice", kind="fact")
    mw = MemadaptMiddleware(amemory, user_id="alice", mode="agent_control")
    steps = [("search_memory", {"keywords": ["favourite colour"]}), "Teal."]
    agent, model = make_agent(mw, steps, tools=await mw.list_tools())

    reply = await agent.reply(UserMsg(name="alice", content="What is my favourite colour?"))

    assert reply.get_text_content() == "Teal."
    [result] = tool_results(model.calls[1])
    assert "Alice's favourite colour is teal." in result


async def test_search_tool_output_is_rendered_by_the_engine(amemory):
    await amemory.add("Alice's favourite colour is teal.", user_id="alice", kind="fact")
    [search, _] = await MemadaptMiddleware(amemory, user_id="alice", mode="agent_control").list_tools()

    chunk = await search(keywords=["favourite colour"])

    expected = amemory.format_context("favourite colour", await amemory.search("favourite colour", user_id="alice"))
    assert chunk.content[0].text == expected


async def test_search_tool_merges_keywords_without_repeating_a_memory(amemory):
    await amemory.add("Alice's favourite colour is teal.", user_id="alice", kind="fact")
    [search, _] = await MemadaptMiddleware(amemory, user_id="alice", mode="agent_control").list_tools()

    chunk = await search(keywords=["favourite colour", "teal colour"])

    assert chunk.content[0].text.count("Alice's favourite colour is teal.") == 1


async def test_search_tool_says_when_nothing_is_found(amemory):
    [search, _] = await MemadaptMiddleware(amemory, user_id="alice", mode="agent_control").list_tools()

    chunk = await search(keywords=["favourite colour"])

    assert chunk.content[0].text == "(no relevant memories found)"


async def test_search_tool_only_sees_its_users_memories(amemory):
    await amemory.add("Alice's favourite colour is teal.", user_id="alice", kind="fact")
    [search, _] = await MemadaptMiddleware(amemory, user_id="bob", mode="agent_control").list_tools()

    chunk = await search(keywords=["favourite colour"])

    assert chunk.content[0].text == "(no relevant memories found)"


async def test_add_tool_stores_facts_in_the_agents_session(amemory, make_agent):
    mw = MemadaptMiddleware(amemory, user_id="alice", agent_id="helper", mode="agent_control")
    steps = [
        ("add_memory", {"thinking": "a health fact", "content": ["Alice is allergic to peanuts."]}),
        "I will remember that.",
    ]
    agent, _ = make_agent(mw, steps, tools=await mw.list_tools())

    await agent.reply(UserMsg(name="alice", content="Remember that I am allergic to peanuts."))

    [fact] = (await amemory.list(user_id="alice", kinds=["fact"])).records
    assert (fact.text, fact.agent_id, fact.session_id) == (
        "Alice is allergic to peanuts.",
        "helper",
        agent.state.session_id,
    )


async def test_agent_control_neither_injects_nor_writes(amemory, make_agent, memory_hints):
    await amemory.add("Alice keeps bees in her garden.", user_id="alice", kind="fact")
    mw = MemadaptMiddleware(amemory, user_id="alice", mode="agent_control")
    agent, model = make_agent(mw, ["Maybe."], tools=await mw.list_tools())

    await agent.reply(UserMsg(name="alice", content="Does Alice keep bees?"))

    assert memory_hints(model.calls[0]) == []
    assert await amemory.count(user_id="alice") == 1


async def test_system_prompt_advertises_the_tools(amemory, make_agent, system_prompt):
    mw = MemadaptMiddleware(amemory, user_id="alice", mode="agent_control")
    agent, model = make_agent(mw, ["Hello."], tools=await mw.list_tools())

    await agent.reply(UserMsg(name="alice", content="Hi"))

    prompt = system_prompt(model.calls[0])
    assert prompt.startswith("You are a helpful assistant.")
    assert "`search_memory`" in prompt
    assert "`add_memory`" in prompt


async def test_model_sees_both_tool_schemas(amemory):
    tools = await MemadaptMiddleware(amemory, user_id="alice", mode="agent_control").list_tools()

    assert {t.name: sorted(t.input_schema["required"]) for t in tools} == {
        "search_memory": ["keywords"],
        "add_memory": ["content", "thinking"],
    }


async def test_memory_tools_do_not_ask_the_user(amemory):
    tools = await MemadaptMiddleware(amemory, user_id="alice", mode="agent_control").list_tools()

    decisions = [await t.check_permissions({}, PermissionContext()) for t in tools]

    assert [d.behavior for d in decisions] == [PermissionBehavior.ALLOW, PermissionBehavior.ALLOW]
