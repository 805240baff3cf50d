"""A bounded load test of `solve serve`, on the loopback interface only.

Starts its own server (``python -m solver.cli serve --port 0``, 127.0.0.1), then:

1. **single look-ups**: ``--requests`` GETs of random reachable positions over
   ``--connections`` keep-alive connections (at most ``--seconds``): look-ups per
   second and latency percentiles, every answer compared byte for byte with
   ``Position.to_dict(best_first=True)``;
2. **batch**: ``POST /batch`` of ``--batch`` random boards (half strings, half
   codes), ``--repeats`` times: seconds until the whole answer is received, the
   answer compared byte for byte;
3. **abuse**: for ``--abuse-seconds``, slow connections (a header byte at a time),
   half-closed connections, malformed requests (garbage, bad JSON, enormous query
   strings and headers, unknown paths, path traversal, short bodies) while the
   look-up loop keeps running and checking every answer;
4. **pressure** (issue 13): for ``--pressure-seconds``, ``--held`` connections that
   are held open (half of them sent one stray line break after their answer, half
   never sent a byte; each reopened as soon as the server closes it) and
   ``--stalled-batches`` clients that POST a ``--batch``-board batch and never read the
   answer (reposted when dropped), while a well-behaved client makes single look-ups
   over 4 connections: its latency and 503s, and the server's memory (the largest
   process's RSS, and the total PSS over all its processes) sampled every 0.25 s;
5. **flood** (issue 22, finding 11): for ``--flood-seconds``, ``--flood`` connections from one
   address that never send a byte (each reopened 1 s after the server closes, refuses or
   resets it; from a process of its own, so that they do not slow the measuring client),
   while a client from another address makes look-ups, each on a new connection (as
   visitors arriving do): how many were answered, refused (503) or failed.

The server bounds connections per client address, and all of 127.0.0.0/8 is the loopback
interface on Linux, so the clients come from several: the well-behaved ones from 127.0.0.2,
the slow heads and the flood from 127.0.0.1, the malformed requests from 127.0.0.3, the
pressure phase's held connections from 127.0.1.x (50 from each, under the cap) and its
batch clients from 127.0.2.1.
``--nofile N`` starts the server with a hard open-file limit of N (finding 11's second
half: a limit below the connection cap); what the server says at start-up is printed.

Targets (issue 9, this project's 2-core machine): >= 3,000 look-ups/s at 32
connections with p99 <= 50 ms; 100,000 boards in <= 1 s; under pressure (issue 13),
single look-ups with p99 <= 100 ms and server memory <= 1 GiB. Nothing leaves 127.0.0.1.

    python scripts/load_test.py                       # the figures in the README
    python scripts/load_test.py --workers 2           # the same with two worker processes
    python scripts/load_test.py --requests 2000 --batch 10000 --abuse-seconds 2 --pressure-seconds 5   # a quick run
    python scripts/load_test.py --phases flood --nofile 1024 --flood 1500   # one address against a low open-file limit
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import re
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

import numpy as np

import solver

HOST = "127.0.0.1"
"""Where the server listens, and where the held connections and slow heads come from."""
HONEST = "127.0.0.2"
"""Where the well-behaved clients come from (another client address for the server's per-address cap)."""
ODD = "127.0.0.3"
"""Where the malformed and half-closed requests come from."""
PHASES = ("lookups", "batch", "abuse", "pressure", "flood")
FLOOD_BACKOFF = 1.0
"""Seconds a flooding connection waits before reopening, once the server closed, refused or reset it."""
HELD_PER_ADDRESS = 50
"""The pressure phase's held connections per client address (127.0.1.x): under the server's cap per address."""
CLOSED_STATES = {7, 8}  # TCP_CLOSE (reset), TCP_CLOSE_WAIT (the server sent FIN): tcp_info's first byte
URL = re.compile(r"at http://127\.0\.0\.1:(\d+)/ ")


# -- the server -------------------------------------------------------------------------
def start_server(table_dir: Path, game: str, workers: int = 1, nofile: int = 0, log: IO[str] | None = None) -> tuple[subprocess.Popen[str], int]:
    """``solve serve`` on a free loopback port (with a hard open-file limit of ``nofile`` if set, its stderr
    into ``log``); the process and its port."""
    args = [sys.executable, "-m", "solver.cli", "serve", "--host", HOST, "--port", "0", "--quiet", "--table-dir", str(table_dir)]
    if workers != 1:  # (so the script also measures a server from before --workers)
        args += ["--workers", str(workers)]
    if game != "3x3k3":
        args += ["--game", game]
    process = subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=log if log is not None else subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=(lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))) if nofile else None,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    match = URL.search(line)
    if match is None:
        process.kill()
        raise SystemExit(f"the server did not start: {line!r} {_said(process, log)}")
    return process, int(match[1])


def _said(process: subprocess.Popen[str], log: IO[str] | None) -> str:
    """What the server wrote to stderr."""
    if log is None:
        return process.communicate()[1] or ""
    process.wait()
    log.seek(0)
    return log.read()


