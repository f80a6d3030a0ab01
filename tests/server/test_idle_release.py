"""The service gives back what a burst took once it is quiet, not between the requests of a busy client."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from memadapt_core.embedders import idle_release
from memadapt_core.server.idle_trim import ReleaseWhenIdle

# Wide margins: a loaded machine may wake a sleeper late; a gap of a tenth of the quiet time must never look quiet.
QUIET_S = 1.0


class Releases:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> None:
        self.count += 1


def _client(releases: Releases, hold: asyncio.Event | None = None) -> httpx.AsyncClient:
    async def answer(request: Request) -> PlainTextResponse:
        if hold is not None and request.url.path == "/slow":
            await hold.wait()
        return PlainTextResponse("ok")

    app = Starlette(routes=[Route("/", answer), Route("/slow", answer)])
    transport = httpx.ASGITransport(app=ReleaseWhenIdle(app, quiet_s=QUIET_S, release=releases))
    return httpx.AsyncClient(transport=transport, base_url="http://memadapt")


async def test_memory_is_released_once_the_service_has_been_quiet() -> None:
    releases = Releases()
    async with _client(releases) as client:
        await client.get("/")
        await asyncio.sleep(QUIET_S * 3)
    assert releases.count == 1


async def test_requests_one_after_the_other_release_nothing_until_they_stop() -> None:
    releases = Releases()
    async with _client(releases) as client:
        for _ in range(6):
            await client.get("/")
            await asyncio.sleep(QUIET_S / 10)
        assert releases.count == 0
        await asyncio.sleep(QUIET_S * 3)
    assert releases.count == 1


async def test_nothing_is_released_while_a_request_is_in_flight() -> None:
    releases, hold = Releases(), asyncio.Event()
    async with _client(releases, hold) as client:
        slow = asyncio.create_task(client.get("/slow"))
        await client.get("/")
        await asyncio.sleep(QUIET_S * 3)
        assert releases.count == 0
        hold.set()
        await slow
        await asyncio.sleep(QUIET_S * 3)
    assert releases.count == 1


BURST = """
import json
from memadapt_core.embedders.minilm import MiniLMEmbedder
from memadapt_core.server.idle_trim import limit_arenas, release_memory

def resident_mb():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 // 2**20

limit_arenas()
embedder = MiniLMEmbedder()
embedder.embed_documents(["warm"])
before = resident_mb()
embedder.embed_documents([f"word{i} " * 200 for i in range(16)])  # 16 texts of 256 tokens
peak = resident_mb()
release_memory()
print(json.dumps([before, peak, resident_mb()]))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/statm")
def test_releasing_gives_back_what_minilm_grew_for_a_burst_of_long_texts() -> None:
    # its own process: the arena of a session other tests already used is not at its starting size
    done = subprocess.run([sys.executable, "-c", BURST], capture_output=True, text=True, check=True, timeout=300)
    before, peak, after = json.loads(done.stdout.strip().splitlines()[-1])
    assert peak - before > 100, (before, peak)
    assert after - before < (peak - before) / 3, (before, peak, after)


def test_a_failing_releaser_does_not_stop_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(idle_release, "_RELEASERS", [])
    ran: list[str] = []

    def broken() -> None:
        raise RuntimeError("gone")

    idle_release.register(broken)
    idle_release.register(lambda: ran.append("next"))
    idle_release.release()
    assert ran == ["next"]
