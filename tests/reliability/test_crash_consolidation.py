"""Crash during consolidation: a writer whose background worker is consolidating (against the scripted LLM
server, in this process) is SIGKILLed at random moments; reopening the folder and ``flush()`` resume what was
pending, and in the end every message is consolidated once and stands behind exactly one fact — nothing lost,
nothing duplicated by the replay of a batch that was cut short."""

from __future__ import annotations

import json
import os
import random
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from memadapt_core import Memory
from memadapt_core.testing import ScriptedLLMServer

from ._support import ChildProcess, FactPerMessage, snapshot

ROUNDS = int(os.environ.get("MEMADAPT_CONSOLIDATION_CRASH_ROUNDS", "6"))
USER = "crash-user"

CHILD = r"""
import json, sys, threading
from memadapt_core import Memory

path, round_no, count, llm = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4])
mem = Memory(path=path, llm=llm, consolidation_batch=3, reflect_every=0)
print("ready", flush=True)
for i in range(count):
    mid = f"r{round_no}m{i}"
    mem.add({"role": "user", "content": f"message {mid} says hello", "id": mid}, user_id="crash-user", session_id="s")
    print(f"ack {mid}", flush=True)
mem.flush()
print("idle", flush=True)
threading.Event().wait()  # stay alive until killed
"""


@pytest.fixture
def llm() -> Iterator[ScriptedLLMServer]:
    seed = random.randrange(2**32)
    print(f"LLM seed {seed}")
    with ScriptedLLMServer(responder=FactPerMessage(seed)) as server:
        yield server


def _check(folder: Path, llm: ScriptedLLMServer, acknowledged: set[str]) -> None:
    """Resume and check: nothing lost, nothing pending, one fact per message."""
    with Memory(path=folder, llm=llm.llm_settings().model_dump(), consolidation_batch=3, reflect_every=0) as mem:
        mem.flush()  # resumes what the killed writer left pending
        records = snapshot(mem)
    messages = [r for r in records if r["kind"] == "message"]
    facts = [r for r in records if r["kind"] == "fact" and r["valid_to"] is None]
    ids = Counter(m["external_id"] for m in messages)
    assert not [i for i, n in ids.items() if n > 1], "a message stored twice"
    assert acknowledged <= set(ids), f"acknowledged messages lost: {sorted(acknowledged - set(ids))}"
    assert all(m["consolidated"] for m in messages), "flush() left messages pending"
    per_text = Counter(f["text"] for f in facts)
    missing = {f"Fact: {m['text']}" for m in messages} - set(per_text)
    assert not missing, f"consolidated messages without their fact: {sorted(missing)}"
    by_id = {m["id"] for m in messages}
    assert all(set(f["source_ids"]) <= by_id for f in facts)
    duplicated = {t: n for t, n in per_text.items() if n > 1}
    assert not duplicated, f"facts stored more than once: {duplicated}"


@pytest.mark.slow
def test_a_writer_killed_while_consolidating_loses_nothing_and_duplicates_no_fact(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    rng = random.Random()
    folder = tmp_path / "store"
    settings = json.dumps(llm.llm_settings().model_dump(mode="json") | {"api_key": "test"})
    acknowledged: set[str] = set()
    for round_no in range(ROUNDS):
        child = ChildProcess(CHILD, str(folder), str(round_no), "12", settings)
        try:
            assert child.read_line(timeout=120) == "ready"
            lines = [child.read_line(timeout=60) for _ in range(rng.randint(1, 12))]
            time.sleep(rng.uniform(0, 0.2))  # jitter, not a wait: the kill lands anywhere in the worker's step
            lines += child.kill()
        finally:
            child.close()
        acknowledged |= {line.split()[1] for line in lines if line.startswith("ack ")}
        _check(folder, llm, acknowledged)
    assert llm.chat_requests("extract"), "the worker never asked the LLM: nothing was tested"
    print(f"{ROUNDS} SIGKILLs while consolidating: {len(acknowledged)} messages acknowledged, all kept, all "
          f"consolidated after restart, one fact each; {len(llm.chat_requests())} LLM calls")  # fmt: skip


def test_a_batch_replayed_with_more_messages_does_not_duplicate_its_facts(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    settings = {"llm": llm.llm_settings().model_dump(), "consolidation_batch": 3, "reflect_every": 0}
    with Memory(path=tmp_path / "before", **settings) as mem:
        mem.add({"role": "user", "content": "m1 says hello", "id": "m1"}, user_id=USER, session_id="s")
        mem.flush()
        mem.export(tmp_path / "dump.jsonl")
    # The state a kill between the batch's fact write and its "consolidated" mark leaves: the fact is stored,
    # the message is still pending. Export / import carries it over exactly.
    lines = [json.loads(line) for line in (tmp_path / "dump.jsonl").read_text(encoding="utf-8").splitlines()]
    for line in lines:
        if line["kind"] == "message":
            line["consolidated"] = False
    (tmp_path / "crashed.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    with Memory(path=tmp_path / "after") as mem:  # no LLM: import, and the user goes on talking
        mem.import_(tmp_path / "crashed.jsonl")
        mem.add([{"role": "user", "content": f"m{i} says hello", "id": f"m{i}"} for i in (2, 3)], user_id=USER,
                session_id="s")  # fmt: skip

    with Memory(path=tmp_path / "after", **settings) as mem:
        mem.flush()
        facts = [r.text for r in mem.list(user_id=USER, kinds=["fact"], limit=100).records]

    assert sorted(facts) == ["Fact: m1 says hello", "Fact: m2 says hello", "Fact: m3 says hello"]
