"""Experience libraries in ReMe's format: each line becomes the agent's lesson (or a user's fact), found by every
read of experience, loaded once however often it is loaded, written back in ReMe's format (issue 39)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memadapt_core import AsyncMemory, Memory, ValidationError
from memadapt_core.cli import main

SETTINGS_LESSON: dict[str, Any] = {
    "workspace_id": "appworld_8b_0725", "memory_id": "5be0a5f0c41a4a0e9b8c1d2e3f4a5b6c", "memory_type": "task",
    "when_to_use": "When you need to change a user's profile details in an app's settings.",
    "content": "Open the settings page first, then call the profile update API with only the fields that change.",
    "score": 0.8, "time_created": "2025-07-24 21:15:17", "time_modified": "2025-07-25 08:00:00",
    "author": "qwen3-8b", "metadata": {"author": "qwen3-8b", "extra_info": None},
}  # fmt: skip
PAGING_LESSON: dict[str, Any] = {
    **SETTINGS_LESSON, "memory_id": "0c0ffee0000000000000000000000001",
    "when_to_use": "When a paginated API response may hide the item you look for.",
    "content": "Loop over page_index until an empty page comes back.",
}  # fmt: skip
PERSONAL = {"memory_id": "p1", "memory_type": "personal", "when_to_use": "diet", "content": "Alex is vegetarian",
            "target": "alex"}  # fmt: skip
QUERY = "How to navigate to settings and update user profile?"


def write_lines(path: Path, *lines: dict[str, Any] | str) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")
    return path


@pytest.fixture
def library(tmp_path: Path) -> Path:
    return write_lines(tmp_path / "appworld.jsonl", SETTINGS_LESSON, PAGING_LESSON)


def test_a_loaded_lesson_is_the_agents_experience_for_a_matching_task(memory: Memory, library: Path) -> None:
    memory.import_reme(library, agent_id="appworld")

    best = memory.experiences(QUERY, agent_id="appworld", limit=1)[0].record

    assert (best.kind, best.agent_id, best.user_id, best.session_id) == ("experience", "appworld", None, None)
    assert best.text == SETTINGS_LESSON["when_to_use"]
    assert best.metadata["content"] == SETTINGS_LESSON["content"]
    assert SETTINGS_LESSON["content"] in memory.experience_guidance(QUERY, agent_id="appworld")


def test_a_loaded_lesson_keeps_its_score_times_and_origin(memory: Memory, library: Path) -> None:
    memory.import_reme(library, agent_id="appworld")

    record = memory.experiences(QUERY, agent_id="appworld", limit=1)[0].record

    assert record.metadata["score"] == 0.8
    assert (record.metadata["origin"], record.metadata["memory_id"]) == ("reme", SETTINGS_LESSON["memory_id"])
    assert record.created_at.isoformat() == "2025-07-24T21:15:17+00:00"
    assert record.updated_at.isoformat() == "2025-07-25T08:00:00+00:00"


def test_loading_a_library_again_adds_nothing(memory: Memory, library: Path) -> None:
    first = memory.import_reme(library, agent_id="appworld")
    again = memory.import_reme(library, agent_id="appworld")

    assert (first.added, again.added, again.already_stored) == (2, 0, 2)
    assert memory.count(agent_id="appworld") == 2


def test_a_folder_loads_every_jsonl_file_in_it(memory: Memory, tmp_path: Path) -> None:
    write_lines(tmp_path / "a.jsonl", SETTINGS_LESSON)
    write_lines(tmp_path / "b.jsonl", PAGING_LESSON)

    done = memory.import_reme(tmp_path, agent_id="appworld")

    assert (done.files, done.added) == (2, 2)


def test_a_malformed_line_is_named_by_file_and_line(memory: Memory, tmp_path: Path) -> None:
    bad = write_lines(tmp_path / "bad.jsonl", SETTINGS_LESSON, "", '{"memory_id": "x", "when_to_use": ')

    with pytest.raises(ValidationError) as raised:
        memory.import_reme(bad, agent_id="appworld")

    assert raised.value.field == "bad.jsonl line 3"


def test_a_line_with_a_bad_field_names_the_field(memory: Memory, tmp_path: Path) -> None:
    bad = write_lines(tmp_path / "bad.jsonl", {**SETTINGS_LESSON, "score": "high"})

    with pytest.raises(ValidationError, match=r"bad\.jsonl line 1: score"):
        memory.import_reme(bad, agent_id="appworld")


def test_a_personal_memory_goes_to_the_user_it_names_and_one_naming_nobody_is_skipped(
    memory: Memory, tmp_path: Path
) -> None:
    nobody = {**PERSONAL, "memory_id": "p2", "target": ""}
    done = memory.import_reme(write_lines(tmp_path / "p.jsonl", PERSONAL, nobody), agent_id="appworld")

    hits = memory.search("vegetarian", user_id="alex", agent_id="appworld")

    assert (done.added, done.skipped_personal) == (1, 1)
    assert [(h.record.kind, h.record.text) for h in hits] == [("fact", "Alex is vegetarian")]
    assert memory.experiences("vegetarian", agent_id="appworld") == []


def test_a_library_needs_an_agent(memory: Memory, library: Path) -> None:
    with pytest.raises(ValidationError, match="agent_id"):
        memory.import_reme(library, agent_id=None)


def test_exported_lessons_are_remes_lines_that_load_back_as_the_same_lessons(
    memory: Memory, library: Path, tmp_path: Path
) -> None:
    memory.import_reme(library, agent_id="appworld")

    written = memory.export_reme(tmp_path / "dump.jsonl", agent_id="appworld")
    lines = [json.loads(line) for line in (tmp_path / "dump.jsonl").read_text().splitlines()]
    again = memory.import_reme(tmp_path / "dump.jsonl", agent_id="appworld")

    assert written == 2
    by_id = {line["memory_id"]: line for line in lines}
    assert by_id[SETTINGS_LESSON["memory_id"]] == {**SETTINGS_LESSON, "workspace_id": "appworld",
                                                    "metadata": {"author": "qwen3-8b"}}  # fmt: skip
    assert (again.added, again.already_stored) == (0, 2)


async def test_the_async_twin_loads_and_exports_alike(amemory: AsyncMemory, library: Path, tmp_path: Path) -> None:
    done = await amemory.import_reme(library, agent_id="appworld")
    written = await amemory.export_reme(tmp_path / "dump.jsonl", agent_id="appworld")

    assert (done.added, written) == (2, 2)
    assert (await amemory.experiences(QUERY, agent_id="appworld", limit=1))[0].record.metadata["origin"] == "reme"


def test_the_cli_imports_a_library_for_an_agent_and_exports_it(
    tmp_path: Path, library: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "store")

    imported = main(["--path", store, "import", "--format", "reme", str(library), "--agent-id", "appworld", "--json"])
    report = json.loads(capsys.readouterr().out)
    exported = main(["--path", store, "export", "--format", "reme", str(tmp_path / "out.jsonl"), "--agent-id",
                     "appworld"])  # fmt: skip

    assert (imported, exported) == (0, 0)
    assert report == {"added": 2, "already_stored": 0, "skipped_personal": 0, "files": 1}
    assert len((tmp_path / "out.jsonl").read_text().splitlines()) == 2


def test_the_cli_needs_an_agent_for_a_library(
    tmp_path: Path, library: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["--path", str(tmp_path / "store"), "import", "--format", "reme", str(library)])

    assert code == 2
    assert "--agent-id" in capsys.readouterr().err


def test_a_path_the_os_cannot_take_is_a_validation_error_naming_path(memory: Memory) -> None:
    with pytest.raises(ValidationError) as raised:
        memory.import_reme("lib\x00.jsonl", agent_id="appworld")

    assert raised.value.field == "path"
