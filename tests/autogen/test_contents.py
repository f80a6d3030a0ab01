"""What `add` accepts, what it refuses, and what `query` gives back."""

import asyncio
from datetime import datetime

import pytest
from autogen_core import CancellationToken, Image
from autogen_core.memory import MemoryContent, MemoryMimeType

from memadapt_autogen import MemadaptMemory
from memadapt_core import AsyncMemory, ValidationError


@pytest.fixture
def memory(amemory: AsyncMemory) -> MemadaptMemory:
    return MemadaptMemory(memory=amemory, user_id="alice")


def tiny_image() -> Image:
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    return Image.from_base64(png)


async def test_text_content_is_stored_as_a_fact(memory: MemadaptMemory, amemory: AsyncMemory) -> None:
    await memory.add(MemoryContent(content="Alice is allergic to peanuts.", mime_type=MemoryMimeType.TEXT))

    page = await amemory.list(user_id="alice")
    assert [(record.text, record.kind, record.role) for record in page.records] == [
        ("Alice is allergic to peanuts.", "fact", None)
    ]


async def test_markdown_content_keeps_its_mime_type(memory: MemadaptMemory) -> None:
    await memory.add(MemoryContent(content="**Alice** prefers *window* seats.", mime_type="text/markdown"))

    result = await memory.query("Which seats does Alice prefer, window seats?")

    assert result.results[0].content == "**Alice** prefers *window* seats."
    assert result.results[0].mime_type == "text/markdown"


async def test_json_content_comes_back_as_the_same_dict(memory: MemadaptMemory) -> None:
    profile = {"name": "Alice", "city": "Lisbon", "languages": ["Portuguese", "English"]}
    await memory.add(MemoryContent(content=profile, mime_type=MemoryMimeType.JSON))

    result = await memory.query("Which city does Alice live in? Lisbon?")

    assert result.results[0].content == profile
    assert result.results[0].mime_type == "application/json"


async def test_json_text_is_searchable_by_its_values(memory: MemadaptMemory, amemory: AsyncMemory) -> None:
    await memory.add(MemoryContent(content='{"pet": "greyhound", "pet_name": "Biscuit"}', mime_type="application/json"))

    hits = await amemory.search("Biscuit the greyhound", user_id="alice")

    assert len(hits) == 1
    assert hits[0].record.metadata["autogen_json"] == {"pet": "greyhound", "pet_name": "Biscuit"}


async def test_query_metadata_has_id_score_kind_and_timestamps(memory: MemadaptMemory) -> None:
    await memory.add(
        MemoryContent(content="Alice is allergic to peanuts.", mime_type="text/plain", metadata={"source": "form"})
    )

    metadata = (await memory.query("Is Alice allergic to peanuts?")).results[0].metadata

    assert metadata is not None
    assert metadata["source"] == "form"
    assert metadata["kind"] == "fact"
    assert isinstance(metadata["id"], str)
    assert isinstance(metadata["score"], float)
    for key in ("observed_at", "created_at", "updated_at"):
        assert isinstance(datetime.fromisoformat(metadata[key]), datetime)


async def test_query_accepts_memory_content(memory: MemadaptMemory) -> None:
    await memory.add(MemoryContent(content="Alice is allergic to peanuts.", mime_type="text/plain"))

    result = await memory.query(MemoryContent(content="peanuts allergy", mime_type="text/plain"))

    assert [item.content for item in result.results] == ["Alice is allergic to peanuts."]


async def test_query_limit_keyword_overrides_the_configured_limit(memory: MemadaptMemory) -> None:
    for drink in ("oolong tea", "green tea", "black tea"):
        await memory.add(MemoryContent(content=f"Alice drinks {drink}.", mime_type="text/plain"))

    result = await memory.query("Which tea does Alice drink?", limit=2, threshold=0.0)

    assert len(result.results) == 2


async def test_image_with_a_caption_stores_the_caption(memory: MemadaptMemory) -> None:
    image = MemoryContent(
        content=tiny_image(), mime_type=MemoryMimeType.IMAGE, metadata={"caption": "Alice's red bicycle"}
    )

    await memory.add(image)

    result = await memory.query("red bicycle")
    assert result.results[0].content == "Alice's red bicycle"
    assert result.results[0].mime_type == "text/plain"


async def test_image_without_a_caption_is_refused(memory: MemadaptMemory, amemory: AsyncMemory) -> None:
    with pytest.raises(ValidationError, match="caption"):
        await memory.add(MemoryContent(content=tiny_image(), mime_type=MemoryMimeType.IMAGE))

    assert await amemory.count(user_id="alice") == 0


async def test_bytes_are_refused(memory: MemadaptMemory) -> None:
    with pytest.raises(ValidationError, match="application/octet-stream"):
        await memory.add(MemoryContent(content=b"\x00\x01", mime_type=MemoryMimeType.BINARY))


async def test_bytes_labelled_as_text_are_refused(memory: MemadaptMemory) -> None:
    with pytest.raises(ValidationError, match="needs a str"):
        await memory.add(MemoryContent(content=b"hello", mime_type="text/plain"))


@pytest.mark.parametrize("text", ["", "   \n\t"])
async def test_empty_text_is_refused(memory: MemadaptMemory, text: str) -> None:
    with pytest.raises(ValidationError, match="empty"):
        await memory.add(MemoryContent(content=text, mime_type="text/plain"))


async def test_unsupported_mime_type_is_refused(memory: MemadaptMemory) -> None:
    with pytest.raises(ValidationError, match="audio/wav"):
        await memory.add(MemoryContent(content="hello", mime_type="audio/wav"))


async def test_dict_labelled_as_text_is_refused(memory: MemadaptMemory) -> None:
    with pytest.raises(ValidationError, match="needs a str, got dict"):
        await memory.add(MemoryContent(content={"a": 1}, mime_type="text/plain"))


async def test_invalid_json_text_is_refused(memory: MemadaptMemory) -> None:
    with pytest.raises(ValidationError, match="not valid JSON"):
        await memory.add(MemoryContent(content="{not json", mime_type="application/json"))


async def test_validation_error_names_the_field(memory: MemadaptMemory) -> None:
    with pytest.raises(ValidationError) as caught:
        await memory.add(MemoryContent(content="", mime_type="text/plain"))

    assert caught.value.field == "content.content"


async def test_cancelled_token_stores_nothing(memory: MemadaptMemory, amemory: AsyncMemory) -> None:
    token = CancellationToken()
    token.cancel()

    with pytest.raises(asyncio.CancelledError):
        await memory.add(MemoryContent(content="Alice is allergic to peanuts.", mime_type="text/plain"), token)

    assert await amemory.count(user_id="alice") == 0


async def test_a_query_result_can_be_added_to_another_memory(memory: MemadaptMemory, amemory: AsyncMemory) -> None:
    await memory.add(MemoryContent(content="Alice is allergic to peanuts.", mime_type="text/plain"))
    found = (await memory.query("peanuts allergy")).results[0]
    team = MemadaptMemory(memory=amemory, agent_id="care-team")

    await team.add(found)

    copied = (await team.query("peanuts allergy")).results[0]
    assert copied.content == "Alice is allergic to peanuts."
    assert copied.metadata is not None
    assert copied.metadata["id"] != (found.metadata or {})["id"]
