"""What one call costs, as a user makes it (scripts/bench.py ``--connect4-calls N``): issue 39's "each call as cheap as its search".

On ``N`` positions of each of Pons' End-Easy (``Test_L3_R1``), Middle-Easy (``Test_L2_R1``), Begin-Easy
(``Test_L1_R1``) and Middle-Medium (``Test_L2_R2``) sets (sampled with a fixed seed), one call a position, each
timed alone: :meth:`solver.search.Engine.score` (the move string read, checked, searched, the score byte made) and
:func:`solver.lookup` (the same, every move valued, a :class:`~solver.tables.position.Position` made), CPU time
(the process's: every thread's) and wall time, mean and median per call. Every answer is checked against Pons'
score. With ``--pons PONS_TIMES`` (``scripts/baselines/pons_times.cpp`` built), Pons' solver solves the same
positions in the same run, plainly and with ``-a`` (every move valued, as his c4solver's option), and the figures
give the engine's mean CPU per call over his (the issue's bound: 1.5), :meth:`~solver.search.Engine.score` beside
his plain run and :func:`solver.lookup` beside his ``-a``. Then a new process's costs: ``python -X importtime -c "import solver.search.engine"`` (its cumulative
microseconds) and ``solve lookup --game connect4 --moves M`` of a late position and of ``444444`` (wall time of the whole
process, median of 3), beside ``python -c pass``.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bench_baselines import Baseline  # scripts/, beside this file

import solver
from solver.search import Engine, score_byte

PONS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "connect4" / "pons_tests"

CALL_SETS = (("End-Easy", "Test_L3_R1"), ("Middle-Easy", "Test_L2_R1"), ("Begin-Easy", "Test_L1_R1"), ("Middle-Medium", "Test_L2_R2"))
"""The sets of issue 39's bound on a call's cost: End-Easy's and Middle-Easy's searches take microseconds (where a
call's fixed cost shows), Begin-Easy's and Middle-Medium's milliseconds."""

CALL_RATIO = 1.5
"""The issue's bound: a call's mean CPU at most this many times Pons' (``Engine.score`` beside his plain run,
``solver.lookup`` beside his ``-a``)."""

LATE = "2252576253462244111563365343671351441"
"""A late position (End-Easy's first, 37 plies): its search takes microseconds, so a new process's wall time is its
fixed cost."""

Report = Callable[..., None]


def _lines(file: str, count: int) -> list[tuple[str, int]]:
    lines = [line.split() for line in (PONS / file).read_text().splitlines() if line.strip()]
    return [(moves, int(score)) for moves, score in random.Random(file).sample(lines, min(count, len(lines)))]


def _timed(call: Callable[[str], int], lines: list[tuple[str, int]]) -> tuple[list[float], list[float], int]:
    """CPU and wall seconds of each call, and how many answers were wrong."""
    cpus, walls, wrong = [], [], 0
    for moves, pons in lines:
        cpu, wall = time.process_time(), time.perf_counter()
        found = call(moves)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        wrong += found != score_byte(pons, len(moves), 42)
    return cpus, walls, wrong


def bench_call_costs(report: Report, count: int = 200, pons: Path | None = None) -> None:
    """Print the figures (module docstring); ``pons``: Pons' timing driver, run beside."""
    print(f"\nConnect Four, one call a position (load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)")
    if not PONS.is_dir():
        print(f"   Pons' test sets are not at {PONS}: skipped")
    else:
        engine = Engine("connect4")
        engine.score(moves="4455")  # the kernels loaded before any timing
        solver.lookup(game="connect4", moves="4455")
        calls: dict[str, Callable[[str], int]] = {
            "Engine.score": lambda moves: engine.score(moves=moves),
            "solver.lookup": lambda moves: solver.lookup(game="connect4", moves=moves).score,
        }
        for name, file in CALL_SETS:
            lines = _lines(file, count)
            for (what, call), flags in zip(calls.items(), ((), ("-a",)), strict=True):
                cpus, walls, wrong = _timed(call, lines)
                label = f"C4 {name}: {what}, one call ({len(lines)})"
                report(f"{label}, CPU mean", statistics.fmean(cpus) * 1e6, "us")
                report(f"{label}, wall mean", statistics.fmean(walls) * 1e6, "us")
                report(f"{label}, wall median", statistics.median(walls) * 1e6, "us")
                if wrong:
                    report(f"C4 {name}: {what}: WRONG answers", wrong, "positions", "0", False)
                if pons is not None:
                    _beside_pons(report, Baseline("Pons", pons, flags), label, lines, statistics.fmean(cpus))
    _bench_new_process(report)
    print(f"   (load average after: {os.getloadavg()[0]:.2f})")


def _beside_pons(report: Report, pons: Baseline, label: str, lines: list[tuple[str, int]], engine_cpu: float) -> None:
    """Pons' driver on the same positions (each score checked against his file's), and the engine's mean CPU per call
    over his mean CPU per position."""
    run = pons.run([moves for moves, _ in lines], timeout=3600)
    wrong = sum(solved.score != expected for solved, (_, expected) in zip(run.solved, lines, strict=False))
    if not run.finished or wrong:
        report(f"{label}: Pons {' '.join(pons.args)}: WRONG or unfinished", wrong + len(lines) - len(run.solved), "positions", "0", False)
        return
    theirs = statistics.fmean(solved.cpu for solved in run.solved)
    flags = f" {' '.join(pons.args)}" if pons.args else ""
    report(f"{label}: Pons{flags}, CPU mean", theirs * 1e6, "us")
    ratio = engine_cpu / theirs
    report(f"{label}: CPU over Pons{flags}", ratio, "x", f"<= {CALL_RATIO}", ratio <= CALL_RATIO)


def _bench_new_process(report: Report) -> None:
    """A new process: the engine's import (``-X importtime``'s cumulative figure) and a whole ``solve lookup``."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import solver.search.engine"], capture_output=True, text=True, check=True)
    last = [line for line in done.stderr.splitlines() if line.rstrip().endswith("solver.search.engine")]
    if last:
        report("C4 import solver.search.engine (-X importtime, cumulative)", int(last[-1].split("|")[1]) / 1e3, "ms")
    solve = Path(sys.executable).with_name("solve")
    if not solve.exists():
        print(f"   no solve command beside {sys.executable}: a new process not timed")
        return
    for moves in (LATE, "444444"):
        command = [str(solve), "lookup", "--game", "connect4", "--moves", moves, "--budget", "600"]
        walls = []
        for _ in range(3):
            start = time.perf_counter()
            subprocess.run(command, capture_output=True, check=True)
            walls.append(time.perf_counter() - start)
        report(f"C4 a new process: solve lookup --moves {moves[:12]}, wall (median of 3)", statistics.median(walls) * 1e3, "ms")
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    report("C4 a new process: python -c pass, wall", (time.perf_counter() - start) * 1e3, "ms")
