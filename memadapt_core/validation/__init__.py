"""Validation of everything a caller passes in. No I/O; each error names the field and changes nothing.

``values.py`` checks single values and JSON objects, ``messages.py`` the messages given to ``add``.
"""

from memadapt_core.models import refuse_surrogates
from memadapt_core.validation.messages import MessageInput, parse_messages
from memadapt_core.validation.values import (
    INT64_MAX,
    INT64_MIN,
    MAX_METADATA_DEPTH,
    RESERVED_METADATA_KEYS,
    check_storable,
    check_utc,
    fit_query,
    parse_json_object,
    parse_kind,
    parse_kinds,
    parse_limit,
    parse_metadata,
    parse_moment,
    parse_number,
    parse_path,
    parse_record_id,
    parse_record_ids,
    parse_scope,
    parse_speaker,
    parse_text,
    parse_time_range,
    parse_writable_kind,
    storable_line,
)

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "MAX_METADATA_DEPTH",
    "RESERVED_METADATA_KEYS",
    "MessageInput",
    "check_storable",
    "check_utc",
    "fit_query",
    "parse_json_object",
    "parse_kind",
    "parse_kinds",
    "parse_limit",
    "parse_messages",
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
