"""A crowd of hard Connect Four searches against `solve serve` (issue 42, point 2), on the loopback only, bounded.

Starts its own server (``solve serve --game 3x3k3 --game connect4``, the default search budget, an empty table
directory: no book, as a fresh install without one), on 127.0.0.1, then for ``--seconds`` (at most 60):

* ``--clients`` (at most 60) clients from 127.0.0.1, each on a keep-alive connection of its own, ask hard Connect
  Four positions one after another (random move strings of 1 to 8 pieces: each needs seconds to minutes of search);
* an honest client from 127.0.0.2 asks, in turn, a late Connect Four position (Pons' End-Easy set, read from
  ``../shared/data/connect4/pons_tests`` beside the checkout) and a 3x3k3 look-up, each on a new connection, 20 a
  second at most.

It reports: every crowd request answered (200) or refused (503), and how many took longer than the budget plus 1 s;
the honest client's median, 99th percentile and worst latency and any failure; the server's threads and memory (RSS)
at most during the crowd and :data:`AFTER_SECONDS` after it; then whether a search stops when its client goes (the
server's CPU time in the second after a client closes its connection, :func:`gone_client`). It stops by itself; nothing leaves 127.0.0.0/8.

    python scripts/crowd_test.py                      # 50 clients for 60 s: the figures of docs/performance.md
    python scripts/crowd_test.py --clients 10 --seconds 10   # a quick run
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from load_test import HONEST, HOST, exchange, stop_server

import solver

PONS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "connect4" / "pons_tests" / "Test_L3_R1"
MAX_SECONDS = 60.0
MAX_CLIENTS = 60
BUDGET = 5.0
"""The server's default search budget (solver.web.app.SEARCH_BUDGET)."""
SLACK = 1.0
"""What a request may take past its budget: the issue's bound."""
AFTER_SECONDS = 12.0
"""When the server's threads and memory are read again after the crowd: its idle worker threads end after 10 s
(anyio's thread pool)."""


@dataclass
class Figures:
    """What the clients saw."""

    crowd: dict[int, int] = field(default_factory=dict)
    crowd_late: list[float] = field(default_factory=list)
    crowd_seconds: list[float] = field(default_factory=list)
    honest: list[float] = field(default_factory=list)
    honest_failed: list[str] = field(default_factory=list)
    threads_max: int = 0
    rss_max_mib: float = 0.0


def hard_moves(rng: random.Random) -> str:
    """A random move string of 1 to 8 pieces (no line is possible before the seventh ply; the server refuses one that ends)."""
    return "".join(str(rng.randint(1, 7)) for _ in range(rng.randint(1, 8)))


def late_positions() -> list[str]:
    if not PONS.is_file():
        raise SystemExit(f"crowd_test.py: Pons' End-Easy set is not at {PONS}")
    return [line.split()[0] for line in PONS.read_text().splitlines() if line.strip()]


