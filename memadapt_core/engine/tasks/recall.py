"""The no-I/O half of recalling experience for a new task: rank the hits of an experience search and render them
as guidance for a system prompt.

Rank = task similarity (the search's fused score, the best hit 1.0) + ``score_weight`` x the strength of the
evidence (a success or comparison: its score; a failure: 1 - its score, since a clear failure is a clear lesson)
+ ``recency_weight`` x recency (halving every ``recency_half_life_days``). Scores outside [0, 1] are clipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memadapt_core.config import TaskMemorySettings
from memadapt_core.errors import ValidationError
from memadapt_core.formatting import EXPERIENCE_END, EXPERIENCE_START, render_guidance
from memadapt_core.models import SearchHit

__all__ = [
    "EXPERIENCE_END",
    "EXPERIENCE_START",
    "agent_scope_id",
    "evidence_strength",
    "rank_experiences",
    "recall_pool",
    "render_guidance",
]


def agent_scope_id(agent_id: str | None) -> str:
    """Experience belongs to an agent: recalling it needs one."""
    if agent_id is None:
        field = "agent_id"
        raise ValidationError(field, "is required: experience belongs to an agent (or a workspace)")
    return agent_id


def recall_pool(limit: int, max_limit: int) -> int:
    """How many hits to rank for ``limit`` experiences: enough that score and recency can reorder them."""
    return min(max_limit, max(10, 3 * limit))


def evidence_strength(evidence: object, score: object) -> float:
    """How strongly an experience's evidence speaks, in [0, 1] (0.5 when its score is unknown)."""
    if not isinstance(score, int | float) or isinstance(score, bool):
        return 0.5
    clipped = min(1.0, max(0.0, float(score)))
    return 1.0 - clipped if evidence == "failure" else clipped


def rank_experiences(
    hits: Sequence[SearchHit], settings: TaskMemorySettings, now: datetime, limit: int
) -> list[SearchHit]:
    """The best ``limit`` hits by rank; each hit's ``scores`` gain ``similarity``, ``evidence`` and ``recency``."""
    if not hits:
        return []
    best = max(h.score for h in hits) or 1.0
    ranked: list[SearchHit] = []
    for hit in hits:
        meta = hit.record.metadata
        similarity = max(0.0, hit.score / best)
        strength = evidence_strength(meta.get("evidence"), meta.get("score"))
        when = hit.record.valid_from or hit.record.observed_at
        comparable = (now.tzinfo is None) == (when.tzinfo is None)
        age_days = max(0.0, (now - when).total_seconds() / 86_400) if comparable else 0.0
        recency = 0.5 ** (age_days / settings.recency_half_life_days)
        total = similarity + settings.score_weight * strength + settings.recency_weight * recency
        scores = {**hit.scores, "similarity": similarity, "evidence": strength, "recency": recency}
        ranked.append(hit.model_copy(update={"score": total, "scores": scores}))
    ranked.sort(key=lambda h: -h.score)
    return ranked[:limit]
