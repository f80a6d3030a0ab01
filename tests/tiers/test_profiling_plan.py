"""The profile update's plan, without I/O: answers checked by number, unsupported statements dropped in code."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memadapt_core.consolidation import MalformedAnswerError
from memadapt_core.consolidation.planning.profiling import build_profile_update
from memadapt_core.models import MemoryRecord, Scope

ALEX = Scope(user_id="alex")
T0 = datetime(2023, 5, 8, tzinfo=UTC)


def _record(rid: str, text: str, kind: str = "fact", **extra: object) -> MemoryRecord:
    return MemoryRecord.model_validate(
        {"id": rid, "text": text, "kind": kind, "user_id": "alex", "observed_at": T0, "created_at": T0,
         "updated_at": T0, "valid_from": T0, **extra}
    )  # fmt: skip


def test_a_source_number_outside_the_knowledge_is_malformed() -> None:
    update = build_profile_update(ALEX, [_record("f1", "Alex loves hiking")], [], [])
    answer = {"statements": [{"section": "interests", "text": "Loves hiking", "sources": [3]}]}
    with pytest.raises(MalformedAnswerError, match=r"statements\.0\.sources"):
        update.parse(answer)


def test_a_statement_whose_facts_all_ended_goes_even_if_the_llm_keeps_it() -> None:
    ended = _record("f1", "Alex lives in Paris", valid_to=T0 + timedelta(days=3))
    statement = _record("s1", "Lives in Paris", kind="profile", source_ids=["f1"], metadata={"section": "identity"})
    update = build_profile_update(ALEX, [_record("f2", "Alex loves hiking")], [statement], [ended])
    plan = update.parse({"statements": [], "obsolete": []})
    assert [i.old_id for i in plan.invalidations] == ["s1"]
    assert plan.invalidations[0].at == T0 + timedelta(days=3)


def test_a_statement_already_in_the_profile_is_not_written_twice() -> None:
    fact = _record("f1", "Alex loves hiking")
    statement = _record("s1", "Loves hiking", kind="profile", source_ids=["f1"], metadata={"section": "interests"})
    update = build_profile_update(ALEX, [fact], [statement], [])
    plan = update.parse({"statements": [{"section": "interests", "text": "Loves hiking", "sources": [0]}]})
    assert plan.records == []
