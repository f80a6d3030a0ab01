"""Every sync module written from an async one (the consolidation steps, the engine's calls, the API Protocol, the
client's calls) is that module run through ``scripts/unasync.py``, never edited apart."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_each_sync_twin_is_the_generated_copy_of_its_async_source() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "unasync.py"), "--check"], capture_output=True, text=True, check=False
    )

    assert done.returncode == 0, done.stderr
