"""What one call costs, as a user makes it (scripts/bench.py ``--connect4-calls N``): issue 39's "each call as cheap as its search".

On ``N`` positions of each of Pons' End-Easy (``Test_L3_R1``), Middle-Easy (``Test_L2_R1``), Begin-Easy
(``Test_L1_R1``) and Middle-Medium (``Test_L2_R2``) sets (sampled with a fixed seed), one call a position, each
timed alone: :meth:`solver.search.Engine.score` (the move string read, checked, searched, the score byte made) and
:func:`solver.lookup` (the same, every move valued, a :class:`~solver.tables.position.Position` made), CPU time
(the process's: every thread's) and wall time, mean and median per call. Every answer is checked against Pons'
score. With ``--pons PONS_TIMES`` (``scripts/baselines/pons_times.cpp`` built), Pons' solver solves the same
positions in the same run, plainly and with ``-a`` (every move valued, as his c4solver's option), and the figures
give the engine's mean CPU per call over his (the issue's bound: 1.5), :meth:`~solver.search.Engine.score` beside
his plain run and :func:`solver.lookup` beside his ``-a``.

**Runs.** One run of a set times every call of each kind in a new process (``--one-run``: its engines fresh, its
kernels loaded before timing, as a user's process that has answered once), and Pons' driver in a new process too (his
table fresh). The runs of the two sides alternate, the first side swapped each run, and each side's figure is the
median of its runs' means: a mean over a few hundred calls is made by its few slowest, and on this machine the same
code's mean moved by half from one run to the next (both sides'), so one run of each could not tell 1.1 from 1.9.

Then a new process's costs: ``python -X importtime -c "import solver.search.engine"`` (its cumulative
microseconds) and ``solve lookup --game connect4 --moves M`` of a late position and of ``444444`` (wall time of the whole
process, median of 3), beside ``python -c pass`` and ``python -c "import numpy, click"`` (the floor of any process that imports the core
dependencies).
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bench_baselines import Baseline  # scripts/, beside this file

from solver.search import score_byte

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


def one_run(file: str, count: int) -> dict[str, dict[str, float]]:
    """One run in this process (a new one: its engines fresh, as a user's process starts): every call of each kind on
    the set's positions, its kernels loaded first (not timed). By kind: CPU mean, wall mean and median (seconds) and
    the wrong answers."""
    import solver
    from solver.search import Engine

    engine = Engine("connect4")
    engine.score(moves="4455")  # the kernels loaded before any timing
    solver.lookup(game="connect4", moves=LOADS)
    calls: dict[str, Callable[[str], int]] = {
        "Engine.score": lambda moves: engine.score(moves=moves),
        "solver.lookup": lambda moves: solver.lookup(game="connect4", moves=moves).score,
    }
    found = {}
    for what, call in calls.items():
        cpus, walls, wrong = _timed(call, _lines(file, count))
        found[what] = {"cpu": statistics.fmean(cpus), "wall": statistics.fmean(walls), "median": statistics.median(walls), "wrong": wrong}
    return found


LOADS = "225257625346224411156336"
"""A position past the book that ``one_run`` looks up before timing: the store's engine made and its kernels loaded
(a position the book answers whole would load none, nor one near the end: solver/search/late.py answers it in Python
while the engine is not loaded)."""


def bench_call_costs(report: Report, count: int = 200, pons: Path | None = None, runs: int = 1, sets: list[str] | None = None) -> None:
    """Print the figures (module docstring); ``pons``: Pons' timing driver, run beside; ``runs``: runs of each side,
    each in a fresh process, the engine's and Pons' alternated (the first run's first side swapped each run); ``sets``:
    only these of :data:`CALL_SETS` (None: all four)."""
    print(f"\nConnect Four, one call a position (load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)")
    if not PONS.is_dir():
        print(f"   Pons' test sets are not at {PONS}: skipped")
    else:
        for name, file in CALL_SETS:
            if sets is None or name in sets:
                _bench_set(report, name, file, count, pons, runs)
    _bench_new_process(report)
    print(f"   (load average after: {os.getloadavg()[0]:.2f})")


def _bench_set(report: Report, name: str, file: str, count: int, pons: Path | None, runs: int) -> None:
    """One set: ``runs`` runs of the engine (a fresh process each) and of Pons' driver plainly and with ``-a``,
    alternated; each side's figure is the median of its runs' means, and the ratio that of the medians."""
    lines = _lines(file, count)
    ours: dict[str, list[dict[str, float]]] = {"Engine.score": [], "solver.lookup": []}
    theirs: dict[str, list[float]] = {"Engine.score": [], "solver.lookup": []}
    flags = {"Engine.score": (), "solver.lookup": ("-a",)}
    for run in range(runs):
        for side in ("ours", "pons") if run % 2 == 0 else ("pons", "ours"):
            if side == "ours":
                for what, figures in _fresh_run(file, count).items():
                    ours[what].append(figures)
            elif pons is not None:
                for what, args in flags.items():
                    theirs[what].append(_pons_mean(report, Baseline("Pons", pons, args), f"C4 {name}", lines))
    for what in ours:
        label = f"C4 {name}: {what}, one call ({len(lines)}, {runs} run{'s' if runs > 1 else ''}, a fresh process each)"
        cpu = statistics.median(figures["cpu"] for figures in ours[what])
        report(f"{label}, CPU mean (median of runs)", cpu * 1e6, "us")
        each = " ".join(f"{figures['cpu'] * 1e6:.1f}" for figures in ours[what])
        print(f"   {label}: each run's CPU mean, us: {each}")
        report(f"{label}, wall median (median of runs)", statistics.median(figures["median"] for figures in ours[what]) * 1e6, "us")
        wrong = sum(int(figures["wrong"]) for figures in ours[what])
        if wrong:
            report(f"C4 {name}: {what}: WRONG answers", wrong, "positions", "0", False)
        means = [mean for mean in theirs[what] if mean > 0]
        if pons is not None and len(means) == runs:
            flag = " ".join(flags[what])
            report(f"{label}: Pons{' ' + flag if flag else ''}, CPU mean (median of runs)", statistics.median(means) * 1e6, "us")
            each = " ".join(f"{mean * 1e6:.1f}" for mean in means)
            print(f"   {label}: Pons' CPU mean of each run, us: {each}")
            ratio = cpu / statistics.median(means)
            report(f"{label}: CPU over Pons{' ' + flag if flag else ''}", ratio, "x", f"<= {CALL_RATIO}", ratio <= CALL_RATIO)


def _fresh_run(file: str, count: int) -> dict[str, dict[str, float]]:
    """:func:`one_run` in a new Python process (this script's ``--one-run``)."""
    command = [sys.executable, str(Path(__file__).resolve()), "--one-run", file, str(count)]
    done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=3600)
    found: dict[str, dict[str, float]] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def _pons_mean(report: Report, pons: Baseline, label: str, lines: list[tuple[str, int]]) -> float:
    """Pons' driver on the set's positions in a new process (each score checked against his file's): his mean CPU
    a position, or 0 when a score was wrong or a position unanswered (reported)."""
    run = pons.run([moves for moves, _ in lines], timeout=3600)
    wrong = sum(solved.score != expected for solved, (_, expected) in zip(run.solved, lines, strict=False))
    if not run.finished or wrong:
        report(f"{label}: Pons {' '.join(pons.args)}: WRONG or unfinished", wrong + len(lines) - len(run.solved), "positions", "0", False)
        return 0.0
    return statistics.fmean(solved.cpu for solved in run.solved)


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
        report(f"C4 a new process: solve lookup --moves {moves[:12]}, wall (median of 3)", _median_wall(command) * 1e3, "ms")
    for code in ("pass", "import numpy, click"):  # Python's start, and with the core dependencies any look-up imports
        report(f"C4 a new process: python -c {code!r}, wall (median of 3)", _median_wall([sys.executable, "-c", code]) * 1e3, "ms")


def _median_wall(command: list[str], runs: int = 3) -> float:
    """The median wall seconds of ``command`` run ``runs`` times, each a new process (its output kept from the terminal)."""
    walls = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True)
        walls.append(time.perf_counter() - start)
    return statistics.median(walls)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--one-run":  # one run of the engine's calls in this new process: JSON out
        print(json.dumps(one_run(sys.argv[2], int(sys.argv[3]))))
    else:
        sys.exit("usage: bench_calls.py --one-run PONS_FILE COUNT (run by scripts/bench.py --connect4-calls N)")
