"""``memadapt serve --llm scripted``: a real service whose LLM is the trial one, started with it on 127.0.0.1, so
facts, the profile and answers can be tried offline with no key; its start line says the LLM is a scripted trial."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import Server, eventually, running_server

ANN = {"Authorization": "Bearer token-ann"}


@pytest.fixture(scope="module")
def trial_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with pytest.MonkeyPatch.context() as env:
        env.delenv("MEMADAPT_LLM__MODEL", raising=False)
        env.setenv("MEMADAPT_TIERS__PROFILE", "true")
        with running_server(tmp_path_factory.mktemp("trial"), {"token-ann": "ann"}, "--llm", "scripted") as server:
            yield server


def records(server: Server, kind: str) -> list[dict[str, Any]]:
    page = httpx.get(f"{server.url}/v1/memories", params={"kinds": [kind]}, headers=ANN, timeout=10).json()
    return list(page["records"])


def test_serve_with_the_trial_llm_says_so_on_start(trial_server: Server) -> None:
    log = Path(trial_server.log).read_text()

    assert "llm:   a scripted trial at http://127.0.0.1:" in log
    assert "canned answers" in log
    assert "MEMADAPT_LLM__MODEL" in log  # how to give it a real model


def test_serve_with_the_trial_llm_consolidates_facts_and_a_profile(trial_server: Server) -> None:
    told = [{"role": "user", "content": "I am vegetarian. I love playing the cello on Sundays."}]
    added = httpx.post(f"{trial_server.url}/v1/memories", json={"messages": told, "session_id": "s1"}, headers=ANN)
    assert added.status_code == 201, added.text

    facts = eventually(lambda: records(trial_server, "fact"))
    sections = eventually(lambda: httpx.get(f"{trial_server.url}/v1/profile", headers=ANN).json()["sections"])

    assert {f["text"] for f in facts} == {"I am vegetarian.", "I love playing the cello on Sundays."}
    assert [s["text"] for s in sections["constraints"]] == ["I am vegetarian."]


def test_serve_with_the_trial_llm_answers_from_memory(trial_server: Server) -> None:
    told = [{"role": "user", "content": "My cat is called Pepper."}]
    httpx.post(f"{trial_server.url}/v1/memories", json={"messages": told, "session_id": "s2"}, headers=ANN)

    found = httpx.post(f"{trial_server.url}/v1/answer", json={"question": "What is my cat called?"}, headers=ANN)

    assert found.status_code == 200, found.text
    assert "Pepper" in found.json()["answer"]
