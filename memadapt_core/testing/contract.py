"""The behaviour suite every memadapt store must pass: subclass ``MemoryContract`` and provide a ``memory`` fixture.

This is the one module of ``memadapt_core.testing`` that imports pytest (pytest-asyncio is not required: the suite is
sync). The fixture yields an empty memory through any door of the API (``MemoryAPI``: the engine ``Memory``, the
client ``RemoteMemory``); every backend, every door and every wrapper should pass the suite unchanged.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memadapt_core.api import MemoryAPI
from memadapt_core.errors import ValidationError

__all__ = ["MemoryContract"]

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)


class MemoryContract:
    """Behaviours every memadapt store must show, whatever the backend."""

    @pytest.fixture
    def memory(self) -> MemoryAPI:  # pragma: no cover - subclasses provide it
        raise NotImplementedError

    def test_added_message_is_found_by_its_words(self, memory: MemoryAPI) -> None:
        memory.add("I adopted a grey cat named Pixel", user_id="u1")
        hits = memory.search("what is my cat called", user_id="u1")
        assert hits
        assert hits[0].record.text == "I adopted a grey cat named Pixel"

    def test_search_never_returns_another_users_memory(self, memory: MemoryAPI) -> None:
        memory.add("My bank PIN is 4321", user_id="alice", kind="fact")
        memory.add("I like tennis", user_id="bob", kind="fact")
        hits = memory.search("bank PIN", user_id="bob", threshold=0.0)
        assert [h.record.text for h in hits] == ["I like tennis"]
        assert all(h.record.user_id == "bob" for h in memory.search("bank PIN", user_id="bob", threshold=0.0))

    def test_unrelated_query_returns_nothing(self, memory: MemoryAPI) -> None:
        memory.add("I adopted a grey cat named Pixel", user_id="u1")
        assert memory.search("quantum xyzzy lattice", user_id="u1") == []

    def test_threshold_zero_returns_nearest_records(self, memory: MemoryAPI) -> None:
        memory.add(["alpha one", "beta two"], user_id="u1", kind="fact")
        assert len(memory.search("gamma", user_id="u1", threshold=0.0, limit=5)) == 2

    def test_readding_a_message_with_the_same_id_stores_nothing(self, memory: MemoryAPI) -> None:
        first = memory.add({"role": "user", "content": "hello", "id": "m1"}, user_id="u1")
        again = memory.add({"role": "user", "content": "hello", "id": "m1"}, user_id="u1")
        assert [r.id for r in again] == [r.id for r in first]
        assert memory.count(user_id="u1") == 1

    def test_readding_identical_text_in_a_session_stores_nothing(self, memory: MemoryAPI) -> None:
        memory.add("I moved to Lisbon", user_id="u1", session_id="s1")
        memory.add("I moved to Lisbon", user_id="u1", session_id="s1")
        assert memory.count(user_id="u1") == 1

    def test_list_pages_through_a_scope_oldest_first(self, memory: MemoryAPI) -> None:
        msgs = [{"role": "user", "content": f"note {i}", "timestamp": T0 + timedelta(minutes=i)} for i in range(7)]
        memory.add(msgs, user_id="u1", session_id="s1")
        seen: list[str] = []
        cursor = None
        while True:
            page = memory.list(user_id="u1", limit=3, cursor=cursor)
            seen += [r.text for r in page.records]
            cursor = page.next_cursor
            if cursor is None:
                break
        assert seen == [f"note {i}" for i in range(7)]

    def test_list_pages_through_records_sharing_a_timestamp(self, memory: MemoryAPI) -> None:
        memory.add([f"same time {i}" for i in range(5)], user_id="u1", observed_at=T0)
        seen: list[str] = []
        cursor = None
        while True:
            page = memory.list(user_id="u1", limit=2, cursor=cursor)
            seen += [r.text for r in page.records]
            if (cursor := page.next_cursor) is None:
                break
        assert sorted(seen) == sorted(f"same time {i}" for i in range(5))

    def test_delete_all_of_a_session_keeps_the_rest(self, memory: MemoryAPI) -> None:
        memory.add("in session one", user_id="u1", session_id="s1")
        memory.add("in session two", user_id="u1", session_id="s2")
        memory.add("someone else", user_id="u2", session_id="s1")
        assert memory.delete_all(user_id="u1", session_id="s1") == 1
        assert [r.text for r in memory.list(user_id="u1").records] == ["in session two"]
        assert memory.count(user_id="u2") == 1

    def test_update_changes_text_and_records_history(self, memory: MemoryAPI) -> None:
        (rec,) = memory.add("I live in Paris", user_id="u1", kind="fact")
        memory.update(rec.id, text="I live in Berlin")
        got = memory.get(rec.id)
        assert got is not None
        assert got.text == "I live in Berlin"
        assert [e.event for e in memory.history(rec.id)] == ["add", "update"]
        assert memory.search("where do I live", user_id="u1")[0].record.text == "I live in Berlin"

    def test_metadata_filters_select_records(self, memory: MemoryAPI) -> None:
        memory.add("red apple", user_id="u1", kind="fact", metadata={"colour": "red", "n": 1})
        memory.add("green apple", user_id="u1", kind="fact", metadata={"colour": "green", "n": 5})
        assert [h.record.text for h in memory.search("apple", user_id="u1", filters={"colour": "red"})] == ["red apple"]
        big = memory.search("apple", user_id="u1", filters={"n": {"$gt": 2}}, threshold=0.0)
        assert [h.record.text for h in big] == ["green apple"]

    def test_time_range_restricts_results(self, memory: MemoryAPI) -> None:
        memory.add({"role": "user", "content": "went skiing", "timestamp": T0}, user_id="u1")
        memory.add(
            {"role": "user", "content": "went skiing again", "timestamp": T0 + timedelta(days=30)},
            user_id="u1",
        )
        hits = memory.search("skiing", user_id="u1", time_range=(T0 + timedelta(days=1), None))
        assert [h.record.text for h in hits] == ["went skiing again"]

    def test_a_record_added_without_a_timestamp_is_created_when_observed(self, memory: MemoryAPI) -> None:
        before = datetime.now(UTC)
        first, second = memory.add(["first turn", "second turn"], user_id="u1")
        for rec in (first, second):
            got = memory.get(rec.id)
            assert got is not None
            assert got.observed_at == got.created_at == got.updated_at == rec.created_at
            assert got.created_at >= before
            assert memory.history(rec.id)[0].at == got.created_at
        assert first.observed_at < second.observed_at  # the turns keep their order

    def test_a_record_with_a_past_timestamp_keeps_when_it_was_stored(self, memory: MemoryAPI) -> None:
        before = datetime.now(UTC)
        (rec,) = memory.add({"role": "user", "content": "went skiing", "timestamp": T0}, user_id="u1")
        got = memory.get(rec.id)
        assert got is not None
        assert got.observed_at == T0
        assert got.created_at == got.updated_at >= before

    def test_search_without_scope_is_refused(self, memory: MemoryAPI) -> None:
        with pytest.raises(ValidationError) as err:
            memory.search("anything")
        assert err.value.field == "user_id"
