"""The agentscope-runtime environment (``make pytest-runtime``): its fixtures live in ``_runtime_fixtures.py``,
loaded only where agentscope-runtime is installed, so naming this folder to pytest in the dev environment
collects nothing instead of failing on an import."""

from __future__ import annotations

import importlib.util

if importlib.util.find_spec("agentscope_runtime") is None:
    collect_ignore_glob = ["*"]
else:
    from _runtime_fixtures import *  # noqa: F403 - the fixtures, registered by being names of this conftest
