"""Experience reconciliation, without I/O: new experiences against the nearest stored ones, and the plan.

As with facts, existing and new experiences are numbered apart and the LLM answers per new experience:
- ADD: a new lesson;
- MERGE: the same lesson as an existing one: one experience replaces both (the LLM may give the merged
  ``when_to_use`` and ``content``), citing the trajectories of both; the old one is superseded, kept as history;
- SUPERSEDE: the new lesson contradicts an existing one (newer evidence wins): the old one is superseded;
- NONE: an existing experience already says it.
An experience whose text a stored one already has is NONE without asking.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pydantic import BaseModel, field_validator

from memadapt_core.consolidation.parsing import MalformedAnswerError
from memadapt_core.consolidation.planning.experiences import Experience, Judgement
from memadapt_core.consolidation.planning.plan import (
    ConsolidationPlan,
    NewRecord,
    Rejection,
    Supersession,
    experience_id,
    normalise_text,
)
from memadapt_core.models import JSON, MemoryRecord, Scope

__all__ = [
    "ExperienceDecision",
    "ExperienceReconciliation",
    "build_experience_reconciliation",
    "experience_content",
    "experience_scope",
    "plan_experiences",
]

Action = Literal["ADD", "MERGE", "SUPERSEDE", "NONE"]

RECONCILE_PROMPT = """\
You keep an agent's experience consistent. Compare each new experience with the existing ones and decide:
- ADD: a new lesson.
- MERGE: the same lesson as an existing experience. "target": its number. You may give the merged \
"when_to_use" and "content" that keep what both say.
- SUPERSEDE: the new lesson contradicts an existing experience (the new evidence shows it is wrong). \
"target": its number. The old one is kept as history.
- NONE: an existing experience already says the same thing.
Experiences may be written in different languages: compare what they mean, not their words. Write a merged \
"when_to_use" and "content" in the same language as the new experience; do not translate.

