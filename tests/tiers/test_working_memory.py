"""Working memory: the latest turns of a session without a search, and their place in the context block."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memadapt_core import AsyncMemory, Memory

T0 = datetime(2024, 6, 20, 12, tzinfo=UTC)


def _turns(n: int) -> list[dict[str, object]]:
    return [
        {
            "role": "user" if i % 2 == 0 else "assistant",
            "content": f"turn number {i}",
            "timestamp": T0 + timedelta(minutes=i),
        }
        for i in range(n)
    ]


def test_recent_returns_the_last_n_turns_in_order(memory: Memory) -> None:
    memory.add(_turns(10), user_id="u1", session_id="s1")
    assert [r.text for r in memory.recent(user_id="u1", session_id="s1", limit=3)] == [
        "turn number 7",
        "turn number 8",
        "turn number 9",
    ]


def test_recent_holds_the_working_memory_capacity_by_default() -> None:
    with Memory(location=":memory:", tiers={"working_memory": 4}) as mem:
        mem.add(_turns(10), user_id="u1", session_id="s1")
        assert [r.text for r in mem.recent(user_id="u1", session_id="s1")] == [f"turn number {i}" for i in range(6, 10)]


def test_recent_reads_only_messages_of_its_own_session(memory: Memory) -> None:
    memory.add(_turns(3), user_id="u1", session_id="s1")
    memory.add("another session", user_id="u1", session_id="s2")
    memory.add("a fact, not a turn", user_id="u1", session_id="s1", kind="fact")
    assert [r.text for r in memory.recent(user_id="u1", session_id="s1")] == [f"turn number {i}" for i in range(3)]


def test_recent_with_no_kinds_reads_every_personal_kind_newest_last(memory: Memory) -> None:
    memory.add(_turns(2), user_id="u1", session_id="s1")
    memory.add("Likes green tea", user_id="u1", kind="fact", observed_at=T0 + timedelta(hours=1))
    attempt = {"messages": [{"role": "user", "content": "book a train"}], "score": 1}
    memory.add_trajectories(attempt, agent_id="bot", user_id="u1")  # task memory, not personal
    texts = [r.text for r in memory.recent(user_id="u1", kinds=None)]
    assert texts == ["turn number 0", "turn number 1", "Likes green tea"]


async def test_the_async_twin_returns_the_same_turns(amemory: AsyncMemory) -> None:
    await amemory.add(_turns(5), user_id="u1", session_id="s1")
    assert [r.text for r in await amemory.recent(user_id="u1", session_id="s1", limit=2)] == [
        "turn number 3",
        "turn number 4",
    ]


def test_working_memory_comes_before_the_recalled_memories_which_skip_it(memory: Memory) -> None:
    memory.add("I keep bees on the roof", user_id="u1", session_id="old")
    memory.add([{"role": "user", "content": "the bees swarmed today"}], user_id="u1", session_id="s1")
    hits = memory.search("bees", user_id="u1", limit=5)
    assert {h.record.text for h in hits} == {"I keep bees on the roof", "the bees swarmed today"}
    context = memory.format_context("bees", hits, recent=memory.recent(user_id="u1", session_id="s1"))
    assert context.index("the bees swarmed today") < context.index("I keep bees on the roof")
    assert context.count("the bees swarmed today") == 1


def test_format_context_without_tiers_is_unchanged(memory: Memory) -> None:
    memory.add("I keep bees on the roof", user_id="u1")
    hits = memory.search("bees", user_id="u1")
    assert memory.format_context("bees", hits) == memory.format_context("bees", hits, recent=None, profile=None)
    assert "working memory" not in memory.format_context("bees", hits)
