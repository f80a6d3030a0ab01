"""The OpenAI-compatible LLM and embedder: where their key comes from, and a clear error when half-configured.

memadapt's own key wins; without it ``OPENAI_API_KEY`` is used (read when the client is built); a server with
neither gets a placeholder only when it has a ``base_url`` (a keyless local server). A model without an endpoint,
or an endpoint without a model, refuses to build instead of silently consolidating nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from memadapt_core import ConfigurationError, Memory, MemorySettings
from memadapt_core.config import EmbedderSettings
from memadapt_core.consolidation.llm_client import LLMClient
from memadapt_core.embedders.openai import OpenAIEmbedder

ENV_KEY = "sk-from-the-environment-DO-NOT-LEAK"
OWN_KEY = "sk-memadapt-own-DO-NOT-LEAK"
LOCAL = "http://127.0.0.1:9/v1"


@pytest.fixture(autouse=True)
def no_openai_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test sets what it needs; the developer's own OPENAI_* or MEMADAPT_* variables play no part."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "MEMADAPT_LLM__MODEL", "MEMADAPT_LLM__BASE_URL",
                 "MEMADAPT_LLM__API_KEY", "MEMADAPT_EMBEDDER__PROVIDER", "MEMADAPT_EMBEDDER__MODEL"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def env_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    return ENV_KEY


@contextlib.contextmanager
def _embedder(**settings: object) -> Iterator[OpenAIEmbedder]:
    embedder = OpenAIEmbedder(EmbedderSettings.model_validate({"provider": "openai", "dim": 8, **settings}))
    try:
        yield embedder
    finally:
        embedder.close()


# -- the LLM client ----------------------------------------------------------------------------------------------------
@pytest.mark.usefixtures("env_key")
def test_the_llm_client_falls_back_to_openai_api_key() -> None:
    with LLMClient(model="gpt-4o-mini") as client:
        assert client._client.api_key == ENV_KEY


@pytest.mark.usefixtures("env_key")
def test_the_llm_clients_own_key_wins_over_openai_api_key() -> None:
    with LLMClient(model="m", base_url=LOCAL, api_key=OWN_KEY) as client:
        assert client._client.api_key == OWN_KEY


def test_a_keyless_local_llm_server_gets_the_placeholder_key() -> None:
    with LLMClient(model="m", base_url=LOCAL) as client:
        assert client._client.api_key == "not-needed"


def test_the_llm_client_honours_openai_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", LOCAL)

    with LLMClient(model="m") as client:
        assert client.settings.base_url == LOCAL


def test_an_llm_client_with_a_model_but_no_endpoint_names_the_missing_setting() -> None:
    with pytest.raises(ConfigurationError, match=r"llm\.base_url"):
        LLMClient(model="gpt-4o-mini")


# -- the engine's LLM settings -----------------------------------------------------------------------------------------
@pytest.mark.usefixtures("env_key")
def test_a_model_and_openai_api_key_are_enough_to_consolidate() -> None:
    settings = MemorySettings(llm={"model": "gpt-4o-mini"})

    assert settings.llm.configured


@pytest.mark.usefixtures("env_key")
def test_the_environment_key_is_never_shown_by_the_settings() -> None:
    settings = MemorySettings(llm={"model": "gpt-4o-mini"})

    for text in (repr(settings), str(settings), settings.model_dump_json()):
        assert ENV_KEY not in text


@pytest.mark.usefixtures("env_key")
def test_an_unused_llm_does_not_pick_up_openai_api_key() -> None:
    settings = MemorySettings()

    assert (settings.llm.api_key, settings.llm.configured) == (None, False)


def test_a_memory_with_a_model_but_no_endpoint_refuses_to_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMADAPT_LLM__MODEL", "gpt-4o-mini")

    with pytest.raises(ConfigurationError, match=r"llm\.base_url.*OPENAI_API_KEY"):
        Memory(location=":memory:")


def test_a_memory_with_an_endpoint_but_no_model_refuses_to_build() -> None:
    with pytest.raises(ConfigurationError, match=r"llm\.model.*MEMADAPT_LLM__MODEL"):
        Memory(location=":memory:", llm={"base_url": LOCAL})


def test_a_half_configured_llm_error_does_not_echo_the_key() -> None:
    with pytest.raises(ConfigurationError) as err:
        Memory(location=":memory:", llm={"base_url": LOCAL, "api_key": OWN_KEY})

    assert OWN_KEY not in f"{err.value} {err.value!r} {err.value.__cause__}"


# -- the embedder ------------------------------------------------------------------------------------------------------
@pytest.mark.usefixtures("env_key")
def test_the_embedder_falls_back_to_openai_api_key() -> None:
    with _embedder(model="text-embedding-3-small") as embedder:
        assert embedder._client.api_key == ENV_KEY


@pytest.mark.usefixtures("env_key")
def test_the_embedders_own_key_wins_over_openai_api_key() -> None:
    with _embedder(model="e", api_key=SecretStr(OWN_KEY)) as embedder:
        assert embedder._client.api_key == OWN_KEY


def test_a_keyless_local_embedding_server_gets_the_placeholder_key() -> None:
    with _embedder(model="e", base_url=LOCAL) as embedder:
        assert embedder._client.api_key == "not-needed"


def test_the_openai_embedder_without_any_key_or_server_names_the_missing_setting() -> None:
    with pytest.raises(ConfigurationError, match=r"embedder\.api_key.*OPENAI_API_KEY"):
        OpenAIEmbedder(EmbedderSettings(provider="openai", model="text-embedding-3-small", dim=8))


def test_a_memory_with_the_openai_embedder_but_no_model_refuses_to_build() -> None:
    with pytest.raises(ConfigurationError, match=r"embedder\.model.*MEMADAPT_EMBEDDER__MODEL"):
        Memory(location=":memory:", embedder={"provider": "openai", "base_url": LOCAL})
