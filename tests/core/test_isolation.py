"""One user's query never returns, lists or deletes another user's memory."""

from __future__ import annotations

import pytest

from memadapt_core import Memory, ValidationError


def _seed(memory: Memory) -> None:
    for user in ("alice", "bob"):
        memory.add(f"{user} keeps the spare key under the blue flowerpot", user_id=user, session_id="s1")
        memory.add(f"{user} is allergic to peanuts", user_id=user, kind="fact")


def test_search_is_confined_to_the_users_scope(memory: Memory) -> None:
    _seed(memory)
    for user in ("alice", "bob"):
        hits = memory.search("where is the spare key", user_id=user, limit=10, threshold=0.0)
        assert hits
        assert {h.record.user_id for h in hits} == {user}


def test_agent_scope_is_separate_from_user_scope(memory: Memory) -> None:
    memory.add("agent-only note about deployment", agent_id="ops-bot")
    memory.add("user note about deployment", user_id="alice")
    assert [h.record.text for h in memory.search("deployment", agent_id="ops-bot", threshold=0.0)] == [
        "agent-only note about deployment"
    ]


def test_list_and_count_are_confined(memory: Memory) -> None:
    _seed(memory)
    assert {r.user_id for r in memory.list(user_id="bob").records} == {"bob"}
    assert memory.count(user_id="bob") == 2


def test_get_with_a_scope_hides_another_users_record(memory: Memory) -> None:
    (rec,) = memory.add("alice's secret", user_id="alice")
    assert memory.get(rec.id, user_id="bob") is None
    assert memory.get(rec.id, user_id="alice") == rec


def test_delete_all_of_one_user_leaves_the_other(memory: Memory) -> None:
    _seed(memory)
    assert memory.delete_all(user_id="alice") == 2
    assert memory.count(user_id="alice") == 0
    assert memory.count(user_id="bob") == 2


def test_identical_text_from_two_users_is_two_records(memory: Memory) -> None:
    a = memory.add("hello there", user_id="alice", session_id="s")
    b = memory.add("hello there", user_id="bob", session_id="s")
    assert a[0].id != b[0].id


def test_update_with_a_scope_refuses_another_users_record(memory: Memory) -> None:
    (rec,) = memory.add("alice's secret", user_id="alice")
    with pytest.raises(ValidationError, match="no memory"):
        memory.update(rec.id, text="overwritten by bob", user_id="bob")
    assert memory.get(rec.id) == rec
    assert memory.update(rec.id, text="alice's new secret", user_id="alice").text == "alice's new secret"


def test_delete_with_a_scope_leaves_another_users_record(memory: Memory) -> None:
    (rec,) = memory.add("alice's secret", user_id="alice")
    assert memory.delete(rec.id, user_id="bob") is False
    assert memory.delete_many([rec.id], user_id="bob") == 0
    assert memory.get(rec.id) == rec
    assert memory.delete(rec.id, user_id="alice") is True


def test_history_with_a_scope_hides_another_users_record(memory: Memory) -> None:
    (rec,) = memory.add("alice's secret", user_id="alice")
    memory.update(rec.id, text="alice's new secret")
    assert memory.history(rec.id, user_id="bob") == []
    assert [e.event for e in memory.history(rec.id, user_id="alice")] == ["add", "update"]
