"""Durability, reopening, locking and the collection's embedder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memadapt_core import ConfigurationError, Memory
from memadapt_core.testing import HashEmbedder


def test_records_survive_close_and_reopen(tmp_path: Path) -> None:
    with Memory(path=tmp_path) as mem:
        ids = [r.id for r in mem.add(["first note", "second note"], user_id="u1", session_id="s1")]
    with Memory(path=tmp_path) as mem:
        assert [r.id for r in mem.list(user_id="u1").records] == ids
        assert mem.search("second note", user_id="u1")[0].record.id == ids[1]


def test_an_acknowledged_add_survives_a_killed_process(tmp_path: Path) -> None:
    script = (
        "import os, sys\n"
        "from memadapt_core import Memory\n"
        f"m = Memory(path={str(tmp_path)!r})\n"
        "m.add('written just before the crash', user_id='u1')\n"
        "print('acked', flush=True)\n"
        "os._exit(9)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert "acked" in done.stdout
    with Memory(path=tmp_path) as mem:
        assert [r.text for r in mem.list(user_id="u1").records] == ["written just before the crash"]


def test_a_second_process_gets_a_clear_lock_error(tmp_path: Path) -> None:
    with Memory(path=tmp_path):
        script = f"from memadapt_core import Memory\nMemory(path={str(tmp_path)!r})\n"
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode != 0
    assert "StoreLockedError" in done.stderr
    assert "Qdrant server" in done.stderr


def test_opening_a_collection_with_another_embedder_is_refused(tmp_path: Path) -> None:
    with Memory(path=tmp_path, collection="shared") as mem:
        mem.add("made by wordllama", user_id="u1")
    with pytest.raises(ConfigurationError, match="embedder"):
        Memory(path=tmp_path, collection="shared", embedder=HashEmbedder(dim=256))


def test_each_embedder_gets_its_own_collection_by_default(tmp_path: Path) -> None:
    with Memory(path=tmp_path) as mem:
        mem.add("made by wordllama", user_id="u1")
    with Memory(path=tmp_path, embedder=HashEmbedder()) as other:
        assert other.count(user_id="u1") == 0
    with Memory(path=tmp_path) as mem:
        assert mem.count(user_id="u1") == 1


@pytest.mark.parametrize("made_with", ["minilm", "wordllama", "multilingual"])
def test_a_store_opened_without_naming_an_embedder_keeps_the_one_it_was_made_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, made_with: str
) -> None:
    monkeypatch.delenv("MEMADAPT_EMBEDDER__PROVIDER", raising=False)
    with Memory(path=tmp_path, embedder=made_with) as mem:
        mem.add("I moved to Berlin last spring", user_id="u1")
        name = mem.stats()["embedder"]
    with Memory(path=tmp_path) as mem:
        assert mem.stats()["embedder"] == name
        assert mem.count(user_id="u1") == 1


def test_an_embedder_named_on_open_is_used_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMADAPT_EMBEDDER__PROVIDER", raising=False)
    with Memory(path=tmp_path, embedder="minilm") as mem:
        mem.add("I moved to Berlin last spring", user_id="u1")
    with Memory(path=tmp_path, embedder="wordllama") as mem:
        assert mem.count(user_id="u1") == 0


def test_memory_location_store_leaves_nothing_behind() -> None:
    mem = Memory(location=":memory:")
    folder = Path(mem.stats()["path"])
    assert folder.exists()
    mem.close()
    assert not folder.exists()


def test_memadapt_path_selects_the_default_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMADAPT_PATH", str(tmp_path / "from-env"))
    with Memory() as mem:
        mem.add("configured by environment", user_id="u1")
        assert mem.stats()["path"] == str(tmp_path / "from-env")


def test_a_closed_memory_refuses_calls(tmp_path: Path) -> None:
    from memadapt_core import StoreUnavailableError

    mem = Memory(path=tmp_path)
    mem.close()
    with pytest.raises(StoreUnavailableError):
        mem.search("anything", user_id="u1")


def test_export_then_import_into_another_backend_keeps_everything(tmp_path: Path) -> None:
    with Memory(path=tmp_path / "a") as src:
        src.add(["one", "two", "three"], user_id="u1", session_id="s1")
        (fact,) = src.add("likes tea", user_id="u1", kind="fact", metadata={"source": "chat"})
        src.update(fact.id, text="likes green tea")
        assert src.export(tmp_path / "dump.jsonl") == 4
        before = src.list(user_id="u1").records
    with Memory(backend="qdrant-local", location=":memory:") as dst:
        assert dst.import_(tmp_path / "dump.jsonl") == 4
        assert dst.list(user_id="u1").records == before
        assert [e.event for e in dst.history(fact.id)] == ["add", "update"]
        assert dst.search("green tea", user_id="u1")[0].record.id == fact.id


def test_importing_a_malformed_line_names_it(tmp_path: Path, memory: Memory) -> None:
    from memadapt_core import ValidationError

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"not": "a record"}\n')
    with pytest.raises(ValidationError) as err:
        memory.import_(bad)
    assert err.value.field == "line 1"
