"""A new embedded store is its owner's only: the folder memadapt creates is 0700 and its lock file 0600, so
another local account cannot read any memory (issue 35)."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from memadapt_core import Memory

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")


def test_a_new_store_folder_is_0700_and_its_lock_file_0600(tmp_path: Path) -> None:
    with Memory(path=tmp_path / "store") as mem:
        mem.add("My locker code is 4711", user_id="ann")
        folder_mode = stat.S_IMODE((tmp_path / "store").stat().st_mode)
        locks = [p for p in (tmp_path / "store").iterdir() if "lock" in p.name and p.is_file()]

    assert folder_mode == 0o700
    assert locks
    assert {stat.S_IMODE(p.stat().st_mode) for p in locks} == {0o600}
