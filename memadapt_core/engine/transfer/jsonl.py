"""Export to and import from JSON Lines: the line codec (no I/O) and the streaming loops over ``Resources``.

The loops are plain blocking code: ``Memory`` calls them, ``AsyncMemory`` runs them on a thread (they read or
write a file throughout).
"""

from __future__ import annotations

import errno
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, TextIO

import numpy as np
import pydantic
import pydantic_core

from memadapt_core.backends.base import INFO_POINT_ID, StoredPoint
from memadapt_core.engine.planning import reads
from memadapt_core.engine.resources import Resources
from memadapt_core.errors import StoreError, StoreFullError, StoreUnavailableError, ValidationError
from memadapt_core.filters import FilterSpec
from memadapt_core.models import KINDS, HistoryEvent, MemoryRecord, Scope
from memadapt_core.record_codec import (
    dense_text,
    history_of,
    payload_of,
    payload_scope,
    record_from_payload,
    said_on,
    sparse_text,
    turn_texts,
)
from memadapt_core.validation import (
    check_storable,
    parse_kinds,
    parse_metadata,
    parse_path,
    parse_record_id,
    parse_scope,
    parse_speaker,
    parse_text,
    storable_line,
)
from memadapt_core.vectors.dense_context import mix_turns


class Imported(NamedTuple):
    """One parsed line: the record, its history and its scope (checked once: building a ``Scope`` costs ~1 µs)."""

    record: MemoryRecord
    history: list[HistoryEvent]
    scope: Scope


__all__ = [
    "check_owners",
    "decode_line",
    "export_filter",
    "export_records",
    "import_points",
    "import_records",
    "parse_export_line",
    "record_line",
]

ScopeKey = tuple[str | None, str | None, str | None]
_SCOPES_KEPT = 10_000
_IMPORT_BATCH = 1024  # lines embedded and written at once: one fsync each (durability='fsync')
_EXPORT_PAGE = 500


# -- export / import ---------------------------------------------------------------------------------------------------
def export_filter(user_id: object, agent_id: object, session_id: object, kinds: object) -> FilterSpec:
    scope = parse_scope(user_id, agent_id, session_id, required=False)
    ks = parse_kinds(kinds) or KINDS
    return FilterSpec(user_id=scope.user_id, agent_id=scope.agent_id, session_id=scope.session_id, kinds=ks)


def record_line(point: StoredPoint) -> str:
    record = record_from_payload(point.id, point.payload)
    data = record.model_dump(mode="json")
    data["history"] = [e.model_dump(mode="json") for e in history_of(point.id, point.payload)]
    return json.dumps(data, ensure_ascii=False)


def parse_export_line(line: str, number: int, max_chars: int, scopes: dict[ScopeKey, Scope] | None = None) -> Imported:
    """One line of an export, checked as ``add`` checks what a caller gives (the text's size, NUL characters, the
    scope ids, role, name and metadata) plus what only a line can carry (a record id that is a UUID, payload values
    the store cannot keep). ``ValidationError`` names the line and the field.

    ``scopes``: the scopes checked so far, by their ids (an import's lines share a few scopes; ``Scope.of`` depends
    on the ids only, and costs ~2 µs)."""
    where = f"line {number}"
    try:
        data = decode_line(line)
        history = _history(where, data.pop("history", []))
        record = MemoryRecord.model_validate(data)
    except ValidationError:
        raise
    except pydantic.ValidationError as exc:
        raise ValidationError(where, _fields_at_fault(exc)) from exc
    except (ValueError, AttributeError, TypeError) as exc:  # not JSON, or not an object
        raise ValidationError(where, f"is not a memadapt export record: {exc}") from exc
    if record.user_id is None and record.agent_id is None and record.session_id is None:
        raise ValidationError(where, "has no user_id, agent_id or session_id")
    try:  # what the parsers refuse from a caller, an import line must not smuggle in
        fields = record.__dict__
        values = [fields[k] for k in _CHECKED_FIELDS] + [v for e in history for v in e.__dict__.values()]
        if not storable_line(line, values):
            check_storable("record", [record.model_dump(exclude={"metadata"}), [e.model_dump() for e in history]])
        ids = (record.user_id, record.agent_id, record.session_id)
        scope = _scope_of(ids, scopes)
        text = parse_text("text", record.text, max_chars)
        for field in ("role", "name", "external_id"):
            if (value := fields[field]) is not None:
                parse_speaker(field, value)
        parse_metadata(record.metadata)
        rid = parse_record_id(record.id)
        if rid is None or rid == INFO_POINT_ID:  # the collection's own info point is no record's
            field = "id"
            raise ValidationError(field, f"{record.id[:40]!r} is not a record id (a UUID)")
    except ValidationError as exc:
        raise ValidationError(where, f"{exc.field}: {exc.problem}") from exc
    if (rid, text) != (record.id, record.text):
        record = record.model_copy(update={"id": rid, "text": text})
    return Imported(record, history, scope)


