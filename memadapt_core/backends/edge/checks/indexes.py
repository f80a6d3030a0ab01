"""Every payload index of an opened embedded store is checked against the store's other counts before it is used.

qdrant-edge loads a damaged payload index without a word: the ``observed_at`` index's ``point_to_values.bin`` cut to
half its length (a file too big for the seal's digests, ``checks/seal.py``) left an index naming 1 point of 3,301, and
every listing (read in ``observed_at`` order, through the scope keys) returned nothing. The payloads themselves were
whole. So once the shard is loaded, each index it keeps (whatever its field: the scope keys, the times, the kinds and
any added later, as ``info().payload_schema`` lists them) must agree three ways, counted over the whole store:

- ``indexed``: the points the index itself says it holds a value for (qdrant counts them from its point-to-values
  map);
- ``present``: the points whose field is not empty: all of them but those qdrant finds empty through the field's
  separate null index;
- ``through``: the points the index finds from its value-to-points side: the sizes of its posting lists for
  keywords and integers, a range from the lowest value up for times.

A healthy store agrees on all three for every field (however it was written, updated, deleted from and optimized);
a damaged file on any side of any index changes one of them. Disagreement, or an index that fails being read, is
refused with ``StoreCorruptedError`` naming ``memadapt doctor --salvage``. In doctor's child (``checks.seal.inspect``)
it is noted instead, and with ``rebuild_indexes`` the damaged indexes are dropped and built again from the payloads,
then checked again.

An optimization cut off by a crash can leave a point in two segments: its new segment written, the old ones not yet
dropped. qdrant-edge reads the newest copy of each point, but ``info()`` and the indexes count both, so no count
above would agree. Such a store (found by an exact count of its points, deduplicated, below ``info()``'s) has its
optimization finished first, which keeps one copy of each point (~0.5 s at 3,000 points), and is checked after.

Costs per index a count of the empty points (~0.5 ms) and a facet (~0.1 ms), or for a time a range count (~0.1 s
at 100k points when every point has one): measured in docs/reliability-and-security.md.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from functools import partial
from itertools import pairwise
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from memadapt_core.backends.edge.checks import seal as edge_seal
from memadapt_core.backends.edge.shard import recovery_step
from memadapt_core.errors import StoreCorruptedError

__all__ = ["check_indexes", "index_problems", "value_problems"]

log = logging.getLogger("memadapt")

_EARLIEST = "0001-01-01T00:00:00Z"


def _count(shard: qe.EdgeShard, flt: qe.Filter) -> int:
    return int(shard.count(qe.CountRequest(filter=flt, exact=True)))


def _through(shard: qe.EdgeShard, key: str, kind: qe.PayloadSchemaType, points: int) -> int | None:
    """The points the index finds from its values' side: the sizes of its posting lists (a facet, ~0.1 ms) for
    values matched exactly, an exact count of a range from the lowest value up for times and floats (~0.1 s at
    100k points). None for a type that has neither. A facet counts each value of a point: every field memadapt
    indexes holds one value."""
    if kind in (qe.PayloadSchemaType.Keyword, qe.PayloadSchemaType.Integer):
        hits = shard.facet(qe.FacetRequest(key, limit=max(1, points), exact=False)).hits
        return sum(int(h.count) for h in hits)
    if kind == qe.PayloadSchemaType.Datetime:
        return _count(shard, qe.Filter(must=[qe.FieldCondition(key, range=qe.RangeDateTime(gte=_EARLIEST))]))
    if kind == qe.PayloadSchemaType.Float:
        return _count(shard, qe.Filter(must=[qe.FieldCondition(key, range=qe.RangeFloat(gte=-1e300))]))
    return None


def _present(shard: qe.EdgeShard, key: str, points: int, indexed: int) -> int:
    """The points whose field is not empty, by the null index. A count costs in proportion to the points it matches
    (~1 ms per 1,000 at 100k): the smaller side is counted, as the index says (a damaged one only makes it slower)."""
    empty = qe.IsEmptyCondition(key)
    if 2 * indexed >= points:
        return points - _count(shard, qe.Filter(must=[empty]))
    return _count(shard, qe.Filter(must_not=[empty]))


def _problem(shard: qe.EdgeShard, key: str, index: Any, points: int) -> str | None:
    try:
        present = _present(shard, key, points, int(index.points))
        through = _through(shard, key, index.data_type, points)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # a Rust panic is a BaseException: damage all the same
        return _unreadable(key, exc)
    indexed = int(index.points)
    if indexed == present and through in (None, present):
        return None
    return (
        f"its payload index of {key!r} does not match its payloads ({present} points hold the field, the index "
        f"holds {indexed} and finds {through})"
    )


def index_problems(shard: qe.EdgeShard) -> dict[str, str]:
    """Each payload index of ``shard`` that does not agree with the store: field -> what is wrong."""
    info = shard.info()
    found = {key: _problem(shard, key, index, info.points_count) for key, index in sorted(info.payload_schema.items())}
    return {key: why for key, why in found.items() if why is not None}


_MATCHED = (qe.PayloadSchemaType.Keyword, qe.PayloadSchemaType.Integer)
_ORDERED = (qe.PayloadSchemaType.Datetime, qe.PayloadSchemaType.Float)


def value_problems(shard: qe.EdgeShard) -> dict[str, str]:
    """Each payload index whose values are not the payloads' values, read point by point: for a store opened without
    its seal, whose digests would otherwise have caught a damaged page of a writable segment's index. Such a page
    keeps every count right and the values wrong (a zeroed ``page_0.dat`` of ``observed_at``: alice listed 500 of
    her 1,505 records, as ordered listing pages past the rest). Every point's keyword and integer fields are
    counted against each value's posting list (a facet), and for times and floats the points are read in the
    index's order, whose payload values must then be in order too: ~25 ms at 3,300 points, in proportion beyond
    (docs/reliability-and-security.md)."""
    info = shard.info()
    points, schema = info.points_count, info.payload_schema
    matched = sorted(key for key, index in schema.items() if index.data_type in _MATCHED)
    ordered = sorted(key for key, index in schema.items() if index.data_type in _ORDERED)
    problems: dict[str, str | None] = {}
    try:
        recs, _ = shard.scroll(qe.ScrollRequest(limit=points + 1, with_payload=matched, with_vector=False))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # a Rust panic is a BaseException: damage all the same
        return {key: _unreadable(key, exc) for key in matched}
    payloads = [r.payload or {} for r in recs]
    for key in matched:
        problems[key] = _values_problem(key, partial(_posting_mismatch, shard, key, points, payloads))
    for key in ordered:
        problems[key] = _values_problem(key, partial(_order_mismatch, shard, key, points))
    return {key: why for key, why in problems.items() if why is not None}


def _posting_mismatch(shard: qe.EdgeShard, key: str, points: int, payloads: list[dict[str, Any]]) -> str | None:
    held = Counter(v for p in payloads if (v := p.get(key)) is not None)
    hits = shard.facet(qe.FacetRequest(key, limit=points + 1, exact=False)).hits
    if held == Counter({h.value: int(h.count) for h in hits}):
        return None
    return f"its payload index of {key!r} does not give each value the points whose payload holds it"


def _order_mismatch(shard: qe.EdgeShard, key: str, points: int) -> str | None:
    order = qe.OrderBy(key, qe.Direction.Asc)
    recs, _ = shard.scroll(qe.ScrollRequest(limit=points + 1, with_payload=[key], with_vector=False, order_by=order))
    values = [(r.payload or {}).get(key) for r in recs]
    keys: list[Any] = [datetime.fromisoformat(v) if isinstance(v, str) else v for v in values]
    if None not in keys and all(a <= b for a, b in pairwise(keys)):
        return None
    return f"its payload index of {key!r} orders the points otherwise than their payload values"


def _values_problem(key: str, check: Callable[[], str | None]) -> str | None:
    try:
        return check()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # a Rust panic is a BaseException: damage all the same
        return _unreadable(key, exc)


def _unreadable(key: str, exc: BaseException) -> str:
    return f"its payload index of {key!r} cannot be read ({type(exc).__name__}: {str(exc)[:200]})"


def _rebuild(shard: qe.EdgeShard, keys: list[str]) -> None:
    schema = shard.info().payload_schema
    for key in keys:
        index = schema[key]
        params = index.params if index.params is not None else index.data_type
        shard.update(qe.UpdateOperation.delete_field_index(key))
        shard.update(qe.UpdateOperation.create_field_index(key, params))
    shard.flush()


def _finish_optimization(folder: Path, shard: qe.EdgeShard) -> None:
    """If ``shard`` holds copies of points in more than one segment (an optimization cut off), finish optimizing it,
    which keeps the newest copy of each."""
    held, unique = shard.info().points_count, _count(shard, qe.Filter())
    if unique >= held:
        return
    log.warning(
        "the embedded store %s holds %d copies of points from an optimization that did not finish: finishing it",
        folder,
        held - unique,
    )
    shard.optimize()
    shard.flush()


def _problems(shard: qe.EdgeShard, values: bool) -> dict[str, str]:
    problems = index_problems(shard)
    if values:
        problems |= {key: why for key, why in value_problems(shard).items() if key not in problems}
    return problems


def check_indexes(
    folder: Path, shard: qe.EdgeShard, translate: Callable[[BaseException], Exception], *, sealed: bool
) -> None:
    """Once ``folder``'s shard is loaded: refuse it if a payload index does not agree with the store (in doctor's
    child: note it, or rebuild it from the payloads). A store opened without its seal (and doctor's) has its
    indexes' values read point by point too. ``translate`` turns what a rebuild raises into a store error."""
    seen = edge_seal.inspection()
    values = not sealed or seen is not None
    try:
        _finish_optimization(folder, shard)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:
        raise translate(exc) from exc
    problems = _problems(shard, values)
    if not problems:
        return
    if seen is None:
        msg = (
            f"the embedded store {folder} is damaged: {'; '.join(problems.values())}. Its records are still on "
            f"disk, but reads through that index would miss them. {recovery_step(folder.parent)} Salvaging "
            "rebuilds the damaged payload indexes from the payloads first."
        )
        raise StoreCorruptedError(msg)
    if not seen.rebuild_indexes:
        seen.problems.extend(problems.values())
        return
    try:
        _rebuild(shard, sorted(problems))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:
        raise translate(exc) from exc
    still = _problems(shard, values)
    seen.rebuilt.extend(key for key in sorted(problems) if key not in still)
    seen.problems.extend(still.values())
