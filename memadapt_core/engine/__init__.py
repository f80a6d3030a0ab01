"""The engine: ``AsyncMemory`` and its sync twin ``Memory`` over the no-I/O ``MemoryBase``.

Modules, one job each: ``base`` (what the twins share), ``calls/`` (the public calls, written once as async code,
the sync copy generated), ``async_memory`` / ``sync_memory`` (the twins: what a task and a thread do differently),
``resources`` (settings, plugins, embedder and backend, opened once), ``planning/`` (``writes`` / ``reads`` /
``updates`` / ``chat``: the planning of add; of search, list and get; of update and history; of answer),
``transactions`` (read-modify-write under the store's lock), ``cascade/`` (what a delete or a rewrite takes with it),
``transfer/`` (export and import) and ``consolidation_store`` (the consolidation workers' view).
"""

from .async_memory import AsyncMemory
from .sync_memory import Memory

__all__ = ["AsyncMemory", "Memory"]
