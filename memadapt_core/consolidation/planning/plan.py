"""The plan of store operations one consolidation step produces, and the deterministic ids of what it creates.

A plan is data, built by pure functions from the LLM's validated answers; ``ConsolidationStore.apply``
carries it out in one call and marks the plan's messages consolidated last. Ids are UUIDv5 of the scope and the
inputs, so replaying a batch after a crash overwrites what the first attempt stored instead of duplicating it.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from collections.abc import Iterable
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from memadapt_core.models import JSON, Scope
from memadapt_core.record_codec import uuid5

__all__ = [
    "ConsolidationPlan",
    "Invalidation",
    "NewRecord",
    "Rejection",
    "Supersession",
    "experience_id",
    "fact_id",
    "insight_id",
    "normalise_text",
]

_NAMESPACE = uuid.UUID("6f1d3c52-8a4e-5b7f-9c20-4d7e1a9b3f60")


class NewRecord(BaseModel):
    """A fact, an insight, a profile statement, an experience or a tool guide to store (the store embeds it, fills
    scope and bookkeeping)."""

    model_config = ConfigDict(frozen=True)

    id: str
    text: str
    kind: Literal["fact", "insight", "profile", "experience", "tool_guide"]
    observed_at: datetime
    valid_from: datetime
    source_ids: list[str]
    supersedes: str | None = None
    metadata: dict[str, JSON] = Field(default_factory=dict)


class Supersession(BaseModel):
    """``old_id`` ends at ``at`` (its ``valid_to``) and points to ``new_id`` (its ``superseded_by``)."""

    model_config = ConfigDict(frozen=True)

    old_id: str
    new_id: str
    at: datetime


class Invalidation(BaseModel):
    """``old_id`` stops being valid at ``at``; nothing replaces it. Kept, never deleted."""

    model_config = ConfigDict(frozen=True)

    old_id: str
    at: datetime


class Rejection(BaseModel):
    """An experience drawn from ``record_id`` (a trajectory) that validation refused: kept in its history only."""

    model_config = ConfigDict(frozen=True)

    record_id: str
    text: str
    reason: str
    at: datetime


class ConsolidationPlan(BaseModel):
    """Everything one step changes, applied together; ``consolidated_ids`` are marked last."""

    model_config = ConfigDict(frozen=True)

    scope: Scope
    records: list[NewRecord] = Field(default_factory=list)
    supersessions: list[Supersession] = Field(default_factory=list)
    invalidations: list[Invalidation] = Field(default_factory=list)
    rejections: list[Rejection] = Field(default_factory=list)
    consolidated_ids: list[str] = Field(default_factory=list)  # messages or trajectories extracted, facts reflected

    @property
    def changed_ids(self) -> list[str]:
        """Records this plan ends (superseded or invalidated)."""
        return [s.old_id for s in self.supersessions] + [i.old_id for i in self.invalidations]

    @property
    def touched_ids(self) -> list[str]:
        """Stored records whose payload this plan changes: those it ends, and trajectories noting rejections."""
        return list(dict.fromkeys([*self.changed_ids, *(r.record_id for r in self.rejections)]))


def normalise_text(text: str) -> str:
    """Lower-case words only: what counts as "the same text" for a fact.

    Any script: Chinese characters are word characters, full-width punctuation (the ideographic full stop, the
    full-width comma, question mark, colon) is not, and NFKC folds full-width letters and digits into their usual
    forms, so "我住在上海。" is "我住在上海" and a date in full-width digits is the same date in ASCII digits.
    """
    return " ".join(re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold()))


def fact_id(scope: Scope, source_ids: Iterable[str], text: str) -> str:
    """The id of a fact with this text drawn from exactly these messages in this scope.

    It does not depend on the batch the fact came out of: a batch cut short by a crash after its facts were stored
    (its messages still pending) is replayed later, perhaps with more messages, and its facts land on the same ids.
    """
    key = "\x1e".join(["fact", scope.key(), ",".join(sorted(set(source_ids))), normalise_text(text)])
    return uuid5(key, _NAMESPACE)


def insight_id(scope: Scope, source_ids: Iterable[str], text: str) -> str:
    """The id of an insight with this text drawn from exactly these facts in this scope."""
    key = "\x1e".join(["insight", scope.key(), ",".join(sorted(source_ids)), normalise_text(text)])
    return uuid5(key, _NAMESPACE)


def experience_id(scope: Scope, source_ids: Iterable[str], text: str) -> str:
    """The id of an experience with this text (``when_to_use`` and lesson) drawn from these trajectories."""
    key = "\x1e".join(["experience", scope.key(), ",".join(sorted(set(source_ids))), normalise_text(text)])
    return uuid5(key, _NAMESPACE)