_HISTORY = pydantic.TypeAdapter(list[HistoryEvent])


def _history(where: str, value: object) -> list[HistoryEvent]:
    try:
        return _HISTORY.validate_python(value)
    except pydantic.ValidationError as exc:
        raise ValidationError(where, _fields_at_fault(exc, "history")) from exc


def _fields_at_fault(exc: pydantic.ValidationError, prefix: str = "") -> str:
    """pydantic's report on one line, each problem after the field it is about: ``id: Field required``."""
    problems = []
    for error in exc.errors():
        field = ".".join(str(part) for part in (prefix, *error["loc"]) if part != "") or "record"
        problems.append(f"{field}: {error['msg'].removeprefix('Value error, ')}")
    return "; ".join(problems)


def _scope_of(ids: ScopeKey, scopes: dict[ScopeKey, Scope] | None) -> Scope:
    if scopes is None:
        return Scope.of(*ids)
    if (scope := scopes.get(ids)) is None:
        if len(scopes) >= _SCOPES_KEPT:
            scopes.clear()
        scope = scopes[ids] = Scope.of(*ids)
    return scope


def decode_line(line: str) -> Any:
    """``json.loads(line)``, by pydantic-core's parser when it can (~2.5 µs a line less). It gives the same values
    for every line it reads (duplicate keys, NaN, big integers, float rounding: tests/core/test_import_lines.py);
    a line it refuses (bad JSON, a lone surrogate, nesting past its limit) goes to ``json.loads``, which decides
    and words the error as before."""
    try:
        return pydantic_core.from_json(line)
    except (ValueError, TypeError):
        return json.loads(line)


_CHECKED_FIELDS = tuple(f for f in MemoryRecord.model_fields if f != "metadata")  # metadata: parse_metadata's


def check_owners(
    batch: list[Imported], numbers: list[int], stored: list[StoredPoint], owners: dict[str, Scope]
) -> None:
    """Refuse a batch that would overwrite a record of another scope, or move one into another scope.

    Record ids are derived from their scope (``record_codec.record_id``, ``content_id``), but an export line can
    name any id: a line edited to carry another user's record id would, upserted, replace that user's record with
    the importer's text and move it into the importer's scope. So an id that is already stored (``stored``) or
    met earlier in this batch (``owners``, filled here; earlier batches are in the store) under another scope is
    refused, naming its line; the same id in the same scope is overwritten, which keeps re-importing a dump
    idempotent."""
    for point in stored:
        owners.setdefault(point.id, payload_scope(point.payload))
    for (record, _, scope), number in zip(batch, numbers, strict=True):
        owner = owners.setdefault(record.id, scope)
        if owner is not scope and owner != scope:
            where = f"line {number}"
            problem = (
                f"record id {record.id} belongs to another scope; an import never overwrites or moves another "
                "scope's record (give this record a new id)"
            )
            raise ValidationError(where, problem)


def import_points(store: Resources, batch: list[Imported], dense: np.ndarray[Any, Any]) -> list[StoredPoint]:
    """Re-index a batch; consecutive messages of one session get their neighbours' words and meaning again."""
    cfg = store.settings.retrieval
    texts = [dense_text(r.text, r.name) for r, _, _ in batch]
    keys = [(scope.key() if r.kind == "message" and r.session_id else None) for r, _, scope in batch]
    dense = np.array(dense, dtype=np.float32, copy=True)
    for start, end in _runs(keys):
        dense[start:end], _ = mix_turns(dense[start:end], None, cfg.dense_context_prev, cfg.dense_context_next)
    points = []
    n_prev, n_next, weight, cap = cfg.context_prev, cfg.context_next, cfg.context_weight, store.history_cap
    for i, (record, history, _) in enumerate(batch):
        payload = payload_of(record, history, cap=cap)
        said = said_on(payload, cfg.index_dates)
        if (key := keys[i]) is None:  # not a session's message: its own words only
            sv = store.sparse.document(sparse_text(texts[i], said))
        else:
            near = [*range(max(0, i - n_prev), i), *range(i + 1, min(len(batch), i + 1 + n_next))]
            own, context = turn_texts(texts[i], [texts[j] for j in near if keys[j] == key], (), said)
            sv = store.sparse.turn(own, context, weight)
        points.append(StoredPoint(record.id, payload, dense[i], sv))
    return points


