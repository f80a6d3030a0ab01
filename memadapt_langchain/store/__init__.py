"""LangGraph's long-term store on the memadapt engine: ``MemadaptStore`` (``adapter``), over the codec of its items
(``_codec``: items <-> records, namespaces <-> scope) and its value filters (``_filter``)."""

from .adapter import MemadaptStore

__all__ = ["MemadaptStore"]
