"""Reflection, without I/O: insights drawn from related facts, refreshed when the facts under them change.

Facts and existing insights go to the LLM numbered; an insight cites facts by number (``source_ids`` become
those facts' ids) and may replace existing insights (superseded, kept) or declare them obsolete (invalidated).
``ReflectionTracker`` counts new facts per scope and remembers changed facts, so reflection runs every N facts
and as soon as a fact some insight may rest on is superseded.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from memadapt_core.consolidation.parsing import check_numbers
from memadapt_core.consolidation.planning.plan import (
    ConsolidationPlan,
    Invalidation,
    NewRecord,
    Supersession,
    insight_id,
    normalise_text,
)
from memadapt_core.models import MemoryRecord, Scope

__all__ = [
    "ReflectAnswer",
    "Reflection",
    "ReflectionTracker",
    "assemble_reflection",
    "build_reflection",
    "cited_ids",
    "taken",
    "worth_reflecting",
]

SYSTEM_PROMPT = """\
You find insights in what is known about people: preferences, habits, relationships, goals and traits that \
several facts show together. Each insight names the person and stands on its own; never restate a single fact.
Existing insights list the facts they rest on ("based_on") and those of their facts that are no longer true \
("outdated_facts"). Rewrite an insight whose facts changed (a new insight with "replaces": [its number]), or \
list it in "obsolete" when the facts no longer support it. Leave insights that still hold alone.
Write each insight in the same language as the facts it rests on; do not translate (Chinese facts give Chinese \
insights; when they mix languages, use the one they mostly use). Facts in different languages may say the same \
thing: compare what they mean.

Answer with one JSON object and nothing else ("sources": numbers of the facts an insight rests on):
{"insights": [{"text": "...", "sources": [0, 3], "replaces": []}], "obsolete": []}"""


class InsightAnswer(BaseModel):
    text: str = Field(min_length=1)
    sources: list[int] = Field(min_length=1)
    replaces: list[int] = Field(default_factory=list)


class ReflectAnswer(BaseModel):
    """The schema of a reflection answer."""

    insights: list[InsightAnswer] = Field(default_factory=list)
    obsolete: list[int] = Field(default_factory=list)


@dataclass(frozen=True)
class Reflection:
    """One reflection call and the parser that turns its answer into a plan."""

    scope: Scope
    facts: tuple[MemoryRecord, ...]
    insights: tuple[MemoryRecord, ...]
    messages: list[dict[str, str]]

    def parse(self, answer: Any) -> ConsolidationPlan:
        checked = ReflectAnswer.model_validate(answer)
        for index, item in enumerate(checked.insights):
            self._check(item.sources, len(self.facts), f"insights.{index}.sources", "fact")
            self._check(item.replaces, len(self.insights), f"insights.{index}.replaces", "insight")
        self._check(checked.obsolete, len(self.insights), "obsolete", "insight")
        known = {normalise_text(i.text) for i in self.insights}
        records: list[NewRecord] = []
        supersessions: list[Supersession] = []
        ended: set[str] = set()
        for item in checked.insights:
            facts = [self.facts[n] for n in sorted(set(item.sources))]
            new_id = insight_id(self.scope, [f.id for f in facts], item.text)
            replaced = [self.insights[n] for n in item.replaces if self.insights[n].id not in ended | {new_id}]
            if not replaced and normalise_text(item.text) in known:
                continue  # an insight already says this
            known.add(normalise_text(item.text))
            observed_at = max(f.observed_at for f in facts)
            valid_from = max(f.valid_from or f.observed_at for f in facts)
            for old in replaced:
                supersessions.append(Supersession(old_id=old.id, new_id=new_id, at=valid_from))
                ended.add(old.id)
            records.append(
                NewRecord(
                    id=new_id,
                    text=item.text.strip(),
                    kind="insight",
                    observed_at=observed_at,
                    valid_from=valid_from,
                    source_ids=[f.id for f in facts],
                    supersedes=replaced[0].id if replaced else None,
                )
            )
        latest = max(f.observed_at for f in self.facts)
        invalidations = [
            Invalidation(old_id=self.insights[n].id, at=latest)
            for n in sorted(set(checked.obsolete))
            if self.insights[n].id not in ended
        ]
        return ConsolidationPlan(
            scope=self.scope, records=records, supersessions=supersessions, invalidations=invalidations
        )

    @staticmethod
    def _check(numbers: list[int], size: int, where: str, what: str) -> None:
        check_numbers(numbers, size, where, what)


def build_reflection(
    scope: Scope,
    facts: Sequence[MemoryRecord],
    insights: Sequence[MemoryRecord] = (),
    ended_facts: Sequence[MemoryRecord] = (),
) -> Reflection | None:
    """The reflection call over valid ``facts`` and the ``insights`` to keep or refresh; None without facts.

    ``ended_facts`` are superseded or invalidated facts some insight rests on: shown as outdated.
    """
    if not facts:
        return None
    number = {f.id: n for n, f in enumerate(facts)}
    ended = {f.id: f for f in ended_facts}
    payload = {
        "facts": [
            {"n": n, "text": f.text, "true_since": (f.valid_from or f.observed_at).date().isoformat()}
            for n, f in enumerate(facts)
        ],
        "insights": [
            {
                "n": n,
                "text": i.text,
                "based_on": [number[s] for s in i.source_ids if s in number],
                "outdated_facts": [ended[s].text for s in i.source_ids if s in ended],
            }
            for n, i in enumerate(insights)
        ],
    }
    chat = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": json.dumps(payload, ensure_ascii=False)},
    ]
    return Reflection(scope, tuple(facts), tuple(insights), chat)


class ReflectionTracker:
    """Per scope: facts added since the last reflection, and facts that ended since (thread-safe).

    New facts are also in the store (not ``consolidated`` until a reflection takes them): the first time a worker
    meets a scope it ``seed``s from there, so a restart does not forget facts a reflection has not taken yet."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._new: dict[Scope, list[str]] = {}
        self._ended: dict[Scope, list[str]] = {}
        self._seeded: set[Scope] = set()

    def needs_seed(self, scope: Scope) -> bool:
        with self._lock:
            return scope not in self._seeded

    def seed(self, scope: Scope, fact_ids: Collection[str]) -> None:
        """Add the store's unreflected facts of ``scope`` (once per scope and worker)."""
        with self._lock:
            self._seeded.add(scope)
            known = self._new.setdefault(scope, [])
            have = set(known)
            known.extend(i for i in dict.fromkeys(fact_ids) if i not in have)

    def note(self, plan: ConsolidationPlan) -> None:
        """Count what a fact plan added and ended."""
        self.give_back(plan.scope, [r.id for r in plan.records if r.kind == "fact"], plan.changed_ids)

    def due(self, scope: Scope, every: int) -> bool:
        """Time to reflect: ``every`` new facts (0: never), or facts ended that insights may rest on."""
        if every <= 0:
            return False
        with self._lock:
            return len(self._new.get(scope, [])) >= every or bool(self._ended.get(scope))

    def take(self, scope: Scope) -> tuple[list[str], list[str]]:
        """The new and the ended fact ids of ``scope``, now forgotten (``give_back`` if reflecting fails)."""
        with self._lock:
            return self._new.pop(scope, []), self._ended.pop(scope, [])

    def give_back(self, scope: Scope, new_ids: Collection[str], ended_ids: Collection[str]) -> None:
        with self._lock:
            if new_ids:
                self._new.setdefault(scope, []).extend(new_ids)
            if ended_ids:
                self._ended.setdefault(scope, []).extend(ended_ids)


