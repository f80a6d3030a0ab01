"""The server is imported only by `memadapt mcp` and `memadapt serve`: the core never needs the mcp extra."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
import memadapt_core, memadapt_core.cli.command, memadapt_core.remote
memadapt_core.cli.command._parser()
loaded = sorted({name.split(".")[0] for name in sys.modules} & {"mcp", "starlette", "uvicorn", "sse_starlette"})
loaded += sorted(name for name in sys.modules if name.startswith("memadapt_core.server"))
print(",".join(loaded))
"""


def test_importing_the_core_the_cli_and_the_client_loads_no_server_library() -> None:
    run = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True)
    assert run.stdout.strip() == ""
