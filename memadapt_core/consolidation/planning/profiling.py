"""The profile update, without I/O: the user's (or agent's) profile statements rewritten from facts and insights.

The LLM sees the knowledge (valid facts and insights) numbered, and the current statements numbered with the
knowledge they cite; it answers new or rewritten statements, each in a section and citing knowledge by number,
and the statements that no longer hold. In code, whatever the answer: a statement all of whose sources ended
(superseded or invalidated facts) goes. Nothing is destroyed: a rewritten statement is superseded, an obsolete
one invalidated, so the profile's earlier versions stay readable (``profile(as_of=...)``).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from memadapt_core.consolidation.parsing import check_numbers
from memadapt_core.consolidation.planning.plan import (
    ConsolidationPlan,
    Invalidation,
    NewRecord,
    Supersession,
    normalise_text,
)
from memadapt_core.consolidation.planning.reflection import InsightAnswer
from memadapt_core.models import MemoryRecord, Scope
from memadapt_core.profile import SECTIONS, Section, section_of
from memadapt_core.record_codec import uuid5

__all__ = ["ProfileAnswer", "ProfileUpdate", "assemble_profile_update", "build_profile_update", "statement_id"]

_NAMESPACE = uuid.UUID("0b7e4a59-1c2d-5e3f-8a6b-9d0c1e2f3a4b")

SYSTEM_PROMPT = f"""\
You keep a profile of a person (or of an assistant, from what it learnt about itself): short statements in the \
sections {", ".join(SECTIONS)} (constraints: allergies, diets, limits, rules to follow). Each statement rests on \
the numbered knowledge ("sources") and names no one else's traits.
Current statements list the knowledge they cite ("based_on") and those of it no longer true ("outdated"). Rewrite \
a statement whose knowledge changed (a new statement with "replaces": [its number]); list it in "obsolete" when \
nothing supports it any more; add statements for knowledge no statement covers yet; leave the rest alone.
Write each statement in the same language as the knowledge it rests on; do not translate (Chinese knowledge gives \
Chinese statements; when it mixes languages, use the one it mostly uses). The section names stay exactly as listed.

