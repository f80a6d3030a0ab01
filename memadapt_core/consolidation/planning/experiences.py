"""Experience extraction and validation, without I/O: scored trajectories in, checked lessons out.

The trajectories go to the LLM numbered 0..n-1 with their task, score and transcript (tool calls included). It
answers with experiences, each citing its trajectories by number: a **success** pattern (what worked and why), a
**failure** analysis (what went wrong and how to avoid it) or a **comparison** (what separates a better run from a
worse one on the same task; two trajectories at least). A second call judges each experience against its evidence
(is it supported, general, free of personal data?); a refused experience is not stored, only noted in its
trajectories' history. ``when_to_use`` is what is embedded and searched; ``content`` is the lesson.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from memadapt_core.consolidation.parsing import MalformedAnswerError
from memadapt_core.consolidation.planning.plan import normalise_text
from memadapt_core.models import MemoryRecord

__all__ = [
    "Evidence",
    "Experience",
    "ExperienceExtraction",
    "ExperienceValidation",
    "Judgement",
    "build_experience_extraction",
    "build_experience_validation",
    "trajectory_score",
]

Evidence = Literal["success", "failure", "comparison"]

EXTRACT_PROMPT = """\
You study an agent's past attempts at tasks (trajectories: the messages, tool calls and tool results, and a score \
from 0 = failed to 1 = succeeded) and write down reusable experience for the agent's next tasks.

Kinds of experience ("evidence"):
- "success": what worked in a high-scoring trajectory and why, as a step the agent should repeat.
- "failure": what went wrong in a low-scoring trajectory and how to avoid it next time.
- "comparison": when several trajectories attempt the same task with different scores, what the better one did \
differently. Cite at least two trajectories.

