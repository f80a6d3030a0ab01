"""Hypothesis strategies for fuzzing: arbitrary unicode, huge and empty strings, NaN and infinities, deep and
cyclic structures, wrong types.

Known engine bugs are kept out of these inputs so each fails in one place only, its own strict xfail in
test_fuzz_known_bugs.py; drop an exclusion when its bug is fixed.
"""

from __future__ import annotations

import base64
import json
import math
from datetime import UTC, datetime
from typing import Any

from hypothesis import strategies as st

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)  # no lone surrogates: known bug
HUGE = st.sampled_from(["x" * 32_001, "word " * 7_000, " " * 50_000, "\x00", "", "   ", "\n\t"])
FLOATS = st.floats(allow_nan=True, allow_infinity=True)
INT64 = st.integers(-(2**63), 2**63 - 1)  # beyond int64 in a filter: known bug


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(depth):
        value = {"k": value}
    return value


def cyclic() -> dict[str, Any]:
    value: dict[str, Any] = {"a": 1}
    value["self"] = value
    return value


JSON_LEAF = st.none() | st.booleans() | INT64 | FLOATS | TEXT
JSON = st.recursive(
    JSON_LEAF, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3), max_leaves=8
)
GARBAGE = st.one_of(
    JSON,
    HUGE,
    st.binary(max_size=8),
    st.builds(object),
    st.sets(st.integers(), max_size=2),
    st.builds(cyclic),
    st.just(math.nan),
    st.just(-math.inf),
)
METADATA = st.one_of(
    st.none(),
    st.dictionaries(TEXT, JSON, max_size=4),
    st.integers(0, 120).map(nested),  # 127+ levels poison the scope: known bug
    st.builds(cyclic),
    st.sampled_from([{"user_id": "bob"}, {"id": "x"}, {1: "int key"}, {"v": math.nan}, {"v": "x" * 70_000}]),
    GARBAGE,
)
SCOPE_ID = st.one_of(st.none(), st.sampled_from(["u1", "u2", "agent", "s1"]), TEXT, HUGE, GARBAGE)
# Years 1900-2200: a moment near year 1 or 9999 with a time zone overflows: known bug.
MOMENT = st.one_of(
    st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1)),
    st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)),
    st.sampled_from(["2024-03-01T09:00:00Z", "2024-03-01", "yesterday", "2024-13-45", "", "0"]),
    st.integers(-(10**12), 10**12),
    FLOATS,
    GARBAGE,
)
MESSAGE = st.one_of(
    TEXT,
    HUGE,
    st.fixed_dictionaries(
        {"role": st.sampled_from(["user", "assistant", "", None, 3]), "content": TEXT | HUGE | GARBAGE},
        optional={
            "id": st.one_of(TEXT, st.integers(), st.booleans(), st.just("i" * 600)),
            "name": TEXT | GARBAGE,
            "timestamp": MOMENT,
            "metadata": METADATA,
            "bogus": JSON,
        },
    ),
    st.fixed_dictionaries({"role": st.just("user"), "content": st.lists(st.one_of(TEXT, JSON), max_size=3)}),
    GARBAGE,
)
MESSAGES = st.one_of(MESSAGE, st.lists(MESSAGE, max_size=4), st.just([]), GARBAGE)


def finite(value: Any) -> bool:
    return "NaN" not in json.dumps(value) and "Infinity" not in json.dumps(value)


KINDS = st.one_of(
    st.none(), st.sampled_from(["message", "fact", "insight", "nope", ["fact", "fact"], [], "", ("insight",)]), GARBAGE
)
FILTER_VALUE = st.one_of(TEXT, INT64, FLOATS, st.booleans(), st.lists(TEXT | INT64, max_size=3), GARBAGE)
FILTER_KEY = st.from_regex(r"[a-z_]{1,8}", fullmatch=True)  # other keys break Qdrant's path parser: known bug
FILTERS = st.one_of(
    st.dictionaries(
        FILTER_KEY,
        FILTER_VALUE | st.dictionaries(st.sampled_from(["$eq", "$ne", "$gt", "$in", "$lte", "$nope"]), FILTER_VALUE),
        max_size=2,
    ),
    GARBAGE,
)
LIMIT = st.one_of(st.integers(-5, 2000), st.booleans(), FLOATS, GARBAGE)
CURSORISH = (st.binary(max_size=40) | JSON.map(lambda v: json.dumps(v).encode())).map(
    lambda raw: base64.urlsafe_b64encode(raw).decode()
)  # decodes, then is not what the store made
RECORD_ID = st.one_of(st.uuids().map(str), TEXT, GARBAGE)  # a malformed id is a StoreError: known bug
ID_LISTS = st.lists(RECORD_ID, max_size=3) | TEXT  # a non-sequence is a TypeError: known bug
