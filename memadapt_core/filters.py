"""The filter model every read is restricted by, and the grammar of the ``filters=`` argument that builds it.

``FilterSpec`` is backend-neutral: each backend translates it to its client's filter. No I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from .errors import ValidationError
from .validation import INT64_MAX, INT64_MIN, refuse_surrogates

__all__ = ["FilterSpec", "MetaCondition", "MetaOp", "parse_filters", "scope_of"]

MetaOp = Literal["eq", "ne", "gt", "gte", "lt", "lte", "in"]


@dataclass(frozen=True)
class MetaCondition:
    """A condition on a key of the user's metadata (``metadata.<key>``)."""

    key: str
    op: MetaOp
    value: Any


@dataclass(frozen=True)
class FilterSpec:
    """What a read or delete is restricted to. Scope ids are exact matches; None leaves a field free."""

    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    kinds: tuple[str, ...] | None = None
    valid_only: bool = False
    observed_from: datetime | None = None  # inclusive
    observed_to: datetime | None = None  # exclusive
    valid_at: datetime | None = None  # "as of": valid_from <= t and (valid_to empty or valid_to > t)
    consolidated: bool | None = None  # True: marked 1; False: not marked (0 or absent)
    archived: bool | None = None  # True: archived (1); False: not archived (memadapt_core.engine.tiers.archiving)
    metadata: tuple[MetaCondition, ...] = ()
    exact_scope: bool = False  # scope ids given as None must be absent (consolidation works on exact scopes)
    source_ids_any: tuple[str, ...] | None = None  # records citing any of these (insights over facts)


def scope_of(flt: FilterSpec) -> FilterSpec:
    """Only the scope ``flt`` reads in (its user, agent and session): the corpus a per-scope statistic is counted
    over (BM25's word rarity with ``retrieval.scope_idf``), whatever else the read is restricted to."""
    return FilterSpec(
        user_id=flt.user_id, agent_id=flt.agent_id, session_id=flt.session_id, exact_scope=flt.exact_scope
    )


_OPS = {"$eq": "eq", "$ne": "ne", "$gt": "gt", "$gte": "gte", "$lt": "lt", "$lte": "lte", "$in": "in"}
# A metadata path as both Qdrant engines parse it: keys of letters, digits, "_" and "-", or any other key in
# double quotes (without quotes or backslashes in it), joined by dots, each optionally indexed ("tags[0]").
_PATH_KEY = r'(?:[\w-]+|"[^"\\]+")(?:\[[0-9]{0,9}\])*'
_FILTER_PATH = re.compile(rf"{_PATH_KEY}(?:\.{_PATH_KEY})*")


def parse_filters(filters: object) -> tuple[MetaCondition, ...]:
    """``{"key": value}`` or ``{"key": {"$gt": 3, ...}}`` on the user's metadata."""
    if filters is None:
        return ()
    if not isinstance(filters, Mapping):
        field = "filters"
        raise ValidationError(field, f"must be a dict, not {type(filters).__name__}")
    out: list[MetaCondition] = []
    for key, cond in filters.items():
        if not isinstance(key, str) or not key:
            field = "filters"
            raise ValidationError(field, "keys must be non-empty strings")
        refuse_surrogates("filters", key)
        if _FILTER_PATH.fullmatch(key) is None or not key.isprintable():
            field = "filters"
            problem = (
                f"key {key!r} is not a metadata path: use letters, digits, _ and - joined by dots (a.b), or put "
                'a key with other characters in double quotes (a."my key")'
            )
            raise ValidationError(field, problem)
        ops = cond if isinstance(cond, Mapping) else {"$eq": cond}
        for op, value in ops.items():
            if op not in _OPS:
                msg = f"filters.{key}"
                raise ValidationError(msg, f"unknown operator {op!r}; use {', '.join(_OPS)}")
            name = _OPS[op]
            _check_filter_value(f"filters.{key}.{op}", name, value)
            out.append(MetaCondition(key, name, value))  # type: ignore[arg-type]
    return tuple(out)


def _check_filter_value(field: str, op: str, value: object) -> None:
    if op in ("gt", "gte", "lt", "lte"):
        if isinstance(value, bool) or not isinstance(value, int | float) or not _finite(value):
            raise ValidationError(field, "range operators compare finite numbers")
    elif op == "in":
        if not isinstance(value, list | tuple) or not value:
            raise ValidationError(field, "$in takes a non-empty list")
        if not (
            all(isinstance(v, str) for v in value) or all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            raise ValidationError(field, "$in takes a list of strings or a list of integers")
        for v in value:
            _check_match_value(field, v)
    elif not isinstance(value, str | int | float | bool) or (isinstance(value, float) and not math.isfinite(value)):
        raise ValidationError(field, "equality compares a string, a number or a boolean")
    else:
        _check_match_value(field, value)


def _finite(number: float) -> bool:
    """Finite as a float: a range bound is compared as one (an int beyond 1.8e308 is not)."""
    try:
        return math.isfinite(float(number))
    except OverflowError:
        return False


def _check_match_value(field: str, value: object) -> None:
    if isinstance(value, str):
        refuse_surrogates(field, value)
    elif isinstance(value, int) and not isinstance(value, bool) and not INT64_MIN <= value <= INT64_MAX:
        raise ValidationError(field, f"integer {value} does not fit in 64 bits, so no stored value can equal it")
