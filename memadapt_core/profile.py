"""The user profile (and the agent's, for assistant knowledge): one living document, assembled from its statements.

Consolidation keeps each profile statement as a record of kind ``profile`` in the profile's scope (the user alone,
or the agent alone), with its section in ``metadata["section"]`` and the facts and insights it rests on in
``source_ids``. A statement is never rewritten in place: a changed one is superseded (``valid_to``), so the
document at any moment is the statements valid then, and each moment a statement began or ended is a version.
No I/O here: the twins read the records and these functions assemble them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Literal, get_args

from pydantic import BaseModel, Field

from .errors import ValidationError
from .models import MemoryRecord, Scope

__all__ = [
    "SECTIONS",
    "ProfileStatement",
    "Section",
    "UserProfile",
    "assemble_profile",
    "profile_scope",
]

Section = Literal["identity", "preferences", "interests", "habits", "goals", "relationships", "constraints"]
SECTIONS: tuple[Section, ...] = get_args(Section)


class ProfileStatement(BaseModel):
    """One line of a profile, with the facts (and insights) it cites."""

    id: str
    section: Section
    text: str
    source_ids: list[str]
    since: datetime
    until: datetime | None = None


class UserProfile(BaseModel):
    """A profile as it stands at ``as_of`` (None: now). ``versions``: when each version began, oldest first."""

    user_id: str | None = None
    agent_id: str | None = None
    version: int = 0
    updated_at: datetime | None = None
    versions: list[datetime] = Field(default_factory=list)
    sections: dict[str, list[ProfileStatement]] = Field(default_factory=dict)

    @property
    def statements(self) -> list[ProfileStatement]:
        """Every statement, section by section in ``SECTIONS`` order."""
        return [s for section in SECTIONS for s in self.sections.get(section, [])]

    def is_empty(self) -> bool:
        return not any(self.sections.values())

    def lines(self, limit: int | None = None) -> list[str]:
        """``section: text`` lines, at most ``limit`` (the short block of ``format_context``)."""
        found = [f"{s.section}: {s.text}" for s in self.statements]
        return found if limit is None else found[:limit]


def profile_scope(scope: Scope) -> Scope:
    """Whose profile: the user's (the agent and session left out), else the agent's (assistant knowledge)."""
    if scope.user_id is not None:
        return Scope(user_id=scope.user_id)
    if scope.agent_id is not None:
        return Scope(agent_id=scope.agent_id)
    field = "user_id"
    raise ValidationError(field, "a profile belongs to a user or an agent: give user_id (or agent_id)")


def section_of(record: MemoryRecord) -> Section:
    value = record.metadata.get("section")
    return value if value in SECTIONS else "identity"


def assemble_profile(scope: Scope, records: Sequence[MemoryRecord], as_of: datetime | None = None) -> UserProfile:
    """The profile of ``scope`` from all its statement records (valid or ended), as it stood at ``as_of``."""
    moments = sorted({m for r in records for m in (_since(r), r.valid_to) if m is not None}, key=_key)
    if as_of is not None:
        moments = [m for m in moments if _key(m) <= _key(as_of)]
    sections: dict[str, list[ProfileStatement]] = {}
    for record in sorted(records, key=lambda r: (_key(_since(r)), r.text)):
        if not _valid_at(record, as_of):
            continue
        statement = ProfileStatement(
            id=record.id, section=section_of(record), text=record.text, source_ids=list(record.source_ids),
            since=_since(record), until=record.valid_to,
        )  # fmt: skip
        sections.setdefault(statement.section, []).append(statement)
    ordered = {name: sections[name] for name in SECTIONS if name in sections}
    return UserProfile(
        user_id=scope.user_id, agent_id=scope.agent_id, version=len(moments),
        updated_at=moments[-1] if moments else None, versions=moments, sections=ordered,
    )  # fmt: skip


def _since(record: MemoryRecord) -> datetime:
    return record.valid_from or record.observed_at


def _key(moment: datetime) -> float:
    return moment.timestamp()


def _valid_at(record: MemoryRecord, as_of: datetime | None) -> bool:
    if as_of is None:
        return record.valid_to is None
    return _key(_since(record)) <= _key(as_of) and (record.valid_to is None or _key(record.valid_to) > _key(as_of))
