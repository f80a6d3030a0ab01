"""The embedded store's schema on disk: the payload indexes a new store gets, its info point (where each schema
version keeps it), and moving a store of an older schema to the current one.

Schema 1 kept records at their UUID point ids and the info point at ``INFO_POINT_ID``; schema 2 keeps records at
integer slots (``slots.py``) and the info point at ``INFO_SLOT``. ``schema.py`` holds what both backends share.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import qdrant_edge as qe

from memadapt_core.backends.base import INFO_POINT_ID, CollectionInfo, stored_point
from memadapt_core.backends.edge.slots import INFO_SLOT, RID
from memadapt_core.backends.schema import INTEGER_INDEXES, KEYWORD_INDEXES, TENANT_INDEX, TIME_INDEXES, info_payload
from memadapt_core.errors import StoreFullError

if TYPE_CHECKING:
    from memadapt_core.backends.edge.store import EdgeStore

__all__ = ["INFO_IDS", "index_operations", "info_payload_in", "info_point", "move_to_slots"]

log = logging.getLogger("memadapt")
INFO_IDS = (INFO_SLOT, INFO_POINT_ID)  # where the info point is: now, and in stores made before integer ids


def index_operations() -> list[qe.UpdateOperation]:
    ops = [qe.UpdateOperation.create_field_index(TENANT_INDEX, qe.KeywordIndexParams(is_tenant=True))]
    ops += [qe.UpdateOperation.create_field_index(k, qe.PayloadSchemaType.Keyword) for k in KEYWORD_INDEXES]
    ops += [qe.UpdateOperation.create_field_index(k, qe.PayloadSchemaType.Datetime) for k in TIME_INDEXES]
    ops += [qe.UpdateOperation.create_field_index(k, qe.PayloadSchemaType.Integer) for k in INTEGER_INDEXES]
    return ops


def info_point(info: CollectionInfo) -> qe.Point:
    return qe.Point(INFO_SLOT, {}, info_payload(info))


def info_payload_in(records: Iterable[Any]) -> dict[str, Any] | None:
    """The info point's payload among ``records`` (those at ``INFO_IDS``): at slot 0, or where stores made before
    integer ids kept it."""
    pts = {p.id: p for p in records}
    found = pts.get(INFO_SLOT) or next(iter(pts.values()), None)
    return dict(found.payload or {}) if found is not None else None


def move_to_slots(backend: EdgeStore, info: CollectionInfo) -> None:
    """Stores made before integer point ids (schema 1) keep records at their UUIDs: move each to its slot, once.
    A crash part way loses nothing (a record is written at its slot before its old point goes) and the next
    open goes on. The records go through the backend's own writes, which place them and note them for upkeep."""
    log.warning("memadapt: moving the records of %s to integer point ids (once)", backend._folder)
    legacy = qe.Filter(must=[qe.IsEmptyCondition(RID)], must_not=[qe.HasIdCondition({INFO_SLOT, INFO_POINT_ID})])
    req = qe.ScrollRequest(limit=1000, filter=legacy, with_payload=True, with_vector=True)
    while True:
        recs, _ = backend._call(lambda s: s.scroll(req))
        if not recs:
            break
        backend.upsert([stored_point(str(r.id), r.payload, r.vector) for r in recs])
        backend._write(qe.UpdateOperation.delete_points([r.id for r in recs]), deleted=len(recs))
    backend._write_info(info)
    backend._write(qe.UpdateOperation.delete_points([INFO_POINT_ID]))
    try:  # every old point is a tombstone now
        backend.upkeep.run_now()
    except StoreFullError as exc:
        log.warning("memadapt: %s; it will vacuum later", exc)
