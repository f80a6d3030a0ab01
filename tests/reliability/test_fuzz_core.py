"""Bad input, fuzzed: every public entry point of the engine gets arbitrary unicode, huge and empty strings,
NaN and infinities, deep and cyclic metadata and wrong types, through the sync ``Memory`` and then the same
call through the ``AsyncMemory`` view. Only ``MemadaptError`` subclasses may escape, both twins must refuse
the same input with the same error class, a refused call leaves the store exactly as it was, and whatever is
accepted leaves a store that can still be read back whole (export)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from memadapt_core import ConfigurationError, MemadaptError, Memory, ValidationError
from memadapt_core.validation import MAX_METADATA_DEPTH, RESERVED_METADATA_KEYS

from ._strategies import (
    CURSORISH,
    FILTERS,
    FLOATS,
    GARBAGE,
    HUGE,
    ID_LISTS,
    JSON,
    KINDS,
    LIMIT,
    MESSAGES,
    METADATA,
    MOMENT,
    NUMBER,
    OFFSETS,
    RECORD_ID,
    SCOPE_ID,
    TEXT,
    encodable,
    nested,
    storable,
)
from ._support import FUZZ, snapshot

SEEDED_IDS: list[str] = []  # filled by the fixture: ids of records that exist

# Valid values, as broad as the API allows: the bugs worth finding hide in inputs that look fine.
V_TEXT = TEXT.filter(lambda t: bool(t.strip()) and "\x00" not in t and encodable(t)) | st.sampled_from(
    ["hello there", "Lisbon"]
)
V_ID = st.sampled_from(["u1", "u2", "agent", "s1"]) | V_TEXT.filter(lambda t: all(ord(c) >= 32 for c in t))
V_MOMENT = st.one_of(
    st.datetimes(),  # naive is UTC: the whole calendar
    st.datetimes(timezones=st.just(UTC)),
    st.datetimes(min_value=datetime(2, 1, 1), max_value=datetime(9999, 12, 30), timezones=OFFSETS),
    st.sampled_from(["2024-03-01T09:00:00Z", "2024-03-01", "2024-03-01T09:00:00+05:30"]),
)
V_META = st.one_of(
    st.dictionaries(TEXT.filter(lambda k: k not in RESERVED_METADATA_KEYS), JSON, max_size=3).filter(storable),
    st.integers(0, MAX_METADATA_DEPTH - 1).map(nested),  # the top dict is the first level
)
V_MESSAGE = V_TEXT | st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "tool"]), "content": V_TEXT},
    optional={"id": V_ID | st.integers(0, 10**6), "name": V_ID, "timestamp": V_MOMENT, "metadata": V_META},
)
V_KINDS = st.sampled_from([["message"], ["fact"], ["fact", "insight"], "fact", ("message", "fact")])
V_FILTERS = st.sampled_from([{"n": 3}, {"tag": "drink"}, {"n": {"$gt": 1}}, {"tag": {"$in": ["drink", "x"]}}])


Param = tuple[st.SearchStrategy[Any], st.SearchStrategy[Any]]  # (valid values, fuzzed values)
OPTIONAL = st.none()  # an optional argument left out
SCOPE: dict[str, Param] = {
    "user_id": (st.just("u1"), SCOPE_ID),
    "agent_id": (OPTIONAL, SCOPE_ID),
    "session_id": (OPTIONAL | st.just("s1"), SCOPE_ID),
}
OPTIONAL_SCOPE: dict[str, Param] = {k: (OPTIONAL, bad) for k, (_, bad) in SCOPE.items()}


def _call(
    positional: list[Param], keywords: dict[str, Param]
) -> st.SearchStrategy[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Mostly valid calls with one or two arguments fuzzed (a call that is wrong everywhere is refused at the
    first check and teaches nothing)."""
    names = [f"#{i}" for i in range(len(positional))] + list(keywords)

    @st.composite
    def build(draw: st.DrawFn) -> tuple[tuple[Any, ...], dict[str, Any]]:
        bad = set(draw(st.lists(st.sampled_from(names), max_size=2, unique=True))) if names else set()
        args = tuple(draw(b if f"#{i}" in bad else g) for i, (g, b) in enumerate(positional))
        kwargs = {k: draw(b if k in bad else g) for k, (g, b) in keywords.items()}
        return args, {k: v for k, v in kwargs.items() if v is not None or k in bad}

    return build()