def stop_server(process: subprocess.Popen[str], log: IO[str] | None = None) -> float:
    """Ctrl-C (SIGINT), and the seconds it took to stop."""
    started = time.perf_counter()
    process.send_signal(signal.SIGINT)
    try:
        code = process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        raise SystemExit("the server did not stop within 15 s of Ctrl-C") from None
    if code != 0:
        raise SystemExit(f"the server exited with status {code} on Ctrl-C: {_said(process, log)}")
    return time.perf_counter() - started


# -- a minimal HTTP/1.1 client (keep-alive, Content-Length bodies) ------------------------------
async def exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes) -> tuple[int, bytes]:
    if request:
        writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    if re.search(rb"(?i)\r\ntransfer-encoding: *chunked", head):
        return status, await read_chunked(reader)
    found = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
    body = await reader.readexactly(int(found[1])) if found else b""
    return status, body


async def read_chunked(reader: asyncio.StreamReader) -> bytes:
    """A chunked body (what the server streams batch answers as)."""
    parts = []
    while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)
    await reader.readuntil(b"\r\n")
    return b"".join(parts)


def get(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode()


def post(path: str, body: bytes) -> bytes:
    return f"POST {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body


@dataclass
class Lookups:
    """What the look-up loop measured."""

    latencies: list[float] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else 0.0

    def percentile(self, p: float) -> float:
        return float(np.percentile(np.array(self.latencies), p)) * 1000 if self.latencies else float("nan")


@dataclass
class Plan:
    """Where the look-ups go and what they must get: the requests to send (shared by the connections), until a deadline or ``stop``."""

    port: int
    expected: dict[int, bytes]
    cursor: Iterator[tuple[int, bytes]]
    deadline: float
    stop: asyncio.Event | None
    out: Lookups = field(default_factory=Lookups)

    def requests(self) -> Iterator[tuple[int, bytes]]:
        for code, request in self.cursor:
            if time.perf_counter() > self.deadline or (self.stop is not None and self.stop.is_set()):
                return
            yield code, request

    def record(self, code: int, started: float, status: int, body: bytes) -> None:
        self.out.latencies.append(time.perf_counter() - started)
        if status != 200 or body != self.expected[code] + b"\n":  # every JSON body ends with a newline
            self.out.wrong.append(f"code {code}: HTTP {status} {body[:120]!r}")

    async def keep_alive(self) -> None:
        """One keep-alive connection, reopened when it breaks."""
        reader, writer = await asyncio.open_connection(HOST, self.port, local_addr=(HONEST, 0))
        try:
            for code, request in self.requests():
                started = time.perf_counter()
                try:
                    status, body = await exchange(reader, writer, request)
                except (ConnectionError, asyncio.IncompleteReadError) as error:
                    self.out.errors.append(repr(error))
                    writer.close()
                    reader, writer = await asyncio.open_connection(HOST, self.port, local_addr=(HONEST, 0))
                    continue
                self.record(code, started, status, body)
        finally:
            writer.close()

    async def fresh(self) -> None:
        """A new connection for each look-up (as a visitor arriving), given 5 s to connect and 5 s to answer."""
        for code, request in self.requests():
            started = time.perf_counter()
            try:
                reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, self.port, local_addr=(HONEST, 0)), 5)
                try:
                    status, body = await asyncio.wait_for(exchange(reader, writer, request), 5)
                finally:
                    writer.close()
            except (OSError, TimeoutError, asyncio.IncompleteReadError) as error:
                self.out.errors.append(repr(error))
                continue
            self.record(code, started, status, body)


async def lookups(
    port: int,
    game: str,
    expected: dict[int, bytes],
    *,
    requests: int,
    connections: int,
    seconds: float,
    stop: asyncio.Event | None = None,
    fresh: bool = False,
) -> Lookups:
    """``requests`` look-ups of random positions over ``connections`` connections from :data:`HONEST`, within
    ``seconds`` (``fresh``: each on a new connection)."""
    table = solver.table_for(game)
    codes = list(expected)[:20_000]
    by_code = [get(f"/api/v1/{game}?board={code}") for code in codes]
    by_board = [get(f"/api/v1/{game}?board={quote(table.at(code).board, safe='/.')}") for code in codes]
    rng = random.Random(1)

    def plan() -> Iterator[tuple[int, bytes]]:  # random positions, half as codes, half as board strings
        for index in range(requests):
            pick = rng.randrange(len(codes))
            yield codes[pick], (by_code if index % 2 else by_board)[pick]

    going = Plan(port, expected, plan(), time.perf_counter() + seconds, stop)
    started = time.perf_counter()
    await asyncio.gather(*((going.fresh() if fresh else going.keep_alive()) for _ in range(connections)))
    going.out.seconds = time.perf_counter() - started
    return going.out


def batch_request(game: str, codes: list[int]) -> bytes:
    """The POST of a batch of ``codes``: even places as board strings, odd places as codes."""
    table = solver.table_for(game)
    boards: list[str | int] = [table.at(code).board if index % 2 == 0 else code for index, code in enumerate(codes)]
    return post(f"/api/v1/{game}/batch", json.dumps({"boards": boards}).encode())


