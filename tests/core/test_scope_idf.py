"""``retrieval.scope_idf``: how rare a word is, for BM25, counted in the searched scope's own memories (1: another
user's memories never change a user's ranking), in the whole store's (0), or half of each (the default: the mean
of the two BM25 scores)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from memadapt_core import Memory
from memadapt_core.backends.base import CollectionInfo, StoredPoint, VectorBackend
from memadapt_core.backends.client import QdrantClientBackend
from memadapt_core.backends.edge import EdgeBackend
from memadapt_core.filters import FilterSpec
from memadapt_core.testing import HashEmbedder
from memadapt_core.vectors.sparse import SparseVector

BUDGET, GARDEN, MEETING = 1, 2, 3
QUERY = SparseVector([BUDGET, GARDEN], [1.0, 1.0])
DENSE = np.array([1.0, 0.0], dtype=np.float32)

Opener = Callable[[float], VectorBackend]


@pytest.fixture(params=["edge", "qdrant-local"])
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    opened: list[VectorBackend] = []

    def open_backend(scope_idf: float) -> VectorBackend:
        folder = tmp_path / str(len(opened))
        be: VectorBackend = (
            EdgeBackend(folder, scope_idf=scope_idf)
            if request.param == "edge"
            else QdrantClientBackend(location=":memory:", scope_idf=scope_idf)
        )
        be.open_collection(CollectionInfo(name="c", embedder="test", dim=2))
        opened.append(be)
        return be

    yield open_backend
    for be in opened:
        be.close()


def _point(n: int, user: str, *terms: int) -> StoredPoint:
    return StoredPoint(
        f"00000000-0000-4000-8000-{n:012d}", {"user_id": user, "kind": "fact"}, DENSE,
        SparseVector(list(terms), [1.0] * len(terms)),
    )  # fmt: skip


def _alice_scores(backend: VectorBackend, limit: int = 10) -> dict[object, float]:
    _, sparse = backend.search(DENSE, QUERY, FilterSpec(user_id="alice"), limit)
    return dict(sparse)


def _scores_before_and_after_bob(backend: VectorBackend) -> tuple[dict[object, float], dict[object, float]]:
    # Alice: "budget" once, "garden" twice; then bob stores "budget" in thirty memories of his own.
    backend.upsert(
        [_point(1, "alice", BUDGET, MEETING), _point(2, "alice", GARDEN, MEETING), _point(3, "alice", GARDEN)]
    )
    before = _alice_scores(backend)
    backend.upsert([_point(100 + i, "bob", BUDGET) for i in range(30)])
    return before, _alice_scores(backend)


def test_counted_in_the_scope_alone_another_users_memories_do_not_change_a_users_scores(opener: Opener) -> None:
    before, after = _scores_before_and_after_bob(opener(1.0))
    assert after == pytest.approx(before)


def test_counted_in_the_store_alone_another_users_memories_change_a_users_scores(opener: Opener) -> None:
    before, after = _scores_before_and_after_bob(opener(0.0))
    assert after != pytest.approx(before)


def test_half_of_each_scores_the_mean_of_the_two_counts(opener: Opener) -> None:
    _, store_wide = _scores_before_and_after_bob(opener(0.0))
    _, scoped = _scores_before_and_after_bob(opener(1.0))
    _, mixed = _scores_before_and_after_bob(opener(0.5))
    assert mixed == pytest.approx({key: (store_wide[key] + scoped[key]) / 2 for key in store_wide})


def test_with_half_of_each_a_memory_first_by_either_count_is_a_candidate_with_its_cosine(opener: Opener) -> None:
    backend = opener(0.5)
    _scores_before_and_after_bob(backend)
    # With one candidate a list, the store-wide count ranks a "garden" memory first and alice's own count her
    # only "budget" memory: both come back, and each with its cosine (the dense request rescored both lists).
    dense, sparse = backend.search(DENSE, QUERY, FilterSpec(user_id="alice"), 1)
    assert len(sparse) == 2
    assert {key for key, _ in sparse} <= {key for key, _ in dense}


def test_the_setting_reaches_the_store_through_memory(tmp_path: Path) -> None:
    hits = {}
    for scope_idf in (0.0, 1.0):
        with Memory(
            path=tmp_path / str(scope_idf), embedder=HashEmbedder(dim=8),
            retrieval={"scope_idf": scope_idf, "dense_weight": 0.0},
        ) as mem:  # fmt: skip
            mem.add(["budget meeting", "garden meeting", "garden"], user_id="alice")
            mem.add([f"budget line {i}" for i in range(30)], user_id="bob")
            hits[scope_idf] = mem.search("budget garden", user_id="alice", threshold=0.0, limit=1)[0].record.text
    # Over the whole store "budget" is common (bob's thirty); in alice's memories it is her rarest word.
    assert hits[0.0].startswith("garden")
    assert hits[1.0] == "budget meeting"


def test_half_of_each_is_the_default() -> None:
    from memadapt_core.config import RetrievalSettings

    assert RetrievalSettings().scope_idf == 0.5


def test_an_older_qdrant_client_counts_in_the_whole_store_unless_the_scope_share_was_asked_for(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from qdrant_client import models as qm

    from memadapt_core.errors import ConfigurationError

    monkeypatch.delattr(qm, "IdfCorpusParams")  # as in qdrant-client before 1.19
    with Memory(backend="qdrant-local", location=":memory:", embedder=HashEmbedder(dim=8)) as mem:
        mem.add("budget meeting", user_id="alice")
        assert mem.search("budget", user_id="alice", threshold=0.0)
    assert "qdrant-client 1.19" in caplog.text
    with pytest.raises(ConfigurationError, match=r"retrieval\.scope_idf"):
        Memory(backend="qdrant-local", location=":memory:", embedder=HashEmbedder(dim=8), retrieval={"scope_idf": 1})
