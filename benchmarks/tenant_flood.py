"""Three tenants of one `memadapt serve`, one flooding: what the other two wait, and the memory the burst leaves.

A real `memadapt serve` subprocess over an embedded store and three tokens. Tenants b and c each make the same
sequence of calls twice, one at a time as an application would (an add of a short message, then a search): first
on a quiet server, then while tenant a floods it (64 concurrent workers posting 8,000-character messages as fast as
they are answered, a 429 sent again at once). Reported: b's and c's p50 and p95 per phase, how many of a's posts
were stored and how many refused (429, the per-token limit: `--max-requests-per-token`, 8), and the server's
resident memory before, at the peak of the flood and 10 s after it (read from /proc, Linux only).

    python benchmarks/tenant_flood.py                      # 40 calls per quiet tenant per phase, 30 s of flood
    python benchmarks/tenant_flood.py --calls 10 --flood-s 10 --out benchmarks/results/tenant_flood.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import machine, machine_line, pct, table, write_json

TOKENS = {"token-a": "a", "token-b": "b", "token-c": "c"}
FLOOD_WORKERS = 64
FLOOD_TEXT = "I planted tomatoes, beans and a row of sunflowers along the fence this spring. " * 100  # ~8k chars


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def quiet_tenant(client: httpx.AsyncClient, token: str, calls: int, phase: str) -> list[float]:
    """``calls`` adds and searches one after another; the milliseconds of each."""
    headers = {"Authorization": f"Bearer {token}"}
    took: list[float] = []
    for n in range(calls):
        for method, path, body in (
            ("POST", "/v1/memories", {"messages": f"My note {n} of the {phase} phase: the bus leaves at {n % 12}."}),
            ("POST", "/v1/search", {"query": f"when does the bus leave, note {n}?"}),
        ):
            start = time.perf_counter()
            answer = await client.request(method, path, json=body, headers=headers)
            took.append((time.perf_counter() - start) * 1e3)
            answer.raise_for_status()
    return took


async def flood(client: httpx.AsyncClient, until: float, counts: dict[str, int]) -> None:
    headers = {"Authorization": "Bearer token-a"}
    n = 0
    while time.monotonic() < until:
        n += 1
        answer = await client.post("/v1/memories", json={"messages": f"{FLOOD_TEXT} ({n})"}, headers=headers)
        counts[str(answer.status_code)] = counts.get(str(answer.status_code), 0) + 1


async def run(url: str, pid: int, calls: int, flood_s: float, settle_s: float = 10.0) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=FLOOD_WORKERS + 4)
    async with httpx.AsyncClient(base_url=url, timeout=300.0, limits=limits) as client:
        await client.post("/v1/search", json={"query": "warm up"}, headers={"Authorization": "Bearer token-b"})
        before = rss_mib(pid)
        quiet = await asyncio.gather(*(quiet_tenant(client, t, calls, "quiet") for t in ("token-b", "token-c")))
        counts: dict[str, int] = {}
        peak = rss_mib(pid)
        until = time.monotonic() + flood_s
        flooding = [asyncio.ensure_future(flood(client, until, counts)) for _ in range(FLOOD_WORKERS)]
        await asyncio.sleep(1.0)  # the flood is under way before the others start
        loaded = asyncio.gather(*(quiet_tenant(client, t, calls, "flood") for t in ("token-b", "token-c")))
        while not loaded.done():
            peak = max(peak, rss_mib(pid))
            await asyncio.sleep(0.25)
        during = loaded.result()
        await asyncio.gather(*flooding)
        peak = max(peak, rss_mib(pid))
        await asyncio.sleep(settle_s)
        after = rss_mib(pid)
    phases = {"quiet": quiet, "flood": during}
    return {
        "tenants": {
            f"{tenant} {phase}": {"calls": len(ms), "p50_ms": round(pct(ms, 50), 1), "p95_ms": round(pct(ms, 95), 1)}
            for phase, both in phases.items()
            for tenant, ms in zip("bc", both, strict=True)
        },
        "flooder": {"workers": FLOOD_WORKERS, "seconds": flood_s, "answers": counts},
        "rss_mib": {"before": round(before), "peak": round(peak), f"after_{settle_s:g}s": round(after)},
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=40, help="adds and searches per quiet tenant per phase")
    parser.add_argument("--flood-s", type=float, default=30.0)
    parser.add_argument("--settle-s", type=float, default=10.0, help="wait after the flood before reading RSS")
    parser.add_argument("--per-token", type=int, default=None, help="the server's --max-requests-per-token")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    info = machine()
    with tempfile.TemporaryDirectory(prefix="memadapt-flood-") as folder:
        tokens = Path(folder) / "tokens.json"
        tokens.write_text(json.dumps(TOKENS), encoding="utf-8")
        port = _free_port()
        cli = [sys.executable, "-m", "memadapt_core.cli", "--path", str(Path(folder) / "store")]
        server = subprocess.Popen(
            [*cli, "serve", "--port", str(port), "--tokens", str(tokens),
             *(["--max-requests-per-token", str(args.per_token)] if args.per_token is not None else [])],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("memadapt serve did not start")
                time.sleep(0.2)
            run_result = asyncio.run(run(url, server.pid, args.calls, args.flood_s, args.settle_s))
            result = {"machine": info, "max_requests_per_token": args.per_token or 8, **run_result}
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(f"\n{machine_line(info)}")
    rows = [[name, t["calls"], t["p50_ms"], t["p95_ms"]] for name, t in result["tenants"].items()]
    print(table(["tenant, phase", "calls", "p50 ms", "p95 ms"], rows))
    print(f"flooder: {result['flooder']}")
    print(f"server RSS MiB: {result['rss_mib']}")
    write_json(args.out, result)
    return result


if __name__ == "__main__":
    main()
