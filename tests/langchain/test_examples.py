"""The LangChain and LangGraph examples run offline and show what they claim."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from tests._examples import ROOT
from tests._examples import run_example as _run


def test_the_retriever_example_recalls_alices_turns_and_searches_the_faq() -> None:
    out = _run("langchain_retriever.py")

    assert "We adopted a greyhound called Biscuit last week!" in out
    assert "I'm allergic to peanuts" in out
    assert "[faq-2] Orders ship within two working days." in out
    assert "Returns are free within 30 days of delivery." in out


def test_the_store_example_recalls_across_threads_but_not_across_users() -> None:
    out = _run("langgraph_store.py")
    thread2 = out.split("2. Thread 2")[1].split("3. Bob's thread")[0]
    bob = out.split("3. Bob's thread")[1].split("namespaces")[0]

    assert "I just moved to Leeds." in thread2
    assert "nothing yet" in bob
    assert "after a restart, 'city' finds: I just moved to Leeds." in out


@pytest.mark.skipif(
    importlib.util.find_spec("langchain_mcp_adapters") is not None,
    reason="langchain-mcp-adapters is installed here: the example runs (tests/agentscope_runtime)",
)
def test_the_mcp_example_without_its_adapter_package_says_how_to_install_it() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "mcp_langchain.py")],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode != 0
    assert "pip install 'memadapt[langchain,mcp]' 'langchain-mcp-adapters>=0.3' 'mcp<2'" in done.stderr
    assert "Traceback" not in done.stderr
