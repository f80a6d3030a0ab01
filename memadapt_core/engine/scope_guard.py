"""The last check before records leave the engine: every record a filtered read returned belongs to the scope it
asked for. No I/O.

The store's filters select a scope through its payload indexes; a corrupted index once handed bob's ``list`` and
``search`` alice's record. The engine does not trust that: each payload a scoped read returns is compared with the
scope's ids (three dictionary look-ups a record, ~0.1 µs), and one that does not match stops the call with
``StoreCorruptedError``, naming the recovery step, instead of returning anyone's memory to someone else.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from memadapt_core.backends.base import StoredPoint
from memadapt_core.errors import StoreCorruptedError
from memadapt_core.filters import FilterSpec

__all__ = ["check_payloads", "check_points", "corrupted"]

_KEYS = ("user_id", "agent_id", "session_id")


def _outside(flt: FilterSpec, payload: Mapping[str, Any]) -> bool:
    for key in _KEYS:
        want = getattr(flt, key)
        if want is None:
            if flt.exact_scope and payload.get(key) is not None:
                return True
        elif payload.get(key) != want:
            return True
    return False


def corrupted(what: str) -> StoreCorruptedError:
    return StoreCorruptedError(
        f"the store is corrupted: {what}. Nothing was returned. Run `memadapt doctor --path <path>` to see what "
        "is readable and salvage it into a new store (`--salvage <new path>`), or restore a backup."
    )


def check_points(flt: FilterSpec, points: Iterable[StoredPoint]) -> None:
    for p in points:
        if _outside(flt, p.payload):
            what = f"a read of one scope returned record {p.id} of another scope (a damaged index)"
            raise corrupted(what)


def check_payloads(flt: FilterSpec, payloads: Mapping[Any, Mapping[str, Any]]) -> None:
    for key, payload in payloads.items():
        if _outside(flt, payload):
            what = f"a search of one scope returned point {key} of another scope (a damaged index)"
            raise corrupted(what)
