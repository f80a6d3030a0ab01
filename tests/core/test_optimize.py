"""``optimize()`` rewrites the embedded store's live points into one immutable segment, each tenant's points
together: searches find what they found before, and what changes afterwards (updates, deletes, new records) is read
back as it was written, also after reopening."""

from __future__ import annotations

from pathlib import Path

from memadapt_core import Memory
from memadapt_core.testing import HashEmbedder

USERS = ("alice", "bob", "carol")
TOPICS = ("cello lessons", "the garden fence", "a trip to Oslo", "tea and coffee", "the new manager", "marathon")


def _interleaved(mem: Memory, n: int) -> dict[str, list[str]]:
    """``n`` facts a user, written in turns across users, as a live store receives them."""
    ids: dict[str, list[str]] = {u: [] for u in USERS}
    for i in range(n):
        for k, user in enumerate(USERS):
            text = f"{user} said on day {i} something about {TOPICS[(i + k) % len(TOPICS)]} number {i * 7 % 13}"
            ids[user].append(mem.add(text, user_id=user, kind="fact")[0].id)
    return ids


def _results(mem: Memory) -> list[list[tuple[float, str]]]:
    """Each query's hits and scores; records of equal score in either order (the order of ties is not defined)."""
    out = []
    for user in USERS:
        for topic in TOPICS:
            hits = mem.search(f"what did I say about {topic}", user_id=user, limit=5)
            out.append(sorted((-round(h.score, 6), h.record.id) for h in hits))
    return out


def test_search_finds_the_same_records_before_and_after_optimize(tmp_path: Path) -> None:
    with Memory(path=tmp_path) as mem:
        _interleaved(mem, 40)
        before = _results(mem)

        mem.optimize()

        assert _results(mem) == before
        assert all(before)


def test_an_optimized_record_is_updated_in_place_of_its_old_text(tmp_path: Path) -> None:
    with Memory(path=tmp_path) as mem:
        rid = _interleaved(mem, 10)["alice"][3]
        mem.optimize()

        mem.update(rid, text="alice moved to Lisbon in March")

        assert mem.get(rid).text == "alice moved to Lisbon in March"
        hits = [h.record.id for h in mem.search("where did alice move", user_id="alice", limit=3)]
        assert hits[0] == rid
        assert [e.event for e in mem.history(rid)] == ["add", "update"]
        assert mem.count(user_id="alice") == 10


def test_an_optimized_record_deleted_is_gone(tmp_path: Path) -> None:
    with Memory(path=tmp_path) as mem:
        ids = _interleaved(mem, 10)
        mem.optimize()

        mem.delete(ids["bob"][0])
        mem.delete_all(user_id="carol")

        assert mem.get(ids["bob"][0]) is None
        assert mem.count(user_id="bob") == 9
        assert mem.count(user_id="carol") == 0
        assert mem.count(user_id="alice") == 10


def test_an_optimized_store_reopens_with_records_written_before_and_after(tmp_path: Path) -> None:
    with Memory(path=tmp_path) as mem:
        ids = _interleaved(mem, 10)
        mem.optimize()
        late = mem.add("alice adopted a grey cat called Miso", user_id="alice", kind="fact")[0].id

    with Memory(path=tmp_path) as mem:
        assert mem.count(user_id="alice") == 11
        assert {r.id for r in mem.list(user_id="alice", limit=100).records} == {*ids["alice"], late}
        assert mem.search("alice's cat", user_id="alice", limit=1)[0].record.id == late


def test_updating_optimized_records_leaves_at_most_one_tombstone_each() -> None:
    """An optimized segment cannot change a point in place: the first update marks it deleted and writes it anew to
    the appendable segment, where later updates change it in place."""
    with Memory(location=":memory:", embedder=HashEmbedder(dim=32), vacuum_after_deletes=0) as mem:
        ids = [r.id for r in mem.add([f"note {i}" for i in range(1500)], user_id="alice", kind="fact")]
        mem.optimize()

        for round_ in range(3):
            for i, rid in enumerate(ids):
                mem.update(rid, text=f"note {i}, revised {round_}")

        # dense and sparse of the 1500 points the optimization wrote, now dead, and the sparse index of their copies
        assert mem.stats()["indexed_vectors"] == 2 * 1500 + 1500
        mem.optimize()
        assert mem.stats()["indexed_vectors"] == 2 * 1500
        assert mem.get(ids[7]).text == "note 7, revised 2"


def _scan(mem: Memory, params: object) -> list[list[tuple[float, str]]]:
    """A dense request with the given search parameters, for a few queries: each one's hits and scores (ties in
    either order)."""
    import qdrant_edge as qe

    backend = mem._live().backend
    out = []
    for topic in TOPICS:
        vec = mem.query_vector(f"what did I say about {topic}", user_id="alice")
        req = qe.QueryRequest(limit=20, with_payload=False, params=params, query=qe.Query.Nearest(vec, using="dense"))
        hits = sorted((-round(p.score, 6), str(p.id)) for p in backend._call(lambda s, req=req: s.query(req)))
        cut = hits[-1][0]  # which of the records tied with the last one made the cut is not defined
        out.append([h if h[0] != cut else (cut, "tied") for h in hits])
    return out


def test_an_optimized_store_holds_int8_copies_and_search_rescores_them_exactly(tmp_path: Path) -> None:
    import qdrant_edge as qe

    with Memory(path=tmp_path) as mem:
        _interleaved(mem, 200)
        mem.optimize()

        exact = _scan(mem, qe.SearchParams(exact=True))
        int8_scores = _scan(mem, qe.SearchParams(quantization=qe.QuantizationSearchParams(rescore=False)))
        rescored = _scan(mem, mem._live().backend._dense_params)
        assert mem.stats()["dense_int8"] is True

    assert int8_scores != exact  # the int8 copies exist: unrescored, their scores are approximate
    assert rescored == exact


def test_int8_copies_leave_search_results_and_scores_as_without_them(tmp_path: Path) -> None:
    results = []
    for int8 in (True, False):
        with Memory(path=tmp_path / str(int8), dense_int8=int8) as mem:
            _interleaved(mem, 100)
            mem.optimize()
            results.append(_results(mem))

    assert results[0] == results[1]
    assert all(results[0])


def test_a_store_optimized_with_int8_copies_and_opened_without_them_scores_exactly(tmp_path: Path) -> None:
    import qdrant_edge as qe

    with Memory(path=tmp_path) as mem:
        _interleaved(mem, 200)
        mem.optimize()
        before = _results(mem)

    with Memory(path=tmp_path, dense_int8=False) as mem:
        assert mem.stats()["dense_int8"] is False
        assert _scan(mem, mem._live().backend._dense_params) == _scan(mem, qe.SearchParams(exact=True))
        assert _results(mem) == before


def test_a_store_without_int8_copies_gets_them_at_its_next_optimize(tmp_path: Path) -> None:
    import qdrant_edge as qe

    unrescored = qe.SearchParams(quantization=qe.QuantizationSearchParams(rescore=False))
    with Memory(path=tmp_path, dense_int8=False) as mem:
        _interleaved(mem, 200)
        mem.optimize()
        before = _results(mem)

    with Memory(path=tmp_path) as mem:
        assert _scan(mem, unrescored) == _scan(mem, qe.SearchParams(exact=True))  # no copies yet
        assert _results(mem) == before
        mem.optimize()
        assert _scan(mem, unrescored) != _scan(mem, qe.SearchParams(exact=True))
        assert _results(mem) == before
