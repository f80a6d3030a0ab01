"""The LoCoMo replay: an extraction LLM played from LoCoMo's own ``observation`` facts, for ``locomo.py --consolidate``.

Benchmark material, not a test double: it answers only the consolidation pipeline's ``extract``, ``reconcile`` and
``reflect`` requests, from LoCoMo's data (CC BY-NC 4.0, never shipped). Hand it to the scripted server as its
responder: ``ScriptedLLMServer(responder=LocomoReplay.from_file(path))``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from memadapt_core.testing import ChatRequest, Reply, ScriptItem

__all__ = ["LocomoReplay"]


def _normalise(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


class LocomoReplay:
    """Answers like an extraction LLM from LoCoMo's ``observation`` facts (the data file is read only here).

    An ``extract`` request's messages are matched to LoCoMo turns by text (the session matching most lines
    wins; a text said twice in a session matches its turns in order); each observation whose last turn is in
    the request comes back as a fact citing those of its turns that are in the request. Observation ids are
    normalised as the benchmarks do (``"D26:14, D26:34"`` is two ids). ``reconcile`` answers ADD for every new
    fact and ``reflect`` answers no insight, so the whole pipeline can run offline. Token usage is estimated at
    four characters a token (no tokenizer offline), so a benchmark can report a plausible LLM cost.
    """

    def __init__(self, samples: list[dict[str, Any]]) -> None:
        self._turns: dict[str, list[tuple[str, str]]] = {}  # normalised text -> [(session key, dia_id)]
        self._facts: dict[str, list[tuple[str, list[str]]]] = {}  # session key -> [(fact, dia_ids)]
        for sample in samples:
            sid = str(sample["sample_id"])
            for key, turns in sample["conversation"].items():
                if re.fullmatch(r"session_\d+", key):
                    for turn in turns:
                        self._turns.setdefault(_normalise(turn["text"]), []).append((f"{sid}/{key}", turn["dia_id"]))
            for key, by_speaker in sample.get("observation", {}).items():
                session = f"{sid}/{key.removesuffix('_observation')}"
                for facts in by_speaker.values():
                    for fact, ids in facts:
                        dia_ids = _dia_ids([ids] if isinstance(ids, str) else ids)
                        if dia_ids:
                            self._facts.setdefault(session, []).append((fact, dia_ids))

    @classmethod
    def from_file(cls, path: str | Path) -> LocomoReplay:
        return cls(json.loads(Path(path).read_text(encoding="utf-8")))

    def __call__(self, request: ChatRequest) -> ScriptItem | None:
        payload = request.payload if isinstance(request.payload, dict) else {}
        answer: dict[str, Any]
        if request.operation == "extract":
            answer = {"facts": self.extract(payload.get("messages", []))}
        elif request.operation == "reconcile":
            new = payload.get("new_facts", [])
            answer = {"decisions": [{"fact": f["n"], "action": "ADD", "target": None} for f in new]}
        elif request.operation == "reflect":
            answer = {"insights": [], "obsolete": []}
        else:
            return None
        prompt = sum(len(str(m.get("content", ""))) for m in request.messages)
        return Reply(answer, _tokens(prompt), _tokens(len(json.dumps(answer))))

    def extract(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        matches = {m["n"]: self._turns.get(_normalise(str(m.get("text", ""))), []) for m in messages}
        votes: dict[str, int] = {}
        for candidates in matches.values():
            for session in {s for s, _ in candidates}:
                votes[session] = votes.get(session, 0) + 1
        if not votes:
            return []
        session = max(votes, key=lambda s: votes[s])
        number: dict[str, int] = {}  # dia_id -> message number; a repeated text takes its turns in order
        for n, cands in sorted(matches.items()):
            free = [dia for s, dia in cands if s == session and dia not in number]
            if free:
                number[free[0]] = n
        facts = []
        for fact, dia_ids in self._facts.get(session, []):
            last = max(dia_ids, key=_turn_number)
            if last in number:
                sources = sorted({number[d] for d in dia_ids if d in number})
                facts.append({"text": fact, "sources": sources, "valid_from": None, "hypothetical": False})
        return facts


def _turn_number(dia_id: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", dia_id))


def _dia_ids(raw: Iterable[Any]) -> list[str]:
    """Observation turn ids as the turns spell them: ``"D26:14, D26:34"`` is two ids, ``"D:1:3"`` is ``D1:3``."""
    out: list[str] = []
    for item in raw:
        for part in re.split(r"[;,\s]+", str(item).strip()):
            match = re.fullmatch(r"D:?(\d+):(\d+)", part)
            if match is not None:
                out.append(f"D{int(match[1])}:{int(match[2])}")
    return list(dict.fromkeys(out))


def _tokens(characters: int) -> int:
    return max(1, round(characters / 4))
