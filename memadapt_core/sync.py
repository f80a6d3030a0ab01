"""``Memory``: the sync twin of ``AsyncMemory``, written by hand over the same no-I/O code (no event loop inside).

Safe to share between threads: the embedded store serialises writes and serves reads concurrently.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from . import edits, locked, operations
from .config import EmbedderSettings, MemorySettings
from .embedders.base import Embedder
from .errors import StoreUnavailableError, ValidationError
from .inputs import parse_record_id, parse_record_ids, parse_scope
from .models import HistoryEvent, Kind, MemoryRecord, Page, SearchHit
from .ranking import fuse
from .records import dense_text, record_from_payload
from .records import record_id as _record_id
from .store import Store, build_settings

if TYPE_CHECKING:
    from .consolidation.sync_worker import SyncConsolidationWorker
    from .engine import AsyncMemory

__all__ = ["Memory"]

_IMPORT_BATCH = 256
_EXPORT_PAGE = 500


class Memory:
    """Long-term memory for agents, sync. ``Memory()`` opens the embedded store; see ``MemorySettings``."""

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
        self._worker: SyncConsolidationWorker | None = None
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

    def as_sync(self) -> Memory:
        """This memory itself: adapters call ``as_sync()`` on whichever twin they were handed."""
        return self

    def as_async(self) -> AsyncMemory:
        """An async view of this same store (closing the view does not close the store)."""
        from .engine import AsyncMemory

        return AsyncMemory(_store=self._s)

    def _live(self) -> Store:
        if self._s.closed:
            msg = "this memory is closed"
            raise StoreUnavailableError(msg)
        return self._s

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _consolidator(self) -> SyncConsolidationWorker | None:
        """The background consolidation thread, when an LLM is configured (built on first use)."""
        s = self._s
        if not s.settings.llm.configured or s.closed:
            return None
        if self._worker is None:
            from .consolidation.sync_worker import SyncConsolidationWorker
            from .consolidation.worker_base import WorkerOptions
            from .knowledge import SyncEngineStore

            self._llm = s.hooks.make_llm(s.settings.llm, asynchronous=False)
            options = WorkerOptions.from_settings(s.settings)
            self._worker = SyncConsolidationWorker(
                SyncEngineStore(s), self._llm, options=options, instructions=s.instructions
            )
        return self._worker

    def close(self) -> None:
        """Finish queued consolidation, then flush and close the store if this object opened it (a view only
        lets go of it). Messages still pending stay marked so and resume on the next start."""
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.close(drain=True)
            self._llm.close()
        if self._owner:
            self._s.close()

    # -- writes --------------------------------------------------------------------------------------------------------
    def record_id(self, external_id: str, *, user_id: str | None = None, agent_id: str | None = None,
                  session_id: str | None = None) -> str:  # fmt: skip
        """The record id that ``add`` gives a message whose ``id`` is ``external_id`` in this scope."""
        return _record_id(parse_scope(user_id, agent_id, session_id), edits.parse_id(external_id, "external_id"))

    def add(
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
        s = self._live()
        plan = operations.plan_add(
            s, messages, user_id=user_id, agent_id=agent_id, session_id=session_id, kind=kind,
            metadata=metadata, observed_at=observed_at, on_conflict=on_conflict,
        )  # fmt: skip
        if not plan.drafts:
            return []
        operations.resolve_existing(plan, s.backend.retrieve(plan.candidate_ids))
        if plan.to_store:
            ctx = plan.context_filter
            previous = [] if ctx is None else s.backend.scroll(ctx, operations.context_window(s), descending=True)
            dense = s.embedder.embed_documents([d.indexed for d in plan.to_store])
            points, reindex = operations.build_points(s, plan, dense, previous)
            s.backend.upsert(points)
            if reindex:
                s.backend.set_sparse(reindex)
            s.hooks.on_added(plan.new_records())
            if plan.kind == "message" and (worker := self._consolidator()) is not None:
                worker.submit(plan.scope)  # the raw messages are stored: consolidation may take its time
        return plan.result()

    def update(
        self, id: str, *, text: str | None = None, metadata: dict[str, Any] | None = None,
        user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
    ) -> MemoryRecord:  # fmt: skip
        """Change a record's text (re-embedded) or replace its metadata; the change is kept in ``history``.
        With a scope, a record outside it is "no memory with id" (use it in multi-tenant apps)."""
        s = self._live()
        scope = parse_scope(user_id, agent_id, session_id, required=False)
        plan = edits.plan_update(s, id, text, metadata, scope)
        dense = None
        if plan.text is not None:
            before = edits.existing(plan, s.backend.retrieve([plan.id]))
            dense = s.embedder.embed_documents([edits.embedded_text(plan, before)])[0]
        return locked.commit_update(s, plan, dense)

    def delete(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> bool:
        """Delete one record (and its history). False when no such record exists (in the scope, if given)."""
        return self.delete_many([id], user_id=user_id, agent_id=agent_id, session_id=session_id) == 1

    def delete_many(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> int:  # fmt: skip
        """Delete these records (those outside the scope, if given, are left alone); returns how many went."""
        s = self._live()
        wanted = parse_record_ids(ids)
        scope = parse_scope(user_id, agent_id, session_id, required=False)
        found = locked.delete_present(s, wanted, scope)
        if found:
            s.hooks.on_deleted(found)
        return len(found)

    def delete_all(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> int:
        """Delete everything in exactly this scope, in one filtered operation; returns how many records went."""
        s = self._live()
        flt = operations.scope_filter(parse_scope(user_id, agent_id, session_id))
        count = s.backend.count(flt)
        if count:
            s.backend.delete_where(flt)
        return count

    # -- reads ---------------------------------------------------------------------------------------------------------
    def search(
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
        s = self._live()
        plan = operations.plan_search(
            s, query, user_id=user_id, agent_id=agent_id, session_id=session_id, limit=limit, kinds=kinds,
            threshold=threshold, time_range=time_range, now=now, filters=filters,
            include_superseded=include_superseded, as_of=as_of,
        )  # fmt: skip
        qvec = s.embedder.embed_query(plan.query)
        svec = s.sparse.query(plan.query)
        dense, sparse = s.backend.search(qvec, svec, plan.flt, plan.candidates)
        fused = fuse(dense, sparse, plan.ranking, s.settings.retrieval, plan.rerank_depth)
        if not fused:
            return []
        points = s.backend.points([r.id for r in fused])
        return s.hooks.rerank(plan.query, operations.finish_search(s, plan, fused, points))

    def get(
        self,
        id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> MemoryRecord | None:
        """A record by id; with a scope, only if it belongs to that scope."""
        found = self.get_many([id], user_id=user_id, agent_id=agent_id, session_id=session_id)
        return found[0] if found else None

    def get_many(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> builtins.list[MemoryRecord]:  # fmt: skip
        wanted = parse_record_ids(ids)
        scope = parse_scope(user_id, agent_id, session_id, required=False)
        points = {p.id: p for p in self._live().backend.retrieve(wanted)}
        found = [points[i] for i in dict.fromkeys(wanted) if i in points]
        return [record_from_payload(p.id, p.payload) for p in found if edits.point_in_scope(p, scope)]

    def list(
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
        s = self._live()
        plan = operations.plan_list(
            s, user_id=user_id, agent_id=agent_id, session_id=session_id, kinds=kinds, limit=limit,
            cursor=cursor, filters=filters,
        )  # fmt: skip
        records, nxt = operations.finish_list(plan, s.backend.scroll(plan.flt, plan.fetch, start_from=plan.start))
        return Page(records=records, next_cursor=nxt)

    def count(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, filters: dict[str, Any] | None = None,
    ) -> int:  # fmt: skip
        s = self._live()
        plan = operations.plan_list(
            s, user_id=user_id, agent_id=agent_id, session_id=session_id, kinds=kinds, limit=1,
            cursor=None, filters=filters,
        )  # fmt: skip
        return s.backend.count(plan.flt)

    def history(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> builtins.list[HistoryEvent]:
        """The changes to a record and to the facts it superseded or was superseded by, oldest first (empty when
        no such record exists, in the scope if given). A record keeps ``history_limit`` events (default 100): its
        add and the newest changes, within ``history_max_chars`` characters of text (default 32,000; the newest
        change always stays); older changes are dropped."""
        s = self._live()
        scope = parse_scope(user_id, agent_id, session_id, required=False)
        seen: dict[str, Any] = {}
        start = parse_record_id(id)
        todo = [start] if start else []
        while todo and len(seen) < 100:
            points = s.backend.retrieve([i for i in todo if i not in seen])
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
    def export(
        self, path: str | Path, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, kinds: Sequence[Kind] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> int:  # fmt: skip
        """Write records (all, or one scope's) as JSON Lines, streaming; returns how many."""
        s = self._live()
        flt = edits.export_filter(user_id, agent_id, session_id, kinds)
        written, start, skip = 0, None, frozenset[str]()
        plan = operations.ListPlan(flt, _EXPORT_PAGE, start, skip)
        try:
            out = Path(path).open("w", encoding="utf-8")  # noqa: SIM115 - opened here to translate its OSError
        except OSError as exc:
            field = "path"
            raise ValidationError(field, f"cannot write {path}: {exc}") from exc
        with out:
            while True:
                points = s.backend.scroll(flt, plan.fetch, start_from=plan.start)
                by_id = {p.id: p for p in points}
                records, cursor = operations.finish_list(plan, points)
                for r in records:
                    out.write(edits.record_line(by_id[r.id]) + "\n")
                written += len(records)
                if progress is not None:
                    progress(len(records))
                if cursor is None:
                    return written
                plan = operations.ListPlan(flt, _EXPORT_PAGE, *operations.decode_cursor(cursor))

    def import_(self, path: str | Path, *, progress: Callable[[int], None] | None = None) -> int:
        """Read a JSON Lines export, re-embedding with this store's embedder; returns how many records."""
        self._live()
        try:
            # Opened here to translate its OSError. A byte that is not UTF-8 is read as a surrogate, which
            # parse_export_line refuses naming its line.
            source = Path(path).open(encoding="utf-8", errors="surrogateescape")  # noqa: SIM115
        except OSError as exc:
            field = "path"
            raise ValidationError(field, f"cannot read {path}: {exc}") from exc
        total = 0
        with source:
            batch: builtins.list[edits.Imported] = []
            for number, line in enumerate(source, 1):
                if line.strip():
                    batch.append(edits.parse_export_line(line, number))
                if len(batch) >= _IMPORT_BATCH:
                    total += self._import_batch(batch, progress)
                    batch = []
            if batch:
                total += self._import_batch(batch, progress)
        return total

    def _import_batch(
        self,
        batch: builtins.list[tuple[MemoryRecord, builtins.list[HistoryEvent]]],
        progress: Callable[[int], None] | None,
    ) -> int:
        s = self._live()
        dense = s.embedder.embed_documents([dense_text(r.text, r.name) for r, _ in batch])
        s.backend.upsert(edits.import_points(s, batch, dense))
        if progress is not None:
            progress(len(batch))
        return len(batch)

    def flush(self) -> None:
        """Wait for background consolidation (resuming what a previous run left pending) and make every write
        durable on disk."""
        s = self._live()
        if (worker := self._consolidator()) is not None:
            worker.start()
            worker.flush()
        s.backend.flush()

    def consolidate(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> int:
        """Consolidate pending messages now, in this thread (all, or those inside the scope given); returns how
        many messages were consolidated. Without an LLM configured there is nothing to do: 0. Raises
        ``LLMError`` when the LLM cannot be reached (the messages stay pending)."""
        scope = parse_scope(user_id, agent_id, session_id, required=False)
        if (worker := self._consolidator()) is None:
            return 0
        from .knowledge import SyncEngineStore

        pending = SyncEngineStore(self._s).pending_scopes(worker.options.resume_limit)
        return sum(worker.consolidate(each).messages for each in self._s.pending_within(pending, scope))

    def optimize(self) -> None:
        """Maintenance, now: the embedded store rewrites its live points into one segment with each user's points
        together (filtered search about twice as fast in qdrant-edge; search stays exact, no HNSW graph is built),
        drops deleted points and flushes its log. Writes wait, and the process's other threads pause (qdrant-edge
        keeps the GIL): 3-4.5 s at 100k memories, 6 s with as many deleted. Worth running after a bulk import; the
        store also vacuums by itself in the background (``vacuum_after_deletes``). A Qdrant server optimizes by
        itself: nothing to do."""
        self._live().backend.optimize()

    def stats(self) -> dict[str, Any]:
        s = self._live()
        out = s.backend.stats()
        out.update({"embedder": s.embedder.name, "dim": s.embedder.dim})
        if self._worker is not None:
            out["consolidation"] = self._worker.stats
        return out
