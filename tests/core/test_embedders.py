"""Embedders: the offline default, an OpenAI-compatible server over real HTTP, failures that store nothing."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence

import numpy as np
import pytest

from memadapt_core import AsyncMemory, EmbeddingError, Memory
from memadapt_core.embedders.base import Embedder, Vectors
from memadapt_core.testing import Failure, HashEmbedder, ScriptedLLMServer


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(embedding_dim=48) as srv:
        yield srv


def test_the_default_embedder_is_minilm_with_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMADAPT_EMBEDDER__PROVIDER", raising=False)
    with Memory(location=":memory:") as mem:
        assert (mem.embedder.name, mem.embedder.dim) == ("minilm-l6-int8+use-m3", 384 + 512)


def test_the_fast_profile_embedder_is_wordllama_from_the_wheel() -> None:
    with Memory(location=":memory:", embedder="wordllama") as mem:
        assert (mem.embedder.name, mem.embedder.dim) == ("wordllama-l2_supercat", 256)


def test_the_default_embedder_points_where_wordllama_itself_does(memory: Memory) -> None:
    from pathlib import Path

    from memadapt_core.embedders.wordllama import _import_wordllama

    wordllama = _import_wordllama()
    own = wordllama.WordLlama.load(
        config="l2_supercat", cache_dir=Path(wordllama.__file__).parent, dim=256, disable_download=True
    )
    texts = ["I adopted a cat named Miso", "my sister lives in Lisbon", "what did Sam say about the marathon"]
    assert np.allclose(memory.embedder.embed_documents(texts), own.embed(texts, norm=True), atol=1e-6)


def test_a_batch_embeds_each_text_as_a_query_alone_would(memory: Memory) -> None:
    # More texts than one chunk of the batch path, and texts without a known token between them.
    texts = [f"note {i} about the trip to Kyoto" if i % 97 else "" for i in range(1200)]
    batch = memory.embedder.embed_documents(texts)
    alone = np.stack([memory.embedder.embed_query(t) for t in texts])
    assert np.allclose(batch, alone, atol=1e-6)


@pytest.mark.parametrize("embedder", ["minilm", "wordllama"])
def test_loading_an_offline_embedder_leaves_the_applications_logging_alone(embedder: str) -> None:
    # wordllama's import calls logging.basicConfig(level=INFO); a fresh process shows whether that leaks.
    code = (
        "import logging; from memadapt_core import Memory; "
        f"Memory(location=':memory:', embedder={embedder!r}).close(); "
        "root = logging.getLogger(); print(root.level, len(root.handlers))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == [str(logging.WARNING), "0"]


def test_vectors_are_unit_length_even_for_text_without_known_words() -> None:
    vecs = HashEmbedder(dim=8).embed_documents(["hello", "…"])
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0)


class _Constant(Embedder):
    """Embeds every text as the same raw row."""

    name, dim = "constant", 3

    def __init__(self, row: list[float]) -> None:
        self.row = row

    def _embed(self, texts: Sequence[str]) -> Vectors:
        return np.array([self.row] * len(texts), dtype=np.float32)


RAW_ROWS = [[3.0, 4.0, 0.0], [0.0, 0.0, 0.0], [np.nan, 1.0, 0.0], [np.inf, 1.0, 0.0], [1e30, 1e30, 0.0]]


@pytest.mark.parametrize("row", RAW_ROWS)
def test_a_query_is_normalised_and_repaired_as_a_row_of_a_batch_is(row: list[float]) -> None:
    embedder = _Constant(row)

    alone, in_batch = embedder.embed_query("q"), embedder.embed_documents(["a", "b"])[0]

    assert np.allclose(alone, in_batch, atol=1e-6)
    assert np.isclose(np.linalg.norm(alone), 1.0)


def test_openai_compatible_embedder_stores_and_finds(server: ScriptedLLMServer) -> None:
    with Memory(
        location=":memory:", embedder={"provider": "openai", "model": "scripted", "base_url": server.base_url}
    ) as mem:
        assert (mem.embedder.name, mem.embedder.dim) == ("openai-scripted", 48)
        mem.add("the launch code is tangerine", user_id="u1", kind="fact")
        assert mem.search("launch code", user_id="u1")[0].record.text == "the launch code is tangerine"
    assert any(r.path.endswith("/embeddings") for r in server.requests)


async def test_openai_embedder_is_natively_async(server: ScriptedLLMServer) -> None:
    async with AsyncMemory(
        location=":memory:", embedder={"provider": "openai", "model": "scripted", "base_url": server.base_url}
    ) as mem:
        await mem.add("async facts travel over http", user_id="u1", kind="fact")
        hits = await mem.search("facts over http", user_id="u1")
        assert hits[0].record.text == "async facts travel over http"


def test_a_dead_embedding_server_stores_nothing(server: ScriptedLLMServer) -> None:
    with Memory(
        location=":memory:", embedder={"provider": "openai", "model": "scripted", "base_url": server.base_url}
    ) as mem:
        mem.add("kept", user_id="u1")
        server.set_outage(Failure(status=500))
        with pytest.raises(EmbeddingError):
            mem.add(["lost one", "lost two"], user_id="u1")
        server.end_outage()
        assert [r.text for r in mem.list(user_id="u1").records] == ["kept"]


class Exploding(Embedder):
    name, dim = "exploding", 8

    def __init__(self) -> None:
        self.calls = 0

    def _embed(self, texts: Sequence[str]) -> Vectors:
        self.calls += 1
        if self.calls > 1:
            raise RuntimeError("GPU on fire")
        return np.ones((len(texts), self.dim), dtype=np.float32)


def test_an_embedder_failure_mid_add_is_an_embedding_error_and_stores_nothing() -> None:
    with Memory(location=":memory:", embedder=Exploding()) as mem:
        mem.add("first", user_id="u1")
        with pytest.raises(EmbeddingError, match="GPU on fire"):
            mem.add("second", user_id="u1")
        assert mem.count(user_id="u1") == 1


async def test_async_embedding_of_a_large_batch_leaves_the_loop_free() -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    async with AsyncMemory(location=":memory:") as mem:
        task = asyncio.create_task(ticker())
        await mem.add([f"note number {i} about the garden" for i in range(3000)], user_id="u1")
        task.cancel()
    assert ticks > 1


class _ThreadRecorder(Embedder):
    """Records the thread each batch is embedded on."""

    name, dim = "thread-recorder", 4

    def __init__(self, inline_batch: int) -> None:
        self.inline_batch = inline_batch
        self.threads: list[int] = []

    def _embed(self, texts: Sequence[str]) -> Vectors:
        self.threads.append(threading.get_ident())
        return np.ones((len(texts), self.dim), dtype=np.float32)


async def test_a_slow_cpu_embedder_never_runs_on_the_event_loop() -> None:
    slow = _ThreadRecorder(inline_batch=0)  # the default: a model whose one text takes milliseconds (MiniLM)
    await slow.aembed_query("where do I live?")
    assert slow.threads != [threading.get_ident()]


async def test_a_microsecond_embedder_runs_small_batches_inline() -> None:
    fast = _ThreadRecorder(inline_batch=32)  # WordLlama's: a thread would cost more than the work
    await fast.aembed_documents(["a", "b"])
    assert fast.threads == [threading.get_ident()]
