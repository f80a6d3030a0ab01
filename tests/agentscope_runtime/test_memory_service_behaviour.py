"""What an agentscope-runtime ``MemoryService`` does, run against memadapt's service and, as a check of the suite
itself, against the runtime's reference ``InMemoryMemoryService``.

The queries are keyword queries (the reference matches words), so they hold for a hybrid engine too: a word that
no stored message contains finds nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest
from agentscope_runtime.engine.services.memory.memory_service import InMemoryMemoryService, MemoryService

from memadapt_agentscope import MemadaptMemoryService
from memadapt_core import AsyncMemory

ServiceFactory = Callable[[], MemoryService]


class MemoryServiceBehaviour:
    """Subclass and provide the ``make_service`` fixture: a fresh, empty, not yet started service."""

    @pytest.fixture
    def make_service(self) -> ServiceFactory:
        raise NotImplementedError

    @pytest.fixture
    async def service(self, make_service: ServiceFactory) -> AsyncIterator[MemoryService]:
        async with make_service() as started:
            yield started

    # -- lifecycle -----------------------------------------------------------------------------------------------
    @pytest.mark.parametrize(
        "call",
        [
            lambda s, m: s.add_memory("alice", [m("hello")]),
            lambda s, m: s.search_memory("alice", [m("hello")]),
            lambda s, m: s.list_memory("alice"),
            lambda s, m: s.delete_memory("alice"),
        ],
        ids=["add", "search", "list", "delete"],
    )
    async def test_calls_before_start_raise(self, make_service, message, call):
        with pytest.raises(RuntimeError, match="Service not started"):
            await call(make_service(), message)

    async def test_health_follows_start_and_stop(self, make_service):
        service = make_service()
        assert not await service.health()
        await service.start()
        assert await service.health()
        await service.stop()
        assert not await service.health()

    async def test_context_manager_starts_and_stops_the_service(self, make_service):
        async with make_service() as service:
            assert await service.health()
        assert not await service.health()

    async def test_calls_after_stop_raise(self, make_service, message):
        async with make_service() as service:
            await service.add_memory("alice", [message("hello")])
        with pytest.raises(RuntimeError, match="Service not started"):
            await service.list_memory("alice")

    # -- search --------------------------------------------------------------------------------------------------
    async def test_search_finds_a_message_by_its_words(self, service, message):
        hiking = message("I love hiking in the mountains")
        await service.add_memory("alice", [hiking, message("My dog is named Rex")], session_id="s1")

        found = await service.search_memory("alice", [message("hiking")])

        assert found[0] == hiking

    async def test_search_with_words_no_message_contains_finds_nothing(self, service, message):
        await service.add_memory("alice", [message("I love hiking in the mountains")], session_id="s1")

        assert await service.search_memory("alice", [message("xylophone orchestra")]) == []

    async def test_search_uses_the_last_message(self, service, message):
        await service.add_memory("alice", [message("I love hiking in the mountains")], session_id="s1")

        assert await service.search_memory("alice", [message("hiking"), message("xylophone orchestra")]) == []
        assert len(await service.search_memory("alice", [message("xylophone orchestra"), message("hiking")])) == 1

    async def test_search_returns_messages_equal_to_those_stored(self, service, message):
        stored = message(
            "Remember that my sister lives in Lisbon", role="assistant", metadata={"source": "chat", "turn": 3}
        )
        await service.add_memory("alice", [stored], session_id="s1")

        [found] = await service.search_memory("alice", [message("sister Lisbon")])

        assert (found.id, found.role, found.content, found.metadata) == (
            stored.id,
            stored.role,
            stored.content,
            stored.metadata,
        )

    async def test_top_k_limits_the_results(self, service, message):
        texts = [
            "I drink coffee every morning",
            "Coffee with oat milk is my favourite",
            "The coffee shop near work closed",
            "I switched to decaf coffee",
        ]
        await service.add_memory("alice", [message(t) for t in texts], session_id="s1")

        found = await service.search_memory("alice", [message("coffee")], filters={"top_k": 2})

        assert len(found) == 2
        assert {m.content[0].text for m in found} <= set(texts)

    async def test_equal_matches_give_the_newest_top_k_in_the_order_said(self, service, message):
        said = [message(f"message with keyword {i}") for i in range(5)]
        await service.add_memory("alice", said)

        found = await service.search_memory("alice", [message("keyword")], filters={"top_k": 3})

        assert [m.content[0].text for m in found] == [f"message with keyword {i}" for i in (2, 3, 4)]

    async def test_search_sees_every_session_of_the_user(self, service, message):
        await service.add_memory("alice", [message("I love hiking in the mountains")], session_id="s1")
        await service.add_memory("alice", [message("Hiking boots are on my wishlist")], session_id="s2")

        found = await service.search_memory("alice", [message("hiking")], filters={"top_k": 5})

        assert len(found) == 2

    async def test_search_only_sees_the_users_own_messages(self, service, message):
        await service.add_memory("alice", [message("I love hiking in the mountains")], session_id="s1")

        assert await service.search_memory("bob", [message("hiking")]) == []

    async def test_search_without_messages_finds_nothing(self, service, message):
        await service.add_memory("alice", [message("I love hiking in the mountains")], session_id="s1")

        assert await service.search_memory("alice", []) == []

    # -- list ----------------------------------------------------------------------------------------------------
    async def test_list_returns_what_was_stored_in_order(self, service, message):
        stored = [message(f"note {i}: a fact about topic {i}") for i in range(3)]
        await service.add_memory("alice", stored, session_id="s1")

        assert await service.list_memory("alice") == stored

    async def test_list_pages_with_page_num_and_page_size(self, service, message):
        stored = [message(f"note {i}: a fact about topic {i}") for i in range(5)]
        await service.add_memory("alice", stored, session_id="s1")

        pages = [await service.list_memory("alice", {"page_num": n, "page_size": 2}) for n in (1, 2, 3, 4)]

        assert pages == [stored[0:2], stored[2:4], stored[4:5], []]

    async def test_list_pages_hold_ten_messages_by_default(self, service, message):
        stored = [message(f"note {i}: a fact about topic {i}") for i in range(12)]
        await service.add_memory("alice", stored, session_id="s1")

        assert await service.list_memory("alice") == stored[:10]
        assert await service.list_memory("alice", {"page_num": 2}) == stored[10:]

    async def test_list_of_an_unknown_user_is_empty(self, service):
        assert await service.list_memory("nobody") == []

    async def test_messages_without_a_session_are_kept(self, service, message):
        stored = message("I love hiking in the mountains")
        await service.add_memory("alice", [stored])

        assert await service.list_memory("alice") == [stored]

    async def test_adding_no_messages_stores_nothing(self, service):
        await service.add_memory("alice", [], session_id="s1")

        assert await service.list_memory("alice") == []

    # -- delete --------------------------------------------------------------------------------------------------
    async def test_deleting_a_session_keeps_the_users_other_sessions(self, service, message):
        kept = message("Hiking boots are on my wishlist")
        await service.add_memory("alice", [message("I love hiking in the mountains")], session_id="s1")
        await service.add_memory("alice", [kept], session_id="s2")

        await service.delete_memory("alice", session_id="s1")

        assert await service.list_memory("alice") == [kept]

    async def test_deleting_without_a_session_removes_the_whole_user(self, service, message):
        bobs = message("Bob plays the cello")
        await service.add_memory("alice", [message("I love hiking in the mountains")], session_id="s1")
        await service.add_memory("alice", [message("Hiking boots are on my wishlist")], session_id="s2")
        await service.add_memory("bob", [bobs], session_id="s3")

        await service.delete_memory("alice")

        assert await service.list_memory("alice") == []
        assert await service.list_memory("bob") == [bobs]

    async def test_deleting_an_unknown_user_is_a_no_op(self, service):
        await service.delete_memory("nobody")

        assert await service.list_memory("nobody") == []


class TestMemadaptMemoryService(MemoryServiceBehaviour):
    @pytest.fixture
    def make_service(self, amemory: AsyncMemory) -> ServiceFactory:
        return lambda: MemadaptMemoryService(amemory)


class TestInMemoryMemoryService(MemoryServiceBehaviour):
    """The runtime's reference implementation: proves the suite describes the interface, not memadapt."""

    @pytest.fixture
    def make_service(self) -> ServiceFactory:
        return InMemoryMemoryService
