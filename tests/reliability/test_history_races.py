"""Every acknowledged change appears in ``history``, whatever races it: ``add(on_conflict="replace")`` (what
LangGraph's ``put`` uses) against ``update`` and ``delete``, with threads and with asyncio tasks.

A replacing add reads the record, embeds (slowly, outside any lock), then writes. The deterministic tests make the
race happen every time: the embedder runs the other change while the add is embedding."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from memadapt_core import AsyncMemory, Memory
from memadapt_core.embedders.base import Vectors
from memadapt_core.testing import HashEmbedder


class RacingEmbedder(HashEmbedder):
    """Runs ``meanwhile`` once, the next time it embeds a text starting with "replace"."""

    def __init__(self) -> None:
        super().__init__(dim=16)
        self.meanwhile: Callable[[], object] | None = None

    def _embed(self, texts: Sequence[str]) -> Vectors:
        if self.meanwhile is not None and any(t.startswith("replace") for t in texts):
            run, self.meanwhile = self.meanwhile, None
            run()
        return super()._embed(texts)


MSG = {"role": "user", "content": "first", "id": "m1"}


def _texts(mem: Memory, rid: str) -> list[str | None]:
    return [e.new_text for e in mem.history(rid)]


def test_an_update_racing_a_replace_keeps_its_event(tmp_path: Path) -> None:
    embedder = RacingEmbedder()
    with Memory(path=tmp_path, embedder=embedder) as mem:
        (rec,) = mem.add(MSG, user_id="u")
        embedder.meanwhile = lambda: mem.update(rec.id, text="updated meanwhile")

        mem.add({**MSG, "content": "replaced"}, user_id="u", on_conflict="replace")

        assert _texts(mem, rec.id) == ["first", "updated meanwhile", "replaced"]
        assert mem.get(rec.id).text == "replaced"  # type: ignore[union-attr]


def test_a_replace_after_a_racing_delete_is_a_fresh_add_without_the_old_history(tmp_path: Path) -> None:
    embedder = RacingEmbedder()
    with Memory(path=tmp_path, embedder=embedder) as mem:
        (rec,) = mem.add(MSG, user_id="u")
        mem.update(rec.id, text="changed before")
        embedder.meanwhile = lambda: mem.delete(rec.id)

        mem.add({**MSG, "content": "replaced"}, user_id="u", on_conflict="replace")

        assert _texts(mem, rec.id) == ["replaced"]  # the deleted record's events stay deleted


async def test_async_tasks_racing_replace_and_update_lose_no_event(tmp_path: Path) -> None:
    async with AsyncMemory(path=tmp_path, embedder=HashEmbedder(dim=16), history_limit=1000) as mem:
        (rec,) = await mem.add(MSG, user_id="u")

        async def replaces() -> list[str]:
            done = []
            for i in range(25):
                text = f"replace {i}"
                await mem.add({**MSG, "content": text}, user_id="u", on_conflict="replace")
                done.append(text)
                await asyncio.sleep(0)
            return done

        async def updates() -> list[str]:
            done = []
            for i in range(25):
                text = f"update {i}"
                await mem.update(rec.id, text=text)
                done.append(text)
                await asyncio.sleep(0)
            return done

        acked = [t for group in await asyncio.gather(replaces(), updates()) for t in group]
        events = [e.new_text for e in await mem.history(rec.id)]

        assert sorted(t for t in events if t != "first") == sorted(acked)


@pytest.mark.parametrize("rounds", [40])
def test_threads_racing_replace_and_update_lose_no_event(tmp_path: Path, rounds: int) -> None:
    with Memory(path=tmp_path, embedder=HashEmbedder(dim=16), history_limit=1000) as mem:
        (rec,) = mem.add(MSG, user_id="u")
        acked: list[str] = []
        lock = threading.Lock()

        def replaces() -> None:
            for i in range(rounds):
                mem.add({**MSG, "content": f"replace {i}"}, user_id="u", on_conflict="replace")
                with lock:
                    acked.append(f"replace {i}")

        def updates() -> None:
            for i in range(rounds):
                mem.update(rec.id, text=f"update {i}")
                with lock:
                    acked.append(f"update {i}")

        threads = [threading.Thread(target=replaces), threading.Thread(target=updates)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

        events = [t for t in _texts(mem, rec.id) if t != "first"]
        assert sorted(events) == sorted(acked)
