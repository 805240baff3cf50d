"""The Connect Four section's HTTP figures (``python scripts/bench.py --connect4-http SECONDS``): no answer slower than
the server's search budget.

``solve serve --game connect4 --search-budget SECONDS`` is started on the loopback (one worker), and asked, one request
at a time, for positions of every difficulty: the empty board and the first plies (beyond any budget without a book),
Pons' Begin-Hard, Begin-Medium and Middle-Medium positions (sampled), and mainlines and analyses (many searches in
one request). Each request's wall time is measured at the client, from sending to the last byte; the figures are the
answers (200) and refusals (503) counted, the slowest of each, and the slowest over the budget (target: none).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PONS = ROOT.parent / "shared" / "data" / "connect4" / "pons_tests"
SAMPLES = (("Test_L1_R3", 10), ("Test_L1_R2", 10), ("Test_L2_R2", 20))
"""Pons' sets asked (file, positions sampled): Begin-Hard, Begin-Medium, Middle-Medium."""
OPENINGS = ("", "4", "44", "43", "4453", "1")

Report = Callable[..., None]


def _serve(budget: float) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "solver.cli", "serve", "--game", "connect4", "--port", "0", "--quiet", "--workers", "1"]
    process = subprocess.Popen([*command, "--search-budget", str(budget)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    assert process.stdout is not None
    line = process.stdout.readline()
    if " at http://" not in line:
        process.kill()
        raise SystemExit(f"solve serve did not start: {line!r}")
    return process, line.split(" at ", 1)[1].split(" ", 1)[0]


def _asked(url: str) -> tuple[int, float]:
    """The status of one GET and its wall time in seconds, the body read to its end."""
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=120) as answer:  # noqa: S310 - the loopback server started here
            answer.read()
            status = answer.status
    except urllib.error.HTTPError as error:
        error.read()
        status = error.code
    return status, time.perf_counter() - start


def _requests(base: str) -> list[str]:
    moves = list(OPENINGS)
    for file, count in SAMPLES:
        if (PONS / file).is_file():
            lines = [line.split()[0] for line in (PONS / file).read_text().splitlines() if line.strip()]
            moves += random.Random(file).sample(lines, count)
    paths = [f"api/v1/connect4?moves={m}" for m in moves]
    paths += [f"api/v1/connect4/{kind}?moves={m}" for kind in ("mainline", "analyze") for m in moves[len(OPENINGS) : len(OPENINGS) + 4]]
    return [base + urllib.parse.quote(path, safe="/?=&") for path in paths]


def bench_search_budget(report: Report, budget: float) -> None:
    """Print the figures (module docstring)."""
    print(f"\nConnect Four over HTTP, a search budget of {budget:g} s (load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)")
    process, base = _serve(budget)
    try:
        _asked(base + "api/v1/connect4?moves=444444333333522222")  # the connection and the first answer's own costs
        times: dict[int, list[float]] = {200: [], 503: []}
        for url in _requests(base):
            status, seconds = _asked(url)
            times.setdefault(status, []).append(seconds)
    finally:
        process.terminate()
        process.wait(10)
    for status, name in ((200, "answered"), (503, "refused (past the budget)")):
        found = times.get(status, [])
        report(f"C4 HTTP: {name}", len(found), "requests")
        if found:
            report(f"C4 HTTP: slowest {name}", max(found) * 1e3, "ms", f"<= {budget * 1e3:g} ms", max(found) <= budget)
    other = {status: len(found) for status, found in times.items() if status not in (200, 503) and found}
    if other:
        report("C4 HTTP: other statuses", sum(other.values()), "requests", "0", False)
    print(f"   (load average after: {os.getloadavg()[0]:.2f})")
