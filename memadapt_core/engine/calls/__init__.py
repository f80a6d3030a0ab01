"""The engine's public calls, written once: ``async_calls`` by hand, ``sync_calls`` generated from it."""

from .async_calls import AsyncMemoryCalls
from .sync_calls import MemoryCalls

__all__ = ["AsyncMemoryCalls", "MemoryCalls"]
