"""`RemoteMemory` / `AsyncRemoteMemory`: the engine's calls and models, against a real `memadapt serve`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memadapt_core import AsyncMemory, MemoryRecord, Page, SearchHit, ValidationError
from memadapt_core.errors import ConfigurationError, StoreUnavailableError
from memadapt_core.remote import AsyncRemoteMemory, RemoteMemory

from .conftest import Server, free_port

WRITER = """
import sys
from memadapt_core.remote import RemoteMemory
url, worker = sys.argv[1], sys.argv[2]
with RemoteMemory(url, token="token-bob") as memory:
    for n in range(25):
        memory.add(f"worker {worker} note {n}", user_id="bob", session_id="crowd")
"""


def test_remote_memory_round_trip(server: Server, tmp_path: Path) -> None:
    with RemoteMemory(server.url, token="token-ann") as memory:
        (record,) = memory.add("I repair clocks", user_id="ann", session_id="remote", kind="fact")
        hits = memory.search("clocks", user_id="ann", session_id="remote")
        page = memory.list(user_id="ann", session_id="remote", limit=10)
        updated = memory.update(record.id, text="I repair old clocks", user_id="ann")
        history = memory.history(record.id, user_id="ann")
        exported = memory.export(tmp_path / "out.jsonl", user_id="ann", session_id="remote")
        got = memory.get(record.id, user_id="ann")
        deleted, again = memory.delete(record.id, user_id="ann"), memory.delete(record.id, user_id="ann")
        missing = memory.get(record.id, user_id="ann")
    assert isinstance(record, MemoryRecord)
    assert all(isinstance(h, SearchHit) for h in hits)
    assert [h.record.id for h in hits] == [record.id]
    assert isinstance(page, Page)
    assert [r.id for r in page.records] == [record.id]
    assert (updated.text, [e.event for e in history]) == ("I repair old clocks", ["add", "update"])
    assert exported == 1
    assert "I repair old clocks" in (tmp_path / "out.jsonl").read_text(encoding="utf-8")
    assert got is not None
    assert (got.text, deleted, again, missing) == ("I repair old clocks", True, False, None)


async def test_async_remote_memory_returns_what_the_engine_returns(server: Server) -> None:
    async with AsyncRemoteMemory(server.url, token="token-ann") as remote:
        added = await remote.add(["I bake sourdough", "I cycle to work"], user_id="ann", session_id="async")
        hits = await remote.search("bread baking", user_id="ann", session_id="async", limit=1)
        removed = await remote.delete_all(user_id="ann", session_id="async")
    async with AsyncMemory(location=":memory:") as local:
        local_added = await local.add(["I bake sourdough", "I cycle to work"], user_id="ann", session_id="async")
        local_hits = await local.search("bread baking", user_id="ann", session_id="async", limit=1)
    assert [r.id for r in added] == [r.id for r in local_added]  # ids derive from scope and text: the same
    assert [h.record.text for h in hits] == [h.record.text for h in local_hits]
    assert removed == 2


async def test_async_remote_export_writes_the_scope_as_json_lines(server: Server, tmp_path: Path) -> None:
    async with AsyncRemoteMemory(server.url, token="token-ann") as remote:
        await remote.add(["first line", "second line"], user_id="ann", session_id="async-export")
        seen: list[int] = []
        written = await remote.export(
            tmp_path / "out.jsonl", user_id="ann", session_id="async-export", progress=seen.append
        )
    lines = (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()
    assert written == 2
    assert sum(seen) == 2
    assert sorted(json.loads(line)["text"] for line in lines) == ["first line", "second line"]


def test_remote_list_filters_by_metadata_as_the_engine_does(server: Server) -> None:
    with RemoteMemory(server.url, token="token-ann") as memory:
        memory.add("Booked the dentist", user_id="ann", session_id="filters", metadata={"topic": "health"})
        memory.add("Paid the rent", user_id="ann", session_id="filters", metadata={"topic": "money"})
        page = memory.list(user_id="ann", session_id="filters", filters={"topic": "health"})
        with pytest.raises(ValidationError):
            memory.list(user_id="ann", filters={"topic": {"$nope": 1}})
    assert [r.text for r in page.records] == ["Booked the dentist"]


def test_remote_errors_are_the_engines_errors(server: Server) -> None:
    with RemoteMemory(server.url, token="token-ann") as memory:
        with pytest.raises(ValidationError) as bad:
            memory.search("x", user_id="ann", limit=0)
        with pytest.raises(ValidationError) as gone:
            memory.update("00000000-0000-0000-0000-000000000000", text="y", user_id="ann")
        with pytest.raises(ConfigurationError):
            memory.list(user_id="bob")
    with RemoteMemory(server.url, token="stolen") as memory, pytest.raises(ConfigurationError):
        memory.list(user_id="ann")
    with RemoteMemory(f"http://127.0.0.1:{free_port()}", token="x") as memory, pytest.raises(StoreUnavailableError):
        memory.list(user_id="ann")
    assert bad.value.field == "limit"
    assert gone.value.field == "id"


def test_four_client_processes_writing_at_once_lose_nothing(server: Server) -> None:
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, server.url, str(n)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        for n in range(4)
    ]
    failures = []
    for writer in writers:
        _, err = writer.communicate(timeout=60)
        if writer.returncode != 0:
            failures.append(err.decode()[-1000:])
    assert failures == []
    with RemoteMemory(server.url, token="token-bob") as memory:
        page = memory.list(user_id="bob", session_id="crowd", limit=200)
    assert sorted(r.text for r in page.records) == sorted(f"worker {w} note {n}" for w in range(4) for n in range(25))


def test_a_remote_query_vector_is_the_one_the_servers_search_compares(server: Server) -> None:
    with RemoteMemory(server.url, token="token-ann") as memory:
        memory.add(["I grow tomatoes", "I knit scarves"], user_id="ann", session_id="query-vector")
        hits = memory.search("gardening", user_id="ann", session_id="query-vector", threshold=0.0)
        qvec = np.asarray(memory.query_vector("gardening", user_id="ann", session_id="query-vector"))
        stored = memory.vectors([h.record.id for h in hits], user_id="ann")
    assert hits
    for hit in hits:
        assert float(qvec @ np.asarray(stored[hit.record.id])) == pytest.approx(hit.scores["dense"], abs=1e-5)


def test_a_remote_export_path_with_a_nul_byte_is_refused_naming_the_path(server: Server, tmp_path: Path) -> None:
    with RemoteMemory(server.url, token="token-ann") as memory, pytest.raises(ValidationError) as err:
        memory.export(f"{tmp_path}/out\x00.jsonl", user_id="ann")
    assert err.value.field == "path"


async def test_an_async_remote_export_to_a_folder_is_refused_naming_the_path(server: Server, tmp_path: Path) -> None:
    async with AsyncRemoteMemory(server.url, token="token-ann") as remote:
        await remote.add("a line", user_id="ann", session_id="to-folder")
        with pytest.raises(ValidationError) as err:
            await remote.export(tmp_path, user_id="ann", session_id="to-folder")  # a folder: IsADirectoryError
    assert err.value.field == "path"
