"""examples/mcp_langchain.py runs offline: langchain-mcp-adapters starts `memadapt mcp` and a LangGraph agent finds
what an earlier thread stored through it. Here, not in the dev environment: langchain-mcp-adapters needs mcp 1.x,
which this environment has and AgentScope 2.x's does not (docs/mcp.md)."""

from __future__ import annotations

from tests._examples import run_example


def test_the_langchain_mcp_example_recalls_across_threads() -> None:
    out = run_example("mcp_langchain.py")

    assert "Noted (1 memory stored)." in out
    assert "From memory: I'm flying to Lisbon on Friday" in out.split("thread 2 | assistant:")[1]
