"""Reconciliation, without I/O: new facts against the nearest existing valid facts, and the plan that follows.

The LLM sees existing facts and new facts numbered separately and answers ADD / UPDATE / DELETE / NONE for
each new fact; a target is an existing fact's number, so an invented id is impossible and a number out of range
makes the whole answer malformed. Nothing is destroyed: UPDATE supersedes the old fact (``valid_to`` and
``superseded_by``; the new one ``supersedes`` it), DELETE invalidates it (``valid_to``).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, field_validator

from memadapt_core.consolidation.parsing import MalformedAnswerError
from memadapt_core.consolidation.planning.extraction import Fact
from memadapt_core.consolidation.planning.plan import (
    ConsolidationPlan,
    Invalidation,
    NewRecord,
    Supersession,
    fact_id,
    normalise_text,
)
from memadapt_core.models import MemoryRecord, Scope

__all__ = ["Decision", "ReconcileAnswer", "Reconciliation", "build_reconciliation", "plan_facts", "skip_plan"]

Action = Literal["ADD", "UPDATE", "DELETE", "NONE"]

SYSTEM_PROMPT = """\
You keep a memory of facts consistent. Compare each new fact with the existing facts and decide:
- ADD: the new fact is new information.
- UPDATE: the new fact replaces an existing fact that is no longer true or is less complete (a new address, \
a changed plan, a changed preference). "target": that existing fact's number. The old fact is kept as history.
- DELETE: the new fact only says that an existing fact is no longer true. "target": that fact's number.
- NONE: an existing fact already says the same thing.
Facts about different people or different things never replace each other.
Facts may be written in different languages (Chinese and English, say): compare what they mean, not their words; \
"我住在上海" and "Alex lives in Beijing" are about the same thing.

