"""Validation of the values a caller passes in: scopes, ids, texts, kinds, limits, moments, and JSON objects the
store can keep. No I/O; each error names the field and changes nothing."""

from __future__ import annotations

import json
import math
import os
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast, get_args

from memadapt_core.errors import ValidationError
from memadapt_core.models import KINDS, MAX_ID_CHARS, WRITABLE_KINDS, Kind, Scope, refuse_surrogates

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "MAX_METADATA_DEPTH",
    "RESERVED_METADATA_KEYS",
    "check_storable",
    "check_utc",
    "fit_query",
    "parse_json_object",
    "parse_kind",
    "parse_kinds",
    "parse_limit",
    "parse_metadata",
    "parse_moment",
    "parse_number",
    "parse_path",
    "parse_record_id",
    "parse_record_ids",
    "parse_scope",
    "parse_speaker",
    "parse_text",
    "parse_time_range",
    "parse_writable_kind",
    "refuse_surrogates",
    "storable_line",
]

# Metadata is stored apart from system fields, but a key that names one is almost surely a mistake (or an
# attempt to move a record to another scope): refuse it instead of silently keeping two meanings.
RESERVED_METADATA_KEYS = frozenset(
    {
        "id", "user_id", "agent_id", "session_id", "kind", "hash", "external_id", "consolidated", "created_at",
        "updated_at", "observed_at", "valid_from", "valid_to", "supersedes", "superseded_by", "source_ids",
    }
)  # fmt: skip
_MAX_ID_CHARS = MAX_ID_CHARS
_MAX_METADATA_BYTES = 64_000
# Qdrant's payload decoder gives up at 128 levels, and a record it cannot decode poisons every read of its scope;
# 32 levels leave room for the payload around the metadata and are more than any real metadata needs.
MAX_METADATA_DEPTH = 32
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1  # Qdrant stores and matches integers as int64
_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def parse_scope(
    user_id: object = None, agent_id: object = None, session_id: object = None, *, required: bool = True
) -> Scope:
    """``Scope.of``: the one validation of scope ids (kept under this name for the planning modules)."""
    return Scope.of(user_id, agent_id, session_id, required=required)


def parse_record_id(value: object, field: str = "id") -> str | None:
    """A record id in the store's own spelling (a UUID), or None for a string that is not a UUID: no record can
    have it, so reads find nothing instead of sending the store an id it cannot parse."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(field, "must be a non-empty record id string")
    if _CANONICAL_UUID.fullmatch(value) is not None:  # already spelt as the store spells it (0.2 µs, not 1.7)
        return value
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None


def parse_record_ids(value: object, field: str = "ids") -> list[str]:
    """Record ids (a list, a tuple, a set...) as ``parse_record_id`` spells them, leaving out those that cannot
    exist. A str is refused, not taken for a list of one-character ids."""
    if isinstance(value, str | bytes | bytearray | Mapping) or not isinstance(value, Iterable):
        raise ValidationError(field, f"must be a list of record id strings, not {type(value).__name__}")
    found = (parse_record_id(item, f"{field}[{n}]") for n, item in enumerate(value))
    return [rid for rid in found if rid is not None]


def parse_path(value: object, field: str = "path") -> Path:
    """A file path the OS can be given: ``open()`` raises a bare ``ValueError`` for a NUL byte and a
    ``UnicodeEncodeError`` for a name the file system's encoding cannot spell."""
    if not isinstance(value, str | os.PathLike):
        raise ValidationError(field, f"must be a file path (str or os.PathLike), not {type(value).__name__}")
    try:
        raw = os.fsencode(value)
    except (TypeError, UnicodeEncodeError) as exc:
        raise ValidationError(field, f"cannot be a file name on this system ({exc})") from None
    if b"\0" in raw:
        raise ValidationError(field, "must not contain a NUL byte")
    return Path(os.fsdecode(raw))


def parse_text(field: str, value: object, max_chars: int) -> str:
    if not isinstance(value, str):
        raise ValidationError(field, f"must be a string, not {type(value).__name__}")
    text = value.strip()
    if not text:
        raise ValidationError(field, "must not be empty or whitespace")
    if len(text) > max_chars:
        raise ValidationError(field, f"has {len(text)} characters; the limit is {max_chars} (max_text_chars)")
    if "\x00" in text:
        raise ValidationError(field, "must not contain NUL characters")
    return refuse_surrogates(field, text)