def taken(scope: Scope, fact_ids: list[str], plan: ConsolidationPlan | None = None) -> ConsolidationPlan:
    """``plan`` (or nothing) that also marks ``fact_ids`` consolidated: a reflection has taken them."""
    base = plan or ConsolidationPlan(scope=scope)
    return base.model_copy(update={"consolidated_ids": [*base.consolidated_ids, *fact_ids]})


def assemble_reflection(
    scope: Scope,
    *,
    fresh: Sequence[MemoryRecord],
    related: Sequence[MemoryRecord],
    cited: Sequence[MemoryRecord],
    successors: Sequence[MemoryRecord],
    insights: Sequence[MemoryRecord],
    max_facts: int = 60,
) -> Reflection | None:
    """The reflection over what the store returned: new facts, their neighbours, and the facts under insights.

    ``cited`` are the facts the ``insights`` rest on (valid or not), ``successors`` the facts that superseded
    some of them. Only valid facts are offered as sources; ended ones are shown as outdated.
    """
    pool: dict[str, MemoryRecord] = {}
    for record in [*fresh, *successors, *cited, *related]:
        if record.kind == "fact" and record.valid_to is None:
            pool.setdefault(record.id, record)
    ended = [f for f in cited if f.valid_to is not None]
    return build_reflection(scope, list(pool.values())[:max_facts], insights, ended)


def worth_reflecting(
    new_ids: Collection[str], ended_ids: Collection[str], insights: Sequence[MemoryRecord], every: int
) -> bool:
    """Enough new facts, or an insight rests on a fact that ended."""
    ended = set(ended_ids)
    return len(new_ids) >= every or any(ended.intersection(i.source_ids) for i in insights)


def cited_ids(insights: Sequence[MemoryRecord]) -> list[str]:
    """The facts ``insights`` rest on, each once, in order."""
    return list(dict.fromkeys(s for i in insights for s in i.source_ids))
