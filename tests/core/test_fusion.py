"""Fusion gives every candidate both signals, and session diversity gathers an answer spread over sessions."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from memadapt_core import Memory
from memadapt_core.backends.base import CollectionInfo, StoredPoint, VectorBackend
from memadapt_core.backends.client import QdrantClientBackend
from memadapt_core.backends.edge import EdgeBackend
from memadapt_core.config import RetrievalSettings
from memadapt_core.filters import FilterSpec
from memadapt_core.scoring.ranking import QueryPlan, Ranked, boost, is_relevant
from memadapt_core.vectors.sparse import SparseVector


@pytest.fixture(params=["edge", "qdrant-local"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorBackend]:
    be: VectorBackend = EdgeBackend(tmp_path) if request.param == "edge" else QdrantClientBackend(location=":memory:")
    be.open_collection(CollectionInfo(name="c", embedder="test", dim=2))
    yield be
    be.close()


def test_a_candidate_found_only_by_its_words_gets_its_cosine_too(backend: VectorBackend) -> None:
    word = SparseVector([7], [1.0])
    near, worded = str(uuid.uuid4()), str(uuid.uuid4())
    backend.upsert([
        StoredPoint(near, {"user_id": "u", "kind": "fact"}, np.array([1.0, 0.0], dtype=np.float32)),
        StoredPoint(worded, {"user_id": "u", "kind": "fact"}, np.array([0.6, 0.8], dtype=np.float32), word),
    ])  # fmt: skip
    dense, sparse = backend.search(np.array([1.0, 0.0], dtype=np.float32), word, FilterSpec(user_id="u"), 1)
    cosines = dict(dense)
    assert len(sparse) == 1
    assert len(dense) == 2  # the best cosine, and the word match rescored
    assert sorted(round(c, 3) for c in cosines.values()) == [0.6, 1.0]


def test_a_search_with_a_threshold_keeps_every_hit_of_one_session(memory: Memory) -> None:
    texts = [f"batch seven item {i} alpha" for i in range(12)]
    memory.add(texts, user_id="ann", session_id="s1")
    hits = memory.search(texts[0], user_id="ann", limit=12, threshold=0.0)
    assert len(hits) == 12


def _ranked(scores: dict[str, float]) -> list[Ranked]:
    return [Ranked(key, score, {"fused": score}) for key, score in scores.items()]


def test_further_hits_from_one_session_give_way_to_a_close_match_from_another() -> None:
    cfg = RetrievalSettings(dense_weight=0.2, speaker_boost=0, session_prior=0, recency_boost=0, session_diversity=0.05)
    payloads = {"a1": {"session_id": "a"}, "a2": {"session_id": "a"}, "a3": {"session_id": "a"},
                "b1": {"session_id": "b"}}  # fmt: skip
    ranked = boost(_ranked({"a1": 0.90, "a2": 0.89, "a3": 0.88, "b1": 0.86}), payloads, QueryPlan("q"), cfg)
    assert [r.id for r in ranked] == ["a1", "b1", "a2", "a3"]
    assert [round(r.score, 2) for r in ranked] == [0.90, 0.86, 0.84, 0.78]


def test_diversity_never_makes_a_score_negative() -> None:
    cfg = RetrievalSettings(session_prior=0, recency_boost=0, session_diversity=0.5)
    payloads = {k: {"session_id": "a"} for k in ("a1", "a2", "a3")}
    ranked = boost(_ranked({"a1": 0.3, "a2": 0.2, "a3": 0.1}), payloads, QueryPlan("q"), cfg)
    assert [r.id for r in ranked] == ["a1", "a2", "a3"]
    assert min(r.score for r in ranked) == 0.0


def test_session_diversity_zero_keeps_the_plain_ranking() -> None:
    with Memory(location=":memory:", retrieval={"session_diversity": 0.0}) as plain:
        plain.add([f"I planted tomatoes in the garden on day {i}" for i in range(4)], user_id="ann", session_id="a")
        plain.add(["I planted tulips in the garden"], user_id="ann", session_id="b")
        hits = plain.search("what did I plant in the garden?", user_id="ann", limit=5, threshold=0.0)
        assert all("diversity" not in h.scores for h in hits)


def test_the_users_own_words_win_a_near_tie_with_the_assistants() -> None:
    cfg = RetrievalSettings(session_prior=0, recency_boost=0, session_diversity=0, assistant_weight=0.9)
    payloads = {"said": {"role": "user"}, "echoed": {"role": "assistant"}}
    ranked = boost(_ranked({"echoed": 0.80, "said": 0.78}), payloads, QueryPlan("q"), cfg)
    assert [r.id for r in ranked] == ["said", "echoed"]
    assert round(ranked[1].scores["assistant"], 3) == -0.08


def test_a_clearly_better_assistant_message_still_comes_first() -> None:
    cfg = RetrievalSettings(session_prior=0, recency_boost=0, session_diversity=0, assistant_weight=0.9)
    payloads = {"said": {"role": "user"}, "answered": {"role": "assistant"}}
    ranked = boost(_ranked({"answered": 0.9, "said": 0.5}), payloads, QueryPlan("q"), cfg)
    assert [r.id for r in ranked] == ["answered", "said"]


FLOORS = RetrievalSettings(floor_dense=0.3, floor_dense_with_sparse=0.25)


def test_a_word_in_common_counts_with_the_cosine_of_the_memory_that_has_it() -> None:
    dense = [("near", 0.28), ("worded", 0.27)]  # "worded" is a BM25 candidate, rescored by the dense vector
    assert is_relevant(dense, [("worded", 4.0)], FLOORS)


def test_a_word_in_one_memory_and_a_middling_cosine_with_another_is_not_relevant() -> None:
    dense = [("near", 0.28), ("worded", 0.07)]  # "vaccines train" against "I'm training for a marathon"
    assert not is_relevant(dense, [("worded", 4.0)], FLOORS)


def test_a_close_meaning_is_relevant_without_any_word_in_common() -> None:
    assert is_relevant([("near", 0.31)], [], FLOORS)
    assert not is_relevant([("near", 0.29)], [], FLOORS)
