"""Memory per call follows characters, not counts: the embedder is handed at most ``embed_batch_chars``
characters at a time, WordLlama sums at most a bounded slice of token vectors at once, and the payload cache is
bounded in bytes (``payload_cache_mb``)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from memadapt_core import Memory
from memadapt_core.backends.edge.payload_cache import PayloadCache
from memadapt_core.embedders.base import Vectors
from memadapt_core.testing import HashEmbedder
from memadapt_core.vectors.passages import char_batches


class RecordingEmbedder(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(dim=8)
        self.calls: list[int] = []  # characters per call

    def _embed(self, texts: Sequence[str]) -> Vectors:
        self.calls.append(sum(map(len, texts)))
        return super()._embed(texts)


def test_the_embedder_is_handed_at_most_embed_batch_chars_per_call(tmp_path: Path) -> None:
    embedder = RecordingEmbedder()
    with Memory(path=tmp_path, embedder=embedder, embed_batch_chars=5_000, passage_chars=1_000) as mem:
        records = mem.add(["x" * 900 + f" {i}" for i in range(40)], user_id="alice")

        assert len(records) == 40
        assert max(embedder.calls) <= 5_000
        assert sum(embedder.calls) >= 40 * 900  # every text was embedded


def test_batched_vectors_are_those_of_one_call(tmp_path: Path) -> None:
    texts = [f"note number {i} " * 30 for i in range(30)]
    with Memory(path=tmp_path / "a", embedder=HashEmbedder(dim=8), embed_batch_chars=1_000) as small:
        a = [r.id for r in small.add(texts, user_id="u")]
        hits_a = [h.record.id for h in small.search("note number 7", user_id="u", limit=3)]
    with Memory(path=tmp_path / "b", embedder=HashEmbedder(dim=8)) as whole:
        b = [r.id for r in whole.add(texts, user_id="u")]
        hits_b = [h.record.id for h in whole.search("note number 7", user_id="u", limit=3)]

    assert a == b
    assert hits_a == hits_b


def test_char_batches_cut_by_characters_and_count() -> None:
    texts = ["a" * 400, "b" * 400, "c" * 400, "d" * 2_000, "e"]

    assert char_batches(texts, 1_000) == [slice(0, 2), slice(2, 3), slice(3, 4), slice(4, 5)]
    assert char_batches(texts[:2], 1_000) == [slice(0, 2)]
    assert char_batches(["x"] * 5, 1_000, max_count=2) == [slice(0, 2), slice(2, 4), slice(4, 5)]


def test_wordllama_vectors_do_not_change_with_chunking() -> None:
    from memadapt_core.embedders import wordllama

    emb = wordllama.WordLlamaEmbedder()
    texts = ["short one", "🚀" * 9_000, "another short sentence about gardens"]
    together = emb.embed_documents(texts)
    alone = np.stack([emb.embed_documents([t])[0] for t in texts])

    assert np.allclose(together, alone, atol=1e-5)


def test_one_add_of_long_emoji_texts_stays_within_a_bounded_memory() -> None:
    # 16 texts of 32k emoji: 680 MiB over the baseline for 8 of them before the bound; now ~40 MiB for 64.
    script = (
        "import resource\n"
        "from memadapt_core import Memory\n"
        "m = Memory(location=':memory:')\n"
        "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "m.add([('😀🎉🚀' * 11000)[:32000] + f' {i}' for i in range(16)], user_id='u')\n"
        "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) // 1024)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True)

    assert int(done.stdout.strip()) < 300  # MiB above the opened store's peak


def test_the_payload_cache_is_bounded_in_bytes() -> None:
    cache = PayloadCache(size=1_000_000, max_bytes=200_000)
    big = {f"key{i}": "v" * 200 for i in range(50)}  # ~15 KB of metadata an entry

    cache.put((n, f"r{n}", {"text": "t", "metadata": big}) for n in range(100))

    assert cache.bytes <= 200_000
    assert 0 < len(cache) < 20
    assert sorted(cache.get(range(100))[0])[-1] == 99  # the newest are kept


def test_an_entry_heavier_than_an_eighth_of_the_cache_is_not_kept() -> None:
    cache = PayloadCache(size=10, max_bytes=80_000)

    cache.put([(1, "r1", {"text": "x" * 20_000}), (2, "r2", {"text": "short"})])

    assert list(cache.get([1, 2])[0]) == [2]


def test_forgetting_entries_gives_their_bytes_back() -> None:
    cache = PayloadCache(size=10)
    cache.put([(1, "r1", {"text": "x" * 1000}), (2, "r2", {"text": "y"})])

    cache.forget([1, 2])

    assert cache.bytes == 0
    assert len(cache) == 0


def test_a_store_honours_payload_cache_mb(tmp_path: Path) -> None:
    meta = {f"key{i}": "v" * 200 for i in range(50)}
    with Memory(path=tmp_path, embedder=HashEmbedder(dim=8), payload_cache_mb=1) as mem:
        mem.add([f"note {i}" for i in range(200)], user_id="alice", metadata=meta)
        cache = mem._resources.backend._cache  # type: ignore[attr-defined]

        assert cache.bytes <= 2**20
        assert mem.count(user_id="alice") == 200
