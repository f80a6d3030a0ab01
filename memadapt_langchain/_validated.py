"""A ``BaseRetriever`` whose bad constructor arguments raise memadapt's ``ValidationError`` naming the field (a
``MemadaptError`` and a ``ValueError``), as every adapter's constructor does, not a pydantic trace."""

from __future__ import annotations

from typing import Any, TypeAlias

import pydantic

from memadapt_core import ValidationError
from memadapt_core.api import AsyncMemoryAPI, MemoryAPI

from ._engine import engine_views
from ._framework import BaseRetriever

__all__ = ["EngineField", "ValidatedRetriever"]

EngineField: TypeAlias = pydantic.SkipValidation[MemoryAPI | AsyncMemoryAPI]
"""A retriever's ``memory`` field: ``engine_views`` checks it (an engine, or a ``RemoteMemory`` standing in for
one), so pydantic's instance check, which knows only the engine, is skipped."""


class ValidatedRetriever(BaseRetriever):
    """Checks ``memory=`` first, then translates pydantic's errors (subclasses check the rest in
    ``model_post_init``, raising ``ValidationError`` themselves)."""

    def __init__(self, /, **data: Any) -> None:
        engine_views(data.get("memory"))  # a missing or wrong engine: named as memory=, not a pydantic trace
        try:
            super().__init__(**data)
        except pydantic.ValidationError as exc:
            error = exc.errors()[0]
            if isinstance(raised := error.get("ctx", {}).get("error"), ValidationError):
                raise raised from exc  # one of ours, from model_post_init
            raise ValidationError(".".join(map(str, error["loc"])) or "retriever", error["msg"]) from exc
