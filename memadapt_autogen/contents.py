"""AutoGen `MemoryContent` <-> the engine's facts and search hits."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from memadapt_core import JSON, SearchHit, ValidationError

from ._framework import MemoryContent, MemoryMimeType

__all__ = [
    "HIT_KEYS",
    "JSON_KEY",
    "MIME_KEY",
    "Fact",
    "content_from_hit",
    "fact_from_content",
    "mime_type_of",
]

TEXT_MIME_TYPES = frozenset({MemoryMimeType.TEXT.value, MemoryMimeType.MARKDOWN.value})
JSON_MIME_TYPE = MemoryMimeType.JSON.value
# Reserved metadata keys, flat so that `filters={"autogen_mime_type": ...}` works.
MIME_KEY = "autogen_mime_type"
JSON_KEY = "autogen_json"
CAPTION_KEY = "caption"
CONTENT_FIELD = "content.content"
MIME_FIELD = "content.mime_type"
# What `content_from_hit` adds to a hit's metadata; `fact_from_content` drops these keys again, so a query
# result can be added to another memory as it is.
HIT_KEYS = frozenset({"id", "score", "kind", "observed_at", "created_at", "updated_at"})


@dataclass(frozen=True)
class Fact:
    """What the engine stores for one `MemoryContent`: searchable text and metadata."""

    text: str
    metadata: dict[str, JSON] = field(default_factory=dict)


def mime_type_of(content: MemoryContent) -> str:
    mime = content.mime_type
    return mime.value if isinstance(mime, MemoryMimeType) else mime


def fact_from_content(content: MemoryContent) -> Fact:
    """Text and markdown are stored as they are, JSON as its text plus the value in metadata, anything else
    (images, bytes, other types) only through a caption in ``metadata["caption"]``."""
    mime = mime_type_of(content)
    metadata: dict[str, JSON] = {k: v for k, v in (content.metadata or {}).items() if k not in HIT_KEYS}
    if mime in TEXT_MIME_TYPES:
        text = _text(content.content, mime)
    elif mime == JSON_MIME_TYPE:
        value = _json_value(content.content)
        text = _dumps(value)
        metadata[JSON_KEY] = value
    else:
        text = _caption(metadata, mime)
    if not text.strip():
        raise ValidationError(CONTENT_FIELD, "is empty: give some text to remember")
    metadata[MIME_KEY] = mime
    return Fact(text=text, metadata=metadata)


def content_from_hit(hit: SearchHit) -> MemoryContent:
    """A hit as AutoGen expects it back: the content as it was added (JSON as its value) and, in metadata, the
    user's metadata plus ``id``, ``score``, ``kind`` and ISO 8601 timestamps."""
    record = hit.record
    metadata: dict[str, JSON] = dict(record.metadata)
    mime = metadata.pop(MIME_KEY, None)
    value = metadata.pop(JSON_KEY, None)
    content: str | dict[str, JSON] = record.text
    if mime == JSON_MIME_TYPE and isinstance(value, dict):
        content = value
    elif mime not in TEXT_MIME_TYPES and mime != JSON_MIME_TYPE:
        mime = MemoryMimeType.TEXT.value  # messages, extracted facts and captions are plain text
    metadata.update(
        id=record.id,
        score=hit.score,
        kind=record.kind,
        observed_at=record.observed_at.isoformat(),
        created_at=record.created_at.isoformat(),
        updated_at=record.updated_at.isoformat(),
    )
    return MemoryContent(content=content, mime_type=str(mime), metadata=metadata)


def _text(content: object, mime: str) -> str:
    if not isinstance(content, str):
        problem = f"{mime} needs a str, got {type(content).__name__}"
        raise ValidationError(CONTENT_FIELD, problem)
    return content


def _json_value(content: object) -> JSON:
    if isinstance(content, dict):
        return content
    if isinstance(content, str):
        try:
            return json.loads(content)
        except json.JSONDecodeError as exc:
            problem = f"is not valid JSON ({exc.msg} at position {exc.pos})"
            raise ValidationError(CONTENT_FIELD, problem) from exc
    problem = f"application/json needs a dict or a JSON string, got {type(content).__name__}"
    raise ValidationError(CONTENT_FIELD, problem)


def _dumps(value: JSON) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise ValidationError(CONTENT_FIELD, f"is not JSON-serialisable: {exc}") from exc


def _caption(metadata: dict[str, JSON], mime: str) -> str:
    caption = metadata.get(CAPTION_KEY)
    if isinstance(caption, str) and caption.strip():
        return caption
    problem = (
        f"{mime} content cannot be stored as text: use text/plain, text/markdown or application/json, "
        'or describe it in metadata["caption"]'
    )
    raise ValidationError(MIME_FIELD, problem)
