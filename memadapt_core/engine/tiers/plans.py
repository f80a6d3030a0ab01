"""The no-I/O half of the tiers the twins share: working memory (``recent``), the profile's records, and the
context block that places the profile and the latest turns before the recalled memories (docs/tiers.md)."""

from __future__ import annotations

from datetime import datetime

from memadapt_core.engine.planning import reads
from memadapt_core.engine.resources import Resources
from memadapt_core.engine.scope_guard import check_points
from memadapt_core.filters import FilterSpec
from memadapt_core.formatting import context_with_tiers
from memadapt_core.models import PERSONAL_KINDS, MemoryRecord, Scope, SearchHit
from memadapt_core.profile import UserProfile, assemble_profile, profile_scope
from memadapt_core.record_codec import iso, record_from_payload, utcnow
from memadapt_core.scoring.heat import just_visited_heat
from memadapt_core.validation import parse_kinds, parse_limit, parse_moment, parse_scope

__all__ = [
    "ProfilePlan", "context_with_tiers", "noted", "plan_profile", "plan_recent", "profile_filter", "recent_records",
    "write_visits",
]  # fmt: skip

PROFILE_MAX_STATEMENTS = 10_000  # every statement a profile ever had, valid or ended, read at once


def plan_recent(
    store: Resources, *, user_id: object, agent_id: object, session_id: object, limit: object,
    kinds: object = ("message",),
) -> tuple[FilterSpec, int]:  # fmt: skip
    """The records of a scope (its messages unless ``kinds`` says otherwise; None: every personal kind), newest
    first, and how many: ``limit`` or the working-memory capacity."""
    scope = parse_scope(user_id, agent_id, session_id)
    n = store.settings.tiers.working_memory if limit is None else parse_limit(limit, store.settings.max_limit)
    return reads.scope_filter(scope, kinds=parse_kinds(kinds) or PERSONAL_KINDS), n


def recent_records(r: Resources, flt: FilterSpec, n: int) -> list[MemoryRecord]:
    """The latest ``n`` records, oldest first: no search, one ordered scroll."""
    points = r.backend.scroll(flt, n, descending=True)
    check_points(flt, points)
    return [record_from_payload(p.id, p.payload) for p in reversed(points)]


def profile_filter(scope: Scope) -> FilterSpec:
    """Every statement (valid or ended) of exactly this profile scope."""
    return reads.scope_filter(scope, kinds=("profile",), exact_scope=True)


class ProfilePlan:
    """Whose profile, at which moment; ``finish`` assembles it from the statements read."""

    def __init__(self, scope: Scope, as_of: datetime | None) -> None:
        self.scope, self.as_of = scope, as_of
        self.flt = profile_filter(scope)
        self.limit = PROFILE_MAX_STATEMENTS

    def finish(self, r: Resources) -> UserProfile:
        points = r.backend.scroll(self.flt, self.limit)
        check_points(self.flt, points)
        return assemble_profile(self.scope, [record_from_payload(p.id, p.payload) for p in points], self.as_of)


def plan_profile(*, user_id: object, agent_id: object, as_of: object) -> ProfilePlan:
    scope = profile_scope(parse_scope(user_id, agent_id, None))
    return ProfilePlan(scope, None if as_of is None else parse_moment("as_of", as_of))


def noted(r: Resources, hits: list[SearchHit]) -> list[SearchHit]:
    """With ``tiers.heat`` on: count the hits' visits in memory (written later by ``write_visits``) and show each
    hit's heat in ``scores["heat"]``. No I/O: the search's latency does not change beyond a few dict operations."""
    if not r.settings.tiers.heat or not hits:
        return hits
    tiers = r.settings.tiers
    for hit, unwritten in zip(hits, r.access.note(hits, utcnow()), strict=True):
        hit.scores["heat"] = just_visited_heat(hit.record, unwritten, tiers)
    return hits


def write_visits(r: Resources) -> None:
    """Add the visits counted since the last write to the records' payloads (``visits``, ``last_access``), under
    the store lock; on a failure they are given back to be written next time."""
    visits = r.access.drain()
    if not visits:
        return
    try:
        with r.lock:
            stored = {p.id: p.payload for p in r.backend.retrieve(list(visits))}
            for rid, seen in visits.items():
                if rid in stored:  # deleted since: nothing to count
                    total = int(stored[rid].get("visits") or 0) + seen.count
                    r.backend.set_payload([rid], {"visits": total, "last_access": iso(seen.last)})
    except BaseException:
        r.access.give_back(visits)
        raise
