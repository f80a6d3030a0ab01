"""What consolidation did: counts per run, added up over a worker's life."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from memadapt_core.consolidation.planning.plan import ConsolidationPlan

__all__ = ["ConsolidationReport"]


@dataclass
class ConsolidationReport:
    messages: int = 0  # messages marked consolidated
    facts: int = 0  # facts stored
    superseded: int = 0  # facts and insights superseded by new ones
    invalidated: int = 0  # facts and insights ended without a successor
    insights: int = 0  # insights stored
    dropped: int = 0  # hypothetical, fictional or role-play statements not stored
    skipped_batches: int = 0  # batches whose answers never fit: messages marked, nothing else applied
    skipped_reflections: int = 0
    profile: int = 0  # profile statements stored (new or rewritten)
    cold: int = 0  # pending segments left for later: their heat was under tiers.heat_threshold
    trajectories: int = 0  # trajectories marked consolidated
    experiences: int = 0  # experiences stored (merged ones included)
    rejected_experiences: int = 0  # experiences validation refused (noted in their trajectories' history)
    tool_guides: int = 0  # tool usage guides (re)written

    @classmethod
    def of(
        cls, plan: ConsolidationPlan, *, dropped: int = 0, skipped: bool = False, reflection: bool = False
    ) -> ConsolidationReport:
        return cls(
            messages=0 if reflection else len(plan.consolidated_ids),  # a reflection marks facts, not messages
            facts=sum(r.kind == "fact" for r in plan.records),
            superseded=len(plan.supersessions),
            invalidated=len(plan.invalidations),
            insights=sum(r.kind == "insight" for r in plan.records),
            dropped=dropped,
            skipped_batches=int(skipped),
            profile=sum(r.kind == "profile" for r in plan.records),
        )

    @classmethod
    def of_experiences(cls, plan: ConsolidationPlan, *, skipped: bool = False) -> ConsolidationReport:
        return cls(
            trajectories=len(plan.consolidated_ids),
            experiences=len(plan.records),
            superseded=len(plan.supersessions),
            rejected_experiences=len({r.text for r in plan.rejections}),
            skipped_batches=int(skipped),
        )

    @property
    def inputs(self) -> int:
        """Messages and trajectories consolidated."""
        return self.messages + self.trajectories

    def __add__(self, other: ConsolidationReport) -> ConsolidationReport:
        return ConsolidationReport(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)})

    def as_dict(self) -> dict[str, int]:
        return asdict(self)
