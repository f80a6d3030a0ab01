"""`memadapt chat` under a pseudo-terminal, with the scripted LLM: it remembers across sessions, lists, forgets."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memadapt_core import Memory
from memadapt_core.cli import main
from memadapt_core.testing import ScriptedLLMServer
from tests._chat import remembering_llm

DEADLINE_S = 60.0
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class Terminal:
    """``memadapt chat`` in a child process whose stdin, stdout and stderr are a pseudo-terminal."""

    def __init__(self, *args: str, env: dict[str, str]) -> None:
        master, slave = pty.openpty()
        command = [sys.executable, "-m", "memadapt_core.cli", *args]
        self.process = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
        os.close(slave)
        self.master, self.pending = master, ""
        OPEN.append(self)
        self.expect("you> ")

    def expect(self, text: str) -> str:
        """Everything printed up to and including ``text`` (waiting for it, up to a deadline)."""
        deadline = time.monotonic() + DEADLINE_S
        while text not in self.pending:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.master], [], [], remaining)[0]:
                pytest.fail(f"{text!r} never came; the terminal shows: {self.pending[-2000:]!r}")
            try:
                chunk = os.read(self.master, 4096)
            except OSError:  # the child has gone: the pty reads EIO
                pytest.fail(f"the chat ended before {text!r}: {self.pending[-2000:]!r}")
            self.pending += chunk.decode(errors="replace")
        seen, _, self.pending = self.pending.partition(text)
        return seen + text

    def say(self, line: str) -> str:
        """Type a line at the prompt; what the chat printed before its next prompt."""
        os.write(self.master, (line + "\n").encode())
        return self.expect("you> ").removesuffix("you> ")

    def quit(self) -> int:
        os.write(self.master, b"/quit\n")
        return self.process.wait(timeout=DEADLINE_S)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=DEADLINE_S)
        os.close(self.master)


OPEN: list[Terminal] = []


@pytest.fixture
def chat_env() -> Iterator[dict[str, str]]:
    """The scripted LLM's settings for a chat's environment; every chat started is stopped after the test."""
    with ScriptedLLMServer(responder=remembering_llm) as llm:
        try:
            yield os.environ | {"MEMADAPT_LLM__BASE_URL": llm.base_url, "MEMADAPT_LLM__MODEL": "scripted"}
        finally:
            while OPEN:
                OPEN.pop().close()


def _chat(store: Path, env: dict[str, str], session: str) -> Terminal:
    return Terminal("--path", str(store), "chat", "--user", "ann", "--session", session, env=env)


def test_chat_remembers_a_fact_told_in_an_earlier_session(tmp_path: Path, chat_env: dict[str, str]) -> None:
    first = _chat(tmp_path / "store", chat_env, "monday")
    first.say("My cat is called Miso")
    assert first.quit() == 0
    second = _chat(tmp_path / "store", chat_env, "tuesday")
    shown = second.say("What is my cat called?")
    assert second.quit() == 0
    answer = next(line for line in shown.splitlines() if line.startswith("memadapt> "))
    assert "Miso" in answer
    assert "recalled:" in shown
    assert "My cat is called Miso" in shown.split("recalled:", 1)[1]


def test_chat_lists_and_forgets_a_memory(tmp_path: Path, chat_env: dict[str, str]) -> None:
    chat = _chat(tmp_path / "store", chat_env, "s1")
    chat.say("I collect vinyl records")
    listed = chat.say("/list")
    (line,) = [line for line in listed.splitlines() if "I collect vinyl records" in line]
    record_id = UUID.search(line).group(0)  # type: ignore[union-attr]
    forgot = chat.say(f"/forget {record_id}")
    after = chat.say("/list")
    assert chat.quit() == 0
    assert f"forgot {record_id}" in forgot
    assert "I collect vinyl records" not in after


def test_chat_consolidates_on_command(tmp_path: Path, chat_env: dict[str, str]) -> None:
    chat = _chat(tmp_path / "store", chat_env, "s1")
    chat.say("I moved to Ghent in May")
    shown = chat.say("/consolidate")
    assert chat.quit() == 0
    assert re.search(r"consolidated \d+ messages", shown)


def test_chat_lists_its_commands_on_help_and_on_an_unknown_one(tmp_path: Path, chat_env: dict[str, str]) -> None:
    chat = _chat(tmp_path / "store", chat_env, "s1")
    shown = chat.say("/frobnicate")
    assert chat.quit() == 0
    assert "unknown command /frobnicate" in shown
    assert all(command in shown for command in ("/list", "/forget <id>", "/consolidate", "/quit"))


def test_chat_without_an_llm_names_the_settings_and_the_server_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("MEMADAPT_LLM__BASE_URL", "MEMADAPT_LLM__MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    code = main(["--path", str(tmp_path / "store"), "chat", "--user", "ann"])
    error = capsys.readouterr().err
    assert code == 4
    assert "MEMADAPT_LLM__MODEL" in error
    assert "--server URL" in error
    assert "--llm scripted" in error


def test_chat_with_the_trial_llm_consolidates_and_answers_offline(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMADAPT_LLM__", "OPENAI_"))}
    chat = Terminal("--path", str(tmp_path / "store"), "chat", "--user", "ann", "--llm", "scripted", env=env)
    chat.say("My cat is called Miso.")
    consolidated = chat.say("/consolidate")
    shown = chat.say("What is my cat called?")
    assert chat.quit() == 0
    answer = shown.split("recalled:", 1)[0]
    assert "(trial LLM" in answer
    assert "My cat is called Miso." in answer
    assert re.search(r"consolidated \d+ messages", consolidated)  # now, or already in the background
    with Memory(path=str(tmp_path / "store")) as memory:
        facts = [r.text for r in memory.list(user_id="ann", kinds=["fact"]).records]
    assert "My cat is called Miso." in facts


def test_chat_without_a_user_says_whose_memory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--path", str(tmp_path / "store"), "chat"]) == 2
    assert "--user" in capsys.readouterr().err
