"""The scripted server's LoCoMo mode: a session's ``observation`` facts come back as an extraction LLM's answer.

Needs LoCoMo's data (CC BY-NC 4.0, never shipped): ``MEMADAPT_LOCOMO`` or the shared copy; skipped without it.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from benchmarks._locomo_replay import LocomoReplay
from memadapt_core.consolidation import AsyncLLMClient, ConsolidationWorker, WorkerOptions
from memadapt_core.models import Scope
from memadapt_core.testing import ScriptedLLMServer

from .conftest import AsyncDictStore, DictStore

# The shared data folder sits beside the project root (../shared/data); MEMADAPT_LOCOMO overrides it.
_DEFAULT = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo_dev.json"
LOCOMO = Path(os.environ.get("MEMADAPT_LOCOMO", str(_DEFAULT)))
pytestmark = pytest.mark.skipif(not LOCOMO.is_file(), reason="LoCoMo data not available (set MEMADAPT_LOCOMO)")


@pytest.fixture(scope="module")
def conversation() -> dict[str, Any]:
    samples = json.loads(LOCOMO.read_text(encoding="utf-8"))
    return next(s for s in samples if s["sample_id"] == "conv-26")


async def test_a_sessions_observations_come_back_as_facts_linked_to_their_turns(conversation: dict[str, Any]) -> None:
    talk = conversation["conversation"]
    turns = talk["session_1"]
    said = datetime.strptime(talk["session_1_date_time"], "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    scope = Scope(user_id="conv-26")
    store = DictStore()
    for n, turn in enumerate(turns):
        store.add_messages(
            scope, turn["text"], start=said + timedelta(minutes=n), name=turn["speaker"], external_ids=[turn["dia_id"]]
        )
    expected = {
        (fact, tuple([ids] if isinstance(ids, str) else ids))
        for facts in conversation["observation"]["session_1_observation"].values()
        for fact, ids in facts
    }

    with ScriptedLLMServer(responder=LocomoReplay.from_file(LOCOMO)) as server:
        async with AsyncLLMClient(server.llm_settings(), backoff=0.0) as llm:
            worker = ConsolidationWorker(
                AsyncDictStore(store), llm, options=WorkerOptions(batch_size=8, reflect_every=0)
            )
            report = await worker.consolidate(scope)

    dia = {r.id: r.external_id for r in store.of(scope, "message")}
    stored = {(f.text, tuple(sorted(str(dia[s]) for s in f.source_ids))) for f in store.of(scope, "fact")}
    assert stored == expected
    assert report.messages == len(turns)
    assert all(f.observed_at.date() == said.date() for f in store.of(scope, "fact"))


def test_messages_that_are_not_locomo_turns_get_no_facts(conversation: dict[str, Any]) -> None:
    replay = LocomoReplay([conversation])

    assert replay.extract([{"n": 0, "text": "Something nobody said in LoCoMo."}]) == []
