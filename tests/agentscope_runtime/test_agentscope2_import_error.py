"""AgentScope 1.x and 2.x cannot share an environment: the 2.x adapter says how to get it."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("name", ["MemadaptMiddleware", "memadapt_middleware_factory", "memadapt_tools_factory"])
def test_agentscope_2_names_need_agentscope_2_and_name_the_install_line(name):
    import memadapt_agentscope

    with pytest.raises(ImportError, match=r"pip install 'memadapt\[agentscope\]'"):
        getattr(memadapt_agentscope, name)