def parse_speaker(field: str, value: object) -> str:
    """A speaker's role or name: a non-empty string of at most 512 characters (the limit of ids), which is far
    more than any role needs; a longer one is a mistake or an attack on the index and the rendered context."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(field, "must be a non-empty string")
    if len(value) > _MAX_ID_CHARS:
        raise ValidationError(field, f"has {len(value)} characters; the limit is {_MAX_ID_CHARS}")
    return refuse_surrogates(field, value)


def parse_kinds(kinds: object) -> tuple[Kind, ...] | None:
    if kinds is None:
        return None
    items = [kinds] if isinstance(kinds, str) else kinds
    if not isinstance(items, Sequence | set | frozenset) or not items:
        field = "kinds"
        raise ValidationError(field, f"must be a non-empty list of {', '.join(KINDS)}")
    out: list[Kind] = []
    for k in items:
        if k not in get_args(Kind):
            field = "kinds"
            raise ValidationError(field, f"unknown kind {k!r}; use {', '.join(KINDS)}")
        out.append(cast(Kind, k))
    return tuple(dict.fromkeys(out))


def parse_kind(kind: object) -> Kind:
    if kind not in get_args(Kind):
        field = "kind"
        raise ValidationError(field, f"unknown kind {kind!r}; use {', '.join(KINDS)}")
    return cast(Kind, kind)


def parse_writable_kind(kind: object) -> Kind:
    """A kind ``add`` may store (``WRITABLE_KINDS``); the others have their own writer, named in the error."""
    k = parse_kind(kind)
    if k not in WRITABLE_KINDS:
        field = "kind"
        problem = (
            f"{k!r} cannot be added: add stores {', '.join(map(repr, WRITABLE_KINDS))}; trajectories go through "
            "add_trajectories, tool calls through record_tool_calls, and experiences, tool guides and profile "
            "statements are written by consolidation only"
        )
        raise ValidationError(field, problem)
    return k


def parse_limit(limit: object, max_limit: int, field: str = "limit") -> int:
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise ValidationError(field, f"must be an integer, not {type(limit).__name__}")
    if limit <= 0:
        raise ValidationError(field, "must be at least 1")
    if limit > max_limit:
        raise ValidationError(field, f"must be at most {max_limit} (max_limit)")
    return limit


def parse_moment(field: str, value: object) -> datetime:
    """A datetime (naive = UTC), an ISO 8601 string, or a Unix timestamp in seconds."""
    if isinstance(value, datetime):
        return check_utc(field, value if value.utcoffset() is not None else value.replace(tzinfo=UTC))
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError as exc:
            raise ValidationError(field, f"{value!r} is not an ISO 8601 date-time") from exc
        return check_utc(field, parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC))
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:  # an int beyond float range (2**1100) overflows in isfinite itself
            if math.isfinite(value):
                return datetime.fromtimestamp(value, tz=UTC)
        except (OverflowError, OSError, ValueError) as exc:
            raise ValidationError(field, f"{_short(value)} is not a valid Unix timestamp") from exc
        raise ValidationError(field, f"{value!r} is not a valid Unix timestamp")
    raise ValidationError(field, f"must be a datetime or an ISO 8601 string, not {type(value).__name__}")


def parse_number(field: str, value: object, fix: str) -> float:
    """A finite int or float (not a bool) as a float: an int beyond float range (2**1100) is refused here instead
    of overflowing later. ``fix`` completes the message: what the caller may give instead."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if math.isfinite(number):
            return number
        raise ValidationError(field, f"{_short(value)} is not a finite number; {fix}")
    raise ValidationError(field, f"must be a finite number, not {type(value).__name__}; {fix}")


def _short(value: object) -> str:
    """A value for an error message, cut to 40 characters (an int of 2**1100 has 332 digits)."""
    text = (
        repr(value)
        if not isinstance(value, int) or value.bit_length() < 128
        else f"an integer of {value.bit_length()} bits"
    )
    return text if len(text) <= 40 else text[:37] + "..."


def check_utc(field: str, moment: datetime) -> datetime:
    """Moments are stored in UTC: one that is in range in its own time zone but not in UTC (1 January of year 1
    at +05:00, 31 December 9999 at -05:00) cannot be stored or compared."""
    try:
        moment.astimezone(UTC)
    except OverflowError as exc:
        raise ValidationError(field, f"{moment.isoformat()} is outside years 1-9999 once converted to UTC") from exc
    return moment


def parse_time_range(value: object) -> tuple[datetime | None, datetime | None] | None:
    if value is None:
        return None
    if not isinstance(value, tuple | list) or len(value) != 2:
        field = "time_range"
        raise ValidationError(field, "must be a (start, end) pair; either end may be None")
    start = None if value[0] is None else parse_moment("time_range[0]", value[0])
    end = None if value[1] is None else parse_moment("time_range[1]", value[1])
    if start is None and end is None:
        field = "time_range"
        raise ValidationError(field, "give a start, an end or both")
    if start is not None and end is not None and start >= end:
        field = "time_range"
        raise ValidationError(field, "start must be before end")
    return start, end


def parse_metadata(value: object, field: str = "metadata") -> dict[str, Any]:
    if value is None:
        return {}
    result = parse_json_object(field, value)
    for key in result:
        if key in RESERVED_METADATA_KEYS:
            msg = f"{field}.{key}"
            raise ValidationError(msg, "is a system field; choose another key")
    return result


