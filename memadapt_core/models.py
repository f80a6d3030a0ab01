"""The records memadapt stores and returns. Their names are public API (docs/architecture.md); fields may grow."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Literal, TypeAlias, TypedDict

from pydantic import BaseModel, ConfigDict, Field

from .errors import ValidationError

__all__ = [
    "JSON",
    "KINDS",
    "MAX_ID_CHARS",
    "PERSONAL_KINDS",
    "WRITABLE_KINDS",
    "Answer",
    "HistoryEvent",
    "Kind",
    "LibraryImport",
    "MemoryRecord",
    "Page",
    "Scope",
    "ScopeIds",
    "SearchHit",
    "refuse_surrogates",
    "scope_id",
]

JSON: TypeAlias = Any
"""A JSON-serialisable value (the type of user metadata)."""

Kind = Literal["message", "fact", "insight", "profile", "trajectory", "experience", "tool_call", "tool_guide"]
KINDS: tuple[Kind, ...] = (
    "message", "fact", "insight", "profile", "trajectory", "experience", "tool_call", "tool_guide",
)  # fmt: skip
WRITABLE_KINDS: tuple[Kind, ...] = ("message", "fact", "insight")
"""What ``add`` stores. Trajectories and tool calls have their own calls (``add_trajectories``,
``record_tool_calls``); experiences, tool guides and profile statements are written by the consolidation worker
alone, so no caller can plant a lesson that every user of an agent reads (docs/reliability-and-security.md)."""
PERSONAL_KINDS: tuple[Kind, ...] = ("message", "fact", "insight", "profile")
"""What ``search`` looks in unless ``kinds`` names others: task memory (trajectories, experiences, tool calls and
guides) is only searched when asked for (docs/task-memory.md)."""
MAX_ID_CHARS = 512
_CONTROL = re.compile(r"[\x00-\x1f]")  # a control character (a search: 8x faster than a loop over the id)


class ScopeIds(TypedDict):
    """The scope keyword arguments of every engine call (``None`` does not constrain): ``**scope.ids()``."""

    user_id: str | None
    agent_id: str | None
    session_id: str | None


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

    @classmethod
    def of(
        cls, user_id: object = None, agent_id: object = None, session_id: object = None, *, required: bool = True
    ) -> Scope:
        """A scope from caller-given ids, checked the same way at every door: each id is None or a non-empty
        string of at most 512 printable characters; with ``required``, at least one is given. Raises
        ``ValidationError`` naming the field."""
        scope = cls(
            user_id=scope_id("user_id", user_id), agent_id=scope_id("agent_id", agent_id),
            session_id=scope_id("session_id", session_id),
        )  # fmt: skip
        if required and scope.is_empty():
            msg = "name at least one of user_id, agent_id or session_id: every memory belongs to a scope"
            field = "user_id"
            raise ValidationError(field, msg)
        return scope

    def ids(self) -> ScopeIds:
        """The ids as the keyword arguments of an engine call: ``memory.search(q, **scope.ids())``."""
        return {"user_id": self.user_id, "agent_id": self.agent_id, "session_id": self.session_id}


class HistoryEvent(BaseModel):
    """One change to a record: ``add``, ``update``, ``supersede`` or ``delete`` (invalidation); on a trajectory,
    ``reject``: an experience drawn from it that validation refused (``old_text``, with the reason in ``new_text``)."""

    record_id: str
    event: Literal["add", "update", "supersede", "delete", "reject"]
    at: datetime
    old_text: str | None = None
    new_text: str | None = None
    by: str | None = None  # the record that superseded this one, for ``supersede``


class MemoryRecord(BaseModel):
    """One memory: a raw message, a fact, an insight or a profile statement; for task memory a trajectory, an
    experience, a tool call or a tool guide."""

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
    visits: int = 0  # times retrieved into a context (with tiers.heat on; memadapt_core.scoring.heat)
    last_access: datetime | None = None
    archived: bool = False  # beyond tiers.knowledge_capacity: kept, left out of search and list by default
    metadata: dict[str, JSON] = Field(default_factory=dict)

    @property
    def scope(self) -> Scope:
        return Scope(user_id=self.user_id, agent_id=self.agent_id, session_id=self.session_id)


class SearchHit(BaseModel):
    """A record found by ``search``, its fused score and the score of each signal (``dense``, ``sparse``, boosts)."""

    record: MemoryRecord
    score: float
    scores: dict[str, float] = Field(default_factory=dict)


class LibraryImport(BaseModel):
    """What loading an experience library (ReMe's format) did: lines stored, lines already stored (by their
    ``memory_id``), personal memories skipped for naming no user, and the files read."""

    added: int = 0
    already_stored: int = 0
    skipped_personal: int = 0
    files: int = 0


class Answer(BaseModel):
    """What ``answer`` returns: the LLM's answer, the memories it was given (best first) and the latest turns of the
    session it saw, and the ids of the stored exchange (empty with ``remember=False``)."""

    answer: str
    memories: list[SearchHit] = Field(default_factory=list)
    recent: list[MemoryRecord] = Field(default_factory=list)
    stored: list[str] = Field(default_factory=list)


class Page(BaseModel):
    """One page of ``list``; pass ``next_cursor`` back for the next (None on the last page)."""

    records: list[MemoryRecord]
    next_cursor: str | None = None


def scope_id(field: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationError(field, f"must be a string, not {type(value).__name__}")
    if not value.strip():
        raise ValidationError(field, "must be a non-empty string")
    if len(value) > MAX_ID_CHARS or _CONTROL.search(value) is not None:
        raise ValidationError(field, f"must be at most {MAX_ID_CHARS} printable characters")
    return refuse_surrogates(field, value)


def refuse_surrogates(field: str, text: str) -> str:
    """A string that UTF-8 cannot encode (a lone surrogate, e.g. half an emoji cut from UTF-16) would fail
    later, in a hash or in the store, after part of the work is done: refuse it here."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            problem = f"has a surrogate code point ({text[exc.start]!r} at {exc.start}); give valid Unicode text"
            raise ValidationError(field, problem) from exc
    return text
