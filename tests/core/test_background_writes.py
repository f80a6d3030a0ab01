"""Background writes an adapter hands to the engine (``track``) are waited for by ``close()`` and ``flush()``."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from memadapt_core import AsyncMemory, Memory, ValidationError


async def test_closing_the_async_engine_waits_for_a_tracked_write(tmp_path: Path) -> None:
    async with AsyncMemory(path=tmp_path) as engine:
        started = asyncio.Event()

        async def later() -> None:
            started.set()
            await asyncio.sleep(0)  # yields to the loop: close() has begun by now
            await engine.add("I moved to Lisbon in March.", user_id="alice")

        engine.track(asyncio.create_task(later()))
        await started.wait()

    with Memory(path=tmp_path) as reopened:
        assert reopened.count(user_id="alice") == 1


def test_closing_the_sync_engine_waits_for_a_tracked_thread_write(tmp_path: Path) -> None:
    gate = threading.Event()
    with ThreadPoolExecutor(1) as pool:
        mem = Memory(path=tmp_path)

        def later() -> None:
            gate.wait()
            mem.add("I moved to Lisbon in March.", user_id="alice")

        mem.track(pool.submit(later))
        gate.set()
        mem.close()

    with Memory(path=tmp_path) as reopened:
        assert reopened.count(user_id="alice") == 1


async def test_flush_waits_for_a_tracked_write(amemory: AsyncMemory) -> None:
    gate = asyncio.Event()

    async def later() -> None:
        await gate.wait()
        await amemory.add("I moved to Lisbon in March.", user_id="alice")

    amemory.track(asyncio.create_task(later()))
    gate.set()
    await amemory.flush()

    assert await amemory.count(user_id="alice") == 1


async def test_closing_a_view_waits_for_writes_tracked_through_the_owner(tmp_path: Path) -> None:
    engine = AsyncMemory(path=tmp_path)
    view = engine.as_sync()
    engine.track(asyncio.create_task(engine.add("I moved to Lisbon in March.", user_id="alice")))

    await view.as_async().close()

    assert view.count(user_id="alice") == 1
    await engine.close()


def test_a_sync_close_on_the_loop_thread_warns_about_writes_it_cannot_wait_for(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> None:
        mem = Memory(path=tmp_path)
        mem.track(asyncio.create_task(asyncio.sleep(0)))
        mem.close()  # blocking this loop's thread: the task cannot run before the store closes

    asyncio.run(scenario())

    assert "await engine.close()" in caplog.text


def test_track_refuses_what_is_not_a_future(memory: Memory) -> None:
    with pytest.raises(ValidationError, match="pending"):
        memory.track("later")  # type: ignore[arg-type]
