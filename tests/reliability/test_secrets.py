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
            with pytest.warns(UserWarning, match="empty store"):  # ":memory:" stores cannot be reloaded
                dumped = memory.dump_component()
            with pytest.warns(UserWarning, match="empty store"):
                config = memory._to_config()
            assert_no_key(dumped.model_dump_json())
            assert_no_key(repr(dumped))
            assert_no_key(repr(config))
    finally:
        await own.close()
        await engine.close()


def test_a_langchain_retriever_serialises_without_the_key(all_logs: pytest.LogCaptureFixture) -> None:
    with Memory(location=":memory:", api_key=QDRANT_KEY, embedder={"api_key": EMBED_KEY}) as mem:
        retriever = MemadaptRetriever(memory=mem, user_id="alice")
        assert_no_key(repr(retriever))
        assert_no_key(json.dumps(dumpd(retriever), default=str))
        assert_no_key(repr(mem.settings))


# -- credentials inside a URL (https://user:password@host) ------------------------------------------------------------
URL_PASSWORD = "s3cret"


def _url_with_password(port: int) -> str:
    return f"http://user:{URL_PASSWORD}@127.0.0.1:{port}"


def _messages_of(exc: BaseException) -> str:
    """The message and repr of the error and of every exception chained to it (what a traceback prints of them)."""
    out, seen = [], set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        out += [str(current), repr(current)]
        current = current.__cause__ or current.__context__
    return "\n".join(out)


def test_an_unreachable_server_error_does_not_carry_the_password_of_its_url(
    closed_port: int, all_logs: pytest.LogCaptureFixture
) -> None:
    with _client_warnings_ignored(), pytest.raises(StoreUnavailableError) as err:
        Memory(url=_url_with_password(closed_port), timeout=1)
    assert "127.0.0.1" in str(err.value)  # it still says which server failed
    assert URL_PASSWORD not in _messages_of(err.value)
    assert URL_PASSWORD not in "\n".join(r.getMessage() for r in all_logs.records)


def test_the_cli_error_for_an_unreachable_server_does_not_carry_the_password(
    closed_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    from memadapt_core.cli import main

    with _client_warnings_ignored():
        code = main(["--url", _url_with_password(closed_port), "stats"])
    out, err = capsys.readouterr()
    assert code == 3
    assert "cannot reach Qdrant" in err
    assert URL_PASSWORD not in out + err


def test_settings_show_urls_without_their_credentials() -> None:
    settings = MemorySettings(
        url=_url_with_password(6333),
        embedder={"base_url": f"http://emb:{URL_PASSWORD}@127.0.0.1:1/v1"},
        llm={"base_url": f"http://llm:{URL_PASSWORD}@127.0.0.1:2/v1?api_key={URL_PASSWORD}", "model": "m"},
    )
    for shown in (repr(settings), str(settings), repr(settings.llm), str(settings.embedder)):
        assert URL_PASSWORD not in shown
        assert "127.0.0.1" in shown
    assert URL_PASSWORD not in settings.model_dump_json()
    assert settings.model_dump()["url"] == _url_with_password(6333)  # kept whole inside, as a SecretStr is


def test_stats_of_a_server_store_show_its_url_without_credentials() -> None:
    from memadapt_core.backends.client import QdrantClientBackend

    class _Info:
        points_count = 1

    class _Client:  # stands in for a reachable server: stats() needs one answer from it
        def get_collection(self, name: str) -> _Info:
            return _Info()

        def close(self) -> None:
            pass

    with _client_warnings_ignored():
        backend = QdrantClientBackend(url=_url_with_password(1))
        backend._client = _Client()  # type: ignore[assignment]
        stats = backend.stats()
    assert stats["where"] == "http://***@127.0.0.1:1"
    assert URL_PASSWORD not in repr(stats)


def test_the_openai_embedder_keeps_its_key_as_a_secret() -> None:
    from memadapt_core.config import EmbedderSettings
    from memadapt_core.embedders.openai import OpenAIEmbedder

    embedder = OpenAIEmbedder(
        EmbedderSettings(provider="openai", model="emb", dim=8, base_url="http://127.0.0.1:1/v1", api_key=EMBED_KEY)
    )
    try:
        own = {name: value for name, value in vars(embedder).items() if name not in ("_client", "_aclient")}
        assert_no_key(repr(own))
        assert embedder._client.api_key == EMBED_KEY  # read when the client was built, and used
    finally:
        embedder.close()
