"""Heat: visits counted off the search path and written at flush, a score that rises with retrieval and decays
with time, and consolidation gated by it (a cold segment costs no LLM call)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memadapt_core import AsyncMemory, Memory, MemorySettings
from memadapt_core.config import RetrievalSettings
from memadapt_core.models import MemoryRecord
from memadapt_core.scoring.heat import record_heat, segment_heat
from memadapt_core.scoring.ranking import QueryPlan, Ranked, boost
from memadapt_core.testing import HashEmbedder, ScriptedLLMServer

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
TIERS = MemorySettings().tiers


def _message(text: str, at: datetime = T0, **extra: Any) -> MemoryRecord:
    return MemoryRecord.model_validate(
        {"id": text, "text": text, "observed_at": at, "created_at": at, "updated_at": at, **extra}
    )


def test_heat_rises_with_retrieval() -> None:
    now = T0 + timedelta(hours=1)
    assert record_heat(_message("a", visits=3), now, TIERS) > record_heat(_message("a", visits=1), now, TIERS)


def test_heat_decays_with_time() -> None:
    record = _message("a", visits=2, last_access=T0)
    soon, later = record_heat(record, T0, TIERS), record_heat(record, T0 + timedelta(days=30), TIERS)
    assert soon - later == pytest.approx(TIERS.heat_recency_weight * (1 - 0.5 ** (30 * 24 / 168)))


def test_a_segment_is_as_hot_as_its_visits_turns_and_recency() -> None:
    turns = [_message("a", visits=2), _message("b", T0 + timedelta(minutes=1))]
    assert segment_heat(turns, T0 + timedelta(minutes=1), TIERS) == pytest.approx(2 + 2 + 1)


def test_hits_show_their_heat_and_each_search_adds_a_visit() -> None:
    with Memory(location=":memory:", tiers={"heat": True}) as mem:
        (rec,) = mem.add("I keep bees on the roof", user_id="u1")
        first = mem.search("bees", user_id="u1")[0].scores["heat"]
        second = mem.search("bees", user_id="u1")[0].scores["heat"]
        assert second == pytest.approx(first + TIERS.heat_visit_weight, abs=1e-3)
        assert mem.get(rec.id).visits == 0  # type: ignore[union-attr]  # counted in memory, not written yet
        mem.flush()
        stored = mem.get(rec.id)
        assert stored is not None
        assert stored.visits == 2
        assert stored.last_access is not None


def test_without_heat_tracking_hits_carry_no_heat_and_nothing_is_counted(memory: Memory) -> None:
    (rec,) = memory.add("I keep bees on the roof", user_id="u1")
    assert "heat" not in memory.search("bees", user_id="u1")[0].scores
    memory.flush()
    assert memory.get(rec.id).visits == 0  # type: ignore[union-attr]


async def test_the_async_twin_writes_the_visits_at_close(tmp_path: Any) -> None:
    async with AsyncMemory(path=tmp_path / "s", tiers={"heat": True}) as mem:
        (rec,) = await mem.add("I keep bees on the roof", user_id="u1")
        await mem.search("bees", user_id="u1")
    with Memory(path=tmp_path / "s") as mem:
        assert mem.get(rec.id).visits == 1  # type: ignore[union-attr]


# -- heat gating of consolidation ---------------------------------------------------------------------------------
@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as srv:
        yield srv


def _gated(server: ScriptedLLMServer, threshold: float) -> Memory:
    return Memory(
        location=":memory:",
        llm={"base_url": server.base_url, "model": "scripted", "timeout": 2.0, "max_retries": 1},
        tiers={"heat": True, "heat_threshold": threshold},
    )


def _two_old_turns(mem: Memory) -> list[MemoryRecord]:
    turns = [
        {"role": "user", "name": "Alex", "content": "I keep bees on the roof", "timestamp": T0},
        {"role": "user", "name": "Alex", "content": "The bees make honey", "timestamp": T0},
    ]
    return mem.add(turns, user_id="alex", session_id="s1")


def test_a_cold_segment_makes_no_llm_call_and_stays_pending(server: ScriptedLLMServer) -> None:
    with _gated(server, threshold=5.0) as mem:
        added = _two_old_turns(mem)  # heat 2: two turns, said long ago, never retrieved
        mem.flush()
        assert server.chat_requests() == []
        assert not any(r.consolidated for r in mem.get_many([r.id for r in added]))
        assert mem.stats()["consolidation"]["worker"]["cold"] >= 1


def test_retrieval_warms_a_segment_until_it_is_consolidated(server: ScriptedLLMServer) -> None:
    server.push({"facts": [{"text": "Alex keeps bees", "sources": [0]}]})
    with _gated(server, threshold=5.0) as mem:
        added = _two_old_turns(mem)
        mem.flush()
        for _ in range(2):
            mem.search("bees", user_id="alex", session_id="s1")  # each returns both turns: +2 visits
        assert mem.consolidate(user_id="alex") == 2
        assert len(server.chat_requests("extract")) == 1
        assert all(r.consolidated for r in mem.get_many([r.id for r in added]))


# -- heat as a ranking signal -------------------------------------------------------------------------------------
def _tied(*keys: str) -> list[Ranked]:
    return [Ranked(key, 0.5, {"fused": 0.5}) for key in keys]


def test_a_heat_boost_puts_the_hotter_of_near_ties_first() -> None:
    cfg = RetrievalSettings(recency_boost=0, session_diversity=0, heat_boost=0.05)
    payloads = {"cold": {"visits": 1}, "never": {}, "hot": {"visits": 4}}
    ranked = boost(_tied("cold", "never", "hot"), payloads, QueryPlan("q"), cfg)
    assert [r.id for r in ranked] == ["hot", "cold", "never"]
    assert ranked[0].scores["hot"] == pytest.approx(0.05)


def test_heat_is_no_ranking_signal_by_default() -> None:
    cfg = RetrievalSettings(recency_boost=0, session_diversity=0)
    ranked = boost(_tied("cold", "hot"), {"cold": {}, "hot": {"visits": 9}}, QueryPlan("q"), cfg)
    assert cfg.heat_boost == 0
    assert [r.id for r in ranked] == ["cold", "hot"]


def test_retrievals_reorder_twin_memories_once_the_heat_boost_is_on(tmp_path: Any) -> None:
    store = {"path": tmp_path / "s", "embedder": HashEmbedder(), "tiers": {"heat": True}}
    with Memory(**store) as mem:
        (older,) = mem.add("I keep bees on the roof", user_id="u1", session_id="s2")
        (newer,) = mem.add("I keep bees on the roof", user_id="u1", session_id="s1")
        assert mem.search("bees", user_id="u1")[0].record.id == newer.id  # near-tie: the newer wins
        for _ in range(3):
            mem.search("bees", user_id="u1", session_id="s2")
    with Memory(**store, retrieval={"heat_boost": 0.05}) as mem:
        assert mem.search("bees", user_id="u1")[0].record.id == older.id
