"""Extraction, without I/O: the prompt that turns a batch of messages into facts, and the check of the answer.

Messages go to the LLM as JSON numbered 0..n-1 with their speaker and the time each was said, so relative
times are resolved against when a message was said, not when it is processed. The answer cites messages by those
numbers (an LLM cannot invent a record id; a number out of range makes the answer malformed). Statements the
LLM marks hypothetical, fictional or role-play are dropped here, in code.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from memadapt_core.consolidation.parsing import MalformedAnswerError
from memadapt_core.consolidation.planning.plan import normalise_text
from memadapt_core.models import MemoryRecord

__all__ = ["Extraction", "ExtractionAnswer", "ExtractionResult", "Fact", "build_extraction", "parse_when"]

SYSTEM_PROMPT = """\
You read a conversation and write down the facts worth remembering about the people in it.

Rules:
- Write each fact in the same language as the messages it comes from; do not translate (Chinese messages give \
Chinese facts, English messages English facts; when they mix languages, use the one they mostly use). Names, \
quoted words and numbers stay as they were said.
- Each fact stands on its own: name the person (use the speaker's name, not "I", "he", "she", "the user", \
"我", "他", "她" or "用户") and say what, where and when.
- Each message shows when it was said ("said_at"). Resolve relative times ("yesterday", "last week", \
"two days ago", "昨天", "上周", "三天前") against the time THAT message was said, write the absolute date into the \
fact in the fact's language (for example "on 7 May 2023" or "2023年5月7日"), and give it as "valid_from" \
(YYYY-MM-DD). Use null when no time is given.
- "sources": the numbers ("n") of the messages the fact comes from.
- Set "hypothetical": true for anything not asserted as real: hypotheticals ("if I were a pilot"), wishes, \
fiction, stories, role-play, jokes and questions.
- Skip greetings and small talk. Do not repeat a fact. No facts at all is a valid answer.
- "about": "assistant" only for what the assistant says about itself that holds whoever it talks to (its role, \
its name, its own rules and abilities); everything else, a user's instructions to it included, is "user".

Answer with one JSON object and nothing else (its keys and the values of "about" exactly as shown):
{"facts": [{"text": "...", "sources": [0], "valid_from": "2023-05-07", "hypothetical": false, "about": "user"}]}"""


class FactAnswer(BaseModel):
    text: str = Field(min_length=1)
    sources: list[int] = Field(min_length=1)
    valid_from: str | None = None
    hypothetical: bool = False
    about: str = "user"  # anything but "assistant" counts as "user"


class ExtractionAnswer(BaseModel):
    """The schema of an extraction answer."""

    facts: list[FactAnswer]


@dataclass(frozen=True)
class Fact:
    """A checked fact: dated by its messages (``observed_at``) and by what it says (``valid_from``)."""

    text: str
    source_ids: tuple[str, ...]
    observed_at: datetime
    valid_from: datetime
    about: str = "user"  # "assistant": about the assistant itself (stored in the agent's scope)


@dataclass(frozen=True)
class ExtractionResult:
    facts: tuple[Fact, ...]
    dropped: int  # hypothetical, fictional or role-play statements


@dataclass(frozen=True)
class Extraction:
    """One extraction call: the chat messages to send and the parser of the answer."""

    sources: tuple[MemoryRecord, ...]
    messages: list[dict[str, str]]

    def parse(self, answer: Any) -> ExtractionResult:
        """Validate the whole answer (or raise ``MalformedAnswerError``) and drop hypothetical statements."""
        checked = ExtractionAnswer.model_validate(answer)
        facts: list[Fact] = []
        seen: set[str] = set()
        dropped = 0
        for index, item in enumerate(checked.facts):
            outside = [n for n in item.sources if not 0 <= n < len(self.sources)]
            if outside:
                msg = f"facts.{index}.sources: {outside[0]} is not a message number (0-{len(self.sources) - 1})"
                raise MalformedAnswerError(msg)
            said = [self.sources[n] for n in sorted(set(item.sources))]
            observed_at = max(m.observed_at for m in said)
            valid_from = parse_when(item.valid_from, observed_at, f"facts.{index}.valid_from")
            text = item.text.strip()
            if item.hypothetical:
                dropped += 1
            elif text and normalise_text(text) not in seen:
                seen.add(normalise_text(text))
                about = "assistant" if item.about.strip().casefold() == "assistant" else "user"
                facts.append(Fact(text, tuple(m.id for m in said), observed_at, valid_from, about))
        return ExtractionResult(tuple(facts), dropped)


def build_extraction(messages: Sequence[MemoryRecord], instructions: Sequence[str] = ()) -> Extraction:
    """The extraction call for ``messages`` (oldest first); ``instructions`` come from plugins."""
    system = SYSTEM_PROMPT
    extra = [line.strip() for line in instructions if line.strip()]
    if extra:
        system += "\n\nAdditional instructions:\n" + "\n".join(f"- {line}" for line in extra)
    payload = {
        "messages": [
            {
                "n": n,
                "said_at": m.observed_at.isoformat(timespec="minutes"),
                "weekday": _WEEKDAYS[m.observed_at.weekday()],  # not strftime: the same under any locale
                "speaker": m.name or m.role or "user",
                "role": m.role or "user",
                "text": m.text,
            }
            for n, m in enumerate(messages)
        ]
    }
    chat = [
        {"role": "system", "content": system},
        {"role": "user", "content": json.dumps(payload, ensure_ascii=False)},
    ]
    return Extraction(tuple(messages), chat)


_PARTIAL_DATE = re.compile(r"(\d{4})(?:-(\d{2}))?")
# What a model answering a Chinese conversation may write despite the prompt: 2023年5月7日 (or 号), 2023年5月, 2023年.
_CHINESE_DATE = re.compile(r"(\d{4})\s*年\s*(?:(\d{1,2})\s*月\s*(?:(\d{1,2})\s*[日号])?)?")
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def parse_when(value: str | None, said_at: datetime, where: str) -> datetime:
    """An answer's date (``YYYY``, ``YYYY-MM``, ``YYYY-MM-DD``, ISO datetime, or ``YYYY年M月D日`` and its shorter
    forms), in the zone of ``said_at``; full-width digits count as digits. None means "true from when it was said".
    """
    if value is None or not value.strip():
        return said_at
    text = unicodedata.normalize("NFKC", value).strip()
    try:
        parsed: datetime | None = datetime.fromisoformat(text)
    except ValueError:
        parsed = _partial_date(text) or _chinese_date(text)
    if parsed is None:
        msg = f"{where}: {value!r} is not a date (YYYY-MM-DD)"
        raise MalformedAnswerError(msg)
    when = parsed
    if when.tzinfo is None and said_at.tzinfo is not None:
        when = when.replace(tzinfo=said_at.tzinfo)
    elif when.tzinfo is not None and said_at.tzinfo is None:
        when = when.replace(tzinfo=None)
    return when


def _chinese_date(text: str) -> datetime | None:
    match = _CHINESE_DATE.fullmatch(text)
    if match is None:
        return None
    year, month, day = (int(part) if part else 1 for part in match.groups())
    try:
        return datetime(year, month, day)
    except ValueError:
        return None


def _partial_date(text: str) -> datetime | None:
    match = _PARTIAL_DATE.fullmatch(text)
    if match is None:
        return None
    try:
        return datetime(int(match.group(1)), int(match.group(2) or 1), 1)
    except ValueError:
        return None
