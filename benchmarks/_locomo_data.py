"""LoCoMo for the benchmarks: load, normalise evidence, split, score. No memadapt import, no I/O beyond one file.

LoCoMo (Maharana et al., ACL 2024; CC BY-NC 4.0) is evaluation data only: it is never shipped, and every runner takes
its path as an argument. Categories are LoCoMo's own ids: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop,
5 adversarial (the answer is not in the conversation). "Overall" is categories 1-4.

Recall@k of one question = |evidence turns among the top k| / |evidence turns|; a row's figure is the mean over its
questions. Evidence ids are normalised (``"D8:6; D9:17"`` is two ids, ``"D:11:26"`` is ``D11:26``, ``"D30:05"`` is
``D30:5``); ids that stay malformed or name no turn are dropped and counted, and a question left without evidence is
not scored (counted too).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "locomo_dev.json"  # ../shared/data relative to the project root
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
SCORED = (1, 2, 3, 4)  # "overall": LoCoMo's answerable categories
# Dev/held-out: the seven dev conversations are all "dev". Any setting tuned by `locomo.py --tune` is tuned on the
# first four only; the last three are the held-out set it is reported on.
TUNE = ("conv-26", "conv-30", "conv-41", "conv-42")
HELD_OUT = ("conv-43", "conv-44", "conv-47")

_SESSION = re.compile(r"session_(\d+)")
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")
_SPLIT = re.compile(r"[;,\s]+")


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    caption: str | None
    session: int
    index: int  # position within its session
    when: datetime  # the session's date-time (UTC), plus `index` seconds to keep the turns' order


@dataclass(frozen=True)
class Session:
    number: int
    date_text: str  # as LoCoMo writes it: "1:56 pm on 8 May, 2023"
    when: datetime
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Question:
    sample_id: str
    text: str
    category: int
    evidence: frozenset[str]
    answer: str = ""  # the gold answer (category 5 has none: its ``adversarial_answer`` is the trap, not the truth)


@dataclass
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    sessions: list[Session]
    questions: list[Question]

    @property
    def turns(self) -> list[Turn]:
        return [t for s in self.sessions for t in s.turns]

    @property
    def now(self) -> datetime:
        """The reference time of every question: one day after the last session."""
        return max(s.when for s in self.sessions) + timedelta(days=1)

    def date_of(self, turn: Turn) -> str:
        return next(s.date_text for s in self.sessions if s.number == turn.session)


@dataclass
class EvidenceReport:
    ids: int = 0  # evidence strings read
    split: int = 0  # strings holding several ids ("D8:6; D9:17")
    rewritten: int = 0  # ids whose form was repaired ("D:11:26", "D30:05")
    dropped_malformed: list[str] = field(default_factory=list)
    dropped_missing: list[str] = field(default_factory=list)  # well-formed, but no such turn
    unscored_questions: int = 0  # left without any evidence
    skipped_turns: int = 0  # turns without text


def parse_date(text: str) -> datetime:
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def indexed_text(conv: Conversation, turn: Turn) -> str:
    """How the reference baselines index a turn: ``[<session date>] <speaker>: <text>``."""
    return f"[{conv.date_of(turn)}] {turn.speaker}: {turn.text}"


def normalise_evidence(raw: Iterable[Any], known: set[str], report: EvidenceReport) -> frozenset[str]:
    out: set[str] = set()
    for item in raw:
        report.ids += 1
        parts = [p for p in _SPLIT.split(str(item).strip()) if p]
        if len(parts) > 1:
            report.split += 1
        for part in parts:
            m = _EVIDENCE.fullmatch(part)
            if m is None:
                report.dropped_malformed.append(part)
                continue
            norm = f"D{int(m[1])}:{int(m[2])}"
            if norm != part:
                report.rewritten += 1
            if norm not in known:
                report.dropped_missing.append(norm)
                continue
            out.add(norm)
    return frozenset(out)


def load(path: str | Path, only: Sequence[str] | None = None) -> tuple[list[Conversation], EvidenceReport]:
    data = json.loads(Path(path).read_text())
    report = EvidenceReport()
    convs: list[Conversation] = []
    for sample in data:
        sid = str(sample["sample_id"])
        if only and sid not in only:
            continue
        c = sample["conversation"]
        sessions: list[Session] = []
        numbers = sorted(int(m[1]) for k in c if (m := _SESSION.fullmatch(k)))
        for n in numbers:
            date_text = c[f"session_{n}_date_time"]
            start = parse_date(date_text)
            turns = []
            for i, t in enumerate(c[f"session_{n}"]):
                if not str(t.get("text", "")).strip():
                    report.skipped_turns += 1
                    continue
                turns.append(
                    Turn(
                        str(t["dia_id"]),
                        str(t["speaker"]),
                        str(t["text"]).strip(),
                        t.get("blip_caption"),
                        n,
                        i,
                        start + timedelta(seconds=i),
                    )
                )
            if turns:
                sessions.append(Session(n, date_text, start, tuple(turns)))
        known = {t.dia_id for s in sessions for t in s.turns}
        questions = []
        for q in sample["qa"]:
            ev = normalise_evidence(q.get("evidence") or [], known, report)
            if not ev:
                report.unscored_questions += 1
                continue
            questions.append(Question(sid, str(q["question"]), int(q["category"]), ev, str(q.get("answer", ""))))
        convs.append(Conversation(sid, (str(c["speaker_a"]), str(c["speaker_b"])), sessions, questions))
    return convs, report


def recall(hits: Sequence[str], evidence: frozenset[str], k: int) -> float:
    return len(set(hits[:k]) & evidence) / len(evidence)


def summarise(results: Sequence[tuple[Question, Sequence[str]]], ks: Sequence[int] = (5, 10)) -> dict[str, Any]:
    """Recall@k per category, overall (1-4), and per split, from each question's ranked dia_ids."""

    def mean(values: list[float]) -> float | None:
        return round(sum(values) / len(values), 4) if values else None

    out: dict[str, Any] = {"questions": Counter(str(q.category) for q, _ in results)}
    for k in ks:
        per: dict[str, list[float]] = {}
        for q, hits in results:
            r = recall(hits, q.evidence, k)
            per.setdefault(str(q.category), []).append(r)
            if q.category in SCORED:
                per.setdefault("overall", []).append(r)
                split = "tune" if q.sample_id in TUNE else "held_out" if q.sample_id in HELD_OUT else "other"
                per.setdefault(f"overall_{split}", []).append(r)
        out[f"r@{k}"] = {key: mean(vals) for key, vals in sorted(per.items())}
    return out
