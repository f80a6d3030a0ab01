"""Running a script of examples/ as a user would: a fresh interpreter, warnings as errors, offline."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_example(script: str) -> str:
    """What ``python -W error examples/<script>`` prints; fails the test if it exits with an error."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-W", "error", str(ROOT / "examples" / script)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    return done.stdout
