"""AgentScope 1.x and 2.x cannot share an environment: the 1.x adapter says how to get it."""

from __future__ import annotations

import pytest


def test_long_term_memory_needs_agentscope_1_and_names_the_install_line():
    with pytest.raises(ImportError, match=r"pip install 'memadapt\[agentscope-runtime\]'"):
        from memadapt_agentscope import MemadaptLongTermMemory  # noqa: F401


def test_the_package_itself_imports_without_agentscope_1():
    import memadapt_agentscope

    assert memadapt_agentscope.MemadaptMemoryService.__name__ == "MemadaptMemoryService"
