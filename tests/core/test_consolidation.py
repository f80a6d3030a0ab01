"""Consolidation through the real engine: an OpenAI-compatible LLM served over real HTTP on 127.0.0.1."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memadapt_core import AsyncMemory, LLMError, Memory
from memadapt_core.testing import ChatRequest, Failure, Hang, ScriptedLLMServer

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
LATER = T0 + timedelta(days=30)


def extracted(*facts: tuple[str, list[int]] | dict[str, Any]) -> dict[str, Any]:
    return {"facts": [f if isinstance(f, dict) else {"text": f[0], "sources": f[1]} for f in facts]}


def decided(*decisions: tuple[int, str, int | None]) -> dict[str, Any]:
    return {"decisions": [{"fact": f, "action": a, "target": t} for f, a, t in decisions]}


def said(text: str, at: datetime, msg_id: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "user", "name": "Alex", "content": text, "timestamp": at}
    if msg_id:
        message["id"] = msg_id
    return message


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as srv:
        yield srv


def llm(server: ScriptedLLMServer, **extra: Any) -> dict[str, Any]:
    return {"llm": {"base_url": server.base_url, "model": "scripted", "timeout": 2.0, "max_retries": 1, **extra}}


def facts(mem: Memory, **scope: Any) -> list[str]:
    return [r.text for r in mem.list(kinds=["fact"], **scope).records]


def test_extraction_stores_dated_facts_linked_to_their_messages(server: ScriptedLLMServer) -> None:
    server.push(extracted(("Alex ran a charity race on 7 May 2023", [0])))
    with Memory(location=":memory:", **llm(server)) as mem:
        (msg,) = mem.add(said("I ran a charity race yesterday!", T0), user_id="alex", session_id="s1")
        mem.flush()
        (fact,) = mem.list(user_id="alex", kinds=["fact"]).records
        assert fact.source_ids == [msg.id]
        assert fact.observed_at == T0
        assert fact.session_id == "s1"
        assert mem.get(msg.id).consolidated  # type: ignore[union-attr]


def test_add_returns_while_the_llm_is_still_working(server: ScriptedLLMServer) -> None:
    server.push(Hang(seconds=10))
    with Memory(location=":memory:", **llm(server)) as mem:
        (msg,) = mem.add(said("I adopted a cat", T0), user_id="alex")
        server.wait_for_requests(1, timeout=10)  # the extraction call is under way...
        assert mem.get(msg.id) is not None  # ...and the raw message is already stored
        server.release()


def _paris_then_berlin(mem: Memory, server: ScriptedLLMServer) -> None:
    server.push(extracted(("Alex lives in Paris", [0])))
    mem.add(said("I live in Paris", T0), user_id="alex", session_id="s1")
    mem.flush()
    server.push(extracted(("Alex lives in Berlin", [0])), decided((0, "UPDATE", 0)))
    mem.add(said("I moved to Berlin", LATER), user_id="alex", session_id="s2")
    mem.flush()


def test_a_contradiction_supersedes_and_search_returns_the_new_fact(server: ScriptedLLMServer) -> None:
    with Memory(location=":memory:", **llm(server)) as mem:
        _paris_then_berlin(mem, server)

        hits = mem.search("where does Alex live", user_id="alex", kinds=["fact"])
        assert [h.record.text for h in hits] == ["Alex lives in Berlin"]
        berlin = hits[0].record
        assert berlin.supersedes is not None
        paris = mem.get(berlin.supersedes)
        assert paris is not None
        assert (paris.text, paris.valid_to, paris.superseded_by) == ("Alex lives in Paris", LATER, berlin.id)
        events = mem.history(berlin.id)
        assert [(e.event, e.record_id) for e in events if e.event != "add"] == [("supersede", paris.id)]
        assert {e.new_text for e in events if e.event == "add"} == {"Alex lives in Paris", "Alex lives in Berlin"}
        everything = mem.search("where does Alex live", user_id="alex", kinds=["fact"], include_superseded=True)
        assert {h.record.text for h in everything} == {"Alex lives in Paris", "Alex lives in Berlin"}
        then = mem.search("where does Alex live", user_id="alex", kinds=["fact"], as_of=T0 + timedelta(days=1))
        assert [h.record.text for h in then] == ["Alex lives in Paris"]


def test_a_superseded_fact_stays_hidden_after_the_store_is_reopened(server: ScriptedLLMServer, tmp_path: Path) -> None:
    with Memory(path=tmp_path, **llm(server)) as mem:
        _paris_then_berlin(mem, server)
    with Memory(path=tmp_path) as mem:
        hits = mem.search("where does Alex live", user_id="alex", kinds=["fact"])
        assert [h.record.text for h in hits] == ["Alex lives in Berlin"]


def test_an_imported_superseded_fact_stays_hidden(server: ScriptedLLMServer, tmp_path: Path) -> None:
    with Memory(location=":memory:", **llm(server)) as mem:
        _paris_then_berlin(mem, server)
        mem.export(tmp_path / "alex.jsonl", user_id="alex")
    with Memory(location=":memory:") as fresh:
        fresh.import_(tmp_path / "alex.jsonl")
        hits = fresh.search("where does Alex live", user_id="alex", kinds=["fact"])
        assert [h.record.text for h in hits] == ["Alex lives in Berlin"]


def test_a_hypothetical_is_not_stored_as_a_fact(server: ScriptedLLMServer) -> None:
    server.push(extracted({"text": "Alex is a pilot", "sources": [0], "hypothetical": True}))
    with Memory(location=":memory:", **llm(server)) as mem:
        (msg,) = mem.add(said("If I were a pilot I would fly to Tokyo every week", T0), user_id="alex")
        mem.flush()
        assert facts(mem, user_id="alex") == []
        assert mem.get(msg.id).consolidated  # type: ignore[union-attr]


def test_a_relative_date_is_resolved_against_the_messages_own_time(server: ScriptedLLMServer) -> None:
    def capable(request: ChatRequest) -> dict[str, Any]:
        message = request.payload["messages"][0]
        day = (datetime.fromisoformat(message["said_at"]) - timedelta(days=1)).date()
        return extracted({"text": f"Alex went to a support group on {day:%-d %B %Y}", "sources": [0],
                          "valid_from": str(day)})  # fmt: skip

    server.responder = capable
    with Memory(location=":memory:", **llm(server)) as mem:
        mem.add(said("I went to a support group yesterday.", T0), user_id="alex")
        mem.flush()
        (fact,) = mem.list(user_id="alex", kinds=["fact"]).records
    assert fact.text == "Alex went to a support group on 7 May 2023"
    assert fact.valid_from == datetime(2023, 5, 7, tzinfo=UTC)


def test_an_llm_outage_loses_nothing_and_the_work_completes_after_recovery(server: ScriptedLLMServer) -> None:
    with Memory(location=":memory:", **llm(server)) as mem:
        server.set_outage(Failure(500))
        (msg,) = mem.add(said("I started learning the cello", T0), user_id="alex")
        mem.flush()  # tried, failed: the message stays pending
        assert not mem.get(msg.id).consolidated  # type: ignore[union-attr]
        server.end_outage()
        server.push(extracted(("Alex is learning the cello", [0])))
        mem.flush()  # failed scopes are tried once more
        assert facts(mem, user_id="alex") == ["Alex is learning the cello"]
        assert mem.get(msg.id).consolidated  # type: ignore[union-attr]


def test_consolidate_now_raises_when_the_llm_is_down_and_keeps_messages_pending(server: ScriptedLLMServer) -> None:
    with Memory(location=":memory:", **llm(server)) as mem:
        server.set_outage(Failure(500))
        (msg,) = mem.add(said("I started learning the cello", T0), user_id="alex")
        with pytest.raises(LLMError):
            mem.consolidate(user_id="alex")
        assert not mem.get(msg.id).consolidated  # type: ignore[union-attr]


async def test_the_async_engine_consolidates_in_the_background(server: ScriptedLLMServer) -> None:
    server.push(extracted(("Alex is vegetarian", [0])))
    async with AsyncMemory(location=":memory:", **llm(server)) as mem:
        await mem.add(said("I'm vegetarian", T0), user_id="alex")
        await mem.flush()
        page = await mem.list(user_id="alex", kinds=["fact"])
        assert [r.text for r in page.records] == ["Alex is vegetarian"]
        assert (await mem.stats())["consolidation"]["worker"]["facts"] == 1


def test_without_an_llm_nothing_is_consolidated_and_nothing_calls_out(memory: Memory) -> None:
    (msg,) = memory.add("I like tea", user_id="alex")
    assert memory.consolidate() == 0
    memory.flush()
    assert "consolidation" not in memory.stats()
    assert not memory.get(msg.id).consolidated  # type: ignore[union-attr]


def test_plugin_instructions_reach_the_extraction_prompt(server: ScriptedLLMServer) -> None:
    from memadapt_core import Scope, hookimpl

    class Medical:
        @hookimpl
        def memadapt_extraction_instructions(self, scope: Scope) -> str | None:
            return "Never extract medical details."

    server.push(extracted(("Alex likes tea", [0])))
    with Memory(location=":memory:", plugins=[Medical()], **llm(server)) as mem:
        mem.add(said("I like tea", T0), user_id="alex")
        mem.flush()
    assert "Never extract medical details." in server.chat_requests("extract")[0].system


CHILD = """
import sys
from memadapt_core import Memory
mem = Memory(path=sys.argv[1], llm={{"base_url": sys.argv[2], "model": "scripted", "timeout": 60}})
mem.add([{{"role": "user", "content": "I live in Lisbon", "id": "m1", "timestamp": "2023-05-08T10:00:00Z"}}],
        user_id="alex")