Answer with one JSON object and nothing else, one decision per new experience:
{"decisions": [{"experience": 0, "action": "MERGE", "target": 1, "when_to_use": "...", "content": "..."}]}"""


class ExperienceDecisionAnswer(BaseModel):
    experience: int
    action: Action
    target: int | None = None
    when_to_use: str | None = None
    content: str | None = None

    @field_validator("action", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value


class ExperienceReconcileAnswer(BaseModel):
    decisions: list[ExperienceDecisionAnswer]


@dataclass(frozen=True)
class ExperienceDecision:
    action: Action
    target: MemoryRecord | None = None
    when_to_use: str | None = None  # MERGE: the merged text, when the LLM gave one
    content: str | None = None


def experience_scope(scope: Scope) -> Scope:
    """Where an agent's experiences live: the agent's scope, shared by its users and sessions."""
    return Scope(agent_id=scope.agent_id)


def experience_content(record: MemoryRecord) -> str:
    """The lesson of a stored experience (its text is ``when_to_use``)."""
    content = record.metadata.get("content")
    return content if isinstance(content, str) else ""


@dataclass(frozen=True)
class ExperienceReconciliation:
    """One reconciliation call (``messages`` is None when there is nothing to ask) and its parser."""

    experiences: tuple[Experience, ...]
    candidates: tuple[MemoryRecord, ...]
    asked: tuple[int, ...]
    decided: Mapping[int, ExperienceDecision] = field(default_factory=dict)
    messages: list[dict[str, str]] | None = None

    def without_llm(self) -> list[ExperienceDecision]:
        return [self.decided.get(i, ExperienceDecision("ADD")) for i in range(len(self.experiences))]

    def parse(self, answer: Any) -> list[ExperienceDecision]:
        checked = ExperienceReconcileAnswer.model_validate(answer)
        chosen: dict[int, ExperienceDecision] = {}
        for index, item in enumerate(checked.decisions):
            where = f"decisions.{index}"
            if not 0 <= item.experience < len(self.asked):
                top = len(self.asked) - 1
                msg = f"{where}.experience: {item.experience} is not a new experience number (0-{top})"
                raise MalformedAnswerError(msg)
            if item.experience in chosen:
                msg = f"{where}.experience: new experience {item.experience} has two decisions"
                raise MalformedAnswerError(msg)
            needs_target = item.action in ("MERGE", "SUPERSEDE")
            number = -1 if item.target is None else item.target
            if (needs_target or item.target is not None) and not 0 <= number < len(self.candidates):
                top = len(self.candidates) - 1
                msg = f"{where}.target: {item.target} is not an existing experience number (0-{top})"
                raise MalformedAnswerError(msg)
            target = self.candidates[number] if item.target is not None else None
            merged = (item.when_to_use or "").strip() or None, (item.content or "").strip() or None
            chosen[item.experience] = ExperienceDecision(item.action, target, *merged)
        missing = [n for n in range(len(self.asked)) if n not in chosen]
        if missing:
            msg = f"decisions: no decision for new experience {missing[0]}"
            raise MalformedAnswerError(msg)
        decisions = self.without_llm()
        for n, index in enumerate(self.asked):
            decisions[index] = chosen[n]
        return decisions


def build_experience_reconciliation(
    experiences: Sequence[Experience], neighbours: Sequence[Sequence[MemoryRecord]]
) -> ExperienceReconciliation:
    """The call comparing ``experiences`` with their ``neighbours`` (nearest stored experiences, one list each)."""
    pool: dict[str, MemoryRecord] = {}
    decided: dict[int, ExperienceDecision] = {}
    for index, (experience, near) in enumerate(zip(experiences, neighbours, strict=True)):
        usable = [r for r in near if r.kind == "experience" and r.valid_to is None]
        key = normalise_text(experience.text)
        same = [r for r in usable if normalise_text(f"{r.text}\n{experience_content(r)}") == key]
        if same:
            decided[index] = ExperienceDecision("NONE", same[0])
        for record in usable:
            pool.setdefault(record.id, record)
    asked = tuple(i for i in range(len(experiences)) if i not in decided)
    candidates = tuple(pool.values())
    if not asked or not candidates:
        return ExperienceReconciliation(tuple(experiences), candidates, (), decided)
    payload = {
        "existing_experiences": [
            {"n": n, "when_to_use": r.text, "content": experience_content(r)} for n, r in enumerate(candidates)
        ],
        "new_experiences": [
            {"n": n, "when_to_use": experiences[i].when_to_use, "content": experiences[i].content}
            for n, i in enumerate(asked)
        ],
    }
    chat = [
        {"role": "system", "content": RECONCILE_PROMPT},
        {"role": "user", "content": json.dumps(payload, ensure_ascii=False)},
    ]
    return ExperienceReconciliation(tuple(experiences), candidates, asked, decided, chat)


def _merged(experience: Experience, decision: ExperienceDecision) -> Experience:
    """A MERGE: the merged text (or the new one), the trajectories of both, the better-supported score."""
    target = decision.target
    if decision.action != "MERGE" or target is None:
        return experience
    sources = tuple(dict.fromkeys([*target.source_ids, *experience.source_ids]))
    old_score = target.metadata.get("score")
    scores = [s for s in (experience.score, old_score) if isinstance(s, int | float) and not isinstance(s, bool)]
    return replace(
        experience,
        when_to_use=decision.when_to_use or experience.when_to_use,
        content=decision.content or experience.content,
        source_ids=sources,
        score=max(scores) if scores else None,
    )


def _record(scope: Scope, experience: Experience, supersedes: str | None) -> NewRecord:
    metadata: dict[str, JSON] = {
        "content": experience.content,
        "evidence": experience.evidence,
        "score": experience.score,
    }
    return NewRecord(
        id=experience_id(scope, experience.source_ids, experience.text),
        text=experience.when_to_use,
        kind="experience",
        observed_at=experience.observed_at,
        valid_from=experience.observed_at,
        source_ids=list(experience.source_ids),
        supersedes=supersedes,
        metadata=metadata,
    )


def plan_experiences(
    scope: Scope,
    trajectories: Sequence[MemoryRecord],
    experiences: Sequence[Experience],
    judgements: Sequence[Judgement],
    decisions: Sequence[ExperienceDecision],
) -> ConsolidationPlan:
    """The store operations for one batch of trajectories; ``scope`` is the agent's (where experiences live).

    ``decisions`` are for the experiences judged valid, in order; refused ones become ``rejections`` on the
    trajectories they cite."""
    valid = [e for e, j in zip(experiences, judgements, strict=True) if j.valid]
    rejections = [
        Rejection(record_id=source, text=e.text, reason=j.reason or "refused by validation", at=e.observed_at)
        for e, j in zip(experiences, judgements, strict=True)
        if not j.valid
        for source in e.source_ids
    ]
    records: list[NewRecord] = []
    supersessions: list[Supersession] = []
    ended: set[str] = set()
    for experience, decision in zip(valid, decisions, strict=True):
        if decision.action == "NONE":
            continue
        target = decision.target
        if target is not None and target.id in ended:
            target = None  # an earlier experience of this batch already replaced it
        final = _merged(experience, decision) if target is not None else experience
        supersedes = target.id if target is not None and decision.action in ("MERGE", "SUPERSEDE") else None
        record = _record(scope, final, supersedes)
        if record.id in {r.id for r in records} or record.id == supersedes:
            continue
        if supersedes is not None:
            supersessions.append(Supersession(old_id=supersedes, new_id=record.id, at=final.observed_at))
            ended.add(supersedes)
        records.append(record)
    return ConsolidationPlan(
        scope=scope,
        records=records,
        supersessions=supersessions,
        rejections=rejections,
        consolidated_ids=[t.id for t in trajectories],
    )