Answer with one JSON object and nothing else:
{{"statements": [{{"section": "preferences", "text": "...", "sources": [0, 2], "replaces": []}}], "obsolete": []}}"""


class StatementAnswer(InsightAnswer):
    section: Section


class ProfileAnswer(BaseModel):
    """The schema of a profile update answer."""

    statements: list[StatementAnswer] = Field(default_factory=list)
    obsolete: list[int] = Field(default_factory=list)


def statement_id(scope: Scope, section: str, source_ids: Iterable[str], text: str) -> str:
    """The id of a profile statement: a replayed update lands on the same ids."""
    key = "\x1e".join(["profile", scope.key(), section, ",".join(sorted(set(source_ids))), normalise_text(text)])
    return uuid5(key, _NAMESPACE)


@dataclass(frozen=True)
class ProfileUpdate:
    """One profile update call (``messages`` None: nothing to ask, only statements to drop) and its parser."""

    scope: Scope
    knowledge: tuple[MemoryRecord, ...]
    statements: tuple[MemoryRecord, ...]
    ended_ids: frozenset[str]
    at: datetime
    messages: list[dict[str, str]] | None

    def parse(self, answer: Any) -> ConsolidationPlan:
        checked = ProfileAnswer.model_validate(answer)
        for index, item in enumerate(checked.statements):
            check_numbers(item.sources, len(self.knowledge), f"statements.{index}.sources", "knowledge")
            check_numbers(item.replaces, len(self.statements), f"statements.{index}.replaces", "statement")
        check_numbers(checked.obsolete, len(self.statements), "obsolete", "statement")
        known = {(section_of(s), normalise_text(s.text)) for s in self.statements}
        records: list[NewRecord] = []
        supersessions: list[Supersession] = []
        ended: set[str] = set()
        for item in checked.statements:
            sources = [self.knowledge[n].id for n in sorted(set(item.sources))]
            new_id = statement_id(self.scope, item.section, sources, item.text)
            replaced = [self.statements[n] for n in item.replaces if self.statements[n].id not in ended | {new_id}]
            if not replaced and (item.section, normalise_text(item.text)) in known:
                continue  # a statement already says this
            known.add((item.section, normalise_text(item.text)))
            for old in replaced:
                supersessions.append(Supersession(old_id=old.id, new_id=new_id, at=self.at))
                ended.add(old.id)
            records.append(
                NewRecord(
                    id=new_id,
                    text=item.text.strip(),
                    kind="profile",
                    observed_at=self.at,
                    valid_from=self.at,
                    source_ids=sources,
                    supersedes=replaced[0].id if replaced else None,
                    metadata={"section": item.section},
                )
            )
        obsolete = {self.statements[n].id for n in checked.obsolete}
        return self._plan(records, supersessions, ended, obsolete)

    def without_llm(self) -> ConsolidationPlan:
        """Only the statements whose knowledge all ended go (nothing new to ask about)."""
        return self._plan([], [], set(), set())

    def _plan(
        self, records: list[NewRecord], supersessions: list[Supersession], ended: set[str], obsolete: set[str]
    ) -> ConsolidationPlan:
        unsupported = {s.id for s in self.statements if s.source_ids and set(s.source_ids) <= self.ended_ids}
        invalidations = [
            Invalidation(old_id=s.id, at=self.at)
            for s in self.statements
            if s.id in (obsolete | unsupported) and s.id not in ended
        ]
        return ConsolidationPlan(
            scope=self.scope, records=records, supersessions=supersessions, invalidations=invalidations
        )


def build_profile_update(
    scope: Scope,
    knowledge: Sequence[MemoryRecord],
    statements: Sequence[MemoryRecord],
    ended: Sequence[MemoryRecord],
) -> ProfileUpdate:
    """The call over valid ``knowledge`` and the current ``statements``; ``ended``: facts statements cite that
    are no longer valid (shown as outdated; a statement resting only on them goes)."""
    number = {k.id: n for n, k in enumerate(knowledge)}
    outdated = {f.id: f for f in ended}
    moments = [k.observed_at for k in knowledge] + [f.valid_to for f in ended if f.valid_to is not None]
    moments += [s.valid_from or s.observed_at for s in statements]
    at = max(moments, key=lambda m: m.timestamp()) if moments else datetime.now().astimezone()
    payload = {
        "knowledge": [
            {"n": n, "kind": k.kind, "text": k.text, "true_since": (k.valid_from or k.observed_at).date().isoformat()}
            for n, k in enumerate(knowledge)
        ],
        "statements": [
            {
                "n": n,
                "section": section_of(s),
                "text": s.text,
                "based_on": [number[i] for i in s.source_ids if i in number],
                "outdated": [outdated[i].text for i in s.source_ids if i in outdated],
            }
            for n, s in enumerate(statements)
        ],
    }
    chat = None
    if knowledge:
        chat = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": json.dumps(payload, ensure_ascii=False)},
        ]
    return ProfileUpdate(scope, tuple(knowledge), tuple(statements), frozenset(outdated), at, chat)


def assemble_profile_update(
    scope: Scope,
    *,
    recent: Sequence[MemoryRecord],
    statements: Sequence[MemoryRecord],
    cited: Sequence[MemoryRecord],
    max_knowledge: int,
) -> ProfileUpdate:
    """The update over what the store returned: the newest knowledge, the knowledge current statements cite
    (valid or ended), and those statements."""
    pool: dict[str, MemoryRecord] = {}
    for record in [*recent, *cited]:
        if record.valid_to is None and record.kind in ("fact", "insight"):
            pool.setdefault(record.id, record)
    ended = [f for f in cited if f.valid_to is not None]
    return build_profile_update(scope, list(pool.values())[:max_knowledge], statements, ended)