Answer with one JSON object and nothing else, one decision per new fact:
{"decisions": [{"fact": 0, "action": "UPDATE", "target": 2}]}"""


class DecisionAnswer(BaseModel):
    fact: int
    action: Action
    target: int | None = None

    @field_validator("action", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value


class ReconcileAnswer(BaseModel):
    """The schema of a reconciliation answer."""

    decisions: list[DecisionAnswer]


@dataclass(frozen=True)
class Decision:
    action: Action
    target: MemoryRecord | None = None


@dataclass(frozen=True)
class Reconciliation:
    """One reconciliation call (``messages`` is None when there is nothing to ask) and its parser."""

    facts: tuple[Fact, ...]
    candidates: tuple[MemoryRecord, ...]
    asked: tuple[int, ...]  # indices into ``facts`` shown to the LLM, in prompt order
    decided: Mapping[int, Decision] = field(default_factory=dict)  # decided without the LLM
    messages: list[dict[str, str]] | None = None

    def without_llm(self) -> list[Decision]:
        """Decisions when nothing needs asking: the pre-decided ones, ADD for the rest."""
        return [self.decided.get(i, Decision("ADD")) for i in range(len(self.facts))]

    def parse(self, answer: Any) -> list[Decision]:
        """One decision per fact, in fact order; ``MalformedAnswerError`` unless the answer is complete."""
        checked = ReconcileAnswer.model_validate(answer)
        chosen: dict[int, Decision] = {}
        for index, item in enumerate(checked.decisions):
            where = f"decisions.{index}"
            if not 0 <= item.fact < len(self.asked):
                msg = f"{where}.fact: {item.fact} is not a new fact number (0-{len(self.asked) - 1})"
                raise MalformedAnswerError(msg)
            if item.fact in chosen:
                msg = f"{where}.fact: new fact {item.fact} has two decisions"
                raise MalformedAnswerError(msg)
            target_number = -1 if item.target is None else item.target
            needs_target = item.action in ("UPDATE", "DELETE")
            if (needs_target or item.target is not None) and not 0 <= target_number < len(self.candidates):
                top = len(self.candidates) - 1
                msg = f"{where}.target: {item.target} is not an existing fact number (0-{top})"
                raise MalformedAnswerError(msg)
            target = self.candidates[item.target] if item.target is not None else None
            chosen[item.fact] = Decision(item.action, target)
        missing = [n for n in range(len(self.asked)) if n not in chosen]
        if missing:
            msg = f"decisions: no decision for new fact {missing[0]}"
            raise MalformedAnswerError(msg)
        decisions = self.without_llm()
        for n, fact_index in enumerate(self.asked):
            decisions[fact_index] = chosen[n]
        return decisions


def build_reconciliation(
    facts: Sequence[Fact], neighbours: Sequence[Sequence[MemoryRecord]], batch_message_ids: Collection[str]
) -> Reconciliation:
    """The call comparing ``facts`` with their ``neighbours`` (the nearest existing facts, one list per fact).

    Facts whose text an existing fact already has are NONE without asking. Neighbours that came from the
    batch's own messages (left by an attempt that crashed before marking them) are not candidates: the
    deterministic ids of this attempt overwrite them.
    """
    batch = set(batch_message_ids)
    pool: dict[str, MemoryRecord] = {}
    decided: dict[int, Decision] = {}
    for index, (fact, near) in enumerate(zip(facts, neighbours, strict=True)):
        usable = [r for r in near if r.kind == "fact" and r.valid_to is None and not batch & set(r.source_ids)]
        same = [r for r in usable if normalise_text(r.text) == normalise_text(fact.text)]
        if same:
            decided[index] = Decision("NONE", same[0])
        for record in usable:
            pool.setdefault(record.id, record)
    asked = tuple(i for i in range(len(facts)) if i not in decided)
    candidates = tuple(pool.values())
    if not asked or not candidates:
        return Reconciliation(tuple(facts), candidates, (), decided)
    payload = {
        "existing_facts": [
            {"n": n, "text": r.text, "true_since": (r.valid_from or r.observed_at).date().isoformat()}
            for n, r in enumerate(candidates)
        ],
        "new_facts": [
            {"n": n, "text": facts[i].text, "true_since": facts[i].valid_from.date().isoformat()}
            for n, i in enumerate(asked)
        ],
    }
    chat = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": json.dumps(payload, ensure_ascii=False)},
    ]
    return Reconciliation(tuple(facts), candidates, asked, decided, chat)


def plan_facts(
    scope: Scope, messages: Sequence[MemoryRecord], facts: Sequence[Fact], decisions: Sequence[Decision]
) -> ConsolidationPlan:
    """The store operations for one batch: new facts, what they supersede or invalidate, the messages done."""
    message_ids = [m.id for m in messages]
    records: list[NewRecord] = []
    supersessions: list[Supersession] = []
    invalidations: list[Invalidation] = []
    ended: set[str] = set()
    made: set[str] = set()
    for fact, decision in zip(facts, decisions, strict=True):
        if decision.action == "NONE":
            continue
        new_id = fact_id(scope, fact.source_ids, fact.text)
        if new_id in made:
            continue  # the same fact twice in one answer
        made.add(new_id)
        target = decision.target
        if target is not None and (target.id in ended or target.id == new_id):
            target = None  # an earlier fact of this batch already ended it
        at = _not_before(fact.valid_from, target)
        if decision.action == "DELETE":
            if target is not None:
                invalidations.append(Invalidation(old_id=target.id, at=at))
                ended.add(target.id)
            continue
        supersedes = target.id if decision.action == "UPDATE" and target is not None else None
        if supersedes is not None:
            supersessions.append(Supersession(old_id=supersedes, new_id=new_id, at=at))
            ended.add(supersedes)
        records.append(
            NewRecord(
                id=new_id,
                text=fact.text,
                kind="fact",
                observed_at=fact.observed_at,
                valid_from=fact.valid_from,
                source_ids=list(fact.source_ids),
                supersedes=supersedes,
            )
        )
    return ConsolidationPlan(
        scope=scope,
        records=records,
        supersessions=supersessions,
        invalidations=invalidations,
        consolidated_ids=message_ids,
    )


def skip_plan(scope: Scope, messages: Sequence[MemoryRecord]) -> ConsolidationPlan:
    """Marks the messages consolidated and changes nothing else (the LLM's answers never fit)."""
    return ConsolidationPlan(scope=scope, consolidated_ids=[m.id for m in messages])


def _not_before(at: datetime, target: MemoryRecord | None) -> datetime:
    """When the old fact ends: when the new one starts, but never before the old one started."""
    if target is None:
        return at
    start = target.valid_from or target.observed_at
    if (start.tzinfo is None) == (at.tzinfo is None) and start > at:
        return start
    return at
