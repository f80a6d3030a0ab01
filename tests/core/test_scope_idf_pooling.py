"""Token vectors pooled by their rarity in the scope (``embedder.pooling="scope_idf"``,
memadapt_core.vectors.token_stats)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from memadapt_core import AsyncMemory, ConfigurationError, Memory
from memadapt_core.config import EmbedderSettings, MemorySettings
from memadapt_core.embedders.base import Embedder, Vectors
from memadapt_core.embedders.wordllama import WordLlamaEmbedder
from memadapt_core.models import Scope
from memadapt_core.vectors.token_stats import ScopeTokenStats, TokenStats, key_of

TURNS = [
    "Maya: I moved to Berlin in May and the flat is lovely.",
    "Maya: My sister Ines visits from Porto next week.",
    "Maya: I adopted a beagle called Rocky.",
    "Maya: Rocky chewed my running shoes again.",
    "Maya: I play the cello in a community orchestra.",
]


def _ids(*rows: Sequence[int]) -> list[np.ndarray]:
    return [np.asarray(r, dtype=np.int64) for r in rows]


# -- the counts --------------------------------------------------------------------------------------------------


def test_a_token_in_every_text_of_the_scope_weighs_less_than_a_token_in_one() -> None:
    stats = TokenStats(vocab_size=10)
    stats.observe(_ids([1, 2], [1, 3], [1, 4]))
    w = stats.weights()
    assert w[1] < w[2] == w[3] == w[4]


def test_a_token_the_scope_never_saw_weighs_as_much_as_its_rarest() -> None:
    stats = TokenStats(vocab_size=10)
    stats.observe(_ids([1, 2], [1, 3]))
    w = stats.weights()
    assert w[9] == w[2] > w[1]


def test_every_weight_is_positive_even_for_an_empty_scope() -> None:
    assert (TokenStats(vocab_size=5).weights() > 0).all()


def test_a_token_counts_once_per_text_however_often_it_occurs() -> None:
    stats = TokenStats(vocab_size=5)
    stats.observe(_ids([1, 1, 1, 2]))
    assert stats.df[1] == stats.df[2] == 1


def test_scopes_are_counted_apart_and_the_least_recently_used_is_dropped() -> None:
    cache = ScopeTokenStats(vocab_size=5, capacity=2)
    for key in (("user", "a"), ("user", "b")):
        cache.load(key, _ids([1]))
    assert cache.weights(("user", "a"), _ids([2])) is not None  # a is now the most recent
    cache.load(("user", "c"), ())
    assert cache.weights(("user", "b")) is None  # dropped: it would have to be read again
    assert cache.weights(("user", "a")) is not None
    assert cache.weights(("user", "c")) is not None


def test_a_scope_is_counted_by_its_user_then_its_agent_then_its_session() -> None:
    assert key_of(Scope(user_id="u", agent_id="a", session_id="s")) == ("user", "u")
    assert key_of(Scope(agent_id="a", session_id="s")) == ("agent", "a")
    assert key_of(Scope(session_id="s")) == ("session", "s")


# -- the embedders -----------------------------------------------------------------------------------------------


def test_wordllama_with_equal_weights_pools_as_the_mean() -> None:
    emb = WordLlamaEmbedder()
    ones = np.ones(emb.vocab_size, dtype=np.float32)
    np.testing.assert_allclose(emb.embed_documents(TURNS, ones), emb.embed_documents(TURNS), atol=1e-5)


def test_minilm_with_equal_weights_pools_as_the_mean() -> None:
    from memadapt_core.embedders.minilm import MiniLMEmbedder

    emb = MiniLMEmbedder()
    ones = np.ones(emb.vocab_size, dtype=np.float32)
    np.testing.assert_allclose(emb.embed_documents(TURNS, ones), emb.embed_documents(TURNS), atol=1e-5)


def test_a_weighted_vector_leans_towards_its_heavy_tokens() -> None:
    emb = WordLlamaEmbedder()
    (ids,) = emb.token_ids(["Berlin lovely"])
    heavy = np.ones(emb.vocab_size, dtype=np.float32)
    heavy[ids[0]] = 100.0
    alone = emb.embed_documents(["Berlin"])[0]
    assert float(emb.embed_documents(["Berlin lovely"], heavy)[0] @ alone) > float(
        emb.embed_documents(["Berlin lovely"])[0] @ alone
    )


# -- the store ---------------------------------------------------------------------------------------------------


WEIGHED = {"provider": "wordllama", "pooling": "scope_idf"}


def _add_turns(mem: Memory, user: str = "maya") -> None:
    mem.add([{"role": "user", "content": t} for t in TURNS], user_id=user)


def test_a_new_store_pools_minilm_by_the_scope_and_wordllama_by_the_mean() -> None:
    with Memory(location=":memory:", embedder="minilm") as mem:
        assert mem.stats()["pooling"] == "scope_idf"
    with Memory(location=":memory:", embedder="wordllama") as mem:
        assert mem.stats()["pooling"] == "mean"


def test_wordllama_pools_by_the_scope_when_asked() -> None:
    with Memory(location=":memory:", embedder=WEIGHED) as mem:
        assert mem.stats()["pooling"] == "scope_idf"


def test_a_store_made_with_mean_pooling_keeps_it_when_reopened(tmp_path: Path) -> None:
    with Memory(path=str(tmp_path), embedder={"provider": "wordllama", "pooling": "mean"}) as mem:
        _add_turns(mem)
    with Memory(path=str(tmp_path), embedder="wordllama") as mem:
        assert mem.stats()["pooling"] == "mean"
        (rec,) = mem.add([{"role": "user", "content": "I love the cello."}], user_id="solo")
        stored = np.asarray(mem.vectors([rec.id])[rec.id])
    np.testing.assert_allclose(stored, WordLlamaEmbedder().embed_query("I love the cello."), atol=1e-5)


def test_asking_a_store_for_another_pooling_than_it_was_made_with_names_the_setting(tmp_path: Path) -> None:
    Memory(path=str(tmp_path), embedder={"provider": "wordllama", "pooling": "mean"}).close()
    with pytest.raises(ConfigurationError, match=r"embedder\.pooling"):
        Memory(path=str(tmp_path), embedder=WEIGHED)
    with Memory(path=str(tmp_path), embedder="wordllama") as mem:  # the refused open left the store usable
        assert mem.stats()["pooling"] == "mean"


class _Opaque(Embedder):
    name, dim = "opaque", 4

    def _embed(self, texts: Sequence[str]) -> Vectors:
        return np.ones((len(texts), 4), dtype=np.float32)


def test_an_embedder_that_cannot_weigh_its_tokens_pools_by_the_mean() -> None:
    with Memory(location=":memory:", embedder=_Opaque()) as mem:
        assert mem.stats()["pooling"] == "mean"


def test_scope_idf_pooling_asked_of_an_embedder_that_cannot_weigh_tokens_names_the_setting() -> None:
    asked = MemorySettings(location=":memory:", embedder=EmbedderSettings(pooling="scope_idf"))
    with pytest.raises(ConfigurationError, match=r"embedder\.pooling"):
        Memory(settings=asked, embedder=_Opaque())


def test_another_users_memories_leave_a_users_vectors_unchanged() -> None:
    with (
        Memory(location=":memory:", embedder=WEIGHED) as alone,
        Memory(location=":memory:", embedder=WEIGHED) as crowded,
    ):
        for i in range(30):
            crowded.add([{"role": "user", "content": f"Berlin Berlin flat lovely number {i}"}], user_id="other")
        a = alone.add([{"role": "user", "content": t} for t in TURNS], user_id="maya")
        b = crowded.add([{"role": "user", "content": t} for t in TURNS], user_id="maya")
        va, vb = alone.vectors([r.id for r in a]), crowded.vectors([r.id for r in b])
    for ra, rb in zip(a, b, strict=True):
        np.testing.assert_allclose(va[ra.id], vb[rb.id], atol=1e-6)


def test_a_reopened_store_weighs_a_query_as_before(tmp_path: Path) -> None:
    with Memory(path=str(tmp_path), embedder=WEIGHED) as mem:
        _add_turns(mem)
        before = [(h.record.id, h.scores["dense"]) for h in mem.search("beagle shoes", user_id="maya", threshold=0.0)]
    with Memory(path=str(tmp_path), embedder="wordllama") as mem:  # opened as it was made: no need to name it
        assert mem.stats()["pooling"] == "scope_idf"
        after = [(h.record.id, h.scores["dense"]) for h in mem.search("beagle shoes", user_id="maya", threshold=0.0)]
    assert [i for i, _ in after] == [i for i, _ in before]
    np.testing.assert_allclose([s for _, s in after], [s for _, s in before], atol=1e-6)


def test_an_import_embeds_with_the_scopes_weights_as_the_add_did(tmp_path: Path) -> None:
    dump = tmp_path / "dump.jsonl"
    with Memory(location=":memory:", embedder=WEIGHED) as mem:
        ids = [r.id for r in mem.add([{"role": "user", "content": t} for t in TURNS], user_id="maya")]
        mem.export(str(dump))
        want = mem.vectors(ids)
    with Memory(location=":memory:", embedder=WEIGHED) as mem:
        mem.import_(str(dump))
        got = mem.vectors(ids)
    for rid in ids:
        np.testing.assert_allclose(got[rid], want[rid], atol=1e-6)
    assert not np.allclose(want[ids[0]], WordLlamaEmbedder().embed_query(TURNS[0]), atol=1e-3)  # weighed, not mean


async def test_the_async_twin_pools_as_the_sync_one(tmp_path: Path) -> None:
    with Memory(location=":memory:", embedder=WEIGHED) as mem:
        _add_turns(mem)
        want = [(h.record.text, round(h.scores["dense"], 5)) for h in mem.search("my dog", user_id="maya")]
    async with AsyncMemory(location=":memory:", embedder=WEIGHED) as amem:
        await amem.add([{"role": "user", "content": t} for t in TURNS], user_id="maya")
        got = [(h.record.text, round(h.scores["dense"], 5)) for h in await amem.search("my dog", user_id="maya")]
    assert got == want


def test_a_qdrant_client_store_records_its_pooling_too(tmp_path: Path) -> None:
    made = {"path": str(tmp_path), "backend": "qdrant-local"}
    with Memory(**made, embedder=WEIGHED) as mem:
        _add_turns(mem)
    with Memory(**made, embedder="wordllama") as mem:
        assert mem.stats()["pooling"] == "scope_idf"


def test_query_vector_is_the_vector_search_compares_with_the_stored_ones() -> None:
    with Memory(location=":memory:", embedder=WEIGHED) as mem:
        _add_turns(mem)
        hits = mem.search("who visits from Porto?", user_id="maya", threshold=0.0)
        qvec = np.asarray(mem.query_vector("who visits from Porto?", user_id="maya"))
        stored = mem.vectors([h.record.id for h in hits])
        assert qvec.tolist() != WordLlamaEmbedder().embed_query("who visits from Porto?").tolist()  # weighed
    for hit in hits:
        assert float(qvec @ np.asarray(stored[hit.record.id])) == pytest.approx(hit.scores["dense"], abs=1e-5)


def test_weights_asked_for_without_new_texts_are_not_recomputed() -> None:
    cache = ScopeTokenStats(vocab_size=5, capacity=1)
    cache.load(("user", "a"), _ids([1]))
    assert cache.weights(("user", "a")) is cache.weights(("user", "a"), ())
