"""`memadapt get`, `update`, `history` and `delete`: a record by id, scoped when a scope is given; a whole scope
deleted only after a yes (on a terminal) or with --yes."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memadapt_core.cli import main

DEADLINE_S = 60.0


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _add(capsys: pytest.CaptureFixture[str], store: str, text: str, *scope: str) -> str:
    code, out, _ = _run(capsys, "--path", store, "--json", "add", text, *scope)
    assert code == 0
    return str(json.loads(out)[0]["id"])


@pytest.fixture
def store(tmp_path: Path) -> str:
    return str(tmp_path / "store")


@pytest.fixture
def anns_note(store: str, capsys: pytest.CaptureFixture[str]) -> str:
    """The id of a note of ann's (session s1), in a store that also holds one of bob's."""
    _add(capsys, store, "bob keeps goats", "--user", "bob")
    return _add(capsys, store, "I keep bees", "--user", "ann", "--session", "s1")


def test_get_shows_the_record_of_that_id(store: str, anns_note: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--path", store, "get", anns_note)

    assert (code, out.startswith(anns_note), "I keep bees" in out) == (0, True, True)


def test_get_json_is_the_record(store: str, anns_note: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--path", store, "--json", "get", anns_note, "--user", "ann")

    assert (code, json.loads(out)["text"], json.loads(out)["user_id"]) == (0, "I keep bees", "ann")


def test_get_of_an_id_no_record_has_exits_with_one(store: str, capsys: pytest.CaptureFixture[str]) -> None:
    missing = "00000000-0000-4000-8000-000000000000"

    code, out, _ = _run(capsys, "--path", store, "get", missing, "--user", "ann")

    assert (code, out) == (1, f"no record {missing}\n")


def test_get_of_another_users_record_is_refused_naming_the_id(
    store: str, anns_note: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "--path", store, "get", anns_note, "--user", "bob")

    assert (code, out) == (2, "")
    assert err.startswith(f"memadapt: id: record {anns_note} is not one of the records of user bob")


def test_update_changes_the_text_and_history_shows_the_change(
    store: str, anns_note: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(capsys, "--path", store, "update", anns_note, "I keep two hives", "--user", "ann")[0] == 0

    code, out, _ = _run(capsys, "--path", store, "--json", "history", anns_note, "--user", "ann")

    changes = [(e["event"], e["old_text"], e["new_text"]) for e in json.loads(out)]
    assert (code, changes[-1]) == (0, ("update", "I keep bees", "I keep two hives"))


def test_history_lines_show_each_change(store: str, anns_note: str, capsys: pytest.CaptureFixture[str]) -> None:
    _run(capsys, "--path", store, "update", anns_note, "I keep two hives")

    code, out, _ = _run(capsys, "--path", store, "history", anns_note)

    assert code == 0
    assert out.splitlines()[-1].endswith(f"update    {anns_note}: I keep bees -> I keep two hives")


def test_update_of_a_record_outside_the_scope_changes_nothing(
    store: str, anns_note: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(capsys, "--path", store, "update", anns_note, "bob was here", "--user", "bob")

    assert (code, "nothing changed" in err) == (2, True)
    assert json.loads(_run(capsys, "--path", store, "--json", "get", anns_note)[1])["text"] == "I keep bees"


def test_delete_of_an_id_within_its_scope_deletes_it(
    store: str, anns_note: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, "--path", store, "delete", anns_note, "--user", "ann", "--session", "s1")

    assert (code, out) == (0, f"deleted {anns_note}\n")
    assert _run(capsys, "--path", store, "get", anns_note)[0] == 1


def test_delete_of_an_id_outside_the_scope_is_refused_naming_the_id_and_keeps_the_record(
    store: str, anns_note: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(capsys, "--path", store, "delete", anns_note, "--user", "ann", "--session", "s2")

    assert code == 2
    assert err == (
        f"memadapt: id: record {anns_note} is not one of the records of user ann, session s2; nothing deleted\n"
    )
    assert _run(capsys, "--path", store, "get", anns_note)[0] == 0


@pytest.mark.usefixtures("anns_note")
def test_deleting_a_scope_without_a_terminal_is_refused_unless_yes_is_given(
    store: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(capsys, "--path", store, "delete", "--user", "ann")

    assert (code, err) == (
        2,
        "memadapt: --yes: is required without a terminal to ask on: add --yes to delete the 1 record of user ann\n",
    )
    assert _run(capsys, "--path", store, "--json", "list", "--user", "ann")[1].count("I keep bees") == 1


@pytest.mark.usefixtures("anns_note")
def test_deleting_a_scope_with_yes_deletes_it_without_asking(store: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "--path", store, "--json", "delete", "--user", "ann", "--yes")

    assert (code, json.loads(out), err) == (0, {"deleted": 1}, "")
    assert json.loads(_run(capsys, "--path", store, "--json", "stats")[1])["points"] == 1  # bob's goats


def _delete_on_a_terminal(store: str, answer: str) -> tuple[str, int]:
    """``memadapt delete --user ann`` with a pseudo-terminal for stdin and stderr: its question, and its exit code
    after ``answer`` is typed."""
    master, slave = pty.openpty()
    command = [sys.executable, "-m", "memadapt_core.cli", "--path", store, "delete", "--user", "ann"]
    with subprocess.Popen(command, stdin=slave, stdout=subprocess.DEVNULL, stderr=slave, close_fds=True) as child:
        os.close(slave)
        try:
            shown, deadline = "", time.monotonic() + DEADLINE_S
            while "[y/N] " not in shown:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not select.select([master], [], [], remaining)[0]:
                    pytest.fail(f"no question came; the terminal shows {shown!r}")
                shown += os.read(master, 4096).decode(errors="replace")
            os.write(master, (answer + "\n").encode())
            return shown, child.wait(timeout=DEADLINE_S)
        finally:
            if child.poll() is None:
                child.kill()
            os.close(master)


@pytest.mark.usefixtures("anns_note")
def test_deleting_a_scope_on_a_terminal_asks_with_the_count_and_a_yes_deletes_it(
    store: str, capsys: pytest.CaptureFixture[str]
) -> None:
    question, code = _delete_on_a_terminal(store, "y")

    assert (question.strip(), code) == ("delete the 1 record of user ann? [y/N]", 0)
    assert json.loads(_run(capsys, "--path", store, "--json", "stats")[1])["points"] == 1


@pytest.mark.usefixtures("anns_note")
def test_deleting_a_scope_on_a_terminal_keeps_it_when_the_answer_is_not_yes(
    store: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _, code = _delete_on_a_terminal(store, "")

    assert code == 0
    assert json.loads(_run(capsys, "--path", store, "--json", "stats")[1])["points"] == 2
