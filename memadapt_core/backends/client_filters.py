"""The backend-neutral ``FilterSpec`` as a qdrant-client filter. No I/O.

The twin of ``edge/filters.py``: the same conditions in qdrant-client's models.
"""

from __future__ import annotations

from typing import Any

from qdrant_client import models as qm

from memadapt_core.filters import FilterSpec
from memadapt_core.models import KINDS

__all__ = ["client_filter"]


def client_filter(flt: FilterSpec) -> qm.Filter:
    must: list[Any] = []
    must_not: list[Any] = []
    for key in ("user_id", "agent_id", "session_id"):
        value = getattr(flt, key)
        if value is not None:
            must.append(qm.FieldCondition(key=key, match=qm.MatchValue(value=value)))
    if flt.exact_scope:
        for k in ("user_id", "agent_id", "session_id"):
            if getattr(flt, k) is None:
                must.append(qm.IsEmptyCondition(is_empty=qm.PayloadField(key=k)))
    if flt.source_ids_any is not None:
        must.append(qm.FieldCondition(key="source_ids", match=qm.MatchAny(any=list(flt.source_ids_any))))
    if flt.kinds is not None:
        must.append(qm.FieldCondition(key="kind", match=qm.MatchAny(any=list(flt.kinds))))
    elif flt.user_id is None and flt.agent_id is None and flt.session_id is None:
        must.append(qm.FieldCondition(key="kind", match=qm.MatchAny(any=list[str](KINDS))))
    if flt.valid_only:
        must.append(qm.IsEmptyCondition(is_empty=qm.PayloadField(key="valid_to")))
    if flt.observed_from is not None or flt.observed_to is not None:
        rng = qm.DatetimeRange(gte=flt.observed_from, lt=flt.observed_to)
        must.append(qm.FieldCondition(key="observed_at", range=rng))
    if flt.valid_at is not None:
        must.append(qm.FieldCondition(key="observed_at", range=qm.DatetimeRange(lte=flt.valid_at)))
        must.append(
            qm.Filter(
                should=[
                    qm.IsEmptyCondition(is_empty=qm.PayloadField(key="valid_to")),
                    qm.FieldCondition(key="valid_to", range=qm.DatetimeRange(gt=flt.valid_at)),
                ]
            )
        )
    if flt.consolidated:
        must.append(qm.FieldCondition(key="consolidated", match=qm.MatchValue(value=1)))
    elif flt.consolidated is not None:  # not marked: 0, or absent (facts no reflection has taken)
        must_not.append(qm.FieldCondition(key="consolidated", match=qm.MatchValue(value=1)))
    if flt.archived:
        must.append(qm.FieldCondition(key="archived", match=qm.MatchValue(value=1)))
    elif flt.archived is not None:  # not archived: absent (memadapt_core.engine.tiers.archiving)
        must_not.append(qm.FieldCondition(key="archived", match=qm.MatchValue(value=1)))
    for cond in flt.metadata:
        key = f"metadata.{cond.key}"
        if cond.op == "eq":
            must.append(_eq(key, cond.value))
        elif cond.op == "ne":
            must_not.append(_eq(key, cond.value))
        elif cond.op == "in":
            must.append(qm.FieldCondition(key=key, match=qm.MatchAny(any=list(cond.value))))
        else:
            must.append(qm.FieldCondition(key=key, range=qm.Range(**{cond.op: float(cond.value)})))
    return qm.Filter(must=must, must_not=must_not or None)


def _eq(key: str, value: Any) -> Any:
    if isinstance(value, float) and (not value.is_integer() or abs(value) >= 2**63):  # not an int64: a range
        return qm.FieldCondition(key=key, range=qm.Range(gte=value, lte=value))
    if isinstance(value, float):
        value = int(value)
    return qm.FieldCondition(key=key, match=qm.MatchValue(value=value))