async def batch(port: int, game: str, expected: dict[int, bytes], size: int, seed: int) -> tuple[float, bool, int]:
    """One POST of ``size`` boards: seconds to the whole answer, whether it was right, its bytes."""
    rng = np.random.default_rng(seed)
    codes = rng.choice(np.array(list(expected)), size).tolist()
    request = batch_request(game, codes)
    answer = b'{"results":[' + b",".join(expected[code] for code in codes) + b"]}\n"
    reader, writer = await asyncio.open_connection(HOST, port, limit=1 << 20, local_addr=(HONEST, 0))
    try:
        started = time.perf_counter()
        status, body = await exchange(reader, writer, request)
        elapsed = time.perf_counter() - started
    finally:
        writer.close()
    return elapsed, status == 200 and body == answer, len(body)


# -- abuse -------------------------------------------------------------------------------
@dataclass
class Abuse:
    """How the server answered each kind of bad client."""

    answers: dict[str, list[str]] = field(default_factory=dict)

    def add(self, kind: str, outcome: str) -> None:
        self.answers.setdefault(kind, []).append(outcome)


async def raw(port: int, data: bytes, *, half_close: bool = False, timeout: float = 5) -> str:
    """Send ``data`` on a fresh connection from :data:`ODD`; the status line answered ('closed' if none)."""
    reader, writer = await asyncio.open_connection(HOST, port, local_addr=(ODD, 0))
    try:
        writer.write(data)
        await writer.drain()
        if half_close:
            writer.write_eof()
        line = await asyncio.wait_for(reader.readline(), timeout)
        return line.decode("latin-1").strip()[9:12] or "closed"
    except (TimeoutError, ConnectionError):
        return "closed"
    finally:
        writer.close()


