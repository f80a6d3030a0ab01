"""Add and search latency through `memadapt serve`'s HTTP API on 127.0.0.1, beside the same calls in-process.

The server is a real `memadapt serve` subprocess over an embedded store; the client is `RemoteMemory` (httpx, one
keep-alive connection). Both sides hold the same records (short synthetic sentences, one user each), searched with
the same queries, so the difference is what HTTP, JSON and the ASGI stack add.

    python benchmarks/http_latency.py                 # 10 users x 1,000 memories, 2,000 searches
    python benchmarks/http_latency.py --quick         # 2 users x 200 memories, 300 searches
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import machine, machine_line, table

WORDS = [
    "bees", "roof", "cello", "sister", "berlin", "garden", "coffee", "train",
    "river", "piano", "novel", "soup", "hiking", "museum", "winter", "market",
]  # fmt: skip


def _sentence(rng: random.Random) -> str:
    return "I " + " ".join(rng.choice(WORDS) for _ in range(8))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _timed(calls: list[Callable[[], object]]) -> list[float]:
    out = []
    for call in calls:
        start = time.perf_counter()
        call()
        out.append((time.perf_counter() - start) * 1e3)
    return sorted(out)


def _row(name: str, adds: list[float], searches: list[float]) -> list[str]:
    def pct(xs: list[float], q: float) -> str:
        return f"{xs[min(len(xs) - 1, int(q * len(xs)))]:.3f}"

    return [name, pct(adds, 0.5), pct(adds, 0.95), pct(searches, 0.5), pct(searches, 0.95)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    users, per_user, queries = (2, 200, 300) if args.quick else (10, 1_000, 2_000)
    rng = random.Random(7)
    records = {f"u{i}": [_sentence(rng) for _ in range(per_user)] for i in range(users)}
    asked = [(rng.choice(list(records)), _sentence(rng)) for _ in range(queries)]
    tokens = {f"token-{u}": u for u in records}

    from memadapt_core import Memory
    from memadapt_core.remote import RemoteMemory

    rows = []
    with tempfile.TemporaryDirectory(prefix="memadapt-http-") as folder:
        with Memory(path=Path(folder) / "local") as mem:
            for user, texts in records.items():
                mem.add(texts[:-50], user_id=user)
            adds = _timed([lambda u=u, t=t: mem.add(t, user_id=u) for u, texts in records.items() for t in texts[-50:]])
            searches = _timed([lambda u=u, q=q: mem.search(q, user_id=u) for u, q in asked])
            rows.append(_row("in-process (Memory)", adds, searches))
        token_file = Path(folder) / "tokens.json"
        token_file.write_text(json.dumps(tokens), encoding="utf-8")
        port = _free_port()
        cli = [sys.executable, "-m", "memadapt_core.cli", "--path", str(Path(folder) / "served")]
        server = subprocess.Popen(
            [*cli, "serve", "--port", str(port), "--tokens", str(token_file)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            url = f"http://127.0.0.1:{port}"
            clients = {u: RemoteMemory(url, token=t) for t, u in tokens.items()}
            deadline = time.monotonic() + 60
            while True:  # ready when a first call goes through
                try:
                    clients["u0"].list(user_id="u0", limit=1)
                    break
                except Exception:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise
                    time.sleep(0.1)
            for user, texts in records.items():
                clients[user].add(texts[:-50], user_id=user)
            adds = _timed(
                [lambda u=u, t=t: clients[u].add(t, user_id=u) for u, texts in records.items() for t in texts[-50:]]
            )
            searches = _timed([lambda u=u, q=q: clients[u].search(q, user_id=u) for u, q in asked])
            rows.append(_row("HTTP API (RemoteMemory, 127.0.0.1)", adds, searches))
            for client in clients.values():
                client.close()
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(machine_line(machine()))
    print(f"{users} users x {per_user} memories; one add at a time ({users * 50} adds); {queries} searches\n")
    print(table(["path", "add p50 ms", "add p95 ms", "search p50 ms", "search p95 ms"], rows))
    if args.out:
        Path(args.out).write_text(json.dumps({"machine": machine(), "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
