"""The scripted OpenAI-compatible server: real HTTP, answers from a script, failures on command."""

from __future__ import annotations

import json
import math
import socket
from collections.abc import Iterator

import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from memadapt_core.consolidation import OPERATION_HEADER
from memadapt_core.testing import (
    ChatRequest,
    Failure,
    Garbage,
    Hang,
    Reply,
    ScriptedLLMServer,
    hashed_embedding,
    serve_scripted_llm,
)

HELLO: list[ChatCompletionMessageParam] = [{"role": "user", "content": "hello"}]


@pytest.fixture
def client(llm_server: ScriptedLLMServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=llm_server.base_url, api_key="test", max_retries=0, timeout=2.0) as client:
        yield client


def ask(client: openai.OpenAI, operation: str | None = None) -> str | None:
    headers = {OPERATION_HEADER: operation} if operation else None
    answer = client.chat.completions.create(model="scripted", messages=HELLO, extra_headers=headers)
    return answer.choices[0].message.content


def test_answers_come_from_the_script_in_order(llm_server: ScriptedLLMServer, client: openai.OpenAI) -> None:
    llm_server.push("first", {"second": 2}, Reply("third", prompt_tokens=7, completion_tokens=3))

    assert [ask(client), json.loads(ask(client) or ""), ask(client)] == ["first", {"second": 2}, "third"]


def test_a_reply_reports_its_token_usage(llm_server: ScriptedLLMServer, client: openai.OpenAI) -> None:
    llm_server.push(Reply("ok", prompt_tokens=7, completion_tokens=3))

    usage = client.chat.completions.create(model="scripted", messages=HELLO).usage

    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (7, 3, 10)


def test_a_responder_answers_from_the_request_once_the_script_is_empty(client: openai.OpenAI) -> None:
    def echo(request: ChatRequest) -> str:
        return f"{request.operation}: {request.user}"

    with ScriptedLLMServer(["scripted first"], responder=echo) as server:
        other = openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0)
        with other:
            assert ask(other, "extract") == "scripted first"
            assert ask(other, "extract") == "extract: hello"


def test_an_exhausted_script_answers_500_saying_so(client: openai.OpenAI) -> None:
    with pytest.raises(openai.InternalServerError, match="script is exhausted"):
        ask(client)


def test_fail_next_fails_the_next_requests_then_the_script_goes_on(
    llm_server: ScriptedLLMServer, client: openai.OpenAI
) -> None:
    llm_server.push("after the failures")
    llm_server.fail_next(2)

    for _ in range(2):
        with pytest.raises(openai.InternalServerError):
            ask(client)
    assert ask(client) == "after the failures"


def test_a_rate_limit_answers_429_with_retry_after(llm_server: ScriptedLLMServer, client: openai.OpenAI) -> None:
    llm_server.push(Failure(429, "slow down", retry_after=1.5))

    with pytest.raises(openai.RateLimitError) as caught:
        ask(client)

    assert caught.value.response.headers["retry-after"] == "1.5"


def test_a_hang_makes_the_client_time_out(llm_server: ScriptedLLMServer) -> None:
    llm_server.push(Hang())

    with openai.OpenAI(base_url=llm_server.base_url, api_key="t", max_retries=0, timeout=0.2) as impatient:
        with pytest.raises(openai.APITimeoutError):
            ask(impatient)
        llm_server.release()


def test_garbage_answers_a_body_that_is_not_json(llm_server: ScriptedLLMServer, client: openai.OpenAI) -> None:
    llm_server.push(Garbage())

    with pytest.raises(ValueError, match="Expecting"):
        ask(client)


def test_an_outage_fails_chat_and_embeddings_until_it_ends(
    llm_server: ScriptedLLMServer, client: openai.OpenAI
) -> None:
    llm_server.push("back")
    llm_server.set_outage()

    with pytest.raises(openai.InternalServerError):
        ask(client)
    with pytest.raises(openai.InternalServerError):
        client.embeddings.create(model="e", input="hello")
    llm_server.end_outage()

    assert ask(client) == "back"


def test_json_mode_can_be_refused_like_some_local_models(llm_server: ScriptedLLMServer, client: openai.OpenAI) -> None:
    llm_server.json_mode_supported = False
    llm_server.push("{}")

    with pytest.raises(openai.BadRequestError, match="response_format"):
        client.chat.completions.create(model="m", messages=HELLO, response_format={"type": "json_object"})
    assert ask(client) == "{}"


def test_requests_are_recorded_with_their_operation_and_status(
    llm_server: ScriptedLLMServer, client: openai.OpenAI
) -> None:
    llm_server.push("a", Failure(503))
    ask(client, "extract")
    with pytest.raises(openai.InternalServerError):
        ask(client, "reconcile")

    recorded = llm_server.wait_for_requests(2)

    assert [r.status for r in recorded] == [200, 503]
    assert [r.operation for r in llm_server.chat_requests()] == ["extract", "reconcile"]
    assert llm_server.chat_requests("extract")[0].user == "hello"


def test_waiting_for_requests_that_never_come_fails_at_the_deadline(llm_server: ScriptedLLMServer) -> None:
    with pytest.raises(TimeoutError, match="expected 1 requests"):
        llm_server.wait_for_requests(1, timeout=0.05)


def test_embeddings_are_deterministic_in_float_and_base64(client: openai.OpenAI, llm_server: ScriptedLLMServer) -> None:
    texts = ["Alex lives in Paris", "Berlin is big"]

    as_base64 = client.embeddings.create(model="e", input=texts)  # the SDK asks for base64 by default
    as_floats = client.embeddings.create(model="e", input=texts, encoding_format="float")

    for index, text in enumerate(texts):
        expected = hashed_embedding(text, llm_server.embedding_dim)
        assert as_floats.data[index].embedding == pytest.approx(expected)
        assert as_base64.data[index].embedding == pytest.approx(expected, abs=1e-6)


def test_embeddings_take_the_requested_dimension(client: openai.OpenAI) -> None:
    vector = client.embeddings.create(model="e", input="hello", dimensions=16, encoding_format="float").data[0]

    assert len(vector.embedding) == 16
    assert math.isclose(sum(v * v for v in vector.embedding), 1.0)


def test_texts_sharing_words_get_closer_embeddings() -> None:
    def cosine(a: str, b: str) -> float:
        return sum(x * y for x, y in zip(hashed_embedding(a, 64), hashed_embedding(b, 64), strict=True))

    assert cosine("Alex lives in Paris", "where does Alex live, Paris?") > cosine("Alex lives in Paris", "tax form")


def test_each_server_gets_its_own_port_and_frees_it_on_close() -> None:
    servers = [ScriptedLLMServer().start() for _ in range(2)]
    ports = [s.port for s in servers]
    for server in servers:
        server.close()

    assert ports[0] != ports[1]
    for port in ports:
        with socket.socket() as probe, pytest.raises(ConnectionRefusedError):
            probe.connect(("127.0.0.1", port))


def test_the_fixture_helper_runs_a_server_for_the_duration_of_a_test() -> None:
    helper = serve_scripted_llm(["hi"])
    server = next(helper)
    port = server.port
    with pytest.raises(StopIteration):
        next(helper)

    with pytest.raises(RuntimeError, match="not running"):
        _ = server.port
    with socket.socket() as probe, pytest.raises(ConnectionRefusedError):
        probe.connect(("127.0.0.1", port))
