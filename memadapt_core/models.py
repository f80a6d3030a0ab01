"""The records memadapt stores and returns. Names are fixed by DESIGN.md §9; fields may grow."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "JSON",
    "KINDS",
    "HistoryEvent",
    "Kind",
    "MemoryRecord",
    "Page",
    "Scope",
    "SearchHit",
]

JSON: TypeAlias = Any
"""A JSON-serialisable value (the type of user metadata)."""

Kind = Literal["message", "fact", "insight"]
KINDS: tuple[Kind, ...] = ("message", "fact", "insight")


class Scope(BaseModel):
    """Who a memory belongs to. Reads and writes are filtered by exactly the ids given."""

    model_config = ConfigDict(frozen=True)

    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None

    def key(self) -> str:
        """A stable string for this scope (used to derive deterministic record ids)."""
        return f"u={self.user_id or ''}\x1fa={self.agent_id or ''}\x1fs={self.session_id or ''}"

    def is_empty(self) -> bool:
        return self.user_id is None and self.agent_id is None and self.session_id is None


class HistoryEvent(BaseModel):
    """One change to a record: ``add``, ``update``, ``supersede`` or ``delete`` (invalidation)."""

    record_id: str
    event: Literal["add", "update", "supersede", "delete"]
    at: datetime
    old_text: str | None = None
    new_text: str | None = None
    by: str | None = None  # the record that superseded this one, for ``supersede``


class MemoryRecord(BaseModel):
    """One memory: a raw message, a fact or an insight."""

    id: str
    text: str
    kind: Kind = "message"
    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    role: str | None = None
    name: str | None = None
    external_id: str | None = None
    observed_at: datetime
    created_at: datetime
    updated_at: datetime
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    source_ids: list[str] = Field(default_factory=list)
    supersedes: str | None = None
    superseded_by: str | None = None
    hash: str = ""
    consolidated: bool = False  # a message: its facts are extracted; a fact: a reflection has taken it
    metadata: dict[str, JSON] = Field(default_factory=dict)

    @property
    def scope(self) -> Scope:
        return Scope(user_id=self.user_id, agent_id=self.agent_id, session_id=self.session_id)


class SearchHit(BaseModel):
    """A record found by ``search``, its fused score and the score of each signal (``dense``, ``sparse``, boosts)."""

    record: MemoryRecord
    score: float
    scores: dict[str, float] = Field(default_factory=dict)


class Page(BaseModel):
    """One page of ``list``; pass ``next_cursor`` back for the next (None on the last page)."""

    records: list[MemoryRecord]
    next_cursor: str | None = None
