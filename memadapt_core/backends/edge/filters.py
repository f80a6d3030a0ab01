"""The backend-neutral ``FilterSpec`` as a qdrant-edge filter. No I/O.

The twin of ``client_filters.py``: the same conditions in qdrant-edge's classes, with two differences. qdrant-edge
0.9 cannot match booleans, so a metadata condition on one is refused rather than matching nothing; and "still
valid" is left out while no record has ended (``any_ended``), and the kinds while every kind stored is one of them
(``stored_kinds``), since every condition is checked point by point: the kind condition alone made a 100k-memory
scope's dense scan 1.8x slower (4.5 against 2.5 ms with int8 copies, benchmarks/results/history.md).
"""

from __future__ import annotations

from typing import Any

import qdrant_edge as qe

from memadapt_core.errors import ValidationError
from memadapt_core.filters import FilterSpec
from memadapt_core.models import KINDS
from memadapt_core.record_codec import iso

__all__ = ["edge_filter"]


def edge_filter(
    flt: FilterSpec, *, any_ended: bool, any_archived: bool = True, stored_kinds: frozenset[str] | None = None
) -> qe.Filter:
    """``flt`` for qdrant-edge; ``any_ended``: whether any stored record may have a ``valid_to``; ``any_archived``:
    whether any may be archived (else "not archived" matches every record and is left out); ``stored_kinds``: every
    kind a stored record may have (None: any), so that a read of all of them and a scope leaves the kinds out (the
    info point, which has no kind, has no scope either)."""
    must: list[Any] = []
    must_not: list[Any] = []
    for key in ("user_id", "agent_id", "session_id"):
        value = getattr(flt, key)
        if value is not None:
            must.append(qe.FieldCondition(key, match=qe.MatchValue(value)))
    if flt.exact_scope:
        must += [qe.IsEmptyCondition(k) for k in ("user_id", "agent_id", "session_id") if getattr(flt, k) is None]
    if flt.source_ids_any is not None:
        must.append(qe.FieldCondition("source_ids", match=qe.MatchAny(list(flt.source_ids_any))))
    scoped = flt.user_id is not None or flt.agent_id is not None or flt.session_id is not None
    every_kind = stored_kinds is not None and scoped and stored_kinds <= set(flt.kinds or ())
    if flt.kinds is not None and not every_kind:
        must.append(qe.FieldCondition("kind", match=qe.MatchAny(list(flt.kinds))))
    if flt.valid_only and any_ended:
        must.append(qe.IsEmptyCondition("valid_to"))
    if flt.observed_from is not None or flt.observed_to is not None:
        rng = qe.RangeDateTime(
            gte=iso(flt.observed_from) if flt.observed_from else None,
            lt=iso(flt.observed_to) if flt.observed_to else None,
        )
        must.append(qe.FieldCondition("observed_at", range=rng))
    if flt.valid_at is not None:
        at = iso(flt.valid_at)
        must.append(qe.FieldCondition("observed_at", range=qe.RangeDateTime(lte=at)))
        must.append(
            qe.Filter(
                should=[
                    qe.IsEmptyCondition("valid_to"),
                    qe.FieldCondition("valid_to", range=qe.RangeDateTime(gt=at)),
                ]
            )
        )
    if flt.consolidated:
        must.append(qe.FieldCondition("consolidated", match=qe.MatchValue(1)))
    elif flt.consolidated is not None:  # not marked: 0, or absent (facts no reflection has taken)
        must_not.append(qe.FieldCondition("consolidated", match=qe.MatchValue(1)))
    if flt.archived:
        must.append(qe.FieldCondition("archived", match=qe.MatchValue(1)))
    elif flt.archived is not None and any_archived:  # not archived: absent (memadapt_core.engine.tiers.archiving)
        must_not.append(qe.FieldCondition("archived", match=qe.MatchValue(1)))
    for cond in flt.metadata:
        key = f"metadata.{cond.key}"
        if cond.op == "eq":
            must.append(_eq(key, cond.value))
        elif cond.op == "ne":
            must_not.append(_eq(key, cond.value))
        elif cond.op == "in":
            must.append(qe.FieldCondition(key, match=qe.MatchAny(list(cond.value))))
        else:
            must.append(qe.FieldCondition(key, range=qe.RangeFloat(**{cond.op: float(cond.value)})))
    # The info point has no scope and no kind; a read that names neither must still skip it.
    if flt.kinds is None and flt.user_id is None and flt.agent_id is None and flt.session_id is None:
        must.append(qe.FieldCondition("kind", match=qe.MatchAny(list[str](KINDS))))
    return qe.Filter(must=must, must_not=must_not or None)


def _eq(key: str, value: Any) -> Any:
    if isinstance(value, bool):
        # qdrant-edge 0.9 reads MatchValue(True) as the integer 1, so a stored boolean never matches: say so
        # instead of returning nothing.
        field = "filters"
        msg = f"{key}: the embedded store cannot match booleans (qdrant-edge 0.9); store 0/1 or a string instead"
        raise ValidationError(field, msg)
    if isinstance(value, float) and (not value.is_integer() or abs(value) >= 2**63):  # not an int64: a range
        return qe.FieldCondition(key, range=qe.RangeFloat(gte=value, lte=value))
    if isinstance(value, float):
        value = int(value)
    return qe.FieldCondition(key, match=qe.MatchValue(value))
