"""What a delete takes with it: the insights, profile statements and lessons that rest only on deleted knowledge.

An insight cites the facts it was drawn from, a profile statement the facts and insights it sums up, an agent's
lesson (``experience``) the trajectories it was learned from (``source_ids``). A lesson is shared by the agent's
users, but one drawn only from a deleted user's runs goes with them: whatever the LLM kept of those runs, no other
user's data holds it up. Deleting a record removes it and its history; a derived record every source of which is gone
would keep the deleted text in other words, so it goes too, whether it is valid or already ended (a profile's
earlier versions are statements that ended): the profile changes and its history forgets the statement, as a
deleted fact's history goes with it. A derived record with one source left stays. Messages are not followed:
a fact cites the messages it came from, and deleting a message by id leaves the fact (deleting the session
deletes both). ``orphans`` decides without I/O; ``derived_of`` reads the store, under the lock the deletes hold.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Sequence

from memadapt_core.backends.base import StoredPoint
from memadapt_core.engine.resources import Resources
from memadapt_core.filters import FilterSpec

__all__ = ["DERIVED_KINDS", "delete_scope_with_derived", "derived_of", "orphans"]

DERIVED_KINDS = ("insight", "profile", "experience")
_CITABLE = ("fact", "insight", "trajectory")  # what a derived record cites


def _sources(point: StoredPoint) -> list[str]:
    return [str(s) for s in point.payload.get("source_ids") or ()]


def orphans(citing: Sequence[StoredPoint], gone: Collection[str], alive: Collection[str]) -> list[str]:
    """Of the records ``citing`` deleted ones, those none of whose sources is ``alive`` (``alive``: the sources
    not ``gone`` that still exist)."""
    return [p.id for p in citing if p.id not in gone and _sources(p) and not any(s in alive for s in _sources(p))]


def derived_of(r: Resources, deleted: Iterable[str]) -> list[str]:
    """The derived records that go with ``deleted``: transitively (a statement citing an insight that goes)."""
    gone = set(deleted)
    frontier = list(gone)
    found: list[str] = []
    while frontier:
        flt = FilterSpec(kinds=DERIVED_KINDS, source_ids_any=tuple(frontier))
        citing = [p for p in r.backend.scroll(flt, max(r.backend.count(flt), 1)) if p.id not in gone]
        others = {s for p in citing for s in _sources(p) if s not in gone}
        alive = {p.id for p in r.backend.retrieve(sorted(others))} if others else set()
        frontier = orphans(citing, gone, alive)
        gone.update(frontier)
        found += frontier
    return found


def delete_scope_with_derived(r: Resources, flt: FilterSpec) -> int:
    """Delete everything ``flt`` matches and the derived records resting only on it (those first: a crash in
    between leaves the knowledge, never a statement of what was deleted). Returns how many ``flt`` matched."""
    with r.lock:
        count = r.backend.count(flt)
        if not count:
            return 0
        knowledge = dataclasses.replace(flt, kinds=_CITABLE)
        cited = [p.id for p in r.backend.scroll(knowledge, max(r.backend.count(knowledge), 1))]
        derived = derived_of(r, cited) if cited else []
        if derived:
            r.backend.delete(derived)
        r.backend.delete_where(flt)
    return count
