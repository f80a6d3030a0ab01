"""Each door implements its API Protocol (``memadapt_core.api``), signatures included; the client refuses the store
owner's calls by name, saying why."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from memadapt_core import AsyncMemory, ConfigurationError, Memory
from memadapt_core.api import AsyncMemoryAPI, MemoryAPI
from memadapt_core.remote import LOCAL_ONLY, AsyncRemoteMemory, RemoteMemory

DOORS = [
    (Memory, MemoryAPI),
    (RemoteMemory, MemoryAPI),
    (AsyncMemory, AsyncMemoryAPI),
    (AsyncRemoteMemory, AsyncMemoryAPI),
]
UNREACHABLE = "http://127.0.0.1:9"  # nothing is sent: a refusal needs no server


def declared(protocol: type) -> list[str]:
    return sorted(name for name in vars(protocol) if not name.startswith("_"))


def shape(cls: type, name: str) -> dict[str, Any]:
    """What a caller relies on: what the member is, its parameters (names, kinds, defaults), whether it is awaited."""
    static = inspect.getattr_static(cls, name)
    if isinstance(static, property):
        return {"member": "property"}
    function = static.__func__ if isinstance(static, classmethod) else static
    parameters = [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]
    return {
        "member": "classmethod" if isinstance(static, classmethod) else "method",
        "parameters": parameters,
        "awaited": inspect.iscoroutinefunction(function),
    }


@pytest.mark.parametrize(("door", "protocol"), DOORS, ids=lambda d: d.__name__)
def test_each_door_has_every_call_of_its_api_with_the_same_signature(door: type, protocol: type) -> None:
    expected = {name: shape(protocol, name) for name in declared(protocol)}

    offered = {name: shape(door, name) if hasattr(door, name) else "missing" for name in declared(protocol)}

    assert offered == expected


@pytest.mark.parametrize(("engine", "protocol"), [(Memory, MemoryAPI), (AsyncMemory, AsyncMemoryAPI)])
def test_the_api_declares_every_public_call_of_the_engine(engine: type, protocol: type) -> None:
    public = {name for name in dir(engine) if not name.startswith("_")}

    assert public - set(declared(protocol)) == set()


def test_the_sync_and_async_apis_have_the_same_calls() -> None:
    assert declared(MemoryAPI) == declared(AsyncMemoryAPI)


def test_every_door_passes_the_run_time_check_adapters_make(memory: Memory) -> None:
    """At run time a Protocol is checked by its names only, sync and async alike (mypy tells them apart)."""
    client = RemoteMemory(UNREACHABLE, token="t")

    doors = [memory, memory.as_async(), client, client.as_async()]

    assert [isinstance(door, MemoryAPI) and isinstance(door, AsyncMemoryAPI) for door in doors] == [True] * 4
    assert not isinstance(object(), MemoryAPI)


def local_only_calls(memory: object, name: str) -> Any:
    arguments: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
        "import_": (("x.jsonl",), {}),
        "import_reme": (("lib",), {"agent_id": "a"}),
        "export_reme": (("lib",), {"agent_id": "a"}),
        "answer_stream": (("question?",), {}),
    }
    args, kwargs = arguments.get(name, ((), {}))
    return getattr(memory, name)(*args, **kwargs)


@pytest.mark.parametrize("name", sorted(LOCAL_ONLY))
def test_a_local_only_call_on_the_sync_client_is_refused_naming_the_call_and_why(name: str) -> None:
    with RemoteMemory(UNREACHABLE, token="t") as client, pytest.raises(ConfigurationError) as refused:
        local_only_calls(client, name)

    assert f"RemoteMemory.{name} is not offered by a client of memadapt serve: " in str(refused.value)


@pytest.mark.parametrize("name", sorted(LOCAL_ONLY))
async def test_a_local_only_call_on_the_async_client_is_refused_naming_the_call_and_why(name: str) -> None:
    async def call(client: AsyncRemoteMemory) -> None:
        called = local_only_calls(client, name)
        if inspect.isawaitable(called):  # answer_stream refuses when called, the others when awaited
            await called

    async with AsyncRemoteMemory(UNREACHABLE, token="t") as client:
        with pytest.raises(ConfigurationError) as refused:
            await call(client)

    assert f"AsyncRemoteMemory.{name} is not offered by a client of memadapt serve: " in str(refused.value)


def test_the_local_only_calls_are_the_engines() -> None:
    assert set(dir(Memory)) & set(dir(AsyncMemory)) >= LOCAL_ONLY