MALFORMED: dict[str, tuple[bytes, set[str]]] = {
    "garbage bytes": (b"\x00\xff\xfe GARBAGE\r\n\r\n", {"400", "closed"}),
    "unknown method": (b"BREW /api/v1/3x3k3 HTTP/1.1\r\nHost: x\r\n\r\n", {"405", "400", "closed"}),
    "malformed JSON": (post("/api/v1/3x3k3/batch", b'{"boards": [1, 2'), {"400"}),
    "JSON not an object": (post("/api/v1/3x3k3/batch", b"[1, 2, 3]"), {"400"}),
    "deeply nested JSON": (post("/api/v1/3x3k3/batch", b"[" * 200_000), {"400"}),
    "declared body too big": (b"POST /api/v1/3x3k3/batch HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999\r\n\r\n", {"413"}),
    "query string of 100 kB": (get("/api/v1/3x3k3?board=" + "X" * 100_000), {"414", "400", "431", "closed"}),
    "header of 100 kB": (b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n", {"431", "closed"}),
    "unknown path": (get("/wp-admin/setup.php"), {"404"}),
    "path traversal": (get("/static/../../../../etc/passwd"), {"404"}),
    "encoded path traversal": (get("/static/%2e%2e%2f%2e%2e%2fapi.py"), {"404"}),
    "traversal into a game": (get("/api/v1/..%2f..%2fetc%2fpasswd"), {"404"}),
    "bad board": (get("/api/v1/3x3k3?board=QQQ"), {"400"}),
    "game not served": (get("/api/v1/5x5k4?board=0"), {"404"}),
}


@dataclass
class BadClients:
    """The abuse phase's bad clients, each recording in ``report`` how the server answered it, until ``stop``."""

    port: int
    game: str
    expected: dict[int, bytes]
    report: Abuse = field(default_factory=Abuse)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    held: list[asyncio.StreamWriter] = field(default_factory=list)  # the slow clients' connections, closed at the end

    async def slow_client(self) -> None:
        """Slowloris: one header byte every 50 ms, never finished."""
        request = b"GET /api/v1/3x3k3?board=0 HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"s" * 10_000
        try:
            reader, writer = await asyncio.open_connection(HOST, self.port)
        except ConnectionError:
            self.report.add("slow head", "refused")
            return
        self.held.append(writer)
        answer = asyncio.ensure_future(reader.readline())
        for index in range(len(request)):
            if self.stop.is_set() or answer.done() or writer.is_closing():
                break
            try:
                writer.write(request[index : index + 1])
            except ConnectionError:
                break
            await asyncio.sleep(0.05)
        try:
            line = await asyncio.wait_for(answer, 0.5) if not self.stop.is_set() or answer.done() else b""
        except (TimeoutError, ConnectionError):
            line = b""
        self.report.add("slow head", line.decode("latin-1")[9:12] or "still open at the end")
        answer.cancel()

    async def half_closed(self) -> None:
        """Requests whose client half-closes the connection after the request, and before any."""
        first = next(iter(self.expected))
        while not self.stop.is_set():
            reader, writer = await asyncio.open_connection(HOST, self.port, local_addr=(ODD, 0))
            writer.write(get(f"/api/v1/{self.game}?board={first}"))
            writer.write_eof()  # the client will send nothing more; the answer must still come
            try:
                status, body = await asyncio.wait_for(exchange(reader, writer, b""), 5)
                outcome = "200 right" if status == 200 and body == self.expected[first] + b"\n" else f"{status} wrong"
                self.report.add("half-closed after the request", outcome)
            except (TimeoutError, ConnectionError, asyncio.IncompleteReadError) as error:
                self.report.add("half-closed after the request", f"failed: {error!r}")
            writer.close()
            self.report.add("half-closed before any request", await raw(self.port, b"", half_close=True, timeout=2))
            await asyncio.sleep(0.05)

    async def malformed(self) -> None:
        """Every request of :data:`MALFORMED`, and a body shorter than declared, over and over."""
        while not self.stop.is_set():
            for kind, (data, _) in MALFORMED.items():
                self.report.add(kind, await raw(self.port, data))
            short = b"POST /api/v1/3x3k3/batch HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + b'{"boards": '
            self.report.add("body shorter than declared, then closed", await raw(self.port, short, half_close=True, timeout=2))
            await asyncio.sleep(0.1)


async def abuse(port: int, game: str, expected: dict[int, bytes], seconds: float, connections: int) -> tuple[Abuse, Lookups, int]:
    """Bad clients for ``seconds`` while look-ups run and are checked; also how many slow connections were held."""
    clients = BadClients(port, game, expected)
    loop = asyncio.ensure_future(lookups(port, game, expected, requests=10**7, connections=connections, seconds=seconds, stop=clients.stop))
    bad = (*(clients.slow_client() for _ in range(100)), clients.half_closed(), clients.malformed())
    tasks = [asyncio.ensure_future(task) for task in bad]
    await asyncio.sleep(seconds)
    clients.stop.set()
    result = await loop
    for outcome in await asyncio.gather(*tasks, return_exceptions=True):
        if isinstance(outcome, BaseException):
            clients.report.add("the load test itself", f"crashed: {outcome!r}")
    alive = sum(outcome != "408" for outcome in clients.report.answers.get("slow head", []))
    for writer in clients.held:
        writer.close()
    return clients.report, result, alive


# -- pressure: held connections and batch clients that never read ------------------------------
def memory_mib(pid: int) -> tuple[float, float]:
    """The largest RSS of ``pid`` and its children, and their total PSS (shared pages counted once), in MiB."""
    pids = [pid]
    try:
        pids += [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        pass
    largest = total = 0.0
    for each in pids:
        try:
            rss = next(int(line.split()[1]) for line in Path(f"/proc/{each}/status").read_text().splitlines() if line.startswith("VmRSS:"))
            pss = next(int(line.split()[1]) for line in Path(f"/proc/{each}/smaps_rollup").read_text().splitlines() if line.startswith("Pss:"))
        except (OSError, StopIteration):
            continue
        largest, total = max(largest, rss / 1024), total + pss / 1024
    return largest, total


@dataclass
class Pressure:
    """What the pressure phase saw."""

    held_peak: int = 0
    held_opened: int = 0
    held_refused: int = 0
    batches_posted: int = 0
    batches_refused: int = 0
    batches_dropped: int = 0
    rss_max_mib: float = 0.0
    pss_max_mib: float = 0.0
    lookups: Lookups = field(default_factory=Lookups)


@dataclass
class PressureClients:
    """The pressure phase's clients (held connections, batch clients that never read, a memory sampler), until ``stop``."""

    port: int
    pid: int
    game: str
    body: bytes  # the batch request the stalled clients post
    out: Pressure = field(default_factory=Pressure)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    open_now: int = 0

    async def holder(self, index: int) -> None:
        """A connection held open, reopened when the server closes it (an even ``index``: one answer, then a stray line break)."""
        while not self.stop.is_set():
            try:
                reader, writer = await asyncio.open_connection(HOST, self.port, local_addr=(f"127.0.1.{index // HELD_PER_ADDRESS + 1}", 0))
            except OSError:
                await asyncio.sleep(0.2)
                continue
            self.out.held_opened += 1
            self.open_now += 1
            self.out.held_peak = max(self.out.held_peak, self.open_now)
            opened = time.perf_counter()
            try:
                if index % 2 == 0:  # one answer, then a stray line break
                    status, _ = await exchange(reader, writer, get(f"/api/v1/{self.game}?board=0"))
                    self.out.held_refused += status == 503
                    writer.write(b"\r\n")
                closing = asyncio.ensure_future(reader.read())  # returns when the server closes the connection
                stopped = asyncio.ensure_future(self.stop.wait())
                await asyncio.wait({closing, stopped}, return_when=asyncio.FIRST_COMPLETED)
                closing.cancel()
                stopped.cancel()
            except (OSError, asyncio.IncompleteReadError):
                pass
            finally:
                self.open_now -= 1
                writer.close()
            if time.perf_counter() - opened < 0.5:  # refused at once: do not spin
                await asyncio.sleep(0.1)

    async def stalled_batch(self) -> None:
        """Posts a batch and never reads the answer; reposts when dropped."""
        loop = asyncio.get_running_loop()
        while not self.stop.is_set():
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # the answer piles up at the server
            sock.setblocking(False)
            sock.bind(("127.0.2.1", 0))
            try:
                await loop.sock_connect(sock, (HOST, self.port))
                await loop.sock_sendall(sock, self.body)
                self.out.batches_posted += 1
                await self._unread(sock)
            except OSError:
                await asyncio.sleep(0.2)
            finally:
                sock.close()

    async def _unread(self, sock: socket.socket) -> None:
        """Wait, reading nothing, until the server refuses the batch (503) or drops the connection, or the phase ends."""
        while not self.stop.is_set():
            if refused_503(sock):
                self.out.batches_refused += 1
                return
            if sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0] in CLOSED_STATES:
                refused = refused_503(sock)
                self.out.batches_refused += refused
                self.out.batches_dropped += not refused
                return
            await asyncio.sleep(0.25)

    async def sample(self) -> None:
        """The server's memory every 0.25 s: the largest RSS and total PSS seen."""
        while not self.stop.is_set():
            rss, pss = memory_mib(self.pid)
            self.out.rss_max_mib, self.out.pss_max_mib = max(self.out.rss_max_mib, rss), max(self.out.pss_max_mib, pss)
            await asyncio.sleep(0.25)


def refused_503(sock: socket.socket) -> bool:
    """Whether what the server sent so far (peeked, not read) starts with a 503; False when nothing came or on a reset."""
    try:
        return sock.recv(12, socket.MSG_PEEK).startswith(b"HTTP/1.1 503")
    except OSError:  # nothing sent yet, or reset
        return False


async def pressure(port: int, pid: int, game: str, expected: dict[int, bytes], *, seconds: float, held: int, stalled: int, batch_size: int) -> Pressure:
    """``held`` held connections and ``stalled`` non-reading batch clients for ``seconds``, while look-ups are measured."""
    codes = np.random.default_rng(7).choice(np.array(list(expected)), batch_size).tolist()
    clients = PressureClients(port, pid, game, batch_request(game, codes))
    squeeze = (*(clients.holder(index) for index in range(held)), *(clients.stalled_batch() for _ in range(stalled)), clients.sample())
    tasks = [asyncio.ensure_future(task) for task in squeeze]
    await asyncio.sleep(min(3.0, seconds / 4))  # let the held connections and batches pile up first
    clients.out.lookups = await lookups(port, game, expected, requests=10**7, connections=4, seconds=seconds, stop=clients.stop)
    clients.stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return clients.out


# -- flood: one address holds connections that never send a byte ------------------------------
@dataclass
class Flood:
    """What the flood phase saw."""

    opened: int = 0
    peak: int = 0
    refused: int = 0
    """Connections answered 503 at once."""
    closed: int = 0
    """Connections the server closed without an answer (a silent one at its head deadline)."""
    reset: int = 0
    """Connections reset by the server (while connecting, or after)."""
    lookups: Lookups = field(default_factory=Lookups)


@dataclass
class Flooder:
    """Connections from :data:`HOST` that never send a byte, each reopened :data:`FLOOD_BACKOFF` s after the server
    closes, refuses or resets it (a client that holds what it can, not one that floods connection attempts)."""

    port: int
    out: Flood = field(default_factory=Flood)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    open_now: int = 0

    async def idle(self) -> None:
        while not self.stop.is_set():
            try:
                reader, writer = await asyncio.open_connection(HOST, self.port)
            except OSError:
                self.out.reset += 1
                await asyncio.sleep(FLOOD_BACKOFF)
                continue
            self.out.opened += 1
            self.open_now += 1
            self.out.peak = max(self.out.peak, self.open_now)
            closing = asyncio.ensure_future(reader.read())  # returns when the server closes the connection
            stopped = asyncio.ensure_future(self.stop.wait())
            try:
                await asyncio.wait({closing, stopped}, return_when=asyncio.FIRST_COMPLETED)
                if closing.done():
                    answer = None if closing.exception() is not None else closing.result()
                    self.out.reset += answer is None
                    self.out.refused += answer is not None and answer.startswith(b"HTTP/1.1 503")
                    self.out.closed += answer is not None and not answer.startswith(b"HTTP/1.1 503")
            finally:
                closing.cancel()
                stopped.cancel()
                self.open_now -= 1
                writer.close()
            await asyncio.sleep(FLOOD_BACKOFF)


def flood_worker(port: int, connections: int, seconds: float) -> None:
    """The flooding client, in a process of its own (``--flood-worker``): its counts as one JSON line on stdout."""
    flooder = Flooder(port)

    async def go() -> None:
        tasks = [asyncio.ensure_future(flooder.idle()) for _ in range(connections)]
        await asyncio.sleep(seconds)
        flooder.stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(go())
    out = flooder.out
    print(json.dumps({"opened": out.opened, "peak": out.peak, "refused": out.refused, "closed": out.closed, "reset": out.reset}))


async def flood(port: int, game: str, expected: dict[int, bytes], *, seconds: float, connections: int) -> Flood:
    """``connections`` silent connections from one address for ``seconds`` (their own process, so that the
    measuring client is not slowed by them), while another address looks up on new connections."""
    ramp = min(3.0, seconds / 4)  # let the connections pile up first
    args = ["--flood-worker", str(port), "--flood", str(connections), "--flood-seconds", str(seconds + ramp + 1)]
    child = await asyncio.create_subprocess_exec(sys.executable, __file__, *args, stdout=asyncio.subprocess.PIPE)
    await asyncio.sleep(ramp)
    honest = await lookups(port, game, expected, requests=10**7, connections=4, seconds=seconds, fresh=True)
    counts, _ = await child.communicate()
    return Flood(**json.loads(counts), lookups=honest)


def flood_figures(flooded: Flood, args: argparse.Namespace) -> dict[str, Any]:
    """The flood phase's figures: the silent connections' counts, and the other address's look-ups."""
    honest = flooded.lookups
    return {
        "seconds": args.flood_seconds,
        "connections": args.flood,
        "peak_open": flooded.peak,
        "opened": flooded.opened,
        "refused_503": flooded.refused,
        "closed_by_server": flooded.closed,
        "reset_by_server": flooded.reset,
        "lookups": len(honest.latencies) + len(honest.errors),
        "answered_right": len(honest.latencies) - len(honest.wrong),
        "lookup_503s": sum("HTTP 503" in w for w in honest.wrong),
        "failed": len(honest.errors),
        "p50_ms": round(honest.percentile(50), 2),
        "p99_ms": round(honest.percentile(99), 2),
    }


# -- the report ---------------------------------------------------------------------------
def machine() -> str:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {kb / 2**20:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return f"{os.cpu_count()} cores ({model or platform.processor() or 'unknown CPU'}){memory}, Python {platform.python_version()}, {platform.system()}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="3x3k3")
    parser.add_argument("--requests", type=int, default=60_000, help="single look-ups to send (default 60,000)")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=30, help="time bound of the look-up phase")
    parser.add_argument("--batch", type=int, default=100_000, help="boards per batch request")
    parser.add_argument("--repeats", type=int, default=5, help="batch requests to time")
    parser.add_argument("--abuse-seconds", type=float, default=12, help="the server closes slow heads after 10 s")
    parser.add_argument("--pressure-seconds", type=float, default=30, help="time bound of the pressure phase")
    parser.add_argument("--held", type=int, default=1000, help="connections held open during the pressure phase")
    parser.add_argument("--stalled-batches", type=int, default=32, help="batch clients that never read, during the pressure phase")
    parser.add_argument("--flood", type=int, default=4096, help="silent connections from one address during the flood phase")
    parser.add_argument("--flood-seconds", type=float, default=15, help="time bound of the flood phase")
    parser.add_argument("--phases", default=",".join(PHASES), help=f"the phases to run, comma-separated (default: all of {','.join(PHASES)})")
    parser.add_argument("--nofile", type=int, default=0, help="start the server with this hard (and soft) open-file limit")
    parser.add_argument("--workers", type=int, default=1, help="solve serve --workers")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--flood-worker", type=int, default=0, help=argparse.SUPPRESS)  # the flood phase's own process: its port
    args = parser.parse_args()
    if args.flood_worker:
        flood_worker(args.flood_worker, args.flood, args.flood_seconds)
        return 0

    table = solver.table_for(args.game)
    codes = table.reachable_codes()
    if codes.size > 200_000:
        codes = np.random.default_rng(0).choice(codes, 200_000, replace=False)
    expected = {int(code): json.dumps(table.at(int(code)).to_dict(best_first=True)).encode() for code in codes.tolist()}

    unknown = set(args.phases.split(",")) - set(PHASES)
    if unknown:
        parser.error(f"unknown phases {sorted(unknown)}: expected some of {','.join(PHASES)}")
    figures = measure(args, expected)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print_report(figures, args)
    ok = (
        not figures.get("lookups", {}).get("wrong")
        and not figures.get("abuse", {}).get("wrong")
        and figures.get("batch", {}).get("all_right", True)
        and not figures.get("abuse", {}).get("unexpected")
        and not figures.get("pressure", {}).get("wrong")
    )
    return 0 if ok else 1


def measure(args: argparse.Namespace, expected: dict[int, bytes]) -> dict[str, Any]:
    """Start the server, run the phases, stop it: the figures, with what the server wrote to stderr."""
    with tempfile.TemporaryDirectory() as directory, tempfile.TemporaryFile("w+") as log:
        process, port = start_server(Path(directory), args.game, args.workers, args.nofile, log)
        try:
            figures = asyncio.run(run(port, process.pid, args, expected))
        finally:
            if process.poll() is None:
                stopped = stop_server(process, log)
            else:
                log.seek(0)
                raise SystemExit(f"the server died: {log.read()[-2000:]}")
        log.seek(0)
        said = log.read().splitlines()
    ours = [line for line in said if line.startswith("solve:")]
    figures["server_said"] = ours[:5] + [f"(and {len(said) - len(ours[:5]):,} more lines on stderr)"] * (len(said) > len(ours[:5]))
    figures["ctrl_c_seconds"] = round(stopped, 2)
    figures["machine"] = machine()
    figures["load_average"] = os.getloadavg()
    return figures


async def run(port: int, pid: int, args: argparse.Namespace, expected: dict[int, bytes]) -> dict[str, Any]:
    """The phases asked for in turn, against the server on ``port`` (process ``pid``): the figures, as ``--json`` prints them."""
    phases = args.phases.split(",")
    figures: dict[str, Any] = {"game": args.game, "workers": args.workers, "nofile": args.nofile or None}
    if "lookups" in phases:
        await lookups(port, args.game, expected, requests=2_000, connections=args.connections, seconds=10)  # warm up
        single = await lookups(port, args.game, expected, requests=args.requests, connections=args.connections, seconds=args.seconds)
        figures["lookups"] = lookup_figures(single, args)
    if "batch" in phases:
        times, right, size = [], True, 0
        for repeat in range(args.repeats):
            elapsed, ok, size = await batch(port, args.game, expected, args.batch, seed=repeat)
            times.append(elapsed)
            right = right and ok
        figures["batch"] = batch_figures(times, right, size, args)
    if "abuse" in phases:
        report, during, alive = await abuse(port, args.game, expected, args.abuse_seconds, args.connections)
        after = await lookups(port, args.game, expected, requests=2_000, connections=4, seconds=10)
        figures["abuse"] = abuse_figures(args.abuse_seconds, report, alive, during, after)
    if "pressure" in phases:
        squeezed = await pressure(
            port, pid, args.game, expected, seconds=args.pressure_seconds, held=args.held, stalled=args.stalled_batches, batch_size=args.batch
        )
        figures["pressure"] = pressure_figures(squeezed, args)
    if "flood" in phases:
        figures["flood"] = flood_figures(await flood(port, args.game, expected, seconds=args.flood_seconds, connections=args.flood), args)
    return figures


def lookup_figures(single: Lookups, args: argparse.Namespace) -> dict[str, Any]:
    """The look-up phase's figures."""
    return {
        "requests": len(single.latencies),
        "connections": args.connections,
        "seconds": round(single.seconds, 3),
        "per_second": round(single.rate),
        "p50_ms": round(single.percentile(50), 2),
        "p90_ms": round(single.percentile(90), 2),
        "p99_ms": round(single.percentile(99), 2),
        "max_ms": round(single.percentile(100), 2),
        "wrong": single.wrong[:5],
        "connection_errors": len(single.errors),
    }


def batch_figures(times: list[float], right: bool, size: int, args: argparse.Namespace) -> dict[str, Any]:
    """The batch phase's figures."""
    return {
        "boards": args.batch,
        "seconds": [round(t, 3) for t in times],
        "first": round(times[0], 3),
        "best": round(min(times), 3),
        "median": round(statistics.median(times), 3),
        "bytes": size,
        "all_right": right,
    }


def abuse_figures(seconds: float, report: Abuse, alive: int, during: Lookups, after: Lookups) -> dict[str, Any]:
    """The abuse phase's figures: the bad clients' outcomes, and the look-ups made during and after it."""
    return {
        "seconds": seconds,
        "kinds": {k: len(v) for k, v in report.answers.items()},
        "unexpected": unexpected(report),
        "slow_connections_held_open": alive,
        "lookups_during": len(during.latencies),
        "per_second_during": round(during.rate),
        "p99_ms_during": round(during.percentile(99), 2),
        "wrong": during.wrong[:5] + after.wrong[:5],
        "lookups_after": len(after.latencies),
    }


def unexpected(report: Abuse) -> dict[str, list[str]]:
    """The outcomes of each kind of bad client that are not among those allowed for it."""
    found = {}
    for kind, outcomes in report.answers.items():
        allowed = (
            MALFORMED[kind][1]
            if kind in MALFORMED
            else (
                {"200 right"}
                if kind.startswith("half-closed after")
                else {"400", "closed"}
                if kind.startswith(("half-closed before", "body shorter"))
                else {"408", "503", "still open at the end"}
                if kind == "slow head"
                else set()
            )
        )
        bad = sorted({o for o in outcomes if o not in allowed})
        if bad:
            found[kind] = bad
    return found


def pressure_figures(squeezed: Pressure, args: argparse.Namespace) -> dict[str, Any]:
    """The pressure phase's figures: the bad clients' counts, the well-behaved client's look-ups, the server's memory."""
    under = squeezed.lookups
    return {
        "seconds": args.pressure_seconds,
        "held": args.held,
        "held_peak": squeezed.held_peak,
        "held_opened": squeezed.held_opened,
        "held_refused_503": squeezed.held_refused,
        "stalled_batches": args.stalled_batches,
        "batches_posted": squeezed.batches_posted,
        "batches_refused_503": squeezed.batches_refused,
        "batches_dropped_unread": squeezed.batches_dropped,
        "lookups": len(under.latencies),
        "per_second": round(under.rate),
        "p50_ms": round(under.percentile(50), 2),
        "p99_ms": round(under.percentile(99), 2),
        "max_ms": round(under.percentile(100), 2),
        "lookup_503s": sum("HTTP 503" in w for w in under.wrong),
        "wrong": under.wrong[:5],
        "connection_errors": len(under.errors),
        "rss_max_mib": round(squeezed.rss_max_mib),
        "pss_total_max_mib": round(squeezed.pss_max_mib),
    }


def print_report(figures: dict[str, Any], args: argparse.Namespace) -> None:
    load = ", ".join(f"{value:.1f}" for value in figures["load_average"])
    print(f"machine: {figures['machine']}; load average at the end {load}; server and client share it, loopback only")
    print(f"game {figures['game']}" + (f"; the server's open-file limit {figures['nofile']:,}" if figures["nofile"] else ""))
    for line in figures["server_said"]:
        print(f"  the server said: {line}")
    for phase, show in (("lookups", _print_lookups), ("batch", _print_batch), ("abuse", _print_abuse), ("pressure", _print_pressure), ("flood", _print_flood)):
        if phase in figures:
            show(figures[phase])
    print(f"Ctrl-C stopped the server in {figures['ctrl_c_seconds']} s ({figures['workers']} worker{'s' if figures['workers'] != 1 else ''})")


def _print_lookups(single: dict[str, Any]) -> None:
    met = "met" if single["per_second"] >= 3000 and single["p99_ms"] <= 50 else "MISSED"
    print(
        f"single look-ups: {single['requests']:,} in {single['seconds']} s over {single['connections']} connections = "
        f"{single['per_second']:,}/s; latency p50 {single['p50_ms']} ms, p90 {single['p90_ms']} ms, p99 {single['p99_ms']} ms, "
        f"max {single['max_ms']} ms  [target >= 3,000/s, p99 <= 50 ms: {met}]"
    )
    print(f"  wrong answers: {len(single['wrong'])}, connection errors: {single['connection_errors']}")


def _print_batch(batch_: dict[str, Any]) -> None:
    met = "met" if batch_["median"] <= 1 else "MISSED"
    print(
        f"batch of {batch_['boards']:,} boards ({batch_['bytes'] / 1e6:.1f} MB answer): first {batch_['first']} s, best {batch_['best']} s, "
        f"median {batch_['median']} s of {len(batch_['seconds'])}; answers right: {batch_['all_right']}  [target <= 1 s: {met}]"
    )


def _print_abuse(abuse_: dict[str, Any]) -> None:
    print(f"abuse for {abuse_['seconds']} s: " + ", ".join(f"{k} x{n}" for k, n in abuse_["kinds"].items()))
    print(
        f"  meanwhile {abuse_['lookups_during']:,} look-ups ({abuse_['per_second_during']:,}/s, p99 {abuse_['p99_ms_during']} ms), "
        f"wrong answers: {len(abuse_['wrong'])}; slow heads not closed by the server (408 after 10 s) or refused: "
        f"{abuse_['slow_connections_held_open']} of 100; unexpected statuses: {abuse_['unexpected'] or 'none'}; look-ups after: {abuse_['lookups_after']:,}"
    )


def _print_pressure(squeeze: dict[str, Any]) -> None:
    met = "met" if squeeze["p99_ms"] <= 100 and squeeze["rss_max_mib"] <= 1024 and not squeeze["wrong"] else "MISSED"
    print(
        f"pressure for {squeeze['seconds']} s: {squeeze['held']:,} held connections (peak {squeeze['held_peak']:,} open, "
        f"{squeeze['held_opened']:,} opened, {squeeze['held_refused_503']:,} got 503) and {squeeze['stalled_batches']} batch clients "
        f"that never read ({squeeze['batches_posted']:,} posts: {squeeze['batches_refused_503']:,} got 503, "
        f"{squeeze['batches_dropped_unread']:,} dropped unread by the server)"
    )
    print(
        f"  a well-behaved client meanwhile: {squeeze['lookups']:,} look-ups ({squeeze['per_second']:,}/s over 4 connections), "
        f"p50 {squeeze['p50_ms']} ms, p99 {squeeze['p99_ms']} ms, max {squeeze['max_ms']} ms; 503s {squeeze['lookup_503s']}, "
        f"wrong {len(squeeze['wrong'])}, connection errors {squeeze['connection_errors']}"
    )
    print(
        f"  server memory: largest process RSS {squeeze['rss_max_mib']:,} MiB, all processes PSS {squeeze['pss_total_max_mib']:,} MiB  "
        f"[target p99 <= 100 ms, memory <= 1 GiB: {met}]"
    )


def _print_flood(flooded: dict[str, Any]) -> None:
    print(
        f"flood for {flooded['seconds']} s: {flooded['connections']:,} silent connections from 127.0.0.1, each reopened {FLOOD_BACKOFF:g} s "
        f"after it ends (peak {flooded['peak_open']:,} open, {flooded['opened']:,} opened, {flooded['refused_503']:,} refused with 503, "
        f"{flooded['closed_by_server']:,} closed by the server, {flooded['reset_by_server']:,} reset)"
    )
    print(
        f"  another address meanwhile, a new connection per look-up: {flooded['lookups']:,} look-ups, {flooded['answered_right']:,} answered right, "
        f"{flooded['lookup_503s']:,} got 503, {flooded['failed']:,} failed (no answer in 5 s, or reset); p50 {flooded['p50_ms']} ms, p99 {flooded['p99_ms']} ms"
    )


if __name__ == "__main__":
    sys.exit(main())
