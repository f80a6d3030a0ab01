"""``memadapt chat``: talk to your memory in the terminal (MemoryScope's CLI chatbot with long-term memory).

Each line typed is a question for ``Memory.answer``: the answer is printed with the memories it recalled, and the
exchange is stored in this chat's session, so what is told in one chat is remembered in the next. Lines that
start with ``/`` are commands (``COMMANDS``). Runs over a local store, or a running ``memadapt serve`` with
``--server URL --token TOKEN`` (the service's LLM answers; it consolidates in the background).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import deque
from collections.abc import Callable
from contextlib import ExitStack
from datetime import datetime
from typing import IO, Any

from memadapt_core.api import MemoryAPI
from memadapt_core.client.local_only import LocalOnly
from memadapt_core.errors import ConfigurationError, LLMError, ValidationError
from memadapt_core.models import Answer, MemoryRecord

__all__ = ["COMMANDS", "TOKEN_ENV", "TRIAL_LLMS", "TRIAL_LLM_HELP", "ChatSession", "new_session_id"]

TOKEN_ENV = "MEMADAPT_TOKEN"
TRIAL_LLMS = ("scripted",)
TRIAL_LLM_HELP = (
    "scripted: a trial LLM on 127.0.0.1 with canned, rule-based answers (no model, no key), to try answers, facts, "
    "the profile and lessons offline; a real model: MEMADAPT_LLM__MODEL and MEMADAPT_LLM__BASE_URL"
)
PROMPT = "you> "
LIST_LIMIT = 50
COMMANDS = {
    "/list": "the newest memories of this user (ids to /forget)",
    "/forget <id>": "delete one memory by its id",
    "/consolidate": "draw facts (and the profile) from this chat's messages now",
    "/help": "these commands",
    "/quit": "leave (Ctrl-D too)",
}


def new_session_id(now: datetime | None = None) -> str:
    """A session id for one chat: ``chat-20250305-091500``."""
    return f"chat-{(now or datetime.now()).strftime('%Y%m%d-%H%M%S')}"


def _line(record: MemoryRecord) -> str:
    text = " ".join(record.text.split())
    return f"{record.id}  {record.observed_at:%Y-%m-%d}  [{record.kind}] {text}"


class ChatSession:
    """One chat: reads lines from ``read`` until ``/quit`` or the end of input, writes to ``out``."""

    def __init__(
        self, memory: MemoryAPI, *, user_id: str | None, agent_id: str | None, session_id: str, limit: int = 5,
        out: IO[str] | None = None, read: Callable[[str], str] = input,
    ) -> None:  # fmt: skip
        self.memory, self.limit, self.read = memory, limit, read
        self.owner: dict[str, Any] = {"user_id": user_id, "agent_id": agent_id}
        self.session_id = session_id
        self.out = out or sys.stdout

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def run(self) -> int:
        """Chat until the user leaves; returns the exit code (0, or 4 when the memory has no LLM to answer)."""
        who = self.owner["user_id"] or self.owner["agent_id"] or "the token's user"
        self.say(f"memadapt chat: {who}, session {self.session_id}. Ask anything; /help lists the commands.")
        while True:
            try:
                line = self.read(PROMPT).strip()
            except EOFError:
                self.say()
                return 0
            if not line:
                continue
            if line.startswith("/"):
                if not self.command(line):
                    return 0
                continue
            try:
                found = self.memory.answer(line, **self.owner, session_id=self.session_id, limit=self.limit)
            except ConfigurationError as exc:
                self.say(f"memadapt: {exc}")
                return 4
            except (LLMError, ValidationError) as exc:
                self.say(f"memadapt: {exc}")
                continue
            self.show(found)

    def show(self, found: Answer) -> None:
        self.say(f"memadapt> {found.answer}")
        if not found.memories:
            self.say("  (no memory recalled)")
            return
        self.say("  recalled:")
        for hit in found.memories:
            self.say(f"    {hit.score:.3f}  {_line(hit.record)}")

    def command(self, line: str) -> bool:
        """Run one ``/`` command; False when the chat should end."""
        name, _, argument = line.partition(" ")
        argument = argument.strip()
        if name in ("/quit", "/exit", "/q"):
            return False
        if name == "/list":
            newest: deque[MemoryRecord] = deque(self.memory.iter_records(**self.owner), maxlen=LIST_LIMIT)
            self.say("\n".join(_line(r) for r in newest) if newest else "(no memories yet)")
        elif name == "/forget":
            self._forget(argument)
        elif name == "/consolidate":
            self._consolidate()
        else:
            if name != "/help":
                self.say(f"unknown command {name}")
            self.say("\n".join(f"  {usage:<14} {meaning}" for usage, meaning in COMMANDS.items()))
        return True

    def _forget(self, record_id: str) -> None:
        if not record_id:
            self.say("give the memory's id: /forget <id> (/list shows them)")
            return
        try:
            done = self.memory.delete(record_id, **self.owner)
        except ValidationError as exc:
            self.say(f"memadapt: {exc}")
            return
        self.say(f"forgot {record_id}" if done else f"no memory {record_id} of yours")

    def _consolidate(self) -> None:
        if isinstance(self.memory, LocalOnly):  # a client of memadapt serve: consolidating is the server's
            self.say("the service consolidates in the background: nothing to do here")
            return
        try:
            n = self.memory.consolidate(**self.owner)
        except LLMError as exc:
            self.say(f"memadapt: {exc}")
            return
        self.say(f"consolidated {n} messages")


def remote_memory(server: str, token: str | None) -> Any:
    """A ``RemoteMemory`` of the ``memadapt serve`` at ``server`` (``--server``), with ``--token`` or
    ``MEMADAPT_TOKEN``."""
    from memadapt_core.remote import RemoteMemory

    token = token or os.environ.get(TOKEN_ENV)
    if not token:
        msg = f"--server needs a token: give --token or set {TOKEN_ENV}"
        raise ConfigurationError(msg)
    return RemoteMemory(server, token=token)


def open_memory(options: dict[str, Any], server: str | None, token: str | None) -> Any:
    """A local ``Memory`` (which must have an LLM), or a ``RemoteMemory`` of a running ``memadapt serve``."""
    if server is not None:
        return remote_memory(server, token)
    from memadapt_core.engine import Memory
    from memadapt_core.engine.planning.chat import require_llm

    memory = Memory(**options)
    try:
        where = "; or talk to a running memadapt serve: --server URL --token TOKEN; or try it offline: --llm scripted"
        require_llm(memory.settings, where=where)
    except ConfigurationError:
        memory.close()
        raise
    return memory


def add_command(sub: Any, after: list[argparse.ArgumentParser]) -> None:
    """The ``chat`` subcommand's arguments (memadapt_core.cli)."""
    chat = sub.add_parser("chat", parents=after, help="talk to your memory: an interactive chat that remembers")
    chat.add_argument("--user", dest="user_id", help="user id (with --server: the token's user)")
    chat.add_argument("--agent", dest="agent_id", help="agent id")
    chat.add_argument("--session", dest="session_id", help="this chat's session id (default: chat-<date-time>)")
    chat.add_argument("--limit", type=int, default=5, help="memories recalled per question (default 5)")
    chat.add_argument("--llm", choices=TRIAL_LLMS, help=TRIAL_LLM_HELP)


def run_command(ns: argparse.Namespace, options: dict[str, Any]) -> int:
    """``memadapt chat`` (memadapt_core.cli.chat): needs an LLM, the store's or the service's."""
    if ns.server is None and not (ns.user_id or ns.agent_id):
        field = "--user"
        raise ValidationError(field, "say whose memory to talk to: --user ID (or --agent ID)")
    if ns.llm is not None and ns.server is not None:
        field = "--llm"
        raise ValidationError(field, "with --server the service's LLM answers: start it with memadapt serve --llm")
    with ExitStack() as stack:
        if ns.llm == "scripted":
            from memadapt_core.testing.trial_llm import trial_options

            options = stack.enter_context(trial_options(options))
        memory = stack.enter_context(open_memory(options, ns.server, ns.token))
        if ns.llm == "scripted":
            session_says = "the LLM is a scripted trial: canned answers that echo the memories recalled"
            print(f"memadapt chat: {session_says}", file=sys.stderr, flush=True)
        session = ChatSession(
            memory, user_id=ns.user_id, agent_id=ns.agent_id, session_id=ns.session_id or new_session_id(),
            limit=ns.limit,
        )  # fmt: skip
        return session.run()
