"""Integer point ids for the embedded store: where a record lives, and where a new one goes. No I/O.

qdrant-edge hands each UUID point id back to Python as a ``uuid.UUID`` built by its Python constructor (~1.3 µs): a
search touched some 170 of them, about a fifth of its time. Integer ids come back as plain ints. So a record whose
id is a UUID lives at one of two integer *slots*, the two 64-bit halves of that UUID, and its payload keeps the
record id (``RID``). Reads check it; a write takes the slot already holding the record, or else the first free one.
Two records share a slot only when 64 bits of their ids collide (about once in 10^7 stores of a million records);
both slots of a record are taken by others only if that happens twice, and then the write is refused, not merged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from memadapt_core.backends.base import RECORD_ID

__all__ = ["INFO_SLOT", "RID", "home_slots", "place", "slot_map", "slots"]

RID = RECORD_ID  # the payload field holding the record id
INFO_SLOT = 0  # the collection's info point; no record lives there
_U64 = (1 << 64) - 1


def slots(record_id: str) -> tuple[int, ...]:
    """The slots a record may live at, in the order they are tried; none for an id that is not a UUID."""
    digits = record_id.replace("-", "")
    if len(digits) != 32:
        return ()
    try:
        n = int(digits, 16)
    except ValueError:
        return ()
    return tuple(dict.fromkeys(s for s in (n & _U64, n >> 64) if s != INFO_SLOT))


def slot_map(record_ids: Iterable[str]) -> dict[str, tuple[int, ...]]:
    """Each distinct record id's slots."""
    return {rid: slots(rid) for rid in dict.fromkeys(record_ids)}


def home_slots(taken: Mapping[int, object], candidates: Mapping[str, tuple[int, ...]]) -> dict[str, int]:
    """The slot of each record that is stored, given ``taken`` (slot -> the record id stored there) and
    ``candidates`` (record id -> its slots, from ``slot_map``)."""
    found: dict[str, int] = {}
    for rid, where in candidates.items():
        home = next((s for s in where if taken.get(s) == rid), None)
        if home is not None:
            found[rid] = home
    return found


def place(taken: Mapping[int, object], candidates: Mapping[str, tuple[int, ...]]) -> tuple[dict[str, int], list[str]]:
    """Where each record is written: the slot it is stored at, or the first slot free of other records (this batch
    included). Also the records that fit nowhere (both slots held by other records)."""
    found = home_slots(taken, candidates)
    claimed = set(found.values())
    homeless: list[str] = []
    for rid, where in candidates.items():
        if rid in found:
            continue
        free = next((s for s in where if s not in taken and s not in claimed), None)
        if free is None:
            homeless.append(rid)
        else:
            found[rid] = free
            claimed.add(free)
    return found, homeless
