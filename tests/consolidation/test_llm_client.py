"""The consolidation LLM client over real HTTP: JSON answers validated, retries, fallbacks, usage counted."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from memadapt_core.config import LLMSettings
from memadapt_core.consolidation import AsyncLLMClient, LLMClient, MalformedAnswerError, extract_json
from memadapt_core.errors import ConfigurationError, LLMError
from memadapt_core.testing import Failure, Garbage, Hang, Reply, ScriptedLLMServer

ASK = [{"role": "user", "content": "say hi"}]


class Greeting(BaseModel):
    greeting: str


def greeting(answer: Any) -> str:
    return Greeting.model_validate(answer).greeting


async def test_a_valid_answer_comes_back_validated(llm_server: ScriptedLLMServer, llm: AsyncLLMClient) -> None:
    llm_server.push({"greeting": "hi"})

    assert await llm.complete_json("extract", ASK, greeting) == "hi"


async def test_json_mode_and_the_operation_are_sent(llm_server: ScriptedLLMServer, llm: AsyncLLMClient) -> None:
    llm_server.push({"greeting": "hi"})

    await llm.complete_json("reflect", ASK, greeting)

    request = llm_server.chat_requests()[0]
    assert request.json_mode
    assert request.operation == "reflect"
    assert request.body["model"] == "scripted"


async def test_an_endpoint_without_json_mode_gets_plain_prompts_and_fenced_json_is_read() -> None:
    fenced = 'Sure! Here it is:\n```json\n{"greeting": "hi"}\n```'
    with ScriptedLLMServer([fenced, fenced], json_mode_supported=False) as server:
        async with AsyncLLMClient(server.llm_settings(), backoff=0.0) as client:
            assert await client.complete_json("extract", ASK, greeting) == "hi"
            assert await client.complete_json("extract", ASK, greeting) == "hi"

        assert [r.json_mode for r in server.chat_requests()] == [True, False, False]


async def test_server_errors_and_rate_limits_are_retried(llm_server: ScriptedLLMServer, llm: AsyncLLMClient) -> None:
    llm_server.push(Failure(500), Failure(429, retry_after=0), {"greeting": "hi"})

    assert await llm.complete_json("extract", ASK, greeting) == "hi"
    assert llm.stats["extract"]["retries"] == 2
    assert llm.stats["extract"]["errors"] == 2


async def test_a_timeout_is_retried(llm_server: ScriptedLLMServer) -> None:
    llm_server.push(Hang(), {"greeting": "hi"})

    async with AsyncLLMClient(llm_server.llm_settings(timeout=0.2), backoff=0.0) as client:
        assert await client.complete_json("extract", ASK, greeting) == "hi"
    llm_server.release()


async def test_a_body_that_is_not_json_is_retried(llm_server: ScriptedLLMServer, llm: AsyncLLMClient) -> None:
    llm_server.push(Garbage(), {"greeting": "hi"})

    assert await llm.complete_json("extract", ASK, greeting) == "hi"


async def test_after_max_retries_an_llm_error_says_what_failed(
    llm_server: ScriptedLLMServer, llm: AsyncLLMClient
) -> None:
    llm_server.fail_next(5, Failure(503, "overloaded"))

    with pytest.raises(LLMError, match=r"extract: .* failed after 3 attempts: HTTP 503") as caught:
        await llm.complete_json("extract", ASK, greeting)

    assert not isinstance(caught.value, MalformedAnswerError)
    assert len(llm_server.chat_requests()) == 3  # the first try and max_retries=2 more
    assert "test" not in str(caught.value)  # the api key never shows


async def test_an_unauthorised_request_is_not_retried(llm_server: ScriptedLLMServer, llm: AsyncLLMClient) -> None:
    llm_server.push(Failure(401, "bad key"), {"greeting": "never asked"})

    with pytest.raises(LLMError, match="HTTP 401"):
        await llm.complete_json("extract", ASK, greeting)

    assert len(llm_server.chat_requests()) == 1


async def test_a_malformed_answer_is_asked_again_with_what_was_wrong(
    llm_server: ScriptedLLMServer, llm: AsyncLLMClient
) -> None:
    llm_server.push({"greting": "typo"}, {"greeting": "hi"})

    assert await llm.complete_json("extract", ASK, greeting) == "hi"

    retry = llm_server.chat_requests()[1].messages
    assert retry[-2] == {"role": "assistant", "content": '{"greting": "typo"}'}
    assert "greeting: Field required" in retry[-1]["content"]


async def test_an_answer_that_never_fits_raises_malformed_answer_error(
    llm_server: ScriptedLLMServer, llm: AsyncLLMClient
) -> None:
    llm_server.push("not json at all", "still not json", {"greeting": "too late"})

    with pytest.raises(MalformedAnswerError, match="no JSON object"):
        await llm.complete_json("reconcile", ASK, greeting)

    assert llm_server.remaining == 1  # parse_retries=1: two answers read, the third never asked for
    assert llm.stats["reconcile"]["malformed"] == 2
    assert llm.stats["reconcile"]["skipped"] == 1


async def test_usage_and_latency_are_counted_per_operation(llm_server: ScriptedLLMServer, llm: AsyncLLMClient) -> None:
    llm_server.push(
        Reply({"greeting": "a"}, prompt_tokens=100, completion_tokens=20),
        Reply({"greeting": "b"}, prompt_tokens=50, completion_tokens=5),
        Reply({"greeting": "c"}, prompt_tokens=1, completion_tokens=1),
    )

    await llm.complete_json("extract", ASK, greeting)
    await llm.complete_json("extract", ASK, greeting)
    await llm.complete_json("reflect", ASK, greeting)

    stats = llm.stats
    assert set(stats) == {"extract", "reflect"}
    assert (stats["extract"]["requests"], stats["extract"]["answers"]) == (2, 2)
    assert (stats["extract"]["prompt_tokens"], stats["extract"]["completion_tokens"]) == (150, 25)
    assert stats["extract"]["total_tokens"] == 175
    assert stats["extract"]["latency_s"] > 0
    assert stats["reflect"]["total_tokens"] == 2


def test_the_sync_client_behaves_like_the_async_one(llm_server: ScriptedLLMServer, sync_llm: LLMClient) -> None:
    llm_server.push(Failure(500), '```json\n{"greeting": "hi"}\n```')

    assert sync_llm.complete_json("extract", ASK, greeting) == "hi"
    assert sync_llm.stats["extract"]["retries"] == 1


def test_a_client_without_a_model_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match=r"llm\.model"):
        LLMClient(base_url="http://127.0.0.1:9/v1")


def test_constructor_arguments_override_settings() -> None:
    settings = LLMSettings(base_url="http://127.0.0.1:9/v1", model="a", timeout=60.0, max_retries=3)

    with LLMClient(settings, model="b", timeout=5.0) as client:
        assert (client.model, client.settings.timeout, client.settings.max_retries) == ("b", 5.0, 3)


def test_invalid_settings_name_the_field() -> None:
    with pytest.raises(ConfigurationError, match=r"llm\.timeout"):
        LLMClient(base_url="http://127.0.0.1:9/v1", model="m", timeout=-1.0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('<think>maybe {"a": 0}</think>\n{"a": 1}', {"a": 1}),
        ('Here you go: {"a": 1} -- done', {"a": 1}),
        ('```\n{"a": 1}\n```', {"a": 1}),
    ],
)
def test_json_is_found_in_what_endpoints_wrap_around_it(text: str, expected: Any) -> None:
    assert extract_json(text) == expected


def test_text_without_json_is_malformed() -> None:
    with pytest.raises(MalformedAnswerError):
        extract_json("I cannot help with that.")


async def test_a_bad_request_about_something_else_keeps_json_mode(
    llm_server: ScriptedLLMServer, llm: AsyncLLMClient
) -> None:
    llm_server.push(Failure(400, "maximum context length exceeded"))

    with pytest.raises(LLMError, match="HTTP 400"):
        await llm.complete_json("extract", ASK, greeting)

    assert llm.json_mode
    assert len(llm_server.chat_requests()) == 1


async def test_an_llm_error_names_its_server_without_the_password_in_its_url(llm_server: ScriptedLLMServer) -> None:
    llm_server.fail_next(1, Failure(401, "bad key"))
    url = llm_server.base_url.replace("http://", "http://bob:s3cret@")
    settings = LLMSettings(model="scripted", base_url=url, api_key="test", max_retries=0)

    async with AsyncLLMClient(settings) as client:
        with pytest.raises(LLMError) as caught:
            await client.complete_json("extract", ASK, greeting)

    assert "s3cret" not in str(caught.value)
    assert "127.0.0.1" in str(caught.value)
