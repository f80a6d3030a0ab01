"""What a model runtime holds beyond the model after a burst, given back on request (the service calls it when idle).

onnxruntime keeps every block its arena grew to for the largest batch it has run: eight threads embedding long
texts took a MiniLM session from 256 MB to 3.6 GB resident, and glibc's ``malloc_trim`` alone gave back 2 % of it,
since the arena, not the allocator, holds the blocks. A one-token run with the arena-shrinkage run option frees the
blocks nothing uses, and a trim after it returns them: back to 203 MB (measured; ``benchmarks/tenant_flood.py`` has
the service's figures). The next burst grows the arena again; what it costs is in docs/reliability-and-security.md.

A model runtime registers its releaser when it loads; ``release()`` runs them all, each under a lock of its own so
that idle releases never pile up.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

__all__ = ["register", "release"]

log = logging.getLogger("memadapt")

_RELEASERS: list[Callable[[], None]] = []
_LOCK = threading.Lock()


def register(releaser: Callable[[], None]) -> None:
    """Run ``releaser`` at each ``release()`` (a loaded model's runtime gives back its idle blocks)."""
    with _LOCK:
        _RELEASERS.append(releaser)


def release() -> None:
    """Give back what every loaded model runtime holds beyond its model; a failure is logged, never raised."""
    if not _LOCK.acquire(blocking=False):
        return  # a release is under way
    try:
        for releaser in _RELEASERS:
            try:
                releaser()
            except Exception:  # giving memory back is best effort; the service goes on
                log.debug("memadapt: an idle release failed", exc_info=True)
    finally:
        _LOCK.release()
