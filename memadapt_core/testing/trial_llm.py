"""A trial LLM: rule-based, canned answers to each consolidation step, so profile, lessons and consolidation can
be tried offline with no model and no key (``memadapt serve --llm scripted``, ``memadapt chat --llm scripted``).

It is no model: the facts it extracts are the user's own sentences, the profile repeats them one line each (the
section picked by a few keywords), a trajectory's lesson is generic, reconciliation adds everything, validation
accepts everything, and an answer echoes the memories recalled. Each answer has the JSON shape the step's parser
checks (``memadapt_core.consolidation``), so what is stored is what a real model's answer would make, only duller.

::

    with trial_llm_server() as server:
        memory = Memory(llm=server.llm_settings())
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from memadapt_core.engine.planning.chat import OPERATION as ANSWER_OPERATION
from memadapt_core.formatting import BLOCK_END, BLOCK_START

from .scripted_server import ChatRequest, ScriptedLLMServer, ScriptItem

__all__ = ["TRIAL_MODEL", "is_trial", "trial_llm_server", "trial_options", "trial_responder"]

TRIAL_MODEL = "memadapt-trial"
"""The model name the trial server answers as (shown in the start line and in ``stats``)."""

_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]?")
_SMALL_TALK = re.compile(r"^(hi|hello|hey|thanks|thank you|ok|okay|bye|good (morning|evening|night))\b", re.I)
_SECTIONS = (  # the first section whose words a statement holds; else identity
    ("constraints", ("allergic", "allergy", "vegetarian", "vegan", "never", "can't", "cannot", "avoid", "must")),
    ("preferences", ("like", "love", "prefer", "favourite", "favorite", "enjoy", "hate", "dislike")),
    ("habits", ("every", "usually", "always", "often", "each morning", "daily", "weekly")),
    ("goals", ("want to", "plan to", "going to", "hope", "goal", "learn")),
    ("relationships", ("my wife", "my husband", "my partner", "my sister", "my brother", "my friend", "my mother",
                       "my father", "my son", "my daughter", "my dog", "my cat")),
    ("interests", ("interested", "hobby", "play", "read", "music", "travel")),
)  # fmt: skip
_MAX_STATEMENTS = 12


def _sentences(text: str) -> list[str]:
    """The statements in ``text``: its sentences, without questions and small talk."""
    found = [s.strip() for s in _SENTENCE.findall(text)]
    return [s for s in found if len(s.split()) >= 3 and not s.endswith(("?", "？")) and not _SMALL_TALK.match(s)]


def _extract(payload: dict[str, Any]) -> dict[str, Any]:
    facts = []
    for message in payload.get("messages", []):
        if message.get("role", "user") != "user":
            continue  # the assistant's words are not facts about the user
        speaker = str(message.get("speaker") or "user")
        for sentence in _sentences(str(message.get("text", ""))):
            text = sentence if speaker == "user" else f"{speaker} said: {sentence}"
            facts.append({"text": text, "sources": [message["n"]], "valid_from": None, "hypothetical": False,
                          "about": "user"})  # fmt: skip
    return {"facts": facts}


def _section(text: str) -> str:
    lowered = f" {text.lower()} "
    return next((name for name, words in _SECTIONS if any(f" {w}" in lowered for w in words)), "identity")


def _profile(payload: dict[str, Any]) -> dict[str, Any]:
    stated = {str(s.get("text", "")).casefold() for s in payload.get("statements", [])}
    statements = [
        {"section": _section(k["text"]), "text": k["text"], "sources": [k["n"]], "replaces": []}
        for k in payload.get("knowledge", [])
        if str(k.get("text", "")).casefold() not in stated
    ]
    return {"statements": statements[:_MAX_STATEMENTS], "obsolete": []}


def _lessons(payload: dict[str, Any]) -> dict[str, Any]:
    experiences = []
    for t in payload.get("trajectories", []):
        task = " ".join(str(t.get("task") or "a task like this one").split())[:200]
        score = t.get("score")
        failed = isinstance(score, int | float) and score < 0.5
        content = (
            "The last attempt scored low: check each tool's arguments against the task before calling it, and "
            "read the tool's error before trying again."
            if failed
            else "The last attempt worked: repeat its steps in the same order, and confirm the result to the user."
        )
        experiences.append({"when_to_use": task, "content": content, "evidence": "failure" if failed else "success",
                            "sources": [t["n"]]})  # fmt: skip
    return {"experiences": experiences}


def _answer(request: ChatRequest) -> str:
    """The recalled memories, echoed: what a model would have been given to answer from."""
    lines: list[str] = []
    inside = False
    for line in request.system.splitlines():
        if line.startswith(BLOCK_START) or line.startswith(BLOCK_END):
            inside = line.startswith(BLOCK_START)
            continue
        if inside and (line[:1].isdigit() or line.startswith(("- ", "["))) and "(trial LLM" not in line:
            lines.append(line)  # not its own earlier canned answers, which the latest turns may show
    if not lines:
        return "(trial LLM) I do not remember anything about that yet."
    return "(trial LLM, a canned answer: these are the memories recalled)\n" + "\n".join(lines)


def _numbered(key: str, action: str, numbers: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def answer(payload: dict[str, Any]) -> dict[str, Any]:
        return {"decisions": [{key: item["n"], "action": action} for item in payload.get(numbers, [])]}

    return answer


def _no_insight(payload: dict[str, Any]) -> dict[str, Any]:
    return {"insights": [], "obsolete": []}


def _accept(payload: dict[str, Any]) -> dict[str, Any]:
    reason = "the trial LLM accepts every lesson"
    return {"judgements": [{"experience": e["n"], "valid": True, "reason": reason} for e in payload["experiences"]]}


def _guide(payload: dict[str, Any]) -> dict[str, Any]:
    calls = len(payload.get("calls", []))
    return {"guidelines": f"- {payload.get('tool')}: {calls} recent calls; check their arguments and results "
                          "(a trial guide: no model wrote it)."}  # fmt: skip


_BY_OPERATION: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "extract": _extract,
    "reconcile": _numbered("fact", "ADD", "new_facts"),
    "reflect": _no_insight,
    "profile": _profile,
    "extract_experience": _lessons,
    "validate_experience": _accept,
    "reconcile_experience": _numbered("experience", "ADD", "new_experiences"),
    "tool_guide": _guide,
}


def trial_responder(request: ChatRequest) -> ScriptItem:
    """The trial LLM's answer to one request, by its operation (``OPERATION_HEADER``)."""
    operation = request.operation or ""
    if operation == ANSWER_OPERATION or (not request.json_mode and operation not in _BY_OPERATION):
        return _answer(request)
    payload = request.payload
    step = _BY_OPERATION.get(operation)
    if step is None or not isinstance(payload, dict):
        return {}  # a plugin's own step: an empty object, which its parser may refuse (then the batch is skipped)
    return step(payload)


def trial_llm_server() -> ScriptedLLMServer:
    """A scripted server on 127.0.0.1 answering as the trial LLM (start it, or use it as a context manager)."""
    return ScriptedLLMServer(responder=trial_responder, model=TRIAL_MODEL)


@contextmanager
def trial_options(options: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """``options`` for an engine whose LLM is a trial server started here (and stopped on leaving): the CLI's
    ``--llm scripted``. The trial's settings win over ``MEMADAPT_LLM__*``, which name a real model."""
    with trial_llm_server() as server:
        yield {**options, "llm": server.llm_settings(timeout=30.0).model_dump()}


def is_trial(model: str | None) -> bool:
    """Whether an engine's LLM is the trial (the start line says so)."""
    return model == TRIAL_MODEL
