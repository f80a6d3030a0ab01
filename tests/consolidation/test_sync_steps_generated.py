"""The sync consolidation steps are the async ones run through ``scripts/unasync.py``, never edited apart."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_sync_steps_are_the_generated_copy_of_the_async_steps() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "unasync.py"), "--check"], capture_output=True, text=True, check=False
    )

    assert done.returncode == 0, done.stderr
