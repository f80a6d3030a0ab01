"""A token with its limit of requests in flight gets 429 and Retry-After; the other tokens are served meanwhile."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest

from memadapt_core.remote import AsyncRemoteMemory

from .conftest import TOKENS, Server, running_server

FLOOD = 40


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("limit"), TOKENS, "--max-requests-per-token", "1") as running:
        yield running


async def _flood(server: Server) -> tuple[list[httpx.Response], httpx.Response]:
    text = "I keep a long diary of the garden. " * 400  # ~14k characters: each add takes a while to embed
    async with httpx.AsyncClient(base_url=server.url, timeout=60.0) as client:

        def add(token: str, n: int) -> asyncio.Task[httpx.Response]:
            body = {"messages": f"{text} entry {n}", "session_id": f"flood-{n}"}
            return asyncio.ensure_future(client.post("/v1/memories", json=body, headers=server.headers(token)))

        ann = [add("token-ann", n) for n in range(FLOOD)]
        bob = add("token-bob", 0)
        return list(await asyncio.gather(*ann)), await bob


def test_a_flooding_token_gets_429_with_retry_after_and_every_other_answer_is_stored(server: Server) -> None:
    ann, _ = asyncio.run(_flood(server))
    refused = [r for r in ann if r.status_code == 429]
    assert refused, "40 adds at once with a limit of 1 in flight: some must be refused"
    assert {r.headers["Retry-After"] for r in refused} == {"1"}
    assert {r.status_code for r in ann} <= {201, 429}
    stored = httpx.post(f"{server.url}/v1/count", json={}, headers=server.headers("token-ann"), timeout=10).json()
    assert stored["count"] >= FLOOD - len(refused)  # every accepted add was stored (long texts make passages)


def test_another_token_is_served_while_one_floods(server: Server) -> None:
    _, bob = asyncio.run(_flood(server))
    assert bob.status_code == 201, bob.text


def test_the_remote_client_waits_and_sends_again_so_every_add_is_stored(server: Server) -> None:
    async def many() -> list[int]:
        async with AsyncRemoteMemory(server.url, token="token-bob") as bob:
            added = await asyncio.gather(
                *(bob.add(f"Bob's note number {n} about the allotment", session_id=f"r{n}") for n in range(12))
            )
            return [len(records) for records in added]

    assert asyncio.run(many()) == [1] * 12
