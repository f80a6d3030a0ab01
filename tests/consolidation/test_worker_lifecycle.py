"""The async worker's life: flush waits, close drains or hands back, restarts resume, the queue is bounded."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from memadapt_core.consolidation import AsyncLLMClient, ConsolidationPlan, ConsolidationWorker, WorkerOptions
from memadapt_core.errors import LLMError, StoreError
from memadapt_core.models import MemoryRecord, Scope
from memadapt_core.testing import Hang, ScriptedLLMServer

from .conftest import ALEX, AsyncDictStore, DictStore, extracted

SAM = Scope(user_id="sam")
KIM = Scope(user_id="kim")


async def eventually(condition: Callable[[], bool], within: float = 5.0) -> None:
    """Wait until ``condition()`` holds, failing at the deadline (a condition, not a fixed sleep)."""
    deadline = asyncio.get_running_loop().time() + within
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            pytest.fail(f"condition not met within {within}s")
        await asyncio.sleep(0.01)


async def a_request_arrived(server: ScriptedLLMServer, count: int = 1) -> None:
    await asyncio.to_thread(server.wait_for_requests, count)


async def test_flush_returns_once_the_submitted_scopes_are_consolidated(
    llm_server: ScriptedLLMServer, worker: ConsolidationWorker, store: DictStore
) -> None:
    store.add_messages(ALEX, "I live in Paris")
    store.add_messages(SAM, "I live in Rome", name="Sam")
    llm_server.push(extracted(("Alex lives in Paris", [0])), extracted(("Sam lives in Rome", [0])))

    await worker.submit(ALEX)
    await worker.submit(SAM)
    await worker.flush()

    assert (store.texts(ALEX), store.texts(SAM)) == (["Alex lives in Paris"], ["Sam lives in Rome"])


async def test_flush_before_any_work_returns_at_once(
    llm_server: ScriptedLLMServer, worker: ConsolidationWorker
) -> None:
    await worker.flush()

    assert llm_server.requests == []


async def test_close_drains_the_queue_by_default(
    llm_server: ScriptedLLMServer, worker: ConsolidationWorker, store: DictStore
) -> None:
    store.add_messages(ALEX, "I live in Paris")
    llm_server.push(extracted(("Alex lives in Paris", [0])))
    await worker.submit(ALEX)

    left = await worker.close()

    assert left == []
    assert store.texts(ALEX) == ["Alex lives in Paris"]


async def test_close_without_draining_hands_back_the_scopes_left(
    llm_server: ScriptedLLMServer, worker: ConsolidationWorker, store: DictStore
) -> None:
    store.add_messages(ALEX, "I live in Paris")
    store.add_messages(SAM, "I live in Rome", name="Sam")
    llm_server.push(Hang())
    await worker.submit(ALEX)
    await worker.submit(SAM)
    await a_request_arrived(llm_server)

    left = await worker.close(drain=False)

    assert left == [ALEX, SAM]
    assert len(store.pending_messages(ALEX, 10)) == len(store.pending_messages(SAM, 10)) == 1
    llm_server.release()


async def test_a_write_under_way_completes_when_closing_without_draining(
    llm_server: ScriptedLLMServer, llm: AsyncLLMClient, store: DictStore
) -> None:
    class GatedStore(AsyncDictStore):
        def __init__(self, store: DictStore) -> None:
            super().__init__(store)
            self.entered, self.gate = asyncio.Event(), asyncio.Event()

        async def apply(self, plan: ConsolidationPlan) -> list[MemoryRecord]:
            self.entered.set()
            await self.gate.wait()
            return await super().apply(plan)

    gated = GatedStore(store)
    worker = ConsolidationWorker(gated, llm, options=WorkerOptions(reflect_every=0))
    store.add_messages(ALEX, "I live in Paris")
    llm_server.push(extracted(("Alex lives in Paris", [0])))
    await worker.submit(ALEX)
    await asyncio.wait_for(gated.entered.wait(), 5.0)

    closing = asyncio.create_task(worker.close(drain=False))
    await asyncio.sleep(0)  # let close() cancel the task while the write waits at the gate
    gated.gate.set()
    await closing

    assert store.texts(ALEX) == ["Alex lives in Paris"]
    assert store.pending_messages(ALEX, 10) == []


async def test_a_new_worker_resumes_exactly_the_messages_left_pending(
    llm_server: ScriptedLLMServer, llm: AsyncLLMClient, store: DictStore
) -> None:
    done = store.add_messages(ALEX, "I live in Paris")[0]
    store.records[done.id] = done.model_copy(update={"consolidated": True})
    store.add_messages(ALEX, "I have a dog", start=done.observed_at.replace(hour=15))
    store.add_messages(SAM, "I live in Rome", name="Sam")
    llm_server.push(extracted(("Alex has a dog", [0])), extracted(("Sam lives in Rome", [0])))
    worker = ConsolidationWorker(AsyncDictStore(store), llm, options=WorkerOptions(reflect_every=0))

    await worker.start()
    await worker.flush()
    await worker.close()

    sent = [[m["text"] for m in r.payload["messages"]] for r in llm_server.chat_requests("extract")]
    assert sent == [["I have a dog"], ["I live in Rome"]]
    assert store.pending_scopes(10) == []


async def test_a_crash_before_the_messages_are_marked_is_replayed_without_duplicates(
    llm_server: ScriptedLLMServer, llm: AsyncLLMClient, store: DictStore
) -> None:
    store.add_messages(ALEX, "I live in Paris and I have a dog")
    answer = extracted(("Alex lives in Paris", [0]), ("Alex has a dog", [0]))
    llm_server.push(answer, answer)
    store.crash_before_marking = 1  # facts written, messages not marked, then the process "dies"
    crashed = ConsolidationWorker(AsyncDictStore(store), llm, options=WorkerOptions(reflect_every=0))
    with pytest.raises(StoreError):
        await crashed.consolidate(ALEX)

    restarted = ConsolidationWorker(AsyncDictStore(store), llm, options=WorkerOptions(reflect_every=0))
    await restarted.start()
    await restarted.close()

    assert sorted(store.texts(ALEX)) == ["Alex has a dog", "Alex lives in Paris"]
    assert store.pending_messages(ALEX, 10) == []
    assert llm_server.chat_requests("reconcile") == []  # its own leftovers are overwritten, not reconciled


async def test_consolidate_raises_when_the_llm_is_unreachable_and_keeps_the_messages(
    llm_server: ScriptedLLMServer, worker: ConsolidationWorker, store: DictStore
) -> None:
    store.add_messages(ALEX, "I live in Paris")
    llm_server.set_outage()

    with pytest.raises(LLMError, match="HTTP 503"):
        await worker.consolidate(ALEX)

    assert len(store.pending_messages(ALEX, 10)) == 1


async def test_consolidate_without_a_scope_takes_every_scope_with_pending_messages(
    llm_server: ScriptedLLMServer, worker: ConsolidationWorker, store: DictStore
) -> None:
    store.add_messages(ALEX, "I live in Paris")
    store.add_messages(SAM, "I live in Rome", name="Sam")
    llm_server.push(extracted(("Alex lives in Paris", [0])), extracted(("Sam lives in Rome", [0])))

    report = await worker.consolidate()

    assert (report.messages, report.facts) == (2, 2)


async def test_failed_scopes_are_tried_again_after_the_retry_delay(
    llm_server: ScriptedLLMServer, llm: AsyncLLMClient, store: DictStore
) -> None:
    worker = ConsolidationWorker(AsyncDictStore(store), llm, options=WorkerOptions(reflect_every=0, retry_delay=0.05))
    store.add_messages(ALEX, "I live in Paris")
    llm_server.set_outage()
    await worker.submit(ALEX)
    await eventually(lambda: ALEX in worker.failures)

    llm_server.end_outage()
    llm_server.push(extracted(("Alex lives in Paris", [0])))

    await eventually(lambda: store.texts(ALEX) == ["Alex lives in Paris"])
    await eventually(lambda: worker.failures == {})
    await worker.close()


async def test_submit_waits_while_the_queue_is_full(
    llm_server: ScriptedLLMServer, llm: AsyncLLMClient, store: DictStore
) -> None:
    worker = ConsolidationWorker(AsyncDictStore(store), llm, options=WorkerOptions(reflect_every=0, queue_size=1))
    await worker.start()
    await worker.flush()  # nothing was pending: nothing resumed
    for scope in (ALEX, SAM, KIM):
        store.add_messages(scope, f"I am {scope.user_id}")
    llm_server.push(Hang(), extracted(), extracted(), extracted())
    await worker.submit(ALEX)
    await a_request_arrived(llm_server)  # the worker holds ALEX; the queue is empty
    await worker.submit(SAM)  # the queue is full

    third = asyncio.create_task(worker.submit(KIM))
    for _ in range(10):
        await asyncio.sleep(0)  # let every ready task run
    assert not third.done()

    llm_server.release()  # ALEX's request fails, is retried and answered; the queue moves
    await asyncio.wait_for(third, 5.0)
    await worker.flush()
    assert store.pending_scopes(10) == []
    await worker.close()


async def test_a_closed_worker_refuses_new_work(worker: ConsolidationWorker) -> None:
    await worker.close()

    with pytest.raises(RuntimeError, match="closed"):
        await worker.submit(ALEX)
