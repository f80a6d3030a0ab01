"""The thread-based twin behaves like the async worker, with the sync client and a sync store; no event loop."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from memadapt_core.consolidation import ConsolidationPlan, LLMClient, SyncConsolidationWorker, WorkerOptions
from memadapt_core.errors import LLMError
from memadapt_core.models import MemoryRecord, Scope
from memadapt_core.testing import Failure, Hang, ScriptedLLMServer

from .conftest import ALEX, T0, DictStore, decided, extracted, wait_until

SAM = Scope(user_id="sam")


def test_flush_waits_for_the_thread_to_consolidate(
    llm_server: ScriptedLLMServer, sync_worker: SyncConsolidationWorker, store: DictStore
) -> None:
    store.add_messages(ALEX, "I live in Paris")
    llm_server.push(extracted(("Alex lives in Paris", [0])))

    sync_worker.submit(ALEX)
    sync_worker.flush()

    assert store.texts(ALEX) == ["Alex lives in Paris"]


def test_the_work_runs_in_the_workers_thread_without_an_event_loop(
    llm_server: ScriptedLLMServer, sync_llm: LLMClient, store: DictStore
) -> None:
    seen: list[str] = []

    class WatchedStore(DictStore):
        def apply(self, plan: ConsolidationPlan) -> list[MemoryRecord]:
            seen.append(threading.current_thread().name)
            return super().apply(plan)

    watched = WatchedStore()
    watched.add_messages(ALEX, "I live in Paris")
    llm_server.push(extracted(("Alex lives in Paris", [0])))
    worker = SyncConsolidationWorker(watched, sync_llm)

    worker.submit(ALEX)
    worker.close()

    assert seen == ["memadapt-consolidation"]


def test_a_contradiction_supersedes_the_old_fact(
    llm_server: ScriptedLLMServer, sync_worker: SyncConsolidationWorker, store: DictStore
) -> None:
    paris = store.add_fact(ALEX, "Alex lives in Paris")
    store.add_messages(ALEX, "I moved to Berlin", start=T0 + timedelta(days=30))
    llm_server.push(extracted(("Alex lives in Berlin", [0])), decided((0, "UPDATE", 0)))

    sync_worker.submit(ALEX)
    sync_worker.flush()

    berlin = store.of(ALEX, "fact", valid_only=True)[0]
    assert store.records[paris.id].superseded_by == berlin.id
    assert berlin.supersedes == paris.id


def test_an_outage_keeps_the_messages_until_a_flush_after_recovery(
    llm_server: ScriptedLLMServer, sync_worker: SyncConsolidationWorker, store: DictStore
) -> None:
    store.add_messages(ALEX, "I live in Paris")
    llm_server.push(*[Failure(500)] * 3)
    sync_worker.submit(ALEX)
    sync_worker.flush()
    assert isinstance(sync_worker.failures[ALEX], LLMError)
    assert len(store.pending_messages(ALEX, 10)) == 1

    llm_server.push(extracted(("Alex lives in Paris", [0])))
    sync_worker.flush()

    assert store.texts(ALEX) == ["Alex lives in Paris"]
    assert sync_worker.failures == {}


def test_consolidate_raises_when_the_llm_is_unreachable(
    llm_server: ScriptedLLMServer, sync_worker: SyncConsolidationWorker, store: DictStore
) -> None:
    store.add_messages(ALEX, "I live in Paris")
    llm_server.set_outage()

    with pytest.raises(LLMError):
        sync_worker.consolidate(ALEX)

    assert len(store.pending_messages(ALEX, 10)) == 1


def test_close_drains_the_queue_by_default(
    llm_server: ScriptedLLMServer, sync_worker: SyncConsolidationWorker, store: DictStore
) -> None:
    store.add_messages(ALEX, "I live in Paris")
    llm_server.push(extracted(("Alex lives in Paris", [0])))
    sync_worker.submit(ALEX)

    assert sync_worker.close() == []
    assert store.texts(ALEX) == ["Alex lives in Paris"]


def test_close_without_draining_applies_nothing_more_and_hands_back_the_scopes(
    llm_server: ScriptedLLMServer, sync_llm: LLMClient, store: DictStore
) -> None:
    worker = SyncConsolidationWorker(store, sync_llm, options=WorkerOptions(reflect_every=0))
    worker.start()
    worker.flush()
    store.add_messages(ALEX, "I live in Paris")
    store.add_messages(SAM, "I live in Rome", name="Sam")
    llm_server.push(Hang(), extracted(("Alex lives in Paris", [0])))
    worker.submit(ALEX)
    worker.submit(SAM)
    llm_server.wait_for_requests(1)  # the thread is waiting for the LLM

    left: list[Scope] = []
    closer = threading.Thread(target=lambda: left.extend(worker.close(drain=False)))
    closer.start()
    wait_until(lambda: worker.closing)  # close() has asked the thread to stop
    llm_server.release()  # the LLM answers (after a retry); the answer is not applied
    closer.join(5.0)

    assert not closer.is_alive()
    assert set(left) == {ALEX, SAM}
    assert store.texts(ALEX) == []
    assert len(store.pending_messages(ALEX, 10)) == len(store.pending_messages(SAM, 10)) == 1


def test_a_new_worker_resumes_the_pending_messages(
    llm_server: ScriptedLLMServer, sync_llm: LLMClient, store: DictStore
) -> None:
    store.add_messages(ALEX, "I live in Paris")
    llm_server.push(extracted(("Alex lives in Paris", [0])))
    worker = SyncConsolidationWorker(store, sync_llm)

    worker.start()
    worker.flush()
    worker.close()

    assert store.texts(ALEX) == ["Alex lives in Paris"]