print("acked", flush=True)
mem.flush()  # blocks: the scripted LLM hangs until the process is killed
"""


def test_a_process_killed_mid_consolidation_resumes_without_duplicates(
    server: ScriptedLLMServer, tmp_path: Path
) -> None:
    server.push(Hang(seconds=60))
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(), str(tmp_path), server.base_url], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "acked"
    server.wait_for_requests(1, timeout=30)  # the extraction call is under way
    child.kill()
    child.wait(timeout=30)
    child.stdout.close()
    server.release()
    server.push(extracted(("Alex lives in Lisbon", [0])))
    with Memory(path=tmp_path, **llm(server)) as mem:
        mem.flush()  # resumes the pending scope
        mem.flush()
        assert facts(mem, user_id="alex") == ["Alex lives in Lisbon"]
        assert mem.count(user_id="alex", kinds=["message"]) == 1


def _fact_per_message_and_one_insight(request: ChatRequest) -> dict[str, Any]:
    payload: Any = request.payload if isinstance(request.payload, dict) else {}
    if request.operation == "extract":
        return extracted(*((f"Alex: {m['text']}", [m["n"]]) for m in payload["messages"]))
    if request.operation == "reconcile":
        return decided(*((f["n"], "ADD", None) for f in payload["new_facts"]))
    sources = [f["n"] for f in payload["facts"]]
    return {"insights": [{"text": f"Alex has {len(sources)} known facts", "sources": sources}]}


def test_a_reopened_store_reflects_on_facts_the_previous_run_left_unreflected(tmp_path: Path) -> None:
    with ScriptedLLMServer(responder=_fact_per_message_and_one_insight) as server:
        settings = {**llm(server), "reflect_every": 2}
        with Memory(path=tmp_path, **settings) as mem:
            mem.add(said("I play chess every Sunday", T0), user_id="alex", session_id="s1")
            mem.flush()
        with Memory(path=tmp_path, **settings) as mem:  # a new process would start from the store the same way
            mem.add(said("I joined a chess club", LATER), user_id="alex", session_id="s1")
            mem.flush()
            [insight] = mem.list(user_id="alex", kinds=["insight"]).records
            facts_now = mem.list(user_id="alex", kinds=["fact"]).records

    assert sorted(insight.source_ids) == sorted(f.id for f in facts_now)
    assert all(f.consolidated for f in facts_now)  # taken by the reflection: not counted again
