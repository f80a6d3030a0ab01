"""API keys never leak: not into logs (any logger, DEBUG and up), exception messages and their chained causes,
settings' repr or JSON, exports, nor component dumps (AutoGen ``dump_component``, LangChain serialisation)."""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import threading
import traceback
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.load import dumpd
from pydantic import SecretStr

from memadapt_autogen import MemadaptMemory
from memadapt_core import AsyncMemory, EmbeddingError, Memory, MemorySettings, StoreUnavailableError
from memadapt_core.testing import Failure, ScriptedLLMServer
from memadapt_langchain import MemadaptRetriever

from ._support import FactPerMessage, wait_until

QDRANT_KEY = "qdrant-key-DO-NOT-LEAK-7f3a"
EMBED_KEY = "sk-embed-DO-NOT-LEAK-91c2"
LLM_KEY = "sk-llm-DO-NOT-LEAK-5d0e"
KEYS = (QDRANT_KEY, EMBED_KEY, LLM_KEY)


def assert_no_key(text: str) -> None:
    for key in KEYS:
        assert key not in text
        assert key[-8:] not in text  # not even a tail of it


def everything_about(exc: BaseException) -> str:
    """The message, the repr and the whole formatted chain (causes and contexts), as a user would see them."""
    return f"{exc}\n{exc!r}\n" + "".join(traceback.format_exception(exc))


@pytest.fixture
def all_logs(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    with caplog.at_level(logging.DEBUG):
        yield caplog
    assert_no_key("\n".join(f"{r.name} {r.getMessage()} {r.args!r}" for r in caplog.records))


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def _client_warnings_ignored() -> Iterator[None]:
    """qdrant-client warns that a key over plain http is insecure, and (from a thread of its own) that it could
    not check the server's version; neither is what these tests look at."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Api key is used with an insecure connection", category=UserWarning)
        warnings.filterwarnings("ignore", message="Failed to obtain server version", category=UserWarning)
        yield
        wait_until(
            lambda: not any("_check_compatibility" in t.name for t in threading.enumerate()),
            timeout=30,
            message="qdrant-client's version check thread did not end",
        )


def test_settings_never_show_their_keys() -> None:
    settings = MemorySettings(
        location=":memory:", api_key=QDRANT_KEY, embedder={"api_key": EMBED_KEY}, llm={"api_key": LLM_KEY}
    )
    assert_no_key(repr(settings))
    assert_no_key(str(settings))
    assert_no_key(settings.model_dump_json())
    assert_no_key(json.dumps(settings.model_dump(mode="json")))


def test_an_unreachable_server_error_does_not_carry_the_key(
    closed_port: int, all_logs: pytest.LogCaptureFixture
) -> None:
    with _client_warnings_ignored(), pytest.raises(StoreUnavailableError) as err:
        Memory(url=f"http://127.0.0.1:{closed_port}", api_key=QDRANT_KEY)
    assert_no_key(everything_about(err.value))


async def test_an_embedding_server_failure_does_not_carry_the_key(all_logs: pytest.LogCaptureFixture) -> None:
    with ScriptedLLMServer(embedding_dim=64) as server:
        embedder = {"provider": "openai", "model": "emb", "base_url": server.base_url, "dim": 64,
                    "api_key": EMBED_KEY, "timeout": 1.0}  # fmt: skip
        async with AsyncMemory(location=":memory:", embedder=embedder) as mem:
            await mem.add("the key is used for this", user_id="alice")
            server.set_outage(Failure(401, f"invalid key (got {EMBED_KEY[:4]}...)"))
            with pytest.raises(EmbeddingError) as err:
                await mem.add("and refused for this", user_id="alice")
        sent = {r.headers.get("authorization") for r in server.requests}
    assert sent == {f"Bearer {EMBED_KEY}"}  # the key really was in play
    assert_no_key(everything_about(err.value))


def test_an_export_holds_no_key(tmp_path: Path, all_logs: pytest.LogCaptureFixture) -> None:
    with ScriptedLLMServer(responder=FactPerMessage(0)) as llm:
        settings = {"llm": llm.llm_settings(api_key=SecretStr(LLM_KEY)), "api_key": QDRANT_KEY}
        with Memory(location=":memory:", **settings) as mem:
            mem.add(["hello", "my key is not stored"], user_id="alice", session_id="s1")
            mem.flush()  # consolidated with the key: facts exist
            mem.export(tmp_path / "dump.jsonl")
        sent = {r.headers.get("authorization") for r in llm.requests}
    dump = (tmp_path / "dump.jsonl").read_text(encoding="utf-8")
    assert sent == {f"Bearer {LLM_KEY}"}
    assert '"kind": "fact"' in dump
    assert_no_key(dump)


async def test_an_autogen_memory_dump_holds_no_key(all_logs: pytest.LogCaptureFixture) -> None:
    own = MemadaptMemory(user_id="alice", location=":memory:", api_key=QDRANT_KEY)
    engine = AsyncMemory(location=":memory:", api_key=QDRANT_KEY)
    shared = MemadaptMemory(memory=engine, user_id="alice")
    try:
        for memory in (own, shared):
            dumped = memory.dump_component()
            assert_no_key(dumped.model_dump_json())
            assert_no_key(repr(dumped))
            assert_no_key(repr(memory._to_config()))
    finally:
        await own.close()
        await engine.close()


def test_a_langchain_retriever_serialises_without_the_key(all_logs: pytest.LogCaptureFixture) -> None:
    with Memory(location=":memory:", api_key=QDRANT_KEY, embedder={"api_key": EMBED_KEY}) as mem:
        retriever = MemadaptRetriever(memory=mem, user_id="alice")
        assert_no_key(repr(retriever))
        assert_no_key(json.dumps(dumpd(retriever), default=str))
        assert_no_key(repr(mem.settings))