def parse_json_object(field: str, value: object) -> dict[str, Any]:
    """A dict of JSON values, as a deep copy in plain JSON types, refused unless the store can keep it: finite
    numbers, no cycles, at most 64 kB as JSON, within the depth, integer and Unicode limits of ``check_storable``."""
    if not isinstance(value, Mapping):
        raise ValidationError(field, f"must be a dict, not {type(value).__name__}")
    if type(value) is dict and not value:  # nothing to check or copy (the round trip below costs ~4 µs)
        return {}
    for key in value:
        if not isinstance(key, str):
            raise ValidationError(field, f"keys must be strings, not {type(key).__name__}")
    try:
        encoded = json.dumps(value, allow_nan=False, check_circular=True)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValidationError(field, f"must be JSON-serialisable (finite numbers, no cycles): {exc}") from exc
    if len(encoded) > _MAX_METADATA_BYTES:
        raise ValidationError(field, f"is {len(encoded)} bytes as JSON; the limit is {_MAX_METADATA_BYTES}")
    result: dict[str, Any] = json.loads(encoded)  # a deep copy in plain JSON types
    _check_json(field, field, result, 1)
    return result


def check_storable(field: str, value: object) -> None:
    """Refuse what the store cannot keep in data that did not come through the parsers above (an import line):
    strings UTF-8 cannot encode, integers beyond int64, moments outside the UTC calendar, nesting too deep.

    A quick walk that names nothing goes first; only data it finds wrong is walked again by ``_check_json``, which
    names the field (naming every field on the way cost half of a bulk import's validation)."""
    if not _storable(value, 1):
        _check_json(field, field, value, 1)


_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")  # "\ud800": JSON's way to write half a character


def storable_line(line: str, values: Iterable[object]) -> bool:
    """True when ``check_storable`` would pass the ``values`` parsed from one JSON ``line``; False when it might not
    (then run it). A line that holds no surrogate, even escaped, gives only strings UTF-8 can encode, so they are
    not walked, nor moments of years 2-9998 (no time zone moves them out of the calendar): 3 -> 2 µs a line."""
    if _ESCAPED_SURROGATE.search(line) is not None or not (line.isascii() or _encodes(line)):
        return all(_storable(v, 1) for v in values)
    for v in values:
        kind = type(v)
        if kind in _PLAIN or (kind is datetime and 1 < cast(datetime, v).year < 9999):
            continue  # a moment a day or more inside years 1-9999 stays inside them in UTC
        if not _storable(v, 1):
            return False
    return True


_PLAIN = frozenset({str, bool, type(None)})


def _storable(value: object, depth: int) -> bool:
    """``_check_json``'s rules, without naming the field: True when it would raise nothing."""
    if isinstance(value, str):
        return value.isascii() or _encodes(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return INT64_MIN <= value <= INT64_MAX
    if isinstance(value, dict):
        if depth > MAX_METADATA_DEPTH:
            return False
        for key, item in value.items():
            if not (_storable(key if isinstance(key, str) else str(key), depth) and _storable(item, depth + 1)):
                return False
    elif isinstance(value, list):
        if depth > MAX_METADATA_DEPTH:
            return False
        for item in value:
            if not _storable(item, depth + 1):
                return False
    elif isinstance(value, datetime):
        try:
            (value if value.utcoffset() is not None else value.replace(tzinfo=UTC)).astimezone(UTC)
        except OverflowError:
            return False
    return True


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_json(root: str, field: str, value: object, depth: int) -> None:
    """What JSON allows but the store does not: nesting deeper than ``MAX_METADATA_DEPTH``, integers beyond
    int64, strings UTF-8 cannot encode (and, in data given as Python objects, moments outside UTC's years)."""
    if isinstance(value, datetime):
        check_utc(field, value if value.utcoffset() is not None else value.replace(tzinfo=UTC))
    elif isinstance(value, str):
        refuse_surrogates(field, value)
    elif isinstance(value, int) and not isinstance(value, bool):
        if not INT64_MIN <= value <= INT64_MAX:
            raise ValidationError(field, f"integer {value} does not fit in 64 bits; store it as a string")
    elif isinstance(value, dict | list):
        if depth > MAX_METADATA_DEPTH:
            raise ValidationError(root, f"is nested more than {MAX_METADATA_DEPTH} levels deep (the limit)")
        if isinstance(value, dict):
            for key, item in value.items():
                _check_json(root, f"{field}.{refuse_surrogates(field, str(key))}", item, depth + 1)
        else:
            for i, item in enumerate(value):
                _check_json(root, f"{field}[{i}]", item, depth + 1)


def fit_query(text: str, max_chars: int) -> str:
    """A conversation turn made fit to be a search query: a turn can be longer than the engine accepts (a pasted
    document) or carry NUL characters, and a memory must not break an agent's turn for that. Keeps the last
    ``max_chars`` characters, where the question usually is, drops NULs and replaces what UTF-8 cannot encode.
    Adapters call this; ``search`` itself stays strict."""
    if not text.isascii():
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text.replace("\x00", "").strip()[-max_chars:].strip()
