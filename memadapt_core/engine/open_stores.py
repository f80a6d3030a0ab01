"""One open store per folder in a process: engines opened on a folder this process already holds share it.

The embedded store (and qdrant-client's local mode) lock their folder for one process. A second engine opened on
the same folder and collection in the same process — two adapters each given settings, or an AutoGen component
loaded from a dump while the original lives — borrows the open ``Resources`` instead of failing with
``StoreLockedError``; each owner's ``close()`` gives its reference back, and the last one closes the store.

Sharing needs the same settings (they decide how records are embedded and ranked): an engine asking for others
gets a ``ConfigurationError`` naming them. An engine built with an ``Embedder`` object or plugins of its own, a
``":memory:"`` store and a Qdrant server are never shared (a server needs no sharing).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from memadapt_core.config import MemorySettings, default_path
from memadapt_core.embedders.base import Embedder
from memadapt_core.errors import ConfigurationError

from .resources import Resources

__all__ = ["open_resources", "release"]

_lock = threading.Lock()


@dataclass
class _Open:
    resources: Resources
    requested: MemorySettings
    refs: int = 1


_open: dict[tuple[str, str], list[_Open]] = {}


def _folder(settings: MemorySettings) -> tuple[str, str] | None:
    """The backend and folder that make two engines the same store, or None when it is not shareable."""
    kind = settings.resolved_backend()
    if kind == "qdrant":
        return None
    if settings.path:
        return kind, str(Path(settings.path).expanduser().resolve())
    if settings.location is not None or kind == "qdrant-local":  # ":memory:": a store of its own
        return None
    return kind, str(default_path().resolve())


def _differences(a: MemorySettings, b: MemorySettings) -> list[str]:
    return sorted(name for name in type(a).model_fields if getattr(a, name) != getattr(b, name))


def open_resources(settings: MemorySettings, *, embedder: Embedder | None, plugins: Sequence[object]) -> Resources:
    """The resources of the store these settings name: the ones already open in this process (one more
    reference), or newly opened."""
    folder = None if embedder is not None or plugins else _folder(settings)
    if folder is None:
        return Resources(settings, embedder=embedder, plugins=plugins)
    with _lock:
        entries = _open.get(folder, [])
        for entry in entries:
            same_store = (entry.requested.embedder, entry.requested.collection) == (
                settings.embedder,
                settings.collection,
            )
            if same_store and not entry.resources.closed:
                if differ := _differences(entry.requested, settings):
                    msg = (
                        f"{folder[1]} is already open in this process with other settings ({', '.join(differ)}): "
                        "open it with the same settings, or pass that engine (memory=...) to share it"
                    )
                    raise ConfigurationError(msg)
                entry.refs += 1
                return entry.resources
        resources = Resources(settings, plugins=plugins)  # blocking, once per store
        _open[folder] = [*entries, _Open(resources, settings)]
        return resources


def release(resources: Resources) -> bool:
    """Give back one owner's reference; the last one closes the store. True when it was closed now."""
    with _lock:
        for folder, entries in _open.items():
            for entry in entries:
                if entry.resources is resources:
                    entry.refs -= 1
                    if entry.refs > 0:
                        return False
                    entries.remove(entry)
                    if not entries:
                        del _open[folder]
                    resources.close()
                    return True
    resources.close()  # opened unshared
    return True
