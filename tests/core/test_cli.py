"""The memadapt command: human output, --json, exit codes that mean something."""

from __future__ import annotations

import json
import re
import sys
from importlib import metadata
from pathlib import Path

import pytest

from memadapt_core.cli import EXIT_CODES, main


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_add_then_search_finds_the_memory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "store")
    assert _run(capsys, "--path", store, "add", "I keep bees in the garden", "--user", "ann")[0] == 0
    code, out, _ = _run(capsys, "--path", store, "search", "bees", "--user", "ann")
    assert code == 0
    assert "I keep bees in the garden" in out


def test_search_json_output_is_machine_readable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "store")
    _run(capsys, "--path", store, "add", "I keep bees", "--user", "ann", "--kind", "fact")
    code, out, _ = _run(capsys, "--path", store, "--json", "search", "bees", "--user", "ann")
    assert code == 0
    assert json.loads(out)[0]["record"]["text"] == "I keep bees"


@pytest.fixture
def bees_in_january_and_may(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    store = str(tmp_path / "store")
    _run(capsys, "--path", store, "add", "I saw bees in the garden", "--user", "ann", "--timestamp", "2024-01-10")
    _run(capsys, "--path", store, "add", "I saw bees on the roof", "--user", "ann", "--timestamp", "2024-05-10")
    return store


def test_search_with_a_time_range_finds_only_what_was_observed_in_it(
    bees_in_january_and_may: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ("--json", "search", "bees", "--user", "ann", "--time-range", "2024-05-01", "-")

    code, out, _ = _run(capsys, "--path", bees_in_january_and_may, *args)

    assert (code, [h["record"]["text"] for h in json.loads(out)]) == (0, ["I saw bees on the roof"])


@pytest.mark.parametrize(
    ("now", "first"), [("2024-01-15", "I saw bees in the garden"), ("2024-05-15", "I saw bees on the roof")]
)
def test_search_counts_the_querys_time_words_from_now(
    bees_in_january_and_may: str, capsys: pytest.CaptureFixture[str], now: str, first: str
) -> None:
    args = ("--json", "search", "bees last week", "--user", "ann", "--threshold", "0", "--now", now)

    code, out, _ = _run(capsys, "--path", bees_in_january_and_may, *args)

    assert (code, json.loads(out)[0]["record"]["text"]) == (0, first)


@pytest.mark.parametrize(
    ("flag", "values"),
    [("--now", ["yesterday"]), ("--time-range", ["2024-05-01", "May"]), ("--time-range", ["2024-05-01", "2024-01-01"]),
     ("--time-range", ["-", "-"])],
)  # fmt: skip
def test_a_bad_search_moment_is_refused_naming_its_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str, values: list[str]
) -> None:
    code, _, err = _run(capsys, "--path", str(tmp_path / "store"), "search", "bees", "--user", "ann", flag, *values)

    assert (code, err.startswith(f"memadapt: {flag}: ")) == (2, True)


def test_nothing_found_exits_with_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "store")
    _run(capsys, "--path", store, "add", "I keep bees", "--user", "ann")
    assert _run(capsys, "--path", store, "search", "quantum xyzzy", "--user", "ann")[0] == 1


def test_bad_input_exits_with_two_and_names_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "--path", str(tmp_path), "search", "bees")
    assert code == 2
    assert "user_id" in err


def test_export_import_list_delete_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b, dump = str(tmp_path / "a"), str(tmp_path / "b"), str(tmp_path / "dump.jsonl")
    _run(capsys, "--path", a, "add", "first", "--user", "ann", "--session", "s1")
    _run(capsys, "--path", a, "add", "second", "--user", "ann", "--session", "s2")
    assert _run(capsys, "--path", a, "export", dump)[0] == 0
    assert "imported 2" in _run(capsys, "--path", b, "import", dump)[1]
    code, out, _ = _run(capsys, "--path", b, "--json", "list", "--user", "ann")
    assert [r["text"] for r in json.loads(out)["records"]] == ["first", "second"]
    assert "deleted 1" in _run(capsys, "--path", b, "delete", "--user", "ann", "--session", "s1", "--yes")[1]
    code, out, _ = _run(capsys, "--path", b, "--json", "stats")
    assert (code, json.loads(out)["points"]) == (0, 1)


