"""examples/mcp_agentscope.py runs offline: AgentScope's own MCP client starts `memadapt mcp`, and a fresh agent
finds what the first one stored through it."""

from __future__ import annotations

from tests._examples import run_example


def test_the_agentscope_mcp_example_recalls_across_sessions() -> None:
    out = run_example("mcp_agentscope.py")

    assert "Noted (1 memory stored)." in out
    assert "From memory: I'm flying to Lisbon on Friday" in out.split("session 2 | assistant:")[1]
