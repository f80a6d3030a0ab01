"""Loading and dumping experience libraries in ReMe's format: the loops over files and ``Resources``.

Plain blocking code, like ``transfer.jsonl``: ``Memory`` calls it, ``AsyncMemory`` runs it on a thread. The lines are
written as the store owner's import writes (``transfer.import_points``), never through ``add``, which refuses the
kind ``experience`` from a caller: a library is restored by whoever owns the store (the CLI, the Python API, or
the service's operator), into the agent's own scope.
"""

from __future__ import annotations

import errno
import json
from collections.abc import Callable, Iterator
from pathlib import Path

from memadapt_core.engine.planning import reads
from memadapt_core.engine.resources import Resources
from memadapt_core.engine.tasks.recall import agent_scope_id
from memadapt_core.engine.tasks.reme_lines import LibraryLine, parse_reme_line, reme_memory
from memadapt_core.engine.transfer.jsonl import Imported, check_owners, import_points
from memadapt_core.errors import StoreError, StoreFullError, StoreUnavailableError, ValidationError
from memadapt_core.filters import FilterSpec
from memadapt_core.models import LibraryImport, MemoryRecord, Scope
from memadapt_core.record_codec import dense_text, utcnow
from memadapt_core.redaction import redact_shared
from memadapt_core.validation import parse_path

__all__ = ["export_library", "import_library", "lesson_filter", "lessons", "library_files"]

_BATCH = 512
_PAGE = 500


def library_files(path: str | Path) -> list[Path]:
    """A ``.jsonl`` file, or every ``.jsonl`` file directly in a folder (by name)."""
    where = parse_path(path)
    if where.is_dir():
        files = sorted(p for p in where.iterdir() if p.suffix == ".jsonl" and p.is_file())
        if not files:
            field = "path"
            raise ValidationError(field, f"{where} holds no .jsonl file")
        return files
    if not where.is_file():
        field = "path"
        raise ValidationError(field, f"{where} is neither a .jsonl file nor a folder of them")
    return [where]


def _agent(agent_id: object) -> str:
    """The agent a library belongs to: required, and checked as every door checks an id."""
    return agent_scope_id(None if agent_id is None else Scope.of(agent_id=agent_id).agent_id)


def lesson_filter(agent_id: str) -> FilterSpec:
    """The agent's own current lessons: experiences with no user and no session, not superseded."""
    return FilterSpec(agent_id=agent_id, kinds=("experience",), exact_scope=True, valid_only=True)


def import_library(
    resources: Resources, path: str | Path, agent_id: object, progress: Callable[[int], None] | None
) -> LibraryImport:
    """Load ReMe lines from ``path`` (a file or a folder of ``.jsonl``) as ``agent_id``'s lessons. A line already
    stored (the same ``memory_id`` in the same scope) is left as it is. The first bad line raises
    ``ValidationError`` naming its file and line; the batches before it are stored."""
    agent = _agent(agent_id)
    files = library_files(path)
    report = LibraryImport(files=len(files))
    max_chars = resources.settings.max_text_chars
    for file in files:
        try:
            # A byte that is not UTF-8 is read as a surrogate, which the text checks refuse naming the line.
            source = file.open(encoding="utf-8", errors="surrogateescape")
        except OSError as exc:
            field = "path"
            raise ValidationError(field, f"cannot read {file}: {exc}") from exc
        with source:
            batch: list[tuple[LibraryLine, int]] = []
            for number, line in enumerate(source, 1):
                if not line.strip():
                    continue
                parsed = parse_reme_line(line, f"{file.name} line {number}", agent, utcnow(), max_chars)
                if parsed is None:
                    report.skipped_personal += 1
                else:
                    batch.append((parsed, number))
                if len(batch) >= _BATCH:
                    _store(resources, batch, report, progress)
                    batch = []
            if batch:
                _store(resources, batch, report, progress)
    return report


def _store(
    resources: Resources,
    batch: list[tuple[LibraryLine, int]],
    report: LibraryImport,
    progress: Callable[[int], None] | None,
) -> None:
    if resources.closed:
        msg = "this memory is closed"
        raise StoreUnavailableError(msg)
    wanted = {line.item.record.id for line, _ in batch} | {line.alias for line, _ in batch if line.alias}
    stored = resources.backend.retrieve(sorted(wanted))
    items = [line.item for line, _ in batch]
    check_owners(items, [n for _, n in batch], [p for p in stored if p.id in {i.record.id for i in items}], {})
    have = {p.id for p in stored}
    fresh: list[Imported] = []
    for line, _ in batch:
        if line.item.record.id in have or (line.alias is not None and line.alias in have):
            report.already_stored += 1
        else:
            have.add(line.item.record.id)  # the same memory_id twice in a library: stored once
            fresh.append(_shared(resources, line.item))
    if fresh:
        records = [item.record for item in fresh]
        dense = resources.embed_in_scopes(records, [dense_text(r.text, r.name) for r in records])
        resources.backend.upsert(import_points(resources, fresh, dense))
        report.added += len(fresh)
    if progress is not None:
        progress(len(batch))


def _shared(resources: Resources, item: Imported) -> Imported:
    """A lesson every user of the agent will read passes what the worker's lessons pass: URLs lose their
    credentials, then the ``memadapt_prepare_record`` hook (the deployment's redaction)."""
    if item.record.kind != "experience":
        return item
    record = resources.hooks.prepare_record(redact_shared(item.record))
    return item if record is item.record else item._replace(record=record)


def lessons(resources: Resources, agent_id: str) -> Iterator[MemoryRecord]:
    """The agent's current lessons, oldest first, a page at a time."""
    flt = lesson_filter(agent_id)
    plan = reads.ListPlan(flt, _PAGE, None, frozenset())
    while True:
        records, cursor = reads.finish_list(plan, resources.backend.scroll(flt, plan.fetch, start_from=plan.start))
        yield from records
        if cursor is None:
            return
        plan = reads.ListPlan(flt, _PAGE, *reads.decode_cursor(cursor))


def export_library(
    resources: Resources, path: str | Path, agent_id: object, progress: Callable[[int], None] | None
) -> int:
    """Write ``agent_id``'s current lessons to ``path`` in ReMe's line format; returns how many."""
    agent = _agent(agent_id)
    try:
        out = parse_path(path).open("w", encoding="utf-8")
    except OSError as exc:
        field = "path"
        raise ValidationError(field, f"cannot write {path}: {exc}") from exc
    written = 0
    try:
        with out:
            for record in lessons(resources, agent):
                out.write(json.dumps(reme_memory(record, agent), ensure_ascii=False) + "\n")
                written += 1
                if progress is not None and written % _PAGE == 0:
                    progress(_PAGE)
    except OSError as exc:
        full = exc.errno in (errno.ENOSPC, errno.EDQUOT)
        msg = f"cannot write {path}: {exc}; it is incomplete (the store is unchanged)"
        raise (StoreFullError if full else StoreError)(msg) from exc
    if progress is not None and written % _PAGE:
        progress(written % _PAGE)
    return written