def _runs(keys: list[Any]) -> list[tuple[int, int]]:
    """The ``[start, end)`` runs of consecutive equal keys that are not None: one session's turns in a row."""
    runs, start = [], 0
    for i in range(1, len(keys) + 1):
        if i == len(keys) or keys[i] != keys[start]:
            if keys[start] is not None:
                runs.append((start, i))
            start = i
    return runs


def export_records(
    resources: Resources, path: str | Path, flt: FilterSpec, progress: Callable[[int], None] | None
) -> int:
    """Write the records ``flt`` selects to ``path``, a page at a time; returns how many."""
    plan = reads.ListPlan(flt, _EXPORT_PAGE, None, frozenset())
    try:
        out = parse_path(path).open("w", encoding="utf-8")
    except OSError as exc:
        field = "path"
        raise ValidationError(field, f"cannot write {path}: {exc}") from exc
    try:
        with out:
            return _write_pages(resources, out, flt, plan, progress)
    except OSError as exc:  # the export file's disk: full, or failing
        full = exc.errno in (errno.ENOSPC, errno.EDQUOT)
        msg = f"cannot write the export {path}: {exc}; it is incomplete (the store is unchanged)"
        raise (StoreFullError if full else StoreError)(msg) from exc


def _write_pages(
    resources: Resources, out: TextIO, flt: FilterSpec, plan: reads.ListPlan, progress: Callable[[int], None] | None
) -> int:
    written = 0
    while True:
        points = resources.backend.scroll(flt, plan.fetch, start_from=plan.start)
        by_id = {p.id: p for p in points}
        records, cursor = reads.finish_list(plan, points)
        for r in records:
            out.write(record_line(by_id[r.id]) + "\n")
        written += len(records)
        if progress is not None:
            progress(len(records))
        if cursor is None:
            return written
        plan = reads.ListPlan(flt, _EXPORT_PAGE, *reads.decode_cursor(cursor))


def import_records(
    resources: Resources, path: str | Path, progress: Callable[[int], None] | None, *, resume: bool = False
) -> int:
    """Read a JSON Lines export into the store, re-embedding with its embedder; returns how many records it wrote.

    Each line is validated as ``add`` validates its input (``parse_export_line``), and no line may overwrite or
    move a record that belongs to another scope (``check_owners``): the first such line raises ``ValidationError``
    naming it, and nothing of its batch is written (earlier batches of 1,024 lines are). ``resume``: a line whose
    record id is already stored, in the same scope, is skipped rather than embedded and written again, so re-running
    an import that stopped half-way (a crash, a killed process) only does the rest. ``progress`` is called after
    each batch with how many lines it handled, skipped ones included.

    Memory stays bounded whatever the file's size: one batch of lines at a time. Ids imported by earlier batches
    are found in the store (those batches are written), so a later line reusing one under another scope is
    refused as a stored record of another scope would be."""
    try:
        # Opened here to translate its OSError. A byte that is not UTF-8 is read as a surrogate, which
        # parse_export_line refuses naming its line.
        source = parse_path(path).open(encoding="utf-8", errors="surrogateescape")
    except OSError as exc:
        field = "path"
        raise ValidationError(field, f"cannot read {path}: {exc}") from exc
    total = 0
    max_chars = resources.settings.max_text_chars
    scopes: dict[ScopeKey, Scope] = {}
    with source:
        batch: list[Imported] = []
        numbers: list[int] = []
        for number, line in enumerate(source, 1):
            if line.strip():
                batch.append(parse_export_line(line, number, max_chars, scopes))
                numbers.append(number)
            if len(batch) >= _IMPORT_BATCH:
                total += _import_batch(resources, batch, numbers, progress, resume=resume)
                batch, numbers = [], []
        if batch:
            total += _import_batch(resources, batch, numbers, progress, resume=resume)
    return total


def _import_batch(
    resources: Resources,
    batch: list[Imported],
    numbers: list[int],
    progress: Callable[[int], None] | None,
    *,
    resume: bool,
) -> int:
    if resources.closed:
        msg = "this memory is closed"
        raise StoreUnavailableError(msg)
    stored = resources.backend.retrieve(list(dict.fromkeys(item.record.id for item in batch)))
    check_owners(batch, numbers, stored, {})
    if resume:
        have = {p.id for p in stored}
        batch = [item for item in batch if item.record.id not in have]
    if batch:
        records = [item.record for item in batch]
        dense = resources.embed_in_scopes(records, [dense_text(r.text, r.name) for r in records])
        resources.backend.upsert(import_points(resources, batch, dense))
    if progress is not None:
        progress(len(numbers))
    return len(batch)
