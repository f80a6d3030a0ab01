"""The options of ``search`` declared once (``SearchOptions``), for every door and every route.

Each door's ``search`` takes them as ``**options: Unpack[SearchOptions]`` and the engine reads them in one place
(``engine/planning/reads.plan_search``, where their defaults are); the client sends them as they are, the HTTP
route accepts exactly these keys (``SEARCH_OPTIONS``) and the OpenAPI document's request body is their JSON schema
(``search_options_schema``). A new search option is a line here and the engine code that reads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any

from pydantic import Field, TypeAdapter
from typing_extensions import TypedDict

from memadapt_core.models import Kind

__all__ = ["SEARCH_OPTIONS", "SearchOptions", "search_options_schema"]

Moment = datetime | str


class SearchOptions(TypedDict, total=False):
    """What ``search`` takes besides the query and the scope; each optional, its default the engine's."""

    limit: Annotated[int, Field(description="how many hits, best first (default 5)")]
    kinds: Annotated[Sequence[Kind] | None, Field(description="the kinds searched; default the personal ones")]
    threshold: Annotated[float | None, Field(description="minimum score; None applies the relevance floor, 0 none")]
    time_range: Annotated[
        tuple[Moment | None, Moment | None] | None,
        Field(description="[start, end] of when the memories were said (ISO 8601); either may be null"),
    ]
    now: Annotated[datetime | None, Field(description='what "last week" is relative to (default now)')]
    filters: Annotated[dict[str, Any] | None, Field(description="metadata conditions ({key: value}, $gt, $in, ...)")]
    include_superseded: Annotated[bool, Field(description="facts that later facts replaced, too (default false)")]
    as_of: Annotated[datetime | None, Field(description="the facts valid at that moment")]
    include_archived: Annotated[bool, Field(description="archived (cold) facts, too (default false)")]
    max_per_session: Annotated[
        int | None, Field(description="at most this many hits of one session (breadth across conversations)")
    ]


SEARCH_OPTIONS = frozenset(SearchOptions.__annotations__)
"""The option names, as the HTTP route accepts them beside ``query`` and the scope."""


def search_options_schema() -> dict[str, Any]:
    """The JSON schema of each option (``properties`` of a request body), from the declaration."""
    properties: dict[str, Any] = TypeAdapter(SearchOptions).json_schema()["properties"]
    return properties
