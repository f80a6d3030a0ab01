"""A conversation turn made fit to be the engine's search query."""

from __future__ import annotations

__all__ = ["fit_query"]


def fit_query(text: str, max_chars: int) -> str:
    """A turn can be longer than the engine accepts as a query (a pasted document) or carry NUL characters; a
    memory must not break the agent's turn for that. Keeps the last ``max_chars`` characters, where the
    question usually is, and drops NULs."""
    return text.replace("\x00", "").strip()[-max_chars:].strip()
