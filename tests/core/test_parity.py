"""The async engine and its sync twin expose the same names and return the same results."""

from __future__ import annotations

import inspect
from datetime import UTC, datetime, timedelta
from pathlib import Path

import memadapt_core
from memadapt_core import AsyncMemory, Memory

# Pure functions, properties and the views between twins: nothing to await.
SYNC_BY_DESIGN = {
    "format_context", "format_experience", "record_id", "settings", "embedder", "as_async", "as_sync", "track",
}  # fmt: skip


def _public(cls: type) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_")}


def test_both_twins_have_the_same_public_names() -> None:
    assert _public(Memory) == _public(AsyncMemory)


# Iterators: an async generator on the async twin, a generator on the sync one.
ITERATORS = {"iter_records", "answer_stream"}


def test_async_methods_are_coroutines_and_sync_ones_are_not() -> None:
    for name in _public(Memory) - SYNC_BY_DESIGN - ITERATORS:
        assert inspect.iscoroutinefunction(getattr(AsyncMemory, name)), name
        assert not inspect.iscoroutinefunction(getattr(Memory, name)), name


def test_iterators_are_async_generators_on_the_async_twin_only() -> None:
    for name in ITERATORS:
        assert inspect.isasyncgenfunction(getattr(AsyncMemory, name)), name
        assert inspect.isgeneratorfunction(getattr(Memory, name)), name


def _callers_parameters(signature: inspect.Signature) -> list[inspect.Parameter]:
    """What a caller passes: ``self`` left out (a mixin's ``self`` names the API its twin implements)."""
    return [p for p in signature.parameters.values() if p.name != "self"]


def test_both_twins_have_the_same_signatures() -> None:
    for name in _public(Memory) - {"as_async", "as_sync", "settings", "embedder"}:
        sync, asynchronous = inspect.signature(getattr(Memory, name)), inspect.signature(getattr(AsyncMemory, name))
        assert _callers_parameters(sync) == _callers_parameters(asynchronous), name
        if name not in ITERATORS:  # Iterator[X] against AsyncIterator[X]
            assert sync.return_annotation == asynchronous.return_annotation, name


async def test_both_twins_return_the_same_results(tmp_path: Path) -> None:
    t0 = datetime(2024, 5, 1, tzinfo=UTC)
    msgs = [
        {"role": "user", "content": "I ran a half marathon in Porto", "timestamp": t0},
        {
            "role": "assistant",
            "content": "Congratulations! What was your time?",
            "timestamp": t0 + timedelta(seconds=5),
        },
        {"role": "user", "content": "One hour fifty, a personal best", "timestamp": t0 + timedelta(seconds=9)},
    ]
    with Memory(path=tmp_path / "sync") as mem:
        s_added = mem.add(msgs, user_id="u1", session_id="s1")
        s_hits = mem.search("how fast was my half marathon", user_id="u1", now=t0 + timedelta(days=3))
        s_page = mem.list(user_id="u1", limit=2)
    async with AsyncMemory(path=tmp_path / "async") as amem:
        a_added = await amem.add(msgs, user_id="u1", session_id="s1")
        a_hits = await amem.search("how fast was my half marathon", user_id="u1", now=t0 + timedelta(days=3))
        a_page = await amem.list(user_id="u1", limit=2)
    strip = {"created_at", "updated_at"}
    assert [r.model_dump(exclude=strip) for r in s_added] == [r.model_dump(exclude=strip) for r in a_added]
    assert [(h.record.id, round(h.score, 6)) for h in s_hits] == [(h.record.id, round(h.score, 6)) for h in a_hits]
    assert [r.id for r in s_page.records] == [r.id for r in a_page.records]


def test_each_twin_is_its_own_view() -> None:
    with Memory(location=":memory:") as mem:
        assert mem.as_sync() is mem
        amem = mem.as_async()
        assert amem.as_async() is amem


async def test_views_share_one_open_store(tmp_path: Path) -> None:
    with Memory(path=tmp_path) as mem:
        amem = mem.as_async()
        await amem.add("written through the async view", user_id="u1")
        await amem.close()  # a view does not close the store
        assert mem.count(user_id="u1") == 1


def test_public_surface_is_pinned() -> None:
    assert set(memadapt_core.__all__) == {
        "BLOCK_END", "BLOCK_START", "AsyncMemory", "ConfigurationError", "Embedder", "EmbedderSettings",
        "EmbeddingError", "HistoryEvent", "Kind", "LLMError", "LLMSettings", "MemadaptError", "Memory",
        "MemoryRecord", "MemorySettings", "Page", "PluginError", "RetrievalSettings", "Scope", "ScopeIds", "SearchHit",
        "StoreCorruptedError", "StoreError", "StoreForkedError", "StoreFullError", "StoreLockedError",
        "StoreUnavailableError", "ValidationError", "hookimpl",
        "JSON", "fit_query", "parse_json_object", "check_count", "engine_views", "ProfileStatement",
        "TierSettings", "UserProfile", "LibraryImport", "Answer",
    }  # fmt: skip
    for name in memadapt_core.__all__:
        assert hasattr(memadapt_core, name), name


def test_the_core_imports_no_framework_or_adapter() -> None:
    root = Path(memadapt_core.__file__).parent
    banned = ("autogen", "agentscope", "langchain", "langgraph", "memadapt_autogen", "memadapt_agentscope",
              "memadapt_langchain")  # fmt: skip
    for path in root.rglob("*.py"):
        for line in path.read_text().splitlines():
            stripped = line.strip()
            if stripped.startswith(("import ", "from ")):
                module = stripped.split()[1]
                assert not module.startswith(banned), f"{path.name}: {stripped}"


def test_both_consolidation_workers_have_the_same_public_names_and_signatures() -> None:
    from memadapt_core.consolidation.sync_worker import SyncConsolidationWorker
    from memadapt_core.consolidation.worker import ConsolidationWorker

    assert _public(SyncConsolidationWorker) == _public(ConsolidationWorker)
    for name in _public(SyncConsolidationWorker):
        sync, asynchronous = getattr(SyncConsolidationWorker, name), getattr(ConsolidationWorker, name)
        if callable(sync):
            assert inspect.signature(sync) == inspect.signature(asynchronous), name
            assert inspect.iscoroutinefunction(asynchronous) != inspect.iscoroutinefunction(sync) or name == "stats"


def test_both_consolidation_stores_have_the_same_methods() -> None:
    from memadapt_core.engine.consolidation_store import AsyncEngineStore, SyncEngineStore

    assert _public(SyncEngineStore) == _public(AsyncEngineStore)
    for name in _public(SyncEngineStore):
        assert inspect.iscoroutinefunction(getattr(AsyncEngineStore, name)), name
        assert inspect.signature(getattr(SyncEngineStore, name)) == inspect.signature(getattr(AsyncEngineStore, name))
