"""The embedded store leaves the kind condition out of a scoped read that asks for every kind it holds (each
condition is checked point by point), and keeps it the moment a record of another kind is written."""

from __future__ import annotations

from pathlib import Path

from memadapt_core import Memory
from memadapt_core.backends.edge.filters import edge_filter
from memadapt_core.filters import FilterSpec
from memadapt_core.models import PERSONAL_KINDS
from tests._planted import plant

PERSONAL = FilterSpec(user_id="ann", kinds=PERSONAL_KINDS)


def _has_kind_condition(flt: FilterSpec, stored: frozenset[str] | None) -> bool:
    return "kind" in repr(edge_filter(flt, any_ended=False, any_archived=False, stored_kinds=stored))


def test_a_scoped_read_of_every_stored_kind_has_no_kind_condition() -> None:
    assert not _has_kind_condition(PERSONAL, frozenset({"message", "fact"}))


def test_a_read_that_leaves_out_a_stored_kind_keeps_the_condition() -> None:
    assert _has_kind_condition(PERSONAL, frozenset({"message", "experience"}))
    assert _has_kind_condition(FilterSpec(user_id="ann", kinds=("fact",)), frozenset({"message", "fact"}))


def test_unknown_stored_kinds_keep_the_condition() -> None:
    assert _has_kind_condition(PERSONAL, None)


def test_an_unscoped_read_keeps_the_condition_that_skips_the_info_point() -> None:
    unscoped = FilterSpec(kinds=PERSONAL_KINDS, exact_scope=True)
    assert _has_kind_condition(unscoped, frozenset({"message"}))


def test_a_record_of_a_new_kind_is_kept_out_of_reads_of_other_kinds(tmp_path: Path) -> None:
    with Memory(path=tmp_path) as mem:
        mem.add("I take the train to work", user_id="ann")
        assert mem.search("train to work", user_id="ann")  # the kinds are left out of this read's filter
        mem.add("I travel to work by train", user_id="ann", kind="fact")

        assert {h.record.kind for h in mem.search("train to work", user_id="ann", kinds=["message"])} == {"message"}

    with Memory(path=tmp_path) as mem:
        assert {h.record.kind for h in mem.search("train to work", user_id="ann", kinds=["message"])} == {"message"}
        assert {h.record.kind for h in mem.search("train to work", user_id="ann")} == {"message", "fact"}


def test_a_task_experience_never_comes_back_from_a_personal_search(tmp_path: Path) -> None:
    with Memory(path=tmp_path) as mem:
        mem.add("book the flight to Lisbon for March", user_id="ann")
        plant(mem, "booking a flight to Lisbon: check the date first", user_id="ann", kind="experience")

    with Memory(path=tmp_path) as mem:
        assert {h.record.kind for h in mem.search("flight to Lisbon", user_id="ann", limit=10)} == {"message"}
