"""What consolidation does to a conversation, end to end over real HTTP (async worker, test-double store)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memadapt_core.consolidation import AsyncLLMClient, ConsolidationWorker, WorkerOptions
from memadapt_core.errors import LLMError
from memadapt_core.testing import ChatRequest, Failure, ScriptedLLMServer

from .conftest import ALEX, T0, AsyncDictStore, DictStore, decided, extracted

A_MONTH_LATER = T0 + timedelta(days=30)


async def consolidate(worker: ConsolidationWorker) -> None:
    await worker.submit(ALEX)
    await worker.flush()


async def test_extracted_facts_are_stored_dated_and_linked_to_their_messages(
    llm_server: ScriptedLLMServer, worker: ConsolidationWorker, store: DictStore
) -> None:
    _, race = store.add_messages(ALEX, "Hey!", "I ran a charity race last Saturday, 6 May.")
    llm_server.push(
        extracted({"text": "Alex ran a charity race on 6 May 2023", "sources": [1], "valid_from": "2023-05-06"})
    )

    await consolidate(worker)

    [fact] = store.of(ALEX, "fact")
    assert fact.text == "Alex ran a charity race on 6 May 2023"
    assert fact.source_ids == [race.id]
    assert fact.observed_at == race.observed_at
    assert fact.valid_from == datetime(2023, 5, 6, tzinfo=UTC)
    assert fact.valid_to is None
    assert store.pending_messages(ALEX, 10) == []


async def test_messages_reach_the_llm_numbered_with_speaker_and_time_said(
    llm_server: ScriptedLLMServer, worker: ConsolidationWorker, store: DictStore
) -> None:
    store.add_messages(ALEX, "Hey!", "I ran a race.")
    llm_server.push(extracted())

    await consolidate(worker)

    payload = llm_server.chat_requests("extract")[0].payload
    assert payload["messages"] == [
        {"n": 0, "said_at": "2023-05-08T13:56+00:00", "weekday": "Monday", "speaker": "Alex", "role": "user",
         "text": "Hey!"},
        {"n": 1, "said_at": "2023-05-08T13:57+00:00", "weekday": "Monday", "speaker": "Alex", "role": "user",
         "text": "I ran a race."},
    ]  # fmt: skip


async def test_a_contradiction_supersedes_the_old_fact_instead_of_duplicating_it(
    llm_server: ScriptedLLMServer, worker: ConsolidationWorker, store: DictStore
) -> None:
    store.add_messages(ALEX, "I live in Paris")
    llm_server.push(extracted(("Alex lives in Paris", [0])))
    await consolidate(worker)
    store.add_messages(ALEX, "I moved to Berlin", start=A_MONTH_LATER)
    llm_server.push(extracted(("Alex lives in Berlin", [0])), decided((0, "UPDATE", 0)))

    await consolidate(worker)

    paris, berlin = store.of(ALEX, "fact")
    assert (paris.text, berlin.text) == ("Alex lives in Paris", "Alex lives in Berlin")
    assert paris.valid_to == berlin.valid_from == A_MONTH_LATER
    assert paris.superseded_by == berlin.id
    assert berlin.supersedes == paris.id
    assert store.texts(ALEX, valid_only=True) == ["Alex lives in Berlin"]
    shown = llm_server.chat_requests("reconcile")[0].payload
    assert shown["existing_facts"] == [{"n": 0, "text": "Alex lives in Paris", "true_since": "2023-05-08"}]


async def test_a_fact_the_llm_says_is_known_is_not_stored_again(
    llm_server: ScriptedLLMServer, worker: ConsolidationWorker, store: DictStore
) -> None:
    store.add_fact(ALEX, "Alex lives in Paris")
    store.add_messages(ALEX, "Paris is where I live")
    llm_server.push(extracted(("Alex lives in Paris, France", [0])), decided((0, "NONE", 0)))

    await consolidate(worker)

    assert store.texts(ALEX) == ["Alex lives in Paris"]


async def test_a_fact_with_the_same_text_as_a_known_one_is_dropped_without_asking(
    llm_server: ScriptedLLMServer, worker: ConsolidationWorker, store: DictStore
) -> None:
    store.add_fact(ALEX, "Alex lives in Paris")
    store.add_messages(ALEX, "I live in Paris, as you know")
    llm_server.push(extracted(("Alex lives in Paris.", [0])))

    await consolidate(worker)

    assert store.texts(ALEX) == ["Alex lives in Paris"]
    assert llm_server.chat_requests("reconcile") == []


async def test_delete_invalidates_the_old_fact_and_keeps_it(
    llm_server: ScriptedLLMServer, worker: ConsolidationWorker, store: DictStore
) -> None:
    car = store.add_fact(ALEX, "Alex owns a red car")
    store.add_messages(ALEX, "I don't have a car any more", start=A_MONTH_LATER)
    llm_server.push(extracted(("Alex no longer owns a car", [0])), decided((0, "DELETE", 0)))

    await consolidate(worker)

    [kept] = store.of(ALEX, "fact")
    assert kept.id == car.id
    assert kept.valid_to == A_MONTH_LATER
    assert kept.superseded_by is None


async def test_a_hypothetical_statement_is_not_stored_as_a_fact(
    llm_server: ScriptedLLMServer, worker: ConsolidationWorker, store: DictStore
) -> None:
    store.add_messages(ALEX, "If I were a pilot I would fly to Tokyo every week.", "I work as a nurse.")
    llm_server.push(
        extracted(
            {"text": "Alex flies to Tokyo every week as a pilot", "sources": [0], "hypothetical": True},
            ("Alex works as a nurse", [1]),
        )
    )

    await consolidate(worker)

    assert store.texts(ALEX) == ["Alex works as a nurse"]
    assert worker.totals.dropped == 1
    assert "hypothetical" in llm_server.chat_requests("extract")[0].system


async def test_a_relative_date_is_resolved_against_when_the_message_was_said(
    llm_server: ScriptedLLMServer, worker: ConsolidationWorker, store: DictStore
) -> None:
    def capable_llm(request: ChatRequest) -> dict[str, Any]:  # does what the prompt asks
        message = request.payload["messages"][0]
        day = (datetime.fromisoformat(message["said_at"]) - timedelta(days=1)).date()
        fact = {"text": f"Alex went to a support group on {day:%-d %B %Y}", "sources": [0], "valid_from": str(day)}
        return extracted(fact)

    llm_server.responder = capable_llm
    store.add_messages(ALEX, "I went to a support group yesterday.")  # said on 8 May 2023, consolidated years later

    await consolidate(worker)

    [fact] = store.of(ALEX, "fact")
    assert fact.text == "Alex went to a support group on 7 May 2023"
    assert fact.valid_from == datetime(2023, 5, 7, tzinfo=UTC)
    assert fact.observed_at == T0


async def test_an_outage_in_the_middle_of_a_batch_loses_nothing_and_completes_after_recovery(
    llm_server: ScriptedLLMServer, worker: ConsolidationWorker, store: DictStore
) -> None:
    paris = store.add_fact(ALEX, "Alex lives in Paris")
    store.add_messages(ALEX, "I moved to Berlin", start=A_MONTH_LATER)
    llm_server.push(extracted(("Alex lives in Berlin", [0])), *[Failure(500)] * 3)  # reconcile never answers

    await consolidate(worker)

    assert isinstance(worker.failures[ALEX], LLMError)
    assert store.texts(ALEX) == ["Alex lives in Paris"]  # nothing half-applied
    assert len(store.pending_messages(ALEX, 10)) == 1  # nothing lost
    llm_server.push(extracted(("Alex lives in Berlin", [0])), decided((0, "UPDATE", 0)))

    await worker.flush()  # tries the failed scope again

    assert worker.failures == {}
    assert store.texts(ALEX, valid_only=True) == ["Alex lives in Berlin"]
    assert store.records[paris.id].superseded_by is not None
    assert store.pending_messages(ALEX, 10) == []


async def test_after_an_outage_only_the_unconsolidated_batches_are_done_again(
    llm_server: ScriptedLLMServer, store: DictStore, llm: AsyncLLMClient
) -> None:
    worker = ConsolidationWorker(AsyncDictStore(store), llm, options=WorkerOptions(batch_size=2, reflect_every=0))
    store.add_messages(ALEX, "I live in Paris", "I have a dog named Rex", "I play chess", "I like jazz")
    llm_server.push(extracted(("Alex lives in Paris", [0]), ("Alex has a dog named Rex", [1])), *[Failure(503)] * 3)

    with pytest.raises(LLMError):
        await worker.consolidate(ALEX)

    assert store.texts(ALEX) == ["Alex lives in Paris", "Alex has a dog named Rex"]
    assert [m.text for m in store.pending_messages(ALEX, 10)] == ["I play chess", "I like jazz"]
    llm_server.push(
        extracted(("Alex plays chess", [0]), ("Alex likes jazz", [1])), decided((0, "ADD", None), (1, "ADD", None))
    )

    await worker.consolidate(ALEX)
    await worker.close()

    assert len(store.texts(ALEX)) == 4
    sent = [[m["text"] for m in r.payload["messages"]] for r in llm_server.chat_requests("extract")]
    first_batch, second_batch = ["I live in Paris", "I have a dog named Rex"], ["I play chess", "I like jazz"]
    assert sent == [first_batch] + [second_batch] * 4  # 3 failed tries, then the one after recovery


async def test_a_malformed_answer_is_retried_then_skipped_without_partial_application(
    llm_server: ScriptedLLMServer, worker: ConsolidationWorker, store: DictStore
) -> None:
    store.add_fact(ALEX, "Alex lives in Paris")
    store.add_messages(ALEX, "I moved to Berlin", "I adopted a cat")
    llm_server.push(
        extracted(("Alex lives in Berlin", [0]), ("Alex adopted a cat", [1])),
        '{"decisions": [{"fact": 0, "action": "UPDATE", "target": 0},',  # cut off
        decided((0, "UPDATE", 0)),  # valid JSON, but new fact 1 has no decision
    )

    await consolidate(worker)

    assert len(llm_server.chat_requests("reconcile")) == 2
    assert store.texts(ALEX) == ["Alex lives in Paris"]
    assert store.of(ALEX, "fact")[0].valid_to is None
    assert store.pending_messages(ALEX, 10) == []  # skipped, and logged: the queue moves on
    assert worker.totals.skipped_batches == 1
    assert worker.failures == {}


async def test_an_out_of_range_candidate_number_is_rejected_and_asked_again(
    llm_server: ScriptedLLMServer, worker: ConsolidationWorker, store: DictStore
) -> None:
    paris = store.add_fact(ALEX, "Alex lives in Paris")
    store.add_messages(ALEX, "I moved to Berlin")
    llm_server.push(extracted(("Alex lives in Berlin", [0])), decided((0, "UPDATE", 7)), decided((0, "UPDATE", 0)))

    await consolidate(worker)

    correction = llm_server.chat_requests("reconcile")[1].messages[-1]["content"]
    assert "decisions.0.target: 7 is not an existing fact number (0-0)" in correction
    assert store.records[paris.id].superseded_by is not None


async def test_an_out_of_range_candidate_number_never_touches_a_record(
    llm_server: ScriptedLLMServer, worker: ConsolidationWorker, store: DictStore
) -> None:
    store.add_fact(ALEX, "Alex lives in Paris")
    store.add_messages(ALEX, "I moved to Berlin")
    llm_server.push(extracted(("Alex lives in Berlin", [0])), decided((0, "UPDATE", 1)), decided((0, "DELETE", -1)))

    await consolidate(worker)

    assert store.texts(ALEX) == ["Alex lives in Paris"]
    assert store.of(ALEX, "fact")[0].valid_to is None
    assert worker.totals.skipped_batches == 1


async def test_extraction_instructions_from_plugins_reach_the_prompt(
    llm_server: ScriptedLLMServer, llm: AsyncLLMClient, store: DictStore
) -> None:
    worker = ConsolidationWorker(
        AsyncDictStore(store), llm, instructions=lambda scope: [f"Only facts about {scope.user_id}."]
    )
    store.add_messages(ALEX, "Hi")
    llm_server.push(extracted())

    await worker.consolidate(ALEX)

    assert "- Only facts about alex." in llm_server.chat_requests("extract")[0].system


async def test_stats_count_tokens_per_operation_and_what_the_worker_did(
    llm_server: ScriptedLLMServer, worker: ConsolidationWorker, store: DictStore
) -> None:
    store.add_fact(ALEX, "Alex lives in Paris")
    store.add_messages(ALEX, "I moved to Berlin")
    llm_server.push(extracted(("Alex lives in Berlin", [0])), decided((0, "UPDATE", 0)))

    await consolidate(worker)

    stats = worker.stats
    assert stats["extract"]["total_tokens"] == 15
    assert stats["reconcile"]["total_tokens"] == 15
    assert stats["worker"]["facts"] == 1
    assert stats["worker"]["superseded"] == 1
    assert stats["worker"]["messages"] == 1
