"""A message's dense vector carries a share of its neighbours' meaning (vectors/dense_context.py,
docs/architecture.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memadapt_core import Memory
from memadapt_core.vectors.dense_context import mix_turns

TURNS = [
    ("user", "Do you still go rock climbing on weekends?"),
    ("assistant", "Yes, every Saturday at the old quarry."),
    ("user", "My daughter Lea started violin lessons."),
    ("assistant", "That is lovely, how is she finding it?"),
]


def _messages() -> list[dict[str, Any]]:
    return [{"role": role, "content": text, "id": f"t{i}"} for i, (role, text) in enumerate(TURNS)]


def _stored(mem: Memory, records: list[Any]) -> np.ndarray[Any, Any]:
    vectors = mem.vectors([r.id for r in records], user_id="u1")
    return np.array([vectors[r.id] for r in records], dtype=np.float32)


def _unit(v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def _own(mem: Memory, texts: list[str]) -> np.ndarray[Any, Any]:
    return _unit(np.asarray(mem._resources.embedder.embed_documents(texts), dtype=np.float32))


@pytest.mark.parametrize("backend", ["edge", "qdrant-local"])
def test_a_session_added_turn_by_turn_stores_what_one_call_stores(backend: str) -> None:
    with Memory(location=":memory:", backend=backend) as whole, Memory(location=":memory:", backend=backend) as by_turn:
        together = whole.add(_messages(), user_id="u1", session_id="s1")
        one_by_one = [by_turn.add(m, user_id="u1", session_id="s1")[0] for m in _messages()]
        assert np.allclose(_stored(whole, together), _stored(by_turn, one_by_one), atol=1e-5)


def test_a_reply_is_stored_closer_to_the_question_it_answers_than_alone(memory: Memory) -> None:
    records = memory.add(_messages(), user_id="u1", session_id="s1")
    stored = _stored(memory, records)
    own = _own(memory, [text for _, text in TURNS])
    question = own[0]
    assert float(stored[1] @ question) > float(own[1] @ question)


def test_zero_shares_store_each_turns_own_meaning() -> None:
    retrieval = {"dense_context_prev": 0.0, "dense_context_next": 0.0}
    with Memory(location=":memory:", retrieval=retrieval) as mem:
        records = mem.add(_messages(), user_id="u1", session_id="s1")
        assert np.allclose(_stored(mem, records), _own(mem, [text for _, text in TURNS]), atol=1e-5)


def test_memories_outside_a_session_keep_their_own_meaning(memory: Memory) -> None:
    texts = [text for _, text in TURNS]
    records = memory.add(texts, user_id="u1", kind="fact")
    assert np.allclose(_stored(memory, records), _own(memory, texts), atol=1e-5)


def test_an_import_gives_a_session_the_vectors_its_adds_gave(tmp_path: Path) -> None:
    dump = tmp_path / "dump.jsonl"
    with Memory(location=":memory:") as source, Memory(location=":memory:") as target:
        records = [source.add(m, user_id="u1", session_id="s1")[0] for m in _messages()]
        source.export(dump, user_id="u1")
        target.import_(dump)
        assert np.allclose(_stored(source, records), _stored(target, records), atol=1e-5)


@pytest.mark.parametrize(("before", "after"), [(0.3, 0.2), (0.3, 0.0), (0.0, 0.2)])
def test_mixing_new_turns_one_call_or_one_at_a_time_agrees(before: float, after: float) -> None:
    rng = np.random.default_rng(7)
    own = rng.normal(size=(5, 8)).astype(np.float32)
    together, _ = mix_turns(own, None, before, after)
    stored: list[np.ndarray[Any, Any]] = []
    for row in own:
        mixed, changed = mix_turns(row[None, :], stored[-1] if stored else None, before, after)
        if changed is not None:
            stored[-1] = changed
        stored.append(mixed[0])
    assert np.allclose(together, np.array(stored), atol=1e-6)
