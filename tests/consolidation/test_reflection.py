"""Reflection: insights drawn from related facts every N facts, refreshed when a fact under them changes."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from memadapt_core.consolidation import (
    AsyncLLMClient,
    ConsolidationPlan,
    ConsolidationWorker,
    MalformedAnswerError,
    NewRecord,
    ReflectionTracker,
    Supersession,
    WorkerOptions,
    build_reflection,
)
from memadapt_core.models import MemoryRecord
from memadapt_core.testing import ScriptedLLMServer

from .conftest import ALEX, T0, AsyncDictStore, DictStore, decided, extracted


@pytest.fixture
def facts(store: DictStore) -> list[MemoryRecord]:
    return [
        store.add_fact(ALEX, "Alex plays chess every Sunday", at=T0),
        store.add_fact(ALEX, "Alex joined a chess club", at=T0 + timedelta(days=2)),
    ]


def reflecting_worker(store: DictStore, llm: AsyncLLMClient, every: int) -> ConsolidationWorker:
    return ConsolidationWorker(AsyncDictStore(store), llm, options=WorkerOptions(reflect_every=every))


def test_an_insight_cites_the_facts_it_rests_on(facts: list[MemoryRecord]) -> None:
    reflection = build_reflection(ALEX, facts)
    assert reflection is not None

    plan = reflection.parse({"insights": [{"text": "Alex is a keen chess player", "sources": [1, 0]}]})

    [insight] = plan.records
    assert (insight.kind, insight.source_ids) == ("insight", [facts[0].id, facts[1].id])
    assert insight.observed_at == facts[1].observed_at
    assert plan.consolidated_ids == []


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ({"insights": [{"text": "x", "sources": [2]}]}, "insights.0.sources: 2 is not an existing fact number (0-1)"),
        ({"insights": [{"text": "x", "sources": [0], "replaces": [0]}]}, "insights.0.replaces: 0 is not an existing"),
        ({"obsolete": [3]}, "obsolete: 3 is not an existing insight number"),
    ],
)
def test_numbers_out_of_range_make_the_answer_malformed(
    facts: list[MemoryRecord], answer: dict[str, object], problem: str
) -> None:
    reflection = build_reflection(ALEX, facts)
    assert reflection is not None

    with pytest.raises(MalformedAnswerError, match=re.escape(problem)):
        reflection.parse(answer)


def test_a_replaced_insight_is_superseded_and_an_obsolete_one_invalidated(
    facts: list[MemoryRecord], store: DictStore
) -> None:
    old = store.add_fact(ALEX, "Alex is new to chess", kind="insight", sources=facts[:1])
    stale = store.add_fact(ALEX, "Alex avoids clubs", kind="insight", sources=facts[:1])
    reflection = build_reflection(ALEX, facts, [old, stale])
    assert reflection is not None

    plan = reflection.parse(
        {"insights": [{"text": "Alex is a keen chess player", "sources": [0, 1], "replaces": [0]}], "obsolete": [1]}
    )

    [new] = plan.records
    assert new.supersedes == old.id
    assert [(s.old_id, s.new_id) for s in plan.supersessions] == [(old.id, new.id)]
    assert [i.old_id for i in plan.invalidations] == [stale.id]


def test_an_insight_already_known_is_not_stored_again(facts: list[MemoryRecord], store: DictStore) -> None:
    known = store.add_fact(ALEX, "Alex is a keen chess player", kind="insight", sources=facts)
    reflection = build_reflection(ALEX, facts, [known])
    assert reflection is not None

    assert reflection.parse({"insights": [{"text": "Alex is a keen chess player.", "sources": [0, 1]}]}).records == []


def added(fact_id: str) -> ConsolidationPlan:
    record = NewRecord(id=fact_id, text=fact_id, kind="fact", observed_at=T0, valid_from=T0, source_ids=[])
    return ConsolidationPlan(scope=ALEX, records=[record])


def test_reflection_is_due_every_n_new_facts_of_a_scope() -> None:
    tracker = ReflectionTracker()
    tracker.note(added("f1"))
    assert not tracker.due(ALEX, 2)

    tracker.note(added("f2"))

    assert tracker.due(ALEX, 2)
    assert not tracker.due(ALEX, 0)  # 0: never


def test_reflection_is_due_as_soon_as_a_fact_ended() -> None:
    tracker = ReflectionTracker()

    tracker.note(ConsolidationPlan(scope=ALEX, supersessions=[Supersession(old_id="f0", new_id="f1", at=T0)]))

    assert tracker.due(ALEX, 10)


def test_taking_the_due_work_forgets_it_until_given_back() -> None:
    tracker = ReflectionTracker()
    tracker.note(added("f1"))

    taken = tracker.take(ALEX)
    assert taken == (["f1"], [])
    assert not tracker.due(ALEX, 1)

    tracker.give_back(ALEX, *taken)
    assert tracker.due(ALEX, 1)


def two_chess_facts_then_an_insight(store: DictStore, llm_server: ScriptedLLMServer) -> None:
    store.add_messages(ALEX, "I play chess every Sunday", "I joined a chess club")
    llm_server.push(
        extracted(("Alex plays chess every Sunday", [0]), ("Alex joined a chess club", [1])),
        {"insights": [{"text": "Alex is a keen chess player", "sources": [0, 1]}]},
    )


async def test_every_n_new_facts_an_insight_is_drawn_from_them(
    llm_server: ScriptedLLMServer, llm: AsyncLLMClient, store: DictStore
) -> None:
    two_chess_facts_then_an_insight(store, llm_server)
    worker = reflecting_worker(store, llm, every=2)

    await worker.consolidate(ALEX)

    [insight] = store.of(ALEX, "insight")
    assert insight.text == "Alex is a keen chess player"
    assert sorted(insight.source_ids) == sorted(f.id for f in store.of(ALEX, "fact"))
    shown = llm_server.chat_requests("reflect")[0].payload
    assert sorted(f["text"] for f in shown["facts"]) == ["Alex joined a chess club", "Alex plays chess every Sunday"]


async def test_a_new_worker_counts_the_facts_an_earlier_one_left_unreflected(
    llm_server: ScriptedLLMServer, llm: AsyncLLMClient, store: DictStore
) -> None:
    store.add_messages(ALEX, "I play chess every Sunday")
    llm_server.push(extracted(("Alex plays chess every Sunday", [0])))
    await reflecting_worker(store, llm, every=2).consolidate(ALEX)
    store.add_messages(ALEX, "I joined a chess club", start=T0 + timedelta(hours=1))
    llm_server.push(
        extracted(("Alex joined a chess club", [0])),
        decided((0, "ADD", None)),
        {"insights": [{"text": "Alex is a keen chess player", "sources": [0, 1]}]},
    )

    await reflecting_worker(store, llm, every=2).consolidate(ALEX)  # a new worker: the process restarted

    [insight] = store.of(ALEX, "insight")
    assert sorted(insight.source_ids) == sorted(f.id for f in store.of(ALEX, "fact"))


async def test_facts_a_reflection_took_are_not_counted_again_by_a_new_worker(
    llm_server: ScriptedLLMServer, llm: AsyncLLMClient, store: DictStore
) -> None:
    two_chess_facts_then_an_insight(store, llm_server)
    await reflecting_worker(store, llm, every=2).consolidate(ALEX)
    store.add_messages(ALEX, "I bought a new bike", start=T0 + timedelta(hours=1))
    llm_server.push(extracted(("Alex bought a new bike", [0])), decided((0, "ADD", None)))

    await reflecting_worker(store, llm, every=2).consolidate(ALEX)

    assert len(llm_server.chat_requests("reflect")) == 1
    assert all(f.consolidated for f in store.of(ALEX, "fact") if "chess" in f.text)


async def test_fewer_than_n_new_facts_reflect_nothing(
    llm_server: ScriptedLLMServer, llm: AsyncLLMClient, store: DictStore
) -> None:
    store.add_messages(ALEX, "I play chess every Sunday")
    llm_server.push(extracted(("Alex plays chess every Sunday", [0])))

    await reflecting_worker(store, llm, every=2).consolidate(ALEX)

    assert llm_server.chat_requests("reflect") == []


async def test_an_insight_is_refreshed_when_a_fact_under_it_is_superseded(
    llm_server: ScriptedLLMServer, llm: AsyncLLMClient, store: DictStore
) -> None:
    paris = store.add_fact(ALEX, "Alex lives in Paris")
    bakery = store.add_fact(ALEX, "Alex works at a bakery in Paris")
    old = store.add_fact(ALEX, "Alex's life is centred on Paris", kind="insight", sources=[paris, bakery])
    store.add_messages(ALEX, "I moved to Berlin", start=T0 + timedelta(days=30))
    llm_server.push(
        extracted(("Alex lives in Berlin", [0])),
        decided((0, "UPDATE", 0)),
        {"insights": [{"text": "Alex lives in Berlin but works in Paris", "sources": [0, 1], "replaces": [0]}]},
    )

    await reflecting_worker(store, llm, every=10).consolidate(ALEX)

    [new] = store.of(ALEX, "insight", valid_only=True)
    berlin = store.of(ALEX, "fact", valid_only=True)
    assert store.records[old.id].superseded_by == new.id
    assert sorted(new.source_ids) == sorted(f.id for f in berlin)
    shown = llm_server.chat_requests("reflect")[0].payload["insights"]
    assert shown == [{"n": 0, "text": old.text, "based_on": [1], "outdated_facts": ["Alex lives in Paris"]}]


async def test_a_reflection_that_never_fits_is_skipped_and_the_facts_stay(
    llm_server: ScriptedLLMServer, llm: AsyncLLMClient, store: DictStore
) -> None:
    store.add_messages(ALEX, "I play chess every Sunday", "I joined a chess club")
    garbage = {"insights": [{"text": "x", "sources": [9]}]}
    llm_server.push(
        extracted(("Alex plays chess every Sunday", [0]), ("Alex joined a chess club", [1])), garbage, garbage
    )
    worker = reflecting_worker(store, llm, every=2)

    await worker.consolidate(ALEX)

    assert len(store.of(ALEX, "fact")) == 2
    assert store.of(ALEX, "insight") == []
    assert worker.totals.skipped_reflections == 1