def test_an_import_line_without_an_id_is_refused_naming_the_line_and_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dump = tmp_path / "dump.jsonl"
    moment = "2024-05-01T10:00:00Z"
    line = {"text": "a note", "user_id": "ann", "observed_at": moment, "created_at": moment, "updated_at": moment}
    dump.write_text(json.dumps(line) + "\n", encoding="utf-8")

    code, _, err = _run(capsys, "--path", str(tmp_path / "store"), "import", str(dump))

    assert (code, err) == (2, "memadapt: line 1: id: Field required\n")


def test_global_options_may_follow_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "store")
    _run(capsys, "add", "I keep bees", "--user", "ann", "--path", store)

    code, out, _ = _run(capsys, "search", "bees", "--user", "ann", "--json", "--path", store)

    assert code == 0
    assert json.loads(out)[0]["record"]["text"] == "I keep bees"


def test_a_global_option_before_the_command_is_not_reset_by_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "store")
    _run(capsys, "--path", store, "add", "I keep bees", "--user", "ann")

    code, out, _ = _run(capsys, "--json", "--path", store, "stats")

    assert (code, json.loads(out)["points"]) == (0, 1)


def test_version_prints_the_installed_distribution_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--version")

    assert code == 0
    assert out.strip() == f"memadapt {metadata.version('memadapt')}"


def test_help_documents_every_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--help")

    assert code == 0
    for exit_code, meaning in EXIT_CODES.items():
        assert f"{exit_code:<4} {meaning}" in out


def test_help_names_every_built_in_embedder_and_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    from memadapt_core.config import EmbedderSettings
    from memadapt_core.plugins import BuiltinPlugin

    names: list[str] = []
    BuiltinPlugin().memadapt_register_embedders(register=lambda name, factory: names.append(name))

    code, out, _ = _run(capsys, "--help")

    help_text = " ".join(out.split())
    assert code == 0
    assert f"{EmbedderSettings.model_fields['provider'].default} (default" in help_text
    assert set(names) <= set(re.findall(r"[\w-]+", help_text))


def test_a_usage_error_returns_two_instead_of_raising(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "search")

    assert code == 2
    assert "query" in err


@pytest.fixture
def without_fastembed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fastembed extra as if it were not installed (a None entry makes ``import fastembed`` fail)."""
    monkeypatch.setitem(sys.modules, "fastembed", None)


@pytest.mark.usefixtures("without_fastembed")
def test_a_missing_extra_is_a_one_line_configuration_error_with_the_install_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(capsys, "stats", "--path", str(tmp_path / "store"), "--embedder", "fastembed")

    assert code == 4
    assert err.count("\n") == 1
    assert "pip install 'memadapt[fastembed]'" in err


@pytest.mark.usefixtures("without_fastembed")
def test_a_missing_extra_selected_by_settings_is_a_configuration_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMADAPT_EMBEDDER__PROVIDER", "fastembed")

    code, _, err = _run(capsys, "--path", str(tmp_path / "store"), "stats")

    assert code == 4
    assert "pip install 'memadapt[fastembed]'" in err


def test_a_half_configured_llm_is_a_one_line_configuration_error_naming_the_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MEMADAPT_LLM__MODEL", "gpt-4o-mini")

    code, _, err = _run(capsys, "--path", str(tmp_path / "store"), "stats")

    assert code == 4
    assert err.count("\n") == 1
    assert "llm.base_url" in err


def test_a_reader_that_stops_early_gets_no_broken_pipe_traceback(tmp_path: Path) -> None:
    import subprocess

    from memadapt_core import Memory

    store = str(tmp_path / "store")
    with Memory(path=store) as mem:  # more JSON than a pipe holds, so the writer meets the closed pipe
        mem.add([f"note {i} about bees, " * 20 for i in range(300)], user_id="ann")
    cli = [sys.executable, "-c", "import sys; from memadapt_core.cli import main; sys.exit(main(sys.argv[1:]))"]
    args = ["--path", store, "list", "--user", "ann", "--limit", "300", "--json"]
    with subprocess.Popen([*cli, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE) as child:
        assert child.stdout is not None
        assert child.stderr is not None
        child.stdout.read(1)
        child.stdout.close()  # what `| head -c 1` does
        assert child.wait(timeout=60) == 0
        assert b"Traceback" not in child.stderr.read()
