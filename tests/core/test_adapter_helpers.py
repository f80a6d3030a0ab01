"""What the core offers adapters so they repeat nothing: a validated scope, every record of a scope, several
queries merged."""

from __future__ import annotations

import pytest

from memadapt_core import AsyncMemory, Memory, Scope, ValidationError


def test_scope_of_validates_every_id_and_names_the_field() -> None:
    with pytest.raises(ValidationError, match="agent_id"):
        Scope.of("ann", "")
    with pytest.raises(ValidationError, match="user_id"):
        Scope.of()


def test_scope_of_may_be_empty_when_not_required() -> None:
    assert Scope.of(required=False).is_empty()


def test_scope_ids_are_the_keyword_arguments_of_an_engine_call(memory: Memory) -> None:
    scope = Scope.of("ann", session_id="s1")
    memory.add("I keep bees on the roof", **scope.ids())
    assert [r.text for r in memory.list(**scope.ids()).records] == ["I keep bees on the roof"]


def test_iter_records_reads_every_page_oldest_first(memory: Memory) -> None:
    memory.add([f"note number {i}" for i in range(7)], user_id="ann")
    texts = [r.text for r in memory.iter_records(user_id="ann", page_size=3)]
    assert texts == [f"note number {i}" for i in range(7)]


async def test_async_iter_records_reads_every_page(amemory: AsyncMemory) -> None:
    await amemory.add([f"note number {i}" for i in range(5)], user_id="ann")
    texts = [r.text async for r in amemory.iter_records(user_id="ann", page_size=2)]
    assert texts == [f"note number {i}" for i in range(5)]


def test_search_many_merges_queries_each_record_once(memory: Memory) -> None:
    memory.add(["I keep bees on the roof", "My sister plays the cello"], user_id="ann")
    hits = memory.search_many(["bees roof", "cello sister", "bees"], user_id="ann", threshold=0.0, limit=1)
    assert [h.record.text for h in hits] == ["I keep bees on the roof", "My sister plays the cello"]


async def test_async_search_many_skips_blank_queries(amemory: AsyncMemory) -> None:
    await amemory.add("I keep bees on the roof", user_id="ann")
    hits = await amemory.search_many(["  ", "bees"], user_id="ann")
    assert [h.record.text for h in hits] == ["I keep bees on the roof"]


def test_search_many_refuses_a_query_that_is_not_a_string(memory: Memory) -> None:
    with pytest.raises(ValidationError, match=r"queries\[1\]"):
        memory.search_many(["bees", 3], user_id="ann")  # type: ignore[list-item]
