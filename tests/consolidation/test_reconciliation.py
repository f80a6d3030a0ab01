"""Reconciliation's pure half: which facts are asked about, which answers are accepted, and the plan."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memadapt_core.consolidation import (
    Decision,
    Fact,
    MalformedAnswerError,
    build_reconciliation,
    fact_id,
    plan_facts,
)
from memadapt_core.models import MemoryRecord

from .conftest import ALEX, T0, DictStore

LATER = T0 + timedelta(days=30)


def fact(text: str, *sources: str) -> Fact:
    return Fact(text, tuple(sources) or ("m1",), LATER, LATER)


@pytest.fixture
def paris(store: DictStore) -> MemoryRecord:
    return store.add_fact(ALEX, "Alex lives in Paris")


def test_facts_without_existing_neighbours_are_added_without_asking() -> None:
    reconciliation = build_reconciliation([fact("Alex plays chess")], [[]], ["m1"])

    assert reconciliation.messages is None
    assert reconciliation.without_llm() == [Decision("ADD")]


def test_existing_facts_and_new_facts_are_numbered_separately(paris: MemoryRecord, store: DictStore) -> None:
    rome = store.add_fact(ALEX, "Alex visited Rome")
    facts = [fact("Alex lives in Berlin"), fact("Alex visited Rome in May")]

    reconciliation = build_reconciliation(facts, [[paris], [rome, paris]], ["m1"])

    assert reconciliation.candidates == (paris, rome)
    answer = {"decisions": [{"fact": 1, "action": "none", "target": 1}, {"fact": 0, "action": "Update", "target": 0}]}
    assert reconciliation.parse(answer) == [Decision("UPDATE", paris), Decision("NONE", rome)]


@pytest.mark.parametrize(
    ("decisions", "problem"),
    [
        ([], "no decision for new fact 0"),
        ([{"fact": 1, "action": "ADD"}], "decisions.0.fact: 1 is not a new fact number"),
        ([{"fact": 0, "action": "ADD"}, {"fact": 0, "action": "NONE"}], "new fact 0 has two decisions"),
        ([{"fact": 0, "action": "UPDATE"}], "decisions.0.target: None is not an existing fact number"),
        ([{"fact": 0, "action": "DELETE", "target": 1}], "decisions.0.target: 1 is not an existing fact number"),
        ([{"fact": 0, "action": "ADD", "target": -1}], "decisions.0.target: -1 is not an existing fact number"),
    ],
)
def test_answers_that_do_not_fit_are_malformed(paris: MemoryRecord, decisions: list[object], problem: str) -> None:
    reconciliation = build_reconciliation([fact("Alex lives in Berlin")], [[paris]], ["m1"])

    with pytest.raises(MalformedAnswerError, match=problem):
        reconciliation.parse({"decisions": decisions})


def test_an_unknown_action_breaks_the_schema(paris: MemoryRecord) -> None:
    reconciliation = build_reconciliation([fact("Alex lives in Berlin")], [[paris]], ["m1"])

    with pytest.raises(ValueError, match="action"):
        reconciliation.parse({"decisions": [{"fact": 0, "action": "MERGE", "target": 0}]})


def test_facts_left_by_a_crashed_attempt_on_the_same_messages_are_not_candidates(store: DictStore) -> None:
    leftover = store.add_fact(ALEX, "Alex lives in Berlin").model_copy(update={"source_ids": ["m1"]})

    reconciliation = build_reconciliation([fact("Alex moved to Berlin", "m1")], [[leftover]], ["m1", "m2"])

    assert reconciliation.candidates == ()
    assert reconciliation.messages is None


def test_an_update_supersedes_the_old_fact_from_when_the_new_one_holds(paris: MemoryRecord) -> None:
    new = fact("Alex lives in Berlin")
    messages = DictStore().add_messages(ALEX, "I moved to Berlin", start=LATER)

    plan = plan_facts(ALEX, messages, [new], [Decision("UPDATE", paris)])

    [record] = plan.records
    assert record.id == fact_id(ALEX, new.source_ids, new.text)
    assert record.supersedes == paris.id
    assert [(s.old_id, s.new_id, s.at) for s in plan.supersessions] == [(paris.id, record.id, LATER)]
    assert plan.consolidated_ids == [messages[0].id]


def test_an_old_fact_never_ends_before_it_began(paris: MemoryRecord) -> None:
    earlier = Fact("Alex lives in Berlin", ("m1",), LATER, T0 - timedelta(days=365))

    plan = plan_facts(ALEX, [], [earlier], [Decision("DELETE", paris)])

    assert plan.invalidations[0].at == paris.valid_from


def test_two_new_facts_replacing_one_old_fact_supersede_it_once(paris: MemoryRecord) -> None:
    facts = [fact("Alex lives in Berlin"), fact("Alex lives in Berlin-Mitte")]

    plan = plan_facts(ALEX, [], facts, [Decision("UPDATE", paris), Decision("UPDATE", paris)])

    assert len(plan.records) == 2
    assert len(plan.supersessions) == 1
    assert plan.records[1].supersedes is None


def test_known_facts_produce_no_record(paris: MemoryRecord) -> None:
    plan = plan_facts(ALEX, [], [fact("Alex lives in Paris")], [Decision("NONE", paris)])

    assert plan.records == []
    assert plan.changed_ids == []


def test_fact_ids_depend_on_scope_sources_and_text_only() -> None:
    assert fact_id(ALEX, ["b", "a"], "Alex lives in Paris") == fact_id(ALEX, ["a", "b"], "alex lives in paris.")
    assert fact_id(ALEX, ["a"], "Alex lives in Paris") != fact_id(ALEX, ["a", "b"], "Alex lives in Paris")
    assert fact_id(ALEX, ["a"], "Alex lives in Paris") != fact_id(ALEX, ["a"], "Alex lives in Berlin")
    assert fact_id(ALEX, ["a"], "x") != fact_id(ALEX.model_copy(update={"session_id": "s"}), ["a"], "x")


def test_the_same_fact_twice_in_one_answer_is_stored_once() -> None:
    twice = [fact("Alex lives in Berlin"), fact("Alex lives in Berlin")]

    plan = plan_facts(ALEX, [], twice, [Decision("ADD", None), Decision("ADD", None)])

    assert len(plan.records) == 1