def request(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode()


async def crowd_client(port: int, end: float, seed: int, out: Figures) -> None:
    """One of the crowd: hard positions one after another on its connection (reopened when the server closes it)."""
    rng = random.Random(seed)
    while time.monotonic() < end:
        try:
            reader, writer = await asyncio.open_connection(HOST, port, local_addr=(HOST, 0))
        except OSError:
            await asyncio.sleep(0.5)
            continue
        try:
            while time.monotonic() < end:
                start = time.monotonic()
                status, _ = await asyncio.wait_for(exchange(reader, writer, request(f"/api/v1/connect4?moves={hard_moves(rng)}")), BUDGET + 10)
                seconds = time.monotonic() - start
                out.crowd[status] = out.crowd.get(status, 0) + 1
                out.crowd_seconds.append(seconds)
                if seconds > BUDGET + SLACK:
                    out.crowd_late.append(seconds)
        except (TimeoutError, OSError, asyncio.IncompleteReadError):
            out.crowd[0] = out.crowd.get(0, 0) + 1
        finally:
            writer.close()


async def honest_client(port: int, end: float, out: Figures) -> None:
    """Late Connect Four positions and 3x3k3 look-ups in turn, each on a new connection from another address."""
    late = late_positions()
    rng = random.Random(7)
    codes = [int(code) for code in rng.sample(list(solver.table_for("3x3k3").reachable_codes()), 200)]
    turn = 0
    while time.monotonic() < end:
        turn += 1
        path = f"/api/v1/connect4?moves={rng.choice(late)}" if turn % 2 else f"/api/v1/3x3k3?board={rng.choice(codes)}"
        start = time.monotonic()
        try:
            reader, writer = await asyncio.open_connection(HOST, port, local_addr=(HONEST, 0))
            status, body = await asyncio.wait_for(exchange(reader, writer, request(path)), BUDGET + 10)
            writer.close()
            if status != 200:
                out.honest_failed.append(f"{status} {path} {body[:120]!r}")
        except (TimeoutError, OSError, asyncio.IncompleteReadError) as error:
            out.honest_failed.append(f"{type(error).__name__} {path}")
        out.honest.append(time.monotonic() - start)
        await asyncio.sleep(0.05)


def server_threads_and_rss(pid: int) -> tuple[int, float]:
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    threads = next(int(line.split()[1]) for line in status if line.startswith("Threads:"))
    rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024
    return threads, rss


async def watch_server(pid: int, end: float, out: Figures) -> None:
    while time.monotonic() < end:
        threads, rss = server_threads_and_rss(pid)
        out.threads_max, out.rss_max_mib = max(out.threads_max, threads), max(out.rss_max_mib, rss)
        await asyncio.sleep(0.5)


async def run(port: int, pid: int, clients: int, seconds: float) -> Figures:
    out = Figures()
    end = time.monotonic() + seconds
    tasks = [crowd_client(port, end, seed, out) for seed in range(clients)]
    await asyncio.gather(honest_client(port, end, out), watch_server(pid, end, out), *tasks)
    return out


def start(table_dir: Path) -> tuple[subprocess.Popen[str], int]:
    """The server on a free loopback port, serving 3x3k3 and Connect Four (no book in its empty table directory)."""
    args = [sys.executable, "-m", "solver.cli", "serve", "--host", HOST, "--port", "0", "--quiet", "--table-dir", str(table_dir)]
    args += ["--game", "3x3k3", "--game", "connect4"]
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert process.stdout is not None
    line = process.stdout.readline()
    found = re.search(r"at http://127\.0\.0\.1:(\d+)/ ", line)
    if found is None:
        process.kill()
        raise SystemExit(f"crowd_test.py: the server did not start: {line!r} {process.communicate()[1]}")
    return process, int(found[1])


def server_cpu(pid: int) -> float:
    """The server's CPU seconds so far (user and system, every thread)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def gone_client(port: int, pid: int) -> tuple[float, float]:
    """A client that asks a hard position and closes its connection 1 s later: the server's CPU seconds in the
    half second before the close, and in the second from 0.5 s to 1.5 s after it (0 when the search has stopped)."""

    with socket.create_connection((HOST, port)) as connection:
        connection.sendall(request("/api/v1/connect4?moves=4"))
        time.sleep(0.5)
        before = server_cpu(pid)
        time.sleep(0.5)
        searching = server_cpu(pid) - before
    time.sleep(0.5)
    after = server_cpu(pid)
    time.sleep(1.0)
    return searching, server_cpu(pid) - after


def report(out: Figures, clients: int, seconds: float, after: tuple[int, float], before: tuple[int, float]) -> None:
    total = sum(out.crowd.values())
    print(f"crowd: {clients} clients from {HOST} asking positions of 1 to 8 pieces for {seconds:g} s, budget {BUDGET:g} s")
    counts = ", ".join(f"{count:,} x {status or 'connection lost'}" for status, count in sorted(out.crowd.items()))
    print(f"  requests: {total:,} ({counts})")
    if out.crowd_seconds:
        print(f"  each took: median {statistics.median(out.crowd_seconds):.3f} s, longest {max(out.crowd_seconds):.2f} s")
    print(f"  past the budget + {SLACK:g} s: {len(out.crowd_late)}" + (f" (longest {max(out.crowd_late):.2f} s)" if out.crowd_late else ""))
    honest = sorted(out.honest)
    if honest:
        p99 = honest[min(len(honest) - 1, int(0.99 * len(honest)))]
        print(f"honest client from {HONEST} (late Connect Four positions and 3x3k3 look-ups in turn): {len(honest):,} requests")
        print(f"  median {statistics.median(honest) * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms, worst {honest[-1] * 1e3:.1f} ms, failed {len(out.honest_failed)}")
        for failure in out.honest_failed[:5]:
            print(f"    {failure}")
    print(f"server: {before[0]} threads and {before[1]:.0f} MiB before; at most {out.threads_max} threads and {out.rss_max_mib:.0f} MiB during;")
    print(f"  {after[0]} threads and {after[1]:.0f} MiB {AFTER_SECONDS:g} s after the crowd")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50, help=f"crowd clients (at most {MAX_CLIENTS})")
    parser.add_argument("--seconds", type=float, default=60.0, help=f"how long the crowd asks (at most {MAX_SECONDS:g} s)")
    args = parser.parse_args()
    clients, seconds = max(1, min(args.clients, MAX_CLIENTS)), max(1.0, min(args.seconds, MAX_SECONDS))
    late_positions()
    with tempfile.TemporaryDirectory() as table_dir:
        process, port = start(Path(table_dir))
        try:
            time.sleep(1.0)
            before = server_threads_and_rss(process.pid)
            out = asyncio.run(run(port, process.pid, clients, seconds))
            time.sleep(AFTER_SECONDS)
            after = server_threads_and_rss(process.pid)
            searching, gone = gone_client(port, process.pid)
        finally:
            stop_server(process)
    report(out, clients, seconds, after, before)
    print(f"a client gone 1 s after asking a hard position: the server used {searching:.2f} s of CPU in the half second before")
    print(f"  it closed its connection, {gone:.2f} s in the second from 0.5 s to 1.5 s after (0: its search stopped)")


if __name__ == "__main__":
    main()
