"""The embedded store keeps records at integer point ids (the halves of their UUIDs), and moves older stores there."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import qdrant_edge as qe
from hypothesis import given
from hypothesis import strategies as st

from memadapt_core import Memory
from memadapt_core.backends.base import INFO_POINT_ID, StoredPoint
from memadapt_core.backends.edge.slots import INFO_SLOT, RID, home_slots, place, slot_map, slots
from memadapt_core.backends.schema import info_payload, read_schema
from memadapt_core.models import MemoryRecord
from memadapt_core.record_codec import HistoryCap, payload_of, utcnow
from memadapt_core.testing import HashEmbedder

LOW = 0x1234_5678_9ABC_DEF0


def _id(high: int, low: int = LOW) -> str:
    return str(uuid.UUID(int=(high << 64) | low))


A, B, C = _id(0xAAAA), _id(0xBBBB), _id(0xCCCC)  # the same low half: they collide at their first slot


def test_a_record_may_live_at_either_half_of_its_uuid() -> None:
    assert slots(A) == (LOW, 0xAAAA)


def test_an_id_that_is_not_a_uuid_has_no_slot() -> None:
    assert slots("not-a-uuid") == ()


def test_a_colliding_record_takes_its_second_slot() -> None:
    where, homeless = place({LOW: A}, slot_map([B]))
    assert where == {B: 0xBBBB}
    assert homeless == []


def test_records_colliding_within_one_batch_get_different_slots() -> None:
    where, _ = place({}, slot_map([A, B]))
    assert where == {A: LOW, B: 0xBBBB}


def test_a_stored_record_keeps_its_slot_when_written_again() -> None:
    where, _ = place({0xBBBB: B}, slot_map([B]))  # its first slot is free now, but it lives at the second
    assert where == {B: 0xBBBB}


def test_a_record_whose_slots_both_hold_others_fits_nowhere() -> None:
    x = _id(0xAAAA, 0x42)  # slots 0x42 and 0xAAAA: C and A are there
    where, homeless = place({0x42: C, 0xAAAA: A}, slot_map([x]))
    assert where == {}
    assert homeless == [x]


def test_a_slot_holding_another_record_is_not_a_records_home() -> None:
    assert home_slots({LOW: A}, slot_map([B])) == {}


# Few distinct halves, so that records collide often.
_half = st.integers(min_value=1, max_value=6)
_ids = st.lists(st.tuples(_half, _half).map(lambda hl: _id(hl[0], hl[1])), max_size=8)


@given(stored=_ids, batch=_ids)
def test_placing_never_moves_a_record_nor_puts_two_in_one_slot(stored: list[str], batch: list[str]) -> None:
    taken: dict[int, object] = {}
    for rid in stored:  # a store filled one record at a time
        where, _ = place(taken, slot_map([rid]))
        taken.update({slot: r for r, slot in where.items()})
    where, homeless = place(taken, slot_map(batch))
    assert set(where) | set(homeless) == set(batch)
    assert len(set(where.values())) == len(where)  # one record a slot
    homes = {r: slot for slot, r in taken.items()}
    for rid, slot in where.items():
        assert slot in slots(rid)
        assert taken.get(slot, rid) == rid  # a slot held by another record is never taken
        assert homes.get(rid, slot) == slot  # a stored record stays where it is
    for rid in homeless:
        assert all(taken.get(s) not in (None, rid) or s in where.values() for s in slots(rid))


def _point(rid: str, text: str) -> StoredPoint:
    now = utcnow()
    record = MemoryRecord(id=rid, text=text, user_id="u1", observed_at=now, created_at=now, updated_at=now)
    return StoredPoint(rid, payload_of(record, cap=HistoryCap(100)), HashEmbedder().embed_query(text), None)


@pytest.fixture
def colliding(tmp_path: Path) -> Iterator[Memory]:
    with Memory(path=tmp_path, embedder=HashEmbedder()) as mem:
        mem._resources.backend.upsert([_point(A, "alpha apples"), _point(B, "bravo bananas")])
        yield mem


def test_colliding_records_are_both_kept(colliding: Memory) -> None:
    assert colliding.get(A).text == "alpha apples"  # type: ignore[union-attr]
    assert colliding.get(B).text == "bravo bananas"  # type: ignore[union-attr]


def test_deleting_one_of_two_colliding_records_keeps_the_other(colliding: Memory) -> None:
    assert colliding.delete(A)
    assert colliding.get(A) is None
    assert colliding.get(B).text == "bravo bananas"  # type: ignore[union-attr]


def test_a_colliding_record_is_found_by_search_under_its_own_id(colliding: Memory) -> None:
    hits = colliding.search("bravo bananas", user_id="u1", threshold=0.0)
    assert [h.record.id for h in hits][:1] == [B]


def test_an_update_of_a_record_at_its_second_slot_stays_there(colliding: Memory) -> None:
    colliding.delete(A)  # its first slot is free now
    colliding.update(B, text="bravo blueberries")
    assert colliding.get(B).text == "bravo blueberries"  # type: ignore[union-attr]
    assert colliding.count(user_id="u1") == 1


def _make_legacy(folder: Path) -> None:
    """Rewrite a store into the layout of schema 1: records at their UUIDs, the info point at INFO_POINT_ID."""
    with Memory(path=folder) as mem:
        backend = mem._resources.backend
        shard = backend._shard
        info = backend.info
        assert shard is not None
        assert info is not None
        recs, _ = shard.scroll(qe.ScrollRequest(limit=1000, with_payload=True, with_vector=True))
        points = [r for r in recs if r.id != INFO_SLOT]
        old = [qe.Point(r.payload[RID], r.vector, {k: v for k, v in r.payload.items() if k != RID}) for r in points]
        payload = info_payload(info)
        payload["memadapt_info"]["schema"] = 1
        old.append(qe.Point(INFO_POINT_ID, {}, payload))
        shard.update(qe.UpdateOperation.upsert_points(old))
        shard.update(qe.UpdateOperation.delete_points([r.id for r in recs]))


def test_a_store_made_before_integer_ids_is_moved_on_open_and_loses_nothing(tmp_path: Path) -> None:
    with Memory(path=tmp_path) as mem:
        added = mem.add(["I adopted a cat named Miso", "my sister lives in Lisbon"], user_id="u1", session_id="s1")
        before = [(r.id, r.text) for r in mem.list(user_id="u1").records]
    _make_legacy(tmp_path)
    with Memory(path=tmp_path) as mem:
        assert [(r.id, r.text) for r in mem.list(user_id="u1").records] == before
        assert mem.search("where does my sister live", user_id="u1")[0].record.id == added[1].id
        assert mem.stats()["points"] == 2
        backend = mem._resources.backend
        assert read_schema(backend._info_payload() or {}) == 2