Rules:
- Write "when_to_use" and "content" in the same language as the trajectories they come from (the language the \
user's task is written in); do not translate. Tool names, argument names and quoted values stay as they are.
- "when_to_use": the situation in which the lesson applies, written so it matches a future task description \
(for example "booking a flight with a date given in words", or "用文字给出日期时预订机票" for tasks in Chinese). \
This is what will be searched.
- "content": the lesson itself, one to three sentences, actionable and general.
- "sources": the numbers ("n") of the trajectories the experience is drawn from.
- No personal data: no names, e-mail addresses, phone numbers, addresses, account numbers or anything about one \
particular user. Experience is shared by every user of the agent.
- Skip what is obvious or specific to a single run. No experience at all is a valid answer.

Answer with one JSON object and nothing else (its keys and the values of "evidence" exactly as shown):
{"experiences": [{"when_to_use": "...", "content": "...", "evidence": "failure", "sources": [0]}]}"""

VALIDATE_PROMPT = """\
You check experiences an agent drew from its trajectories before they are kept. For each experience decide whether \
it is valid: supported by the trajectories it cites, general enough to help on a similar task, actionable, not \
contradicted by the scores, and free of personal data. Give a short reason either way, in the same language as \
the experience it judges; do not translate. An experience written in its trajectories' language (Chinese, say) is \
as valid as one in English.

Answer with one JSON object and nothing else, one judgement per experience:
{"judgements": [{"experience": 0, "valid": true, "reason": "..."}]}"""


class ExperienceAnswer(BaseModel):
    when_to_use: str = Field(min_length=1)
    content: str = Field(min_length=1)
    evidence: Evidence
    sources: list[int] = Field(min_length=1)

    @field_validator("evidence", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value


class ExperiencesAnswer(BaseModel):
    """The schema of an experience extraction answer."""

    experiences: list[ExperienceAnswer]


class JudgementAnswer(BaseModel):
    experience: int
    valid: bool
    reason: str = ""


class JudgementsAnswer(BaseModel):
    """The schema of a validation answer."""

    judgements: list[JudgementAnswer]


@dataclass(frozen=True)
class Experience:
    """A checked experience: its evidence, the score of that evidence and the trajectories it comes from."""

    when_to_use: str
    content: str
    evidence: Evidence
    score: float | None
    source_ids: tuple[str, ...]
    observed_at: datetime

    @property
    def text(self) -> str:
        """What identifies it (its id, duplicates): the situation and the lesson."""
        return f"{self.when_to_use}\n{self.content}"


@dataclass(frozen=True)
class Judgement:
    valid: bool
    reason: str


def trajectory_score(record: MemoryRecord) -> float | None:
    """The score ``add_trajectories`` kept in a trajectory's metadata."""
    score = record.metadata.get("score")
    return float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None


def _evidence_score(evidence: Evidence, scores: list[float]) -> float | None:
    """A success or comparison rests on its best run, a failure on its worst."""
    if not scores:
        return None
    return min(scores) if evidence == "failure" else max(scores)


def _trajectories_payload(trajectories: Sequence[MemoryRecord]) -> list[dict[str, Any]]:
    return [
        {"n": n, "task": t.metadata.get("task"), "score": trajectory_score(t), "transcript": t.text}
        for n, t in enumerate(trajectories)
    ]


@dataclass(frozen=True)
class ExperienceExtraction:
    """One extraction call over a batch of trajectories: the chat messages and the parser of the answer."""

    sources: tuple[MemoryRecord, ...]
    messages: list[dict[str, str]]

    def parse(self, answer: Any) -> tuple[Experience, ...]:
        """Validate the whole answer (or raise ``MalformedAnswerError``); duplicates within it collapse."""
        checked = ExperiencesAnswer.model_validate(answer)
        found: list[Experience] = []
        seen: set[str] = set()
        for index, item in enumerate(checked.experiences):
            numbers = sorted(set(item.sources))
            outside = [n for n in numbers if not 0 <= n < len(self.sources)]
            if outside:
                top = len(self.sources) - 1
                msg = f"experiences.{index}.sources: {outside[0]} is not a trajectory number (0-{top})"
                raise MalformedAnswerError(msg)
            if item.evidence == "comparison" and len(numbers) < 2:
                msg = f"experiences.{index}.sources: a comparison cites at least two trajectories"
                raise MalformedAnswerError(msg)
            cited = [self.sources[n] for n in numbers]
            scores = [s for s in map(trajectory_score, cited) if s is not None]
            experience = Experience(
                when_to_use=item.when_to_use.strip(),
                content=item.content.strip(),
                evidence=item.evidence,
                score=_evidence_score(item.evidence, scores),
                source_ids=tuple(t.id for t in cited),
                observed_at=max(t.observed_at for t in cited),
            )
            key = normalise_text(experience.text)
            if experience.when_to_use and experience.content and key not in seen:
                seen.add(key)
                found.append(experience)
        return tuple(found)


@dataclass(frozen=True)
class ExperienceValidation:
    """One validation call: every extracted experience judged against the trajectories it cites."""

    experiences: tuple[Experience, ...]
    messages: list[dict[str, str]]

    def parse(self, answer: Any) -> list[Judgement]:
        """One judgement per experience, in order; ``MalformedAnswerError`` unless the answer is complete."""
        checked = JudgementsAnswer.model_validate(answer)
        chosen: dict[int, Judgement] = {}
        for index, item in enumerate(checked.judgements):
            if not 0 <= item.experience < len(self.experiences):
                top = len(self.experiences) - 1
                msg = f"judgements.{index}.experience: {item.experience} is not an experience number (0-{top})"
                raise MalformedAnswerError(msg)
            if item.experience in chosen:
                msg = f"judgements.{index}.experience: experience {item.experience} has two judgements"
                raise MalformedAnswerError(msg)
            chosen[item.experience] = Judgement(item.valid, item.reason.strip())
        missing = [n for n in range(len(self.experiences)) if n not in chosen]
        if missing:
            msg = f"judgements: no judgement for experience {missing[0]}"
            raise MalformedAnswerError(msg)
        return [chosen[n] for n in range(len(self.experiences))]


def build_experience_extraction(
    trajectories: Sequence[MemoryRecord], instructions: Sequence[str] = ()
) -> ExperienceExtraction:
    """The extraction call for ``trajectories`` (oldest first); ``instructions`` come from plugins."""
    system = EXTRACT_PROMPT
    extra = [line.strip() for line in instructions if line.strip()]
    if extra:
        system += "\n\nAdditional instructions:\n" + "\n".join(f"- {line}" for line in extra)
    payload = {"trajectories": _trajectories_payload(trajectories)}
    chat = [
        {"role": "system", "content": system},
        {"role": "user", "content": json.dumps(payload, ensure_ascii=False)},
    ]
    return ExperienceExtraction(tuple(trajectories), chat)


def build_experience_validation(
    trajectories: Sequence[MemoryRecord], experiences: Sequence[Experience]
) -> ExperienceValidation:
    """The validation call judging ``experiences`` (drawn from ``trajectories``)."""
    number = {t.id: n for n, t in enumerate(trajectories)}
    payload = {
        "trajectories": _trajectories_payload(trajectories),
        "experiences": [
            {
                "n": n,
                "when_to_use": e.when_to_use,
                "content": e.content,
                "evidence": e.evidence,
                "sources": [number[i] for i in e.source_ids if i in number],
            }
            for n, e in enumerate(experiences)
        ],
    }
    chat = [
        {"role": "system", "content": VALIDATE_PROMPT},
        {"role": "user", "content": json.dumps(payload, ensure_ascii=False)},
    ]
    return ExperienceValidation(tuple(experiences), chat)
