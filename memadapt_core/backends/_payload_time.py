"""Datetimes as stored in payloads: ISO 8601 in UTC, which both Qdrant engines index and range-filter."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["iso"]


def iso(moment: datetime) -> str:
    if moment.tzinfo is UTC:  # the usual case, on every write: no conversion
        return moment.isoformat()
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat()
