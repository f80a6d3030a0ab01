"""``memadapt profile --user ...``: the profile, one statement a line, or as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memadapt_core import Memory
from memadapt_core.cli import main
from tests._planted import plant


def test_profile_prints_the_users_statements(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Memory(path=tmp_path / "store") as mem:
        plant(mem, "Allergic to peanuts", user_id="ann", kind="profile", metadata={"section": "constraints"})
    assert main(["--path", str(tmp_path / "store"), "profile", "--user", "ann"]) == 0
    assert "constraints: Allergic to peanuts" in capsys.readouterr().out
    assert main(["--path", str(tmp_path / "store"), "--json", "profile", "--user", "ann"]) == 0
    assert json.loads(capsys.readouterr().out)["sections"]["constraints"][0]["text"] == "Allergic to peanuts"


def test_no_profile_yet_exits_with_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--path", str(tmp_path / "store"), "profile", "--user", "nobody"]) == 1
    assert "(no profile yet)" in capsys.readouterr().out