EXISTING_ID = st.deferred(lambda: st.sampled_from(SEEDED_IDS) | st.uuids().map(str))
ID: Param = (EXISTING_ID, RECORD_ID)
IDS: Param = (st.lists(EXISTING_ID, max_size=3), ID_LISTS)
QUERY: Param = (
    V_TEXT | st.sampled_from(["what did I do last week", "in May 2023", "when did I move"]),
    TEXT | HUGE | GARBAGE,
)
TIME_RANGE: Param = (
    OPTIONAL | st.tuples(V_MOMENT, st.none()) | st.tuples(st.none(), V_MOMENT),
    st.tuples(MOMENT | st.none(), MOMENT | st.none()) | GARBAGE,
)
CALLS: dict[str, st.SearchStrategy[tuple[tuple[Any, ...], dict[str, Any]]]] = {
    "add": _call(
        [(V_MESSAGE | st.lists(V_MESSAGE, min_size=1, max_size=3), MESSAGES)],
        SCOPE
        | {
            "kind": (st.sampled_from(["message", "fact", "insight"]), KINDS),
            "metadata": (OPTIONAL | V_META, METADATA),
            "observed_at": (OPTIONAL | V_MOMENT, MOMENT),
            "on_conflict": (st.sampled_from(["skip", "replace"]), st.sampled_from(["merge", None, 1]) | GARBAGE),
        },
    ),
    "search": _call(
        [QUERY],
        SCOPE
        | {
            "limit": (st.integers(1, 1000), LIMIT),
            "kinds": (OPTIONAL | V_KINDS, KINDS),
            "threshold": (OPTIONAL | st.floats(-1, 2), NUMBER),
            "time_range": TIME_RANGE,
            "now": (OPTIONAL | V_MOMENT, MOMENT),
            "filters": (OPTIONAL | V_FILTERS, FILTERS),
            "include_superseded": (st.booleans(), GARBAGE),
            "as_of": (OPTIONAL | V_MOMENT, MOMENT),
        },
    ),
    "list": _call(
        [],
        SCOPE
        | {
            "limit": (st.integers(1, 1000), LIMIT),
            "kinds": (OPTIONAL | V_KINDS, KINDS),
            "filters": (OPTIONAL | V_FILTERS, FILTERS),
            "cursor": (OPTIONAL, TEXT | CURSORISH | GARBAGE),
        },
    ),
    "count": _call([], SCOPE | {"kinds": (OPTIONAL | V_KINDS, KINDS), "filters": (OPTIONAL | V_FILTERS, FILTERS)}),
    "get": _call([ID], OPTIONAL_SCOPE),
    "get_many": _call([IDS], OPTIONAL_SCOPE),
    "update": _call(
        [ID], {"text": (OPTIONAL | V_TEXT, TEXT | HUGE | GARBAGE), "metadata": (OPTIONAL | V_META, METADATA)}
    ),
    "delete": _call([ID], {}),
    "delete_many": _call([IDS], {}),
    "delete_all": _call([], SCOPE),
    "history": _call([ID], {}),
    "record_id": _call([(V_ID, TEXT | GARBAGE)], SCOPE),
    "consolidate": _call([], SCOPE),
}


@pytest.fixture(scope="module")
def fuzz_store() -> Iterator[Memory]:
    """One store for the whole module, seeded with records the fuzzed calls may hit (hypothesis examples share
    it: a refused call must leave it unchanged, an accepted one may change it)."""
    with Memory(location=":memory:") as mem:
        mem.add(["hello there", "I moved to Lisbon last week"], user_id="u1", session_id="s1")
        mem.add("likes green tea", user_id="u1", kind="fact", metadata={"n": 3, "tag": "drink"})
        mem.add("agent note", agent_id="agent")
        SEEDED_IDS[:] = [r.id for r in mem.list(user_id="u1").records] + [
            r.id for r in mem.list(agent_id="agent").records
        ]
        yield mem


def _outcome(call: Callable[[], Any]) -> type[BaseException] | None:
    try:
        call()
    except MemadaptError as exc:
        return type(exc)
    return None


