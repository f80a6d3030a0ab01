"""With ``retrieval.idf_per_scope``, how rare a word is comes from the searched scope's own memories: another user's
memories never change a user's ranking. By default the whole store counts."""

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
from memadapt_core.sparse import SparseVector
from memadapt_core.testing import HashEmbedder

BUDGET, GARDEN, MEETING = 1, 2, 3
QUERY = SparseVector([BUDGET, GARDEN], [1.0, 1.0])
DENSE = np.array([1.0, 0.0], dtype=np.float32)

Opener = Callable[[bool], VectorBackend]


@pytest.fixture(params=["edge", "qdrant-local"])
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    opened: list[VectorBackend] = []

    def open_backend(per_scope: bool) -> VectorBackend:
        folder = tmp_path / str(len(opened))
        be: VectorBackend = (
            EdgeBackend(folder, idf_per_scope=per_scope)
            if request.param == "edge"
            else QdrantClientBackend(location=":memory:", idf_per_scope=per_scope)
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


def _alice_scores(backend: VectorBackend) -> dict[object, float]:
    _, sparse = backend.search(DENSE, QUERY, FilterSpec(user_id="alice"), 10)
    return dict(sparse)


def _scores_before_and_after_bob(backend: VectorBackend) -> tuple[dict[object, float], dict[object, float]]:
    # Alice: "budget" once, "garden" twice; then bob stores "budget" in thirty memories of his own.
    backend.upsert(
        [_point(1, "alice", BUDGET, MEETING), _point(2, "alice", GARDEN, MEETING), _point(3, "alice", GARDEN)]
    )
    before = _alice_scores(backend)
    backend.upsert([_point(100 + i, "bob", BUDGET) for i in range(30)])
    return before, _alice_scores(backend)


def test_with_idf_per_scope_another_users_memories_do_not_change_a_users_scores(opener: Opener) -> None:
    before, after = _scores_before_and_after_bob(opener(True))
    assert after == pytest.approx(before)


def test_by_default_word_rarity_is_counted_over_the_whole_store(opener: Opener) -> None:
    before, after = _scores_before_and_after_bob(opener(False))
    assert after != pytest.approx(before)


def test_the_setting_reaches_the_store_through_memory(tmp_path: Path) -> None:
    hits = {}
    for per_scope in (False, True):
        with Memory(
            path=tmp_path / str(per_scope), embedder=HashEmbedder(dim=8),
            retrieval={"idf_per_scope": per_scope, "dense_weight": 0.0},
        ) as mem:  # fmt: skip
            mem.add(["budget meeting", "garden meeting", "garden"], user_id="alice")
            mem.add([f"budget line {i}" for i in range(30)], user_id="bob")
            hits[per_scope] = mem.search("budget garden", user_id="alice", threshold=0.0, limit=1)[0].record.text
    # Over the whole store "budget" is common (bob's thirty); in alice's memories it is her rarest word.
    assert hits[False].startswith("garden")
    assert hits[True] == "budget meeting"
