"""LangGraph's value filters, evaluated exactly in Python, and the part of them the engine can pre-select. No I/O.

The semantics are those of LangGraph's ``InMemoryStore`` (``_compare_values``), with JSON's equality instead of
Python's: a top-level filter key is a literal value key (``"a.b"`` is the key ``"a.b"``, not a path); a scalar or
a list matches only an equal value (a scalar never matches inside a list; lists match element by element, same
length); a nested dict without operators matches field by field; ``None`` matches null or a missing key;
``$eq``/``$ne`` compare whole values (``$ne`` matches a missing key); ``$gt $gte $lt $lte`` compare as numbers.
Where the two LangGraph stores part, this follows ``InMemoryStore`` except: ``True`` is not ``1`` (JSON, as
PostgresStore's ``jsonb``), and a range operator on a value that is not a number (missing, null, a list, a word)
does not match, where ``InMemoryStore`` raises and ``PostgresStore`` compares text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from memadapt_core import JSON, ValidationError

__all__ = ["check_filter", "json_equal", "pushdown", "value_matches"]

_RANGE = {"$gt", "$gte", "$lt", "$lte"}
_OPERATORS = _RANGE | {"$eq", "$ne"}
# A key the engine's metadata paths take unquoted; any other key stays out of the pre-selection.
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")


def json_equal(a: object, b: object) -> bool:
    """Equality of two JSON values: numbers by value (``1 == 1.0``), booleans only with booleans."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if type(a) is not type(b) and not (isinstance(a, str) and isinstance(b, str)):
        return False
    return a == b


def _number(value: object) -> float | None:
    """A value as LangGraph's range operators read it (``float(value)``), or None where that fails or is a bool."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        return float(value)
    except (ValueError, OverflowError):
        return None


def _is_operators(cond: Mapping[str, Any]) -> bool:
    return any(str(k).startswith("$") for k in cond)


def _apply(value: object, op: str, operand: object) -> bool:
    if op == "$eq":
        return json_equal(value, operand)
    if op == "$ne":
        return not json_equal(value, operand)
    left, right = _number(value), _number(operand)
    if left is None or right is None:
        return False
    if op == "$gt":
        return left > right
    if op == "$gte":
        return left >= right
    if op == "$lt":
        return left < right
    return left <= right  # $lte: check_filter let no other operator through


def _compare(value: object, cond: object) -> bool:
    if isinstance(cond, Mapping):
        if _is_operators(cond):
            return all(_apply(value, op, operand) for op, operand in cond.items())
        return isinstance(value, Mapping) and all(_compare(value.get(k), sub) for k, sub in cond.items())
    if isinstance(cond, list | tuple):
        return (
            isinstance(value, list | tuple)
            and len(value) == len(cond)
            and all(_compare(v, c) for v, c in zip(value, cond, strict=True))
        )
    return json_equal(value, cond)


def value_matches(value: Mapping[str, Any], flt: Mapping[str, Any] | None) -> bool:
    """Whether an item's value passes a LangGraph filter (every top-level condition)."""
    return not flt or all(_compare(value.get(key), cond) for key, cond in flt.items())


def check_filter(flt: object, field: str = "filter") -> None:
    """Refuse a filter LangGraph would refuse (an unknown ``$`` operator, a range bound that is not a number),
    before anything is read."""
    if flt is None:
        return
    if not isinstance(flt, Mapping):
        raise ValidationError(field, f"must be a dict of value conditions, not {type(flt).__name__}")
    for key, cond in flt.items():
        _check_condition(f"{field}.{key}", cond)


def _check_condition(field: str, cond: object) -> None:
    if isinstance(cond, Mapping):
        if not _is_operators(cond):
            for key, sub in cond.items():
                _check_condition(f"{field}.{key}", sub)
            return
        for op, operand in cond.items():
            if op not in _OPERATORS:
                raise ValidationError(field, f"unsupported operator {op!r}; use {', '.join(sorted(_OPERATORS))}")
            if op in _RANGE and _number(operand) is None:
                msg = f"{field}.{op}"
                raise ValidationError(msg, f"compares numbers, not {operand!r}")
    elif isinstance(cond, list | tuple):
        for i, sub in enumerate(cond):
            _check_condition(f"{field}[{i}]", sub)


def pushdown(flt: Mapping[str, Any] | None, root: str) -> dict[str, JSON]:
    """Engine metadata filters that select a superset of what ``value_matches`` keeps, under ``root`` (the path of
    the value in record metadata): only string equalities on plain keys, which the engine matches exactly (and
    also inside lists, which the exact check then drops). Numbers (``1`` against ``1.0``), booleans, null, lists
    and operators are left to the exact check."""
    out: dict[str, JSON] = {}
    pending = [(f"{root}.{key}", key, cond) for key, cond in (flt or {}).items()]
    while pending:
        path, key, cond = pending.pop()
        if not isinstance(key, str) or _PLAIN_KEY.fullmatch(key) is None:
            continue
        if isinstance(cond, Mapping) and not _is_operators(cond):
            pending += [(f"{path}.{k}", k, sub) for k, sub in cond.items()]
        elif isinstance(cond, str) and cond:
            out[path] = cond
    return out
