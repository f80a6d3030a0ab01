"""``AsyncMemory``: the engine. Its sync twin ``Memory`` (sync.py) is written by hand over the same no-I/O code.

Blocking work never runs on the event loop: a server backend and big batches go to a thread; the embedded
store's sub-millisecond calls and one-query embeddings run inline, where a thread hop would cost more than them.
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from . import edits, locked, operations
from .config import EmbedderSettings, MemorySettings
from .embedders.base import Embedder
from .errors import StoreUnavailableError
from .inputs import parse_record_id, parse_record_ids, parse_scope
from .models import HistoryEvent, Kind, MemoryRecord, Page, SearchHit
from .ranking import fuse
from .records import record_from_payload
from .records import record_id as _record_id
from .store import Store, build_settings

if TYPE_CHECKING:
    from .consolidation.worker import ConsolidationWorker
    from .sync import Memory

__all__ = ["AsyncMemory"]

T = TypeVar("T")
_HEAVY = 64  # points in one write above which the embedded store is written from a thread


class AsyncMemory:
    """Long-term memory for agents, async. ``AsyncMemory()`` opens the embedded store; see ``MemorySettings``."""

    def __init__(
        self,
        *,
        path: str | Path | None = None,
        location: str | None = None,
        url: str | None = None,
        api_key: str | None = None,
        backend: Literal["edge", "qdrant", "qdrant-local"] | None = None,
        collection: str | None = None,
        embedder: str | dict[str, Any] | EmbedderSettings | Embedder | None = None,
        plugins: Sequence[object] = (),
        settings: MemorySettings | None = None,
        _store: Store | None = None,
        **options: Any,
    ) -> None:
        self._worker: ConsolidationWorker | None = None
        self._llm: Any = None
        if _store is not None:
            self._s, self._owner = _store, False
            return
        given_embedder = embedder if isinstance(embedder, Embedder) else None
        cfg = build_settings(
            settings,
            {
                "path": None if path is None else str(path), "location": location, "url": url, "api_key": api_key,
                "backend": backend, "collection": collection,
                "embedder": None if isinstance(embedder, Embedder) else embedder, **options,
            },
        )  # fmt: skip
        self._s, self._owner = Store(cfg, embedder=given_embedder, plugins=plugins), True

    # -- plumbing ----------------------------------------------------------------------------------------------------
    @property
    def settings(self) -> MemorySettings:
        return self._s.settings

    @property
    def embedder(self) -> Embedder:
        return self._s.embedder

    def as_async(self) -> AsyncMemory:
        """This engine itself: adapters call ``as_async()`` on whichever twin they were handed."""
        return self

    def as_sync(self) -> Memory:
        """A sync view of this same store (closing the view does not close the store)."""
        from .sync import Memory

        return Memory(_store=self._s)

    async def _run(self, fn: Callable[..., T], *args: Any, heavy: bool = False, **kwargs: Any) -> T:
        if self._s.closed:
            msg = "this memory is closed"
            raise StoreUnavailableError(msg)
        if heavy or self._s.backend.blocking_io:
            return await asyncio.to_thread(fn, *args, **kwargs)
        return fn(*args, **kwargs)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _consolidator(self) -> ConsolidationWorker | None:
        """The background consolidation worker, when an LLM is configured (built on first use, in the loop)."""
        s = self._s
        if not s.settings.llm.configured or s.closed:
            return None
        if self._worker is None:
            from .consolidation.worker import ConsolidationWorker
            from .consolidation.worker_base import WorkerOptions
            from .knowledge import AsyncEngineStore

            self._llm = s.hooks.make_llm(s.settings.llm, asynchronous=True)
            options = WorkerOptions.from_settings(s.settings)
            self._worker = ConsolidationWorker(
                AsyncEngineStore(s, self._run), self._llm, options=options, instructions=s.instructions
            )
        return self._worker

    async def close(self) -> None:
        """Finish queued consolidation, then flush and close the store if this object opened it (a view only
        lets go of it). Messages still pending stay marked so and resume on the next start."""
        worker, self._worker = self._worker, None
        if worker is not None:
            await worker.close(drain=True)
            await self._llm.close()
        if self._owner and not self._s.closed:
            await self._s.embedder.aclose()
            await asyncio.to_thread(self._s.close)

    # -- writes --------------------------------------------------------------------------------------------------------
    def record_id(self, external_id: str, *, user_id: str | None = None, agent_id: str | None = None,
                  session_id: str | None = None) -> str:  # fmt: skip
        """The record id that ``add`` gives a message whose ``id`` is ``external_id`` in this scope."""
        return _record_id(parse_scope(user_id, agent_id, session_id), edits.parse_id(external_id, "external_id"))

    async def add(
        self,
        messages: str | dict[str, Any] | Sequence[str | dict[str, Any]],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        kind: Kind = "message",
        metadata: dict[str, Any] | None = None,
        observed_at: datetime | str | None = None,
        on_conflict: Literal["skip", "replace"] = "skip",
    ) -> builtins.list[MemoryRecord]:
        """Store messages (or facts); returns one record per accepted input, already-stored duplicates included."""
        s = self._s
        plan = operations.plan_add(
            s, messages, user_id=user_id, agent_id=agent_id, session_id=session_id, kind=kind,
            metadata=metadata, observed_at=observed_at, on_conflict=on_conflict,
        )  # fmt: skip
        if not plan.drafts:
            return []
        operations.resolve_existing(plan, await self._run(s.backend.retrieve, plan.candidate_ids))
        if plan.to_store:
            ctx = plan.context_filter
            previous = []
            if ctx is not None:
                previous = await self._run(s.backend.scroll, ctx, operations.context_window(s), descending=True)
            dense = await s.embedder.aembed_documents([d.indexed for d in plan.to_store])
            points, reindex = operations.build_points(s, plan, dense, previous)
            await self._run(s.backend.upsert, points, heavy=len(points) > _HEAVY)
            if reindex:
                await self._run(s.backend.set_sparse, reindex)
            s.hooks.on_added(plan.new_records())
            if plan.kind == "message" and (worker := self._consolidator()) is not None:
                await worker.submit(plan.scope)  # the raw messages are stored: consolidation may take its time
        return plan.result()

    async def update(
        self, id: str, *, text: str | None = None, metadata: dict[str, Any] | None = None,
        user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
    ) -> MemoryRecord:  # fmt: skip
        """Change a record's text (re-embedded) or replace its metadata; the change is kept in ``history``.
        With a scope, a record outside it is "no memory with id" (use it in multi-tenant apps)."""
        s = self._s
        scope = parse_scope(user_id, agent_id, session_id, required=False)
        plan = edits.plan_update(s, id, text, metadata, scope)
        dense = None
        if plan.text is not None:
            before = edits.existing(plan, await self._run(s.backend.retrieve, [plan.id]))
            dense = (await s.embedder.aembed_documents([edits.embedded_text(plan, before)]))[0]
        return await self._run(locked.commit_update, s, plan, dense)

    async def delete(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> bool:
        """Delete one record (and its history). False when no such record exists (in the scope, if given)."""
        return await self.delete_many([id], user_id=user_id, agent_id=agent_id, session_id=session_id) == 1

    async def delete_many(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> int:  # fmt: skip
        """Delete these records (those outside the scope, if given, are left alone); returns how many went."""
        s = self._s
        wanted = parse_record_ids(ids)
        scope = parse_scope(user_id, agent_id, session_id, required=False)
        found = await self._run(locked.delete_present, s, wanted, scope)
        if found:
            s.hooks.on_deleted(found)
        return len(found)

    async def delete_all(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> int:
        """Delete everything in exactly this scope, in one filtered operation; returns how many records went."""
        s = self._s
        flt = operations.scope_filter(parse_scope(user_id, agent_id, session_id))
        count = await self._run(s.backend.count, flt)
        if count:
            await self._run(s.backend.delete_where, flt, heavy=True)
        return count

    # -- reads ---------------------------------------------------------------------------------------------------------
    async def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        limit: int = 5,
        kinds: Sequence[Kind] | None = None,
        threshold: float | None = None,
        time_range: tuple[datetime | str | None, datetime | str | None] | None = None,
        now: datetime | None = None,
        filters: dict[str, Any] | None = None,
        include_superseded: bool = False,
        as_of: datetime | None = None,
    ) -> builtins.list[SearchHit]:
        """Hybrid, time-aware search in one scope. ``threshold=None`` applies the relevance floor; ``0.0`` none."""
        s = self._s
        plan = operations.plan_search(
            s, query, user_id=user_id, agent_id=agent_id, session_id=session_id, limit=limit, kinds=kinds,
            threshold=threshold, time_range=time_range, now=now, filters=filters,
            include_superseded=include_superseded, as_of=as_of,
        )  # fmt: skip
        qvec = await s.embedder.aembed_query(plan.query)
        svec = s.sparse.query(plan.query)
        dense, sparse = await self._run(s.backend.search, qvec, svec, plan.flt, plan.candidates)
        fused = fuse(dense, sparse, plan.ranking, s.settings.retrieval, plan.rerank_depth)
        if not fused:
            return []
        points = await self._run(s.backend.points, [r.id for r in fused])
        return s.hooks.rerank(plan.query, operations.finish_search(s, plan, fused, points))

    async def get(
        self,
        id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> MemoryRecord | None:
        """A record by id; with a scope, only if it belongs to that scope."""
        found = await self.get_many([id], user_id=user_id, agent_id=agent_id, session_id=session_id)
        return found[0] if found else None

    async def get_many(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> builtins.list[MemoryRecord]:  # fmt: skip
        wanted = parse_record_ids(ids)
        scope = parse_scope(user_id, agent_id, session_id, required=False)
        points = {p.id: p for p in await self._run(self._s.backend.retrieve, wanted)}
        found = [points[i] for i in dict.fromkeys(wanted) if i in points]
        return [record_from_payload(p.id, p.payload) for p in found if edits.point_in_scope(p, scope)]

    async def list(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        kinds: Sequence[Kind] | None = None,
        limit: int = 50,
        cursor: str | None = None,
        filters: dict[str, Any] | None = None,
    ) -> Page:
        """Records of a scope, oldest first (``observed_at``), a page at a time."""
        s = self._s
        plan = operations.plan_list(
            s, user_id=user_id, agent_id=agent_id, session_id=session_id, kinds=kinds, limit=limit,
            cursor=cursor, filters=filters,
        )  # fmt: skip
        points = await self._run(s.backend.scroll, plan.flt, plan.fetch, start_from=plan.start)
        records, nxt = operations.finish_list(plan, points)
        return Page(records=records, next_cursor=nxt)

    async def count(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, filters: dict[str, Any] | None = None,
    ) -> int:  # fmt: skip
        plan = operations.plan_list(
            self._s, user_id=user_id, agent_id=agent_id, session_id=session_id, kinds=kinds, limit=1,
            cursor=None, filters=filters,
        )  # fmt: skip
        return await self._run(self._s.backend.count, plan.flt)

    async def history(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> builtins.list[HistoryEvent]:
        """The changes to a record and to the facts it superseded or was superseded by, oldest first (empty when
        no such record exists, in the scope if given). A record keeps ``history_limit`` events (default 100): its
        add and the newest changes, within ``history_max_chars`` characters of text (default 32,000; the newest
        change always stays); older changes are dropped."""
        s = self._s
        scope = parse_scope(user_id, agent_id, session_id, required=False)
        seen: dict[str, Any] = {}
        start = parse_record_id(id)
        todo = [start] if start else []
        while todo and len(seen) < 100:
            points = await self._run(s.backend.retrieve, [i for i in todo if i not in seen])
            todo = []
            for p in points:
                if edits.point_in_scope(p, scope):
                    seen[p.id] = p
                    todo += [i for i in edits.chain_ids(p) if i not in seen]
        return edits.collect_history(seen.values())

    def format_context(self, query: str, hits: Sequence[SearchHit]) -> str:
        """The delimited text block adapters inject into an agent's context (``memadapt_format_context``)."""
        return self._s.hooks.format_context(query, hits)

    # -- maintenance -------------------------------------------------------------------------------------------------
    async def export(
        self, path: str | Path, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, kinds: Sequence[Kind] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> int:  # fmt: skip
        """Write records (all, or one scope's) as JSON Lines, streaming; returns how many."""
        sync = self.as_sync()
        return await asyncio.to_thread(
            sync.export,
            path,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            kinds=kinds,
            progress=progress,
        )

    async def import_(self, path: str | Path, *, progress: Callable[[int], None] | None = None) -> int:
        """Read a JSON Lines export, re-embedding with this store's embedder; returns how many records."""
        return await asyncio.to_thread(self.as_sync().import_, path, progress=progress)

    async def flush(self) -> None:
        """Wait for background consolidation (resuming what a previous run left pending) and make every write
        durable on disk."""
        if (worker := self._consolidator()) is not None:
            await worker.start()
            await worker.flush()
        await self._run(self._s.backend.flush, heavy=True)

    async def consolidate(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> int:
        """Consolidate pending messages now, in this task (all, or those inside the scope given); returns how
        many messages were consolidated. Without an LLM configured there is nothing to do: 0. Raises
        ``LLMError`` when the LLM cannot be reached (the messages stay pending)."""
        scope = parse_scope(user_id, agent_id, session_id, required=False)
        if (worker := self._consolidator()) is None:
            return 0
        from .knowledge import AsyncEngineStore

        pending = await AsyncEngineStore(self._s, self._run).pending_scopes(worker.options.resume_limit)
        done = 0
        for each in self._s.pending_within(pending, scope):
            done += (await worker.consolidate(each)).messages
        return done

    async def optimize(self) -> None:
        """Maintenance, now: the embedded store rewrites its live points into one segment with each user's points
        together (filtered search about twice as fast in qdrant-edge; search stays exact, no HNSW graph is built),
        drops deleted points and flushes its log. Writes wait, and the process's other threads pause (qdrant-edge
        keeps the GIL): 3-4.5 s at 100k memories, 6 s with as many deleted. Worth running after a bulk import; the
        store also vacuums by itself in the background (``vacuum_after_deletes``). A Qdrant server optimizes by
        itself: nothing to do."""
        await self._run(self._s.backend.optimize, heavy=True)

    async def stats(self) -> dict[str, Any]:
        s = self._s
        out = await self._run(s.backend.stats)
        out.update({"embedder": s.embedder.name, "dim": s.embedder.dim})
        if self._worker is not None:
            out["consolidation"] = self._worker.stats
        return out
