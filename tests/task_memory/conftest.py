"""Trajectories and scripted LLM answers shared by the task-memory tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from memadapt_core.testing import ScriptedLLMServer


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as srv:
        yield srv


def calls(name: str, arguments: str) -> dict[str, Any]:
    """An assistant message calling one tool."""
    call = {"id": "c1", "type": "function", "function": {"name": name, "arguments": arguments}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


FAILED_BOOKING: dict[str, Any] = {
    "messages": [
        {"role": "user", "content": "Book me a flight from Paris to Berlin next Friday"},
        calls("book_flight", '{"date": "next Friday"}'),
        {"role": "tool", "name": "book_flight", "tool_call_id": "c1", "content": "error: date must be YYYY-MM-DD"},
        {"role": "assistant", "content": "Sorry, I could not book the flight."},
    ],
    "score": 0.0,
}

FAILED_AGAIN: dict[str, Any] = {
    **FAILED_BOOKING,
    "messages": [
        {"role": "user", "content": "Book me a flight from Lyon to Madrid next Tuesday"},
        *FAILED_BOOKING["messages"][1:],
    ],
}

GOOD_BOOKING: dict[str, Any] = {
    "messages": [
        {"role": "user", "content": "Book me a flight from Paris to Rome on Monday"},
        calls("book_flight", '{"date": "2026-11-30"}'),
        {"role": "tool", "name": "book_flight", "tool_call_id": "c1", "content": "booked: AF1234"},
        {"role": "assistant", "content": "Booked AF1234 for Monday 30 November."},
    ],
    "score": 1.0,
}


def llm(server: ScriptedLLMServer, **extra: Any) -> dict[str, Any]:
    return {"llm": {"base_url": server.base_url, "model": "scripted", "timeout": 2.0, "max_retries": 1, **extra}}


def lesson(when_to_use: str, content: str, evidence: str, sources: list[int]) -> dict[str, Any]:
    return {"when_to_use": when_to_use, "content": content, "evidence": evidence, "sources": sources}


def learned(*lessons: dict[str, Any]) -> dict[str, Any]:
    """An extraction answer."""
    return {"experiences": list(lessons)}


def judged(*verdicts: bool | tuple[bool, str]) -> dict[str, Any]:
    """A validation answer, one verdict per experience in order."""
    out = []
    for n, verdict in enumerate(verdicts):
        valid, reason = verdict if isinstance(verdict, tuple) else (verdict, "")
        out.append({"experience": n, "valid": valid, "reason": reason})
    return {"judgements": out}


def merged(experience: int, action: str, target: int | None, **text: str) -> dict[str, Any]:
    """A reconciliation answer with one decision."""
    return {"decisions": [{"experience": experience, "action": action, "target": target, **text}]}
