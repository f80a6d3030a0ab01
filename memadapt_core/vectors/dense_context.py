"""A message's dense vector carries a little of its neighbours' meaning. No I/O.

A turn such as "Yes, every weekend since I was twelve!" means little alone: what it answers is in the turn before,
and what it leads to in the turn after. Its sparse vector already holds its neighbours' words (``sparse.py``,
``context_prev`` / ``context_next``); its dense vector gets a share of their meaning here. Measured on LoCoMo
(benchmarks/results/history.md), with the prototype's round weights (0.3 the turn before, 0.2 the turn after).

Vectors are mixed as turns arrive, so that a session added turn by turn and the same session added in one call
store the same vectors. A new turn's vector is its own unit vector plus ``before`` x the stored vector of the turn
before it (which carries a fading trace of the turns before that), normalised. When the next turn arrives, ``after``
x that turn's own unit vector is added to the stored one, normalised again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["mix_turns"]

Array = np.ndarray[Any, Any]


def _unit(rows: Array) -> Array:
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    out: Array = np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)
    return out


def mix_turns(own: Array, previous: Array | None, before: float, after: float) -> tuple[Array, Array | None]:
    """The vectors to store for consecutive new turns of one session (``own``: their own vectors, in order, one row
    each), and the new vector of the stored turn just before them (``previous``, as stored), or None when there is
    no such turn or nothing changes it."""
    units = _unit(np.asarray(own, dtype=np.float32))
    prior = None if previous is None else _unit(np.asarray(previous, dtype=np.float32))
    if not units.shape[0] or not (before or after):
        return units, None
    mixed = np.empty_like(units)
    last = prior
    for i, vector in enumerate(units):  # the turn before counts as stored before its own next turn came
        mixed[i] = _unit(vector + before * last) if last is not None and before else vector
        last = mixed[i]
    if after:
        mixed[:-1] = _unit(mixed[:-1] + after * units[1:])
    changed = _unit(prior + after * units[0]) if prior is not None and after else None
    return mixed, changed
