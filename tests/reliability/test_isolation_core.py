"""Tenant isolation in the engine, property-based: random sequences of add / search / list / count / get /
update / delete / delete_all over random scopes, through the sync ``Memory`` and the ``AsyncMemory`` view of
the same store. A model of what each scope holds is kept alongside; no call may return, count or delete a
record outside the scope it names, and a call that names no scope is refused and changes nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, multiple, rule, run_state_machine_as_test

from memadapt_core import Memory, MemoryRecord, ValidationError

from ._support import PROPERTY, new_token

Scope = tuple[str | None, str | None, str | None]  # (user, agent, session) before prefixing

USERS, AGENTS, SESSIONS = ("alice", "bob", None), ("helper", None), ("s1", "s2", None)
RECORD_SCOPES = st.tuples(st.sampled_from(USERS), st.sampled_from(AGENTS), st.sampled_from(SESSIONS)).filter(any)
QUERY_SCOPES = RECORD_SCOPES  # the same space: any non-empty combination


class Api:
    """The engine calls the machine makes, sync or async underneath."""

    def __init__(self, mem: Memory, call: Callable[[str, tuple[Any, ...], dict[str, Any]], Any]) -> None:
        self.mem = mem
        self._call = call

    def __getattr__(self, name: str) -> Callable[..., Any]:
        return lambda *args, **kwargs: self._call(name, args, kwargs)


@contextmanager
def sync_api(mem: Memory) -> Iterator[Api]:
    yield Api(mem, lambda name, args, kwargs: getattr(mem, name)(*args, **kwargs))


@contextmanager
def async_api(mem: Memory) -> Iterator[Api]:
    amem = mem.as_async()
    loop = asyncio.new_event_loop()
    try:
        yield Api(mem, lambda name, args, kwargs: loop.run_until_complete(getattr(amem, name)(*args, **kwargs)))
    finally:
        loop.close()


def in_scope(record_scope: Scope, query: Scope) -> bool:
    return all(q is None or q == r for r, q in zip(record_scope, query, strict=True))


def machine_for(api: Api) -> type[RuleBasedStateMachine]:
    class Isolation(RuleBasedStateMachine):
        records = Bundle("records")

        def __init__(self) -> None:
            super().__init__()
            self.prefix = new_token()  # every example writes in scopes of its own
            self.model: dict[str, tuple[Scope, str]] = {}  # record id -> (scope, text)

        def ids(self, scope: Scope) -> dict[str, str | None]:
            user, agent, session = (None if v is None else f"{self.prefix}-{v}" for v in scope)
            return {"user_id": user, "agent_id": agent, "session_id": session}

        def scope_of(self, record: MemoryRecord) -> Scope:
            return tuple(None if v is None else v.removeprefix(f"{self.prefix}-") for v in  # type: ignore[return-value]
                         (record.user_id, record.agent_id, record.session_id))  # fmt: skip

        def expected(self, query: Scope) -> set[str]:
            return {rid for rid, (scope, _) in self.model.items() if in_scope(scope, query)}

        @rule(target=records, scope=RECORD_SCOPES, n=st.integers(1, 3), kind=st.sampled_from(["message", "fact"]),
              framework_id=st.sampled_from([None, "m1", "m2"]))  # fmt: skip
        def add(self, scope: Scope, n: int, kind: str, framework_id: str | None) -> Any:
            texts = [f"memory {new_token()} number {i}" for i in range(n)]
            if framework_id is None:
                items: list[Any] = texts
            else:  # the same framework id in several scopes: each scope must get its own record
                items = [{"role": "user", "content": t, "id": f"{framework_id}-{i}"} for i, t in enumerate(texts)]
            stored = api.add(items, kind=kind, **self.ids(scope))
            for record, text in zip(stored, texts, strict=True):
                assert self.scope_of(record) == scope
                if record.id in self.model:  # already stored under that framework id: kept as it was
                    assert record.text == self.model[record.id][1]
                else:
                    assert record.text == text
                    self.model[record.id] = (scope, text)
            return multiple(*[r.id for r in stored])

        @rule(query=QUERY_SCOPES, target_id=records)
        def search(self, query: Scope, target_id: str) -> None:
            text = self.model[target_id][1] if target_id in self.model else "memory number"
            hits = api.search(text, limit=20, threshold=0.0, **self.ids(query))
            assert {h.record.id for h in hits} <= self.expected(query)
            assert all(in_scope(self.scope_of(h.record), query) for h in hits)

        @rule(query=QUERY_SCOPES)
        def list_and_count(self, query: Scope) -> None:
            page = api.list(limit=1000, **self.ids(query))
            assert {r.id for r in page.records} == self.expected(query)
            assert api.count(**self.ids(query)) == len(self.expected(query))

        @rule(record_id=records, query=st.none() | QUERY_SCOPES)
        def get(self, record_id: str, query: Scope | None) -> None:
            found = api.get(record_id, **(self.ids(query) if query else {}))
            visible = record_id in self.model and (query is None or in_scope(self.model[record_id][0], query))
            assert (found is not None) == visible
            if found is not None:
                assert self.scope_of(found) == self.model[record_id][0]

        @rule(record_id=records)
        def update(self, record_id: str) -> None:
            text = f"updated {new_token()}"
            if record_id not in self.model:
                with pytest.raises(ValidationError):
                    api.update(record_id, text=text)
                return
            record = api.update(record_id, text=text)
            assert self.scope_of(record) == self.model[record_id][0]  # an update never moves a record
            self.model[record_id] = (self.model[record_id][0], text)

        @rule(record_id=consumes(records))
        def delete(self, record_id: str) -> None:
            assert api.delete(record_id) == (record_id in self.model)
            self.model.pop(record_id, None)

        @rule(query=QUERY_SCOPES)
        def delete_all(self, query: Scope) -> None:
            gone = self.expected(query)
            assert api.delete_all(**self.ids(query)) == len(gone)
            for rid in gone:
                del self.model[rid]

        @rule(call=st.sampled_from(["search", "list", "count", "delete_all", "add"]))
        def a_call_without_scope_is_refused(self, call: str) -> None:
            before = {rid: api.get(rid) for rid in self.model}
            args: dict[str, tuple[Any, ...]] = {"search": ("memory",), "add": ("orphan",)}
            with pytest.raises(ValidationError) as err:
                getattr(api, call)(*args.get(call, ()))
            assert err.value.field == "user_id"
            assert {rid: api.get(rid) for rid in self.model} == before

        def teardown(self) -> None:
            for rid, (scope, text) in self.model.items():  # nothing was lost by a call on another scope
                record = api.get(rid)
                assert record is not None
                assert (self.scope_of(record), record.text) == (scope, text)

    return Isolation


@pytest.mark.parametrize("flavour", [sync_api, async_api], ids=["sync", "async"])
def test_no_call_ever_reaches_outside_its_scope(flavour: Callable[[Memory], Any]) -> None:
    with Memory(location=":memory:") as mem, flavour(mem) as api:
        run_state_machine_as_test(machine_for(api), settings=PROPERTY)