@pytest.mark.parametrize("name", sorted(CALLS))
def test_bad_input_is_refused_with_a_memadapt_error_and_changes_nothing(fuzz_store: Memory, name: str) -> None:
    mem = fuzz_store
    amem = mem.as_async()
    loop = asyncio.new_event_loop()

    @FUZZ
    @given(call=CALLS[name])
    def check(call: tuple[tuple[Any, ...], dict[str, Any]]) -> None:
        args, kwargs = call
        before = snapshot(mem)
        refused = _outcome(lambda: getattr(mem, name)(*args, **kwargs))
        after = snapshot(mem)  # raises if an accepted call left a record the store cannot read back
        if refused is not None:
            assert after == before, f"{name} raised {refused.__name__} but changed the store"
            target = getattr(amem, name)
            if asyncio.iscoroutinefunction(target):
                assert _outcome(lambda: loop.run_until_complete(target(*args, **kwargs))) is refused
            else:
                assert _outcome(lambda: target(*args, **kwargs)) is refused
            assert snapshot(mem) == before

    try:
        check()
    finally:
        loop.close()


def test_format_context_refuses_what_is_not_a_search_hit(fuzz_store: Memory) -> None:
    @FUZZ
    @given(query=TEXT | HUGE | GARBAGE, hits=st.lists(GARBAGE, min_size=1, max_size=3) | GARBAGE)
    def check(query: Any, hits: Any) -> None:
        # none of these hits is a SearchHit (an empty list is a fair "nothing recalled": not drawn here)
        assume(hits != [] and hits != ())
        with pytest.raises(MemadaptError):
            fuzz_store.format_context(query, hits)

    check()


SETTINGS = st.fixed_dictionaries(
    {},
    optional={
        "max_text_chars": LIMIT,
        "max_limit": LIMIT,
        "timeout": FLOATS | GARBAGE,
        "backend": st.sampled_from(["edge", "qdrant", "qdrant-local", "nope"]) | GARBAGE,
        "collection": TEXT | GARBAGE,
        "path": st.sampled_from(["a\x00b", "store\udc00", "\ud800"]),  # all refused: none makes a folder
        "embedder": st.sampled_from(["wordllama", "nope", "openai"]) | st.dictionaries(TEXT, JSON, max_size=2),
        "retrieval": st.dictionaries(st.sampled_from(["dense_weight", "candidates", "bogus"]), JSON, max_size=2),
        "unknown_option": JSON,
    },
)


@settings(FUZZ, max_examples=30)
@given(options=SETTINGS)
def test_bad_settings_give_a_configuration_error(options: dict[str, Any]) -> None:
    try:
        mem = Memory(location=":memory:", **options)
    except ConfigurationError:
        return
    mem.close()
    assert not _surely_bad(options), options


def _surely_bad(options: dict[str, Any]) -> bool:
    """Settings no store may open with: an unknown option or backend, a path that cannot be a folder, an unknown
    retrieval setting or embedder."""
    retrieval = options.get("retrieval")
    return (
        "unknown_option" in options
        or ("backend" in options and options["backend"] not in ("edge", "qdrant", "qdrant-local"))
        or "path" in options
        or (isinstance(retrieval, dict) and "bogus" in retrieval)
        or options.get("embedder") == "nope"
    )


def test_a_malformed_export_line_is_refused_naming_its_line(tmp_path: Path) -> None:
    with Memory(location=":memory:") as mem:

        @FUZZ
        @given(line=JSON.map(lambda v: json.dumps(v, default=str)) | TEXT)
        def check(line: str) -> None:
            dump = tmp_path / "dump.jsonl"
            dump.write_text(f"{line}\n", encoding="utf-8", errors="surrogatepass")  # bytes UTF-8 refuses too
            before = snapshot(mem)
            try:
                mem.import_(dump)
            except ValidationError as err:
                field = err.field
            else:
                return
            assert field.startswith("line ")  # "line 1", or later when the text holds a \r (a line break too)
            assert snapshot(mem) == before

        check()


# A file name under the test's folder (no "..": it must stay there), or anything else given as a path.
PATHS = TEXT.filter(lambda t: ".." not in t).map(lambda t: ("name", t)) | GARBAGE.filter(
    lambda g: not isinstance(g, str)  # a str here would be a file name in the working directory
).map(lambda g: ("raw", g))


def test_export_and_import_paths_work_or_give_a_validation_error_naming_the_path(tmp_path: Path) -> None:
    with Memory(location=":memory:") as mem:
        mem.add("hello", user_id="alice")

        @FUZZ
        @given(path=PATHS)
        def check(path: tuple[str, object]) -> None:
            how, value = path
            target = f"{tmp_path}/out-{value}" if how == "name" else value
            for call in (mem.export, mem.import_):
                try:
                    call(target)  # type: ignore[operator]
                except ValidationError as err:
                    field = err.field
                else:
                    continue
                assert field == "path"

        check()
