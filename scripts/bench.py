"""Benchmark: every speed and memory figure quoted in the README, with baselines.

    python scripts/bench.py            # everything (about two minutes on 2 cores)
    python scripts/bench.py --quick    # 3x3 only
    python scripts/bench.py --grader   # only the sandbox's cost per start of a player's process
    python scripts/bench.py --json bench.json
    python scripts/bench.py --compact-lookups 4x5k4.ttt   # only the compact look-ups, on a built table
    python scripts/bench.py --batch 4x5k4.ttt --before ../before --before-python ../venv-before/bin/python
                                       # batches (lookup_codes, .best), this code against a checkout of the code before
    python scripts/bench.py --builds --before ../before --before-python ../venv-before/bin/python  # builds, this code against that
    python scripts/bench.py --url-table 4x5k4.ttt         # only a table at a URL: solve serve on the loopback
    python scripts/bench.py --connect4                    # only the Connect Four engine on Pons' six sets (a minute)
    python scripts/bench.py --connect4-all                # ... every position of every set, and the empty board (an hour)
    python scripts/bench.py --connect4-empty              # ... only the empty board solved from scratch (minutes)
    python scripts/bench.py --connect4-calls 200           # ... only what one call costs (Engine.score, solver.lookup, a new process)
    python scripts/bench.py --connect4-calls 200 --pons PONS_TIMES   # ... beside Pons' solver, plain and with -a
    python scripts/bench.py --connect4-http 1             # ... only the HTTP API with a search budget of 1 s (a minute)
    python scripts/bench.py --connect4-book BOOK          # ... the opening book: build figures, the empty board from it, Pons' sets with it
    python scripts/bench.py --connect4-book-cost 10       # ... what a book of each depth costs (10 positions of plies 4 to 8)
    python scripts/bench.py --connect4 --pons PONS_TIMES --c4 C4_TIMES  # ... with Pons' and Steininger's C++ solvers beside
    python scripts/bench.py --connect4 --pons PONS_TIMES --runs 3       # ... each set run 3 times by each solver, the best kept
    python scripts/bench.py --connect4-sets End-Easy,Begin-Easy:50       # ... only these sets (50 sampled of Begin-Easy)
    python scripts/bench.py --connect4-book BOOK --connect4-sets Begin-Hard:100   # ... only this set with the book, 100 sampled

Measures and prints; asserts nothing. Latencies are the best of several
repeats (``timeit``); batch rates are given as the best and the median of 9; builds run in fresh subprocesses so peak memory (max RSS)
belongs to that build alone. The baselines are what a user would otherwise
run: a plain memoised minimax over every 3x3 position, and a plain recursive
(unmemoised) minimax choosing the first move on the empty board.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's solver

import numpy as np  # noqa: E402
from bench_baselines import baselines_of, parse_sets  # noqa: E402  (scripts/, beside this file)

import solver  # noqa: E402
from solver import (  # noqa: E402
    build_table,
    forget,  # noqa: E402
    load_table,
)
from solver.tables import CompactTable, Table  # noqa: E402

if TYPE_CHECKING:
    from solver.rules.game import Game
    from solver.tables.compact import CompactTable

ROOT = Path(__file__).resolve().parent.parent
RESULTS: list[dict[str, Any]] = []


def report(name: str, value: float, unit: str, target: str = "", ok: bool | None = None) -> None:
    status = "" if ok is None else ("met" if ok else "MISSED")
    RESULTS.append({"name": name, "value": value, "unit": unit, "target": target, "status": status})
    print(f"{name:<52} {value:>12.4g} {unit:<9} {target:<12} {status}", flush=True)


def per_call(function: Callable[[], object], *, number: int, repeat: int = 7) -> float:
    """Best seconds per call over ``repeat`` runs of ``number`` calls."""
    return min(timeit.repeat(function, number=number, repeat=repeat)) / number


# -- baselines: what a user would run without the table ------------------------------
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def _winner(board: list[str | None] | tuple[str | None, ...]) -> str | None:
    for a, b, c in LINES:
        if board[a] and board[a] == board[b] == board[c]:
            return board[a]
    return None


def plain_minimax(board: list[str | None], player: str) -> int:
    """Textbook recursive minimax, value for X, no memo."""
    won = _winner(board)
    if won:
        return 1 if won == "X" else -1
    if None not in board:
        return 0
    values = []
    for cell in range(9):
        if board[cell] is None:
            board[cell] = player
            values.append(plain_minimax(board, "O" if player == "X" else "X"))
            board[cell] = None
    return max(values) if player == "X" else min(values)


def plain_first_move() -> int:
    board: list[str | None] = [None] * 9
    scores: dict[int, int] = {}
    for cell in range(9):
        board[cell] = "X"
        scores[cell] = plain_minimax(board, "O")
        board[cell] = None
    return max(scores, key=lambda cell: scores[cell])


def memo_solve_all() -> int:
    """Memoised minimax over every reachable 3x3 position; returns how many it solved."""

    @functools.cache
    def value(board: tuple[str | None, ...], player: str) -> int:
        won = _winner(list(board))
        if won:
            return 1 if won == "X" else -1
        if None not in board:
            return 0
        nxt = "O" if player == "X" else "X"
        results = [value(board[:c] + (player,) + board[c + 1 :], nxt) for c in range(9) if board[c] is None]
        return max(results) if player == "X" else min(results)

    value((None,) * 9, "X")
    return value.cache_info().currsize


# -- measurements -----------------------------------------------------------------------
def bench_tictactoe() -> None:
    print("\n3x3 (tic-tac-toe)")
    build_table()  # warm the per-game mask tables once, as a long-lived process would
    build = per_call(lambda: build_table(), number=5, repeat=9)
    report("build 3x3k3 in-process", build * 1e3, "ms", "<= 10 ms", build <= 0.010)
    started = time.perf_counter()
    solved = memo_solve_all()
    memo = time.perf_counter() - started
    report(f"baseline: memoised minimax, all {solved} states", memo * 1e3, "ms")
    report("  ratio baseline / build", memo / build, "x")

    forget()
    table = solver.table_for()
    solver.lookup(0)
    nested = [["X", None, "O"], [None, "X", None], [None, None, "O"]]
    array = np.array([[1, 0, -1], [0, 1, 0], [0, 0, -1]])
    t_int = per_call(lambda: solver.lookup(13222), number=200_000)
    t_flat = per_call(lambda: solver.lookup("X.O.X...O"), number=200_000)
    t_str = per_call(lambda: solver.lookup("X.O/.X./..O"), number=200_000)
    t_list = per_call(lambda: solver.lookup(nested), number=100_000)
    t_array = per_call(lambda: solver.lookup(array), number=50_000)
    t_best = per_call(lambda: solver.best_move("X.O/.X./..O"), number=100_000)
    report("lookup(int)", t_int * 1e6, "us", "<= 1 us", t_int <= 1e-6)
    t_game = per_call(lambda: solver.lookup(13222, game="3x3k3"), number=200_000)
    report("lookup(int, game='3x3k3')", t_game * 1e6, "us", "<= 2 us", t_game <= 2e-6)
    report("lookup('X.O.X...O')", t_flat * 1e6, "us", "<= 2 us", t_flat <= 2e-6)
    report("lookup('X.O/.X./..O')", t_str * 1e6, "us", "<= 2 us", t_str <= 2e-6)
    report("lookup(nested list)", t_list * 1e6, "us")
    report("lookup(numpy 3x3 array)", t_array * 1e6, "us")
    report("best_move('X.O/.X./..O')", t_best * 1e6, "us")

    started = time.perf_counter()
    move = plain_first_move()
    plain = time.perf_counter() - started
    report(f"baseline: plain minimax, first move (cell {move})", plain * 1e3, "ms")
    report("3x3k3 table file (shipped)", (ROOT / "data" / "3x3k3.ttt").stat().st_size / 1e3, "KB")
    report("  ratio baseline / lookup(int)", plain / t_int, "x")
    bench_batch(table, "3x3k3", target=300)


def bench_grader(starts: int = 10) -> None:
    """The sandbox's cost per start of a player's process: a trivial player's process started and loaded, with
    bubblewrap and without, in turn (so a drift of the machine's speed touches both alike); medians."""
    from solver.grading.sandbox import bwrap_problem

    print(f"\ngrader: starting a player's process (load average before: {os.getloadavg()[0]:.2f}; the machine may be shared)")
    problem = bwrap_problem()
    if problem is not None:
        print(f"   (no sandbox here: {problem})")
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trivial.py"
        path.write_text("def play(board):\n    return 0\n")
        sandboxed, plain = _player_starts(path, starts)
        report(f"player's process start, sandboxed (median of {starts})", sandboxed, "s")
        report(f"player's process start, no sandbox (median of {starts})", plain, "s")
        report("  sandboxed less unsandboxed", sandboxed - plain, "s")
        report(f"  bubblewrap alone (true, less true; median of {starts})", _bubblewrap_alone(path, starts), "s")
    print(f"   (load average after: {os.getloadavg()[0]:.2f})")


def _player_starts(path: Path, starts: int) -> tuple[float, float]:
    """Median seconds to start and load the player ``path:play``, sandboxed and not (a first round, warming the caches, not counted)."""
    from solver.grading.limits import Scratch
    from solver.grading.player import BoardForm, PlayerProcess

    seconds: dict[str, list[float]] = {"bwrap": [], "none": []}
    for _ in range(starts + 1):
        for mode in ("bwrap", "none"):
            with PlayerProcess(f"{path}:play", BoardForm(3, 3), sandbox=mode, scratch=Scratch() if mode == "bwrap" else None) as process:
                started = time.perf_counter()
                process.start()
                seconds[mode].append(time.perf_counter() - started)
    return statistics.median(seconds["bwrap"][1:]), statistics.median(seconds["none"][1:])


def _bubblewrap_alone(path: Path, starts: int) -> float:
    """Median seconds of ``true`` in the player's sandbox less those of ``true`` itself."""
    from solver.grading.limits import Scratch
    from solver.grading.sandbox import Layout, bwrap_command

    sandboxed = bwrap_command(["true"], Layout.for_player(path, hidden=()), scratch=Scratch(), seccomp_fd=None)
    seconds: dict[str, list[float]] = {"bwrap": [], "none": []}
    for _ in range(starts):
        for mode, command in (("bwrap", sandboxed), ("none", ["true"])):
            started = time.perf_counter()
            subprocess.run(command, check=True, stdin=subprocess.DEVNULL, capture_output=True)
            seconds[mode].append(time.perf_counter() - started)
    return statistics.median(seconds["bwrap"]) - statistics.median(seconds["none"])


def bench_batch(table: Table, name: str, *, target: float) -> None:
    rng = np.random.default_rng(0)
    reachable = table.reachable_codes()
    codes = rng.choice(reachable, 10_000_000)
    table.lookup_codes(codes)
    times = timeit.repeat(lambda: table.lookup_codes(codes), number=1, repeat=9)
    best, median = 10 / min(times), 10 / statistics.median(times)
    report(f"lookup_codes {name}, 10M random reachable codes", best, "M/s", f">= {target} M/s", best >= target)
    report("  the same, median of the 9 repeats", median, "M/s", f">= {target} M/s", median >= target)
    ordered = np.sort(codes)
    t = per_call(lambda: table.lookup_codes(ordered), number=1, repeat=5)
    report(f"lookup_codes {name}, the same codes sorted", 10 / t, "M/s")
    t = per_call(lambda: table.lookup_codes(codes, check=False), number=1, repeat=5)
    report(f"lookup_codes {name}, random, check=False", 10 / t, "M/s")


CHILD = """
import json, os, resource, sys, tempfile, time
sys.path.insert(0, {root!r})
from solver.rules.game import parse_game
from solver import build_table
game = parse_game({game!r})
started = time.perf_counter()
table = build_table(game=game)
seconds = time.perf_counter() - started
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
with tempfile.TemporaryDirectory() as tmp:
    size = table.save(os.path.join(tmp, game.name + ".ttt")).stat().st_size
print(json.dumps({{"seconds": seconds, "rss_mb": rss, "file_mb": size / 1e6}}))
"""


WAIT4 = """
import json, os, sys, time
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(json.dumps({"wall": time.perf_counter() - started, "rss_mb": usage.ru_maxrss / 1024, "code": os.waitstatus_to_exitcode(status)}), file=sys.stderr)
"""


def run_measured(command: list[str]) -> tuple[float, float, str]:
    """Wall seconds and peak RSS (MB) of a command, and its stdout.

    A small intermediate Python (``-S``, no numpy) forks and execs the command
    and reads its rusage: Linux keeps a process's peak RSS across exec, so
    forking from this large benchmark process directly would report ours.
    """
    done = subprocess.run([sys.executable, "-S", "-c", WAIT4, *command], capture_output=True, text=True)
    figures = json.loads(done.stderr.strip().splitlines()[-1])
    if figures["code"]:
        raise RuntimeError(f"{command} failed: {done.stderr}")
    return figures["wall"], figures["rss_mb"], done.stdout


def bench_big() -> None:
    print("\nbigger boards (each build in a fresh process)")
    for game, limit in (("3x4k3", None), ("4x4k3", None), ("4x4k4", 3.0)):
        _, _, out = run_measured([sys.executable, "-c", CHILD.format(root=str(ROOT), game=game)])
        figures = json.loads(out)
        target = f"<= {limit:g} s" if limit else ""
        report(f"build {game} in-process", figures["seconds"], "s", target, None if limit is None else figures["seconds"] <= limit)
        report("  peak RSS of that process (build only)", figures["rss_mb"], "MB", "<= 800 MB" if limit else "", figures["rss_mb"] <= 800 if limit else None)
        report(f"  {game} table file", figures["file_mb"], "MB")

    with tempfile.TemporaryDirectory() as tmp:
        solve = Path(sys.executable).with_name("solve")
        commands = {
            "solve build --game 4x4k4": [str(solve)] if solve.exists() else [sys.executable, "-m", "solver.cli"],
            "python scripts/build_table.py --game 4x4k4": [sys.executable, str(ROOT / "scripts" / "build_table.py")],
        }
        path = Path(tmp) / "4x4k4.ttt"
        for name, command in commands.items():
            wall, rss, _ = run_measured([*command, *([] if "build_table" in command[-1] else ["build"]), "--game", "4x4k4", "--quiet", "--output", str(path)])
            report(f"{name}, wall", wall, "s", "<= 4 s", wall <= 4.0)
            report("  peak RSS", rss, "MB", "<= 800 MB", rss <= 800)
        print(f"   ({command[0]} ... ; table file {path.stat().st_size / 1e6:.1f} MB)")

        forget()
        load_table(path)  # page cache warm, as on any second run
        t_open = per_call(lambda: load_table(path), number=20, repeat=5)
        report("open the 4x4k4 table (load_table)", t_open * 1e3, "ms", "<= 50 ms", t_open <= 0.050)
        bench_first_touch(path)
        table = load_table(path)
        code = int(table.reachable_codes()[123_456])
        text = table.at(code).board
        t_int = per_call(lambda: table.at(code), number=200_000)
        t_str = per_call(lambda: table.lookup(text), number=200_000)
        report("4x4k4 lookup(int)", t_int * 1e6, "us", "<= 2 us", t_int <= 2e-6)
        report("4x4k4 lookup(string with '/')", t_str * 1e6, "us", "<= 2 us", t_str <= 2e-6)
        os.environ["SOLVED_TICTACTOE_DIR"] = tmp  # solver.lookup(game=) finds this table by its game
        forget()
        solver.lookup(code, game="4x4k4")
        t_game = per_call(lambda: solver.lookup(code, game="4x4k4"), number=200_000)
        report("4x4k4 solver.lookup(int, game='4x4k4')", t_game * 1e6, "us", "<= 2 us", t_game <= 2e-6)
        bench_batch(table, "4x4k4", target=200)


def bench_first_touch(path: Path) -> None:
    """What verifying a table's bytes costs: the first look-up into a block, and every block at once."""
    samples = []
    for code in np.random.default_rng(7).integers(0, 3**16, 200).tolist():
        table = load_table(path)
        started = time.perf_counter()
        table.score_of(code)
        samples.append(time.perf_counter() - started)
    assert table.file is not None  # opened from a file
    block_kib = table.file.header.block_bytes >> 10
    report(f"  first look-up into a {block_kib} KiB block (hash + check)", statistics.median(samples) * 1e6, "us")
    started = time.perf_counter()
    fresh = load_table(path)
    assert fresh.file is not None  # opened from a file
    fresh.file.verify_all()
    report("  verify every block of the 4x4k4 table", (time.perf_counter() - started) * 1e3, "ms")


# -- compact tables: games past 16 cells ------------------------------------------------
COMPACT_BUILD = """
import json, sys, time
sys.path.insert(0, {root!r})
from solver.store.make import build_compact
from solver.rules.game import parse_game
started = time.perf_counter()
last = [started]
def progress(done):
    last[0] = time.perf_counter()
build_compact(parse_game({game!r}), {output!r}, build_dir={directory!r}, jobs={jobs}, progress=progress,
              notify=lambda line: print(line, file=sys.stderr, flush=True))
print(json.dumps({{"layers_s": last[0] - started, "file_s": time.perf_counter() - last[0]}}))
"""
"""The real build (:func:`solver.store.make.build_compact`): the sweep, each finished layer sealed as it goes, then
the table file assembled from the sealed blocks. ``layers_s`` runs to the last chunk solved (the layers above
sealed on the way), ``file_s`` is the last layers' sealing and the table file."""


def _tree_memory_kb(root: int) -> tuple[int, int]:
    """Summed PSS and anonymous memory (kB) of a process and all its descendants.

    PSS counts shared pages once in total, but also the file pages of memory-mapped
    layers (page cache the kernel drops when memory is short); anonymous memory is what
    the processes hold for themselves.
    """
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    pss, anonymous, todo = 0, 0, [root]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    pss += int(line.split()[1])
                elif line.startswith("Anonymous:"):
                    anonymous += int(line.split()[1])
        except OSError:
            pass
    return pss, anonymous


def _disk_bytes(paths: list[Path]) -> int:
    """Bytes allocated on disk by these files and the files directly in these directories (sparse files count what they hold)."""
    total = 0
    for path in paths:
        for item in path.iterdir() if path.is_dir() else [path]:
            try:
                total += item.stat().st_blocks * 512
            except OSError:
                pass
    return total


def run_tree(command: list[str], *, kill_after: float | None = None, watch: list[Path] | None = None, every: float = 0.1) -> dict[str, Any]:
    """Run a command in its own session: wall seconds, peak summed PSS and anonymous memory (MB) of its process
    tree and, with ``watch``, the peak disk of those paths (GiB), sampled every ``every`` s; its stdout/stderr;
    with ``kill_after``, SIGKILL the whole tree then."""
    import signal

    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    peak, peak_anonymous, peak_disk = 0, 0, 0
    while proc.poll() is None:
        pss, anonymous = _tree_memory_kb(proc.pid)
        peak, peak_anonymous = max(peak, pss), max(peak_anonymous, anonymous)
        if watch:
            peak_disk = max(peak_disk, _disk_bytes(watch))
        if kill_after is not None and time.perf_counter() - started >= kill_after:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return {"wall": time.perf_counter() - started, "pss_mb": peak / 1024, "killed": True}
        time.sleep(every)
    out, err = proc.communicate()
    if proc.returncode:
        raise RuntimeError(f"{command} failed: {err}")
    figures = {"pss_mb": peak / 1024, "anonymous_mb": peak_anonymous / 1024, "disk_gib": peak_disk / 2**30}
    return {"wall": time.perf_counter() - started, "killed": False, "out": out, "err": err, **figures}


def bench_compact_build(game: str, tmp: Path, *, limits: tuple[float, float, float, float | None], every: float = 0.1) -> tuple[Path, float]:
    """Build a compact table from scratch in a child process: wall, peak memory and disk, file size.

    :param limits: the targets: seconds, GiB of memory, GB of file, GiB of disk (None: no disk target).
    """
    seconds, gib, file_gb, disk_gib = limits
    directory, output = tmp / f"{game}.build", tmp / f"{game}.ttt"
    script = COMPACT_BUILD.format(root=str(ROOT), game=game, directory=str(directory), output=str(output), jobs=os.cpu_count() or 1)
    figures = run_tree([sys.executable, "-c", script], watch=[directory, output], every=every)
    inner = json.loads(figures["out"])
    report(f"build {game} (layers + table file, {os.cpu_count()} jobs), wall", figures["wall"], "s", f"<= {seconds:g} s", figures["wall"] <= seconds)
    report("  of which sweep (sealing on the way) / last seals and table file", inner["layers_s"], "s", f"+ {inner['file_s']:.1f} s")
    anonymous = figures["anonymous_mb"]
    report("  peak memory, all build processes (anonymous)", anonymous, "MB", f"<= {gib:g} GiB", anonymous <= gib * 1024)
    report("  peak PSS, with the page cache of the mapped layers", figures["pss_mb"], "MB")
    if disk_gib is not None:
        report("  peak disk, build directory and table file", figures["disk_gib"], "GiB", f"<= {disk_gib:g} GiB", figures["disk_gib"] <= disk_gib)
    size = output.stat().st_size
    report(f"  {game} table file", size / 1e6, "MB", f"<= {file_gb * 1000:g} MB", size <= file_gb * 1e9)
    return output, figures["wall"]


BIG_TARGETS: dict[str, tuple[float, float, float, float | None]] = {
    "5x5k4": (20 * 60, 16, 6, 45),
    "4x6k4": (45 * 60, 16, 2, None),
    "3x8k3": (45 * 60, 16, 2, None),
    "5x6k4-gravity": (30 * 60, 16, 2, 20),
    "4x7k4-gravity": (30 * 60, 16, 2, 20),
}
"""Targets of the big builds: seconds, GiB of memory, GB of file, GiB of disk. Issue 14's for the 24- and 25-cell
m,n,k games, 5x5k4's time issue 40's (20 minutes on 2 quiet cores; a build writes its largest layers raw where the disk
has room, up to two at once, so on a disk with room its peak passes issue 14's 45 GiB); the gravity games' "minutes on
2 cores" (issue 23) read as at most half an hour, and 20 GiB of disk."""

GRAVITY_GAMES = (
    "4x4k4-gravity",
    "4x4k3-gravity",
    "4x5k4-gravity",
    "5x4k4-gravity",
    "4x5k3-gravity",
    "5x4k3-gravity",
    "4x6k4-gravity",
    "6x4k4-gravity",
    "5x5k4-gravity",
)
"""The gravity games ``--gravity`` builds (seconds each), k = 4 and k = 3 for the small ones."""


def _lookup_figures(table: Table) -> tuple[float, float]:
    """A warm look-up with best moves of a random reachable position (µs: the median over 20 positions, each looked up
    again once its blocks are decoded), and a batch of random reachable codes (M/s)."""
    rng = np.random.default_rng(23)
    if isinstance(table, CompactTable):
        drawn = table.layout.codes_at(rng.integers(0, table.layout.size, 400_000))
        codes = drawn[table.lookup_codes(drawn, check=False).score != -128]
    else:
        codes = rng.choice(table.reachable_codes(), 400_000)
    times = []
    for code in (int(code) for code in codes[:20]):

        def again(code: int = code) -> object:
            return table.at(code).best_moves

        again()  # the first touch decodes its blocks
        times.append(per_call(again, number=20, repeat=3))
    one = statistics.median(times)
    batch = codes.size / per_call(lambda: table.lookup_codes(codes), number=1, repeat=3) / 1e6
    return one * 1e6, batch


def bench_gravity(tmp: Path, games: Sequence[str] = GRAVITY_GAMES) -> None:
    """Build each gravity game from scratch in a child process (``solve build``): reachable positions, value for the
    first player and plies, build time, peak memory and disk, file size and bits per reachable position; then a warm
    look-up with best moves (µs) and a batch of random reachable codes (M/s), 3x3k3's shipped table first as the
    baseline of the same run."""
    from solver.encoding.columns import layer_slots
    from solver.rules.game import parse_game
    from solver.store.locate import open_file

    print(f"\ngravity builds, {os.cpu_count()} jobs (load average before: {os.getloadavg()[0]:.2f})")
    one, batch = _lookup_figures(solver.table_for("3x3k3"))
    print(f"(baseline, the shipped 3x3k3 table: a look-up with best moves {one:.1f} µs, a batch {batch:.1f} M codes/s)")
    print(
        f"{'game':<16} {'slots':>15} {'positions':>15} {'value':>14} {'build s':>8} {'peak MB':>8} {'disk MB':>8} "
        f"{'file bytes':>12} {'bits/pos':>8} {'look-up µs':>10} {'batch M/s':>9}"
    )
    for name in games:
        output = tmp / f"{name}.ttt"
        output.unlink(missing_ok=True)
        cli = f"import sys; sys.path.insert(0, {str(ROOT)!r}); from solver.cli import main; main()"
        figures = run_tree([sys.executable, "-c", cli, "build", "--game", name, "--output", str(output), "--yes", "--quiet"], watch=[tmp])
        table = open_file(output, game=parse_game(name))
        stats = table.stats()
        root = table.at(0)
        value = {1: "X wins", 0: "draw", -1: "O wins"}[root.value]
        size = output.stat().st_size
        positions = int(stats["positions"])
        slots = sum(layer_slots(table.game.rows, table.game.cols))
        one, batch = _lookup_figures(table)
        print(
            f"{name:<16} {slots:>15,} {positions:>15,} {value + ' in ' + str(root.plies):>14} {figures['wall']:>8.1f} "
            f"{figures['anonymous_mb']:>8.0f} {figures['disk_gib'] * 1024:>8.0f} {size:>12,} {8 * size / positions:>8.3f} {one:>10.1f} {batch:>9.2f}",
            flush=True,
        )
        report(f"build {name}, wall", figures["wall"], "s")


def bench_compact_resume(game: str, tmp: Path, full_wall: float) -> None:
    """Kill a fresh build at 70 % of the full build's time (its last third), then run it again."""
    directory, output = tmp / f"{game}.resume", tmp / f"{game}.resumed.ttt"
    script = COMPACT_BUILD.format(root=str(ROOT), game=game, directory=str(directory), output=str(output), jobs=os.cpu_count() or 1)
    killed = run_tree([sys.executable, "-c", script], kill_after=0.7 * full_wall)
    again = run_tree([sys.executable, "-c", script])
    said = again["err"].strip().splitlines()
    print(f"   (killed after {killed['wall']:.1f} s; {said[-1] if said else 'nothing to resume'})")
    report(f"resumed {game} build after a kill at 70 % of its time, wall", again["wall"], "s", f"< {full_wall / 2:.0f} s", again["wall"] < full_wall / 2)
    shutil.rmtree(directory, ignore_errors=True)
    output.unlink(missing_ok=True)


def bench_compact_lookups(path: Path, game: str) -> None:
    """Open, single look-ups and batch look-ups on a compact table file."""
    from solver.store.locate import open_compact

    open_compact(path)  # page cache warm, as on any second run
    t_open = per_call(lambda: open_compact(path), number=20, repeat=5)
    report(f"open the {game} table (open_compact)", t_open * 1e3, "ms", "<= 50 ms", t_open <= 0.050)
    table = open_compact(path)
    assert isinstance(table, CompactTable)
    rng = np.random.default_rng(45)
    big = table.layout.size > IN_MEMORY_AT_MOST  # 5x5k4: 2.5 M blocks, a random batch decodes one block a code
    drawn, kept = (60_000, 20_000) if big else (6_000_000, 2_000_000)
    sample = table.layout.codes_at(rng.integers(0, table.layout.size, drawn))
    started = time.perf_counter()
    scores = table.lookup_codes(sample, check=False).score  # the first batch verifies every block it touches
    report(f"  first batch of {drawn:,} codes (verifies every block it touches)", time.perf_counter() - started, "s")
    codes = sample[scores != -128][:kept]
    rates = [codes.size / per_call(lambda: table.lookup_codes(codes), number=1, repeat=1) / 1e6 for _ in range(3 if big else 9)]
    # no target here: issue 14's 20 M/s is for a table in memory (bench_compact_in_memory); this one decodes blocks
    report(f"{game} lookup_codes, {kept:,} random reachable codes, compressed (not in memory), best", max(rates), "M/s")
    report("  median", statistics.median(rates), "M/s")
    some = codes[:1000].tolist()
    playing = [c for c in some if table.at(c).score != -100 and table.at(c).pieces < table.game.cells][:200]

    def values() -> None:
        for code in some[:200]:
            p = table.at(code)
            _ = (p.value, p.result, p.plies)

    def best() -> None:
        for code in playing:
            table.best_move(code)

    t_lookup = per_call(values, number=50, repeat=5) / 200
    report(f"{game} lookup(int) + value, result, plies, 200 positions (blocks evicted from the 64-block cache)", t_lookup * 1e6, "us")
    text = [table.at(c).board for c in playing]
    t_text = per_call(lambda: [table.lookup(b) for b in text], number=20, repeat=5) / len(text)
    report(f"{game} lookup(board string), 200 positions (blocks evicted)", t_text * 1e6, "us")
    t_best = per_call(best, number=10, repeat=5) / len(playing)
    report(f"{game} best_move(int), 200 positions (blocks evicted from the 64-block cache)", t_best * 1e6, "us")
    few = playing[:5]
    few_text = text[:5]

    def warm_values() -> None:
        for code in few:
            p = table.at(code)
            _ = (p.value, p.result, p.plies)

    t_warm_lookup = per_call(warm_values, number=2000, repeat=5) / len(few)
    report(f"{game} lookup(int) + value, result, plies, warm (5 positions, their blocks cached)", t_warm_lookup * 1e6, "us", "<= 10 us", t_warm_lookup <= 10e-6)
    t_warm_text = per_call(lambda: [table.lookup(b) for b in few_text], number=2000, repeat=5) / len(few_text)
    report(f"{game} lookup(board string), warm", t_warm_text * 1e6, "us", "<= 10 us", t_warm_text <= 10e-6)
    t_warm = per_call(lambda: [table.best_move(code) for code in few], number=20, repeat=5) / len(few)
    report(f"{game} best_move(int) warm (5 positions, their blocks cached)", t_warm * 1e6, "us", "<= 50 us", t_warm <= 50e-6)
    bench_best_move_on_the_empty_board(table)
    bench_compact_first_touch(path, game, codes)
    if table.layout.size <= IN_MEMORY_AT_MOST:
        bench_compact_in_memory(path, game)
    else:
        print(f"   ({game} in memory: not measured, {table.layout.size / 2**30:.0f} GiB of scores does not fit this machine)")


def bench_best_move_on_the_empty_board(table: CompactTable) -> None:
    """``best_move(0)`` warm: the most children a position has (each read at its canonical board)."""
    table.best_move(0)
    t_empty = per_call(lambda: table.best_move(0), number=200, repeat=5)
    report(f"{table.game.name} best_move(int) warm, the empty board ({table.game.cells} children)", t_empty * 1e6, "us")


IN_MEMORY_AT_MOST = 4 << 30
"""Tables of more boards than this are not loaded into memory by the benchmark."""


def _open_compact(path: Path) -> CompactTable:
    """The compact table file at ``path``, typed as the compact kind (its layout and memory loading)."""
    from solver.store.locate import open_compact
    from solver.tables.compact import CompactTable

    table = open_compact(path)
    assert isinstance(table, CompactTable), f"{path} holds a {table.kind} table"
    return table


def bench_compact_first_touch(path: Path, game: str, codes: np.ndarray) -> None:
    """``at(code)`` on a freshly opened table, each code's canonical board in a block not yet read."""
    from solver.encoding.symmetry import symmetries

    table = _open_compact(path)
    scores = table.lookup_codes(codes[:100_000]).score
    playing = codes[:100_000][(scores != -128) & (scores != -100)]
    blocks = table.layout.index_of(symmetries(table.game).canonical(playing)[0]) >> 16
    fresh = playing[np.unique(blocks, return_index=True)[1][:300]].tolist()
    table = _open_compact(path)
    times = []
    for code in fresh:
        started = time.perf_counter()
        table.at(code)
        times.append(time.perf_counter() - started)
    report(
        f"{game} lookup(int), first touch of a block (median of {len(times)})",
        statistics.median(times) * 1e6,
        "us",
        "<= 200 us",
        statistics.median(times) <= 200e-6,
    )


def bench_compact_in_memory(path: Path, game: str) -> None:
    """``load_into_memory()``, then ``lookup_codes`` on 10 M random reachable codes."""
    table = _open_compact(path)
    started = time.perf_counter()
    table.load_into_memory()
    report(f"{game} load_into_memory() (decode and check every block)", time.perf_counter() - started, "s")
    rng = np.random.default_rng(46)
    codes = table.layout.codes_at(rng.integers(0, table.layout.size, 13_000_000))
    codes = codes[table.lookup_codes(codes, check=False).score != -128][:10_000_000]
    rates = [codes.size / per_call(lambda: table.lookup_codes(codes), number=1, repeat=1) / 1e6 for _ in range(3)]
    report(f"{game} lookup_codes in memory, 10 M random reachable codes, best of 3", max(rates), "M/s", ">= 20 M/s", max(rates) >= 20)


BATCH_CHILD = r"""
import json, os, resource, sys, time
sys.path.insert(0, sys.argv[1])  # the checkout measured: this one, or the code before (--before)
import numpy as np
import solver

config = json.loads(sys.argv[2])
codes, sparse, few = np.load(config["codes"]), np.load(config["sparse"]), config["few"]
out, holder = {"load": os.getloadavg()[0]}, {}


def fresh():
    solver.forget()  # a table opened afresh: no block decoded, none cached
    return solver.table_for(config["game"], table_dir=config["table_dir"], build=False)


def measure(key, table, answer):
    # wall and CPU seconds (every thread's), and the blocks decoded, counted at the block array's decode
    kind, seen = type(table.scores), []
    decode = getattr(kind, "_decode", None)
    if decode is not None:
        kind._decode = lambda self, block: seen.append(block) or decode(self, block)
    wall, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    try:
        answer()
    finally:
        used = resource.getrusage(resource.RUSAGE_SELF)
        out[key], out[key + "_cpu"], out[key + "_sys"] = time.perf_counter() - wall, used.ru_utime - cpu.ru_utime, used.ru_stime - cpu.ru_stime
        out[key + "_decodes"] = len(seen)
        if decode is not None:
            kind._decode = decode


table = fresh()
measure("few_lookup", table, lambda: holder.update(batch=table.lookup_codes(codes[:few])))
measure("few_best", table, lambda: holder["batch"].best)
table = fresh()
measure("lookup", table, lambda: holder.update(batch=table.lookup_codes(codes)))
if config["full_best"]:
    measure("best", table, lambda: holder["batch"].best)
if sparse.size:
    table = fresh()
    measure("sparse", table, lambda: table.lookup_codes(sparse))
if config["memory"]:
    table = fresh()
    measure("load_into_memory", table, table.load_into_memory)
    measure("memory_lookup", table, lambda: holder.update(batch=table.lookup_codes(codes)))
    measure("memory_best", table, lambda: holder["batch"].best)
    measure("memory_plies", table, lambda: (holder["batch"].plies, holder["batch"].value))
    from solver.tables import compact
    if hasattr(compact, "KEEP_FOR_BEST"):  # the same without .best reusing the look-up's board words
        for keep, suffix in ((False, "_unkept"), (True, "_kept")):
            compact.KEEP_FOR_BEST = keep
            measure("memory_lookup" + suffix, table, lambda: holder.update(batch=table.lookup_codes(codes)))
            measure("memory_best" + suffix, table, lambda: holder["batch"].best)
print(json.dumps(out))
"""
"""One side of :func:`bench_batch_answers`, in a process of its own, through the public API only (``solver.table_for``,
``lookup_codes``, ``Scores``), so that the same text measures this checkout and the code before."""

SPARSE_5X5K4 = 1_000_000 / 2_471_848
"""Codes per block of a batch of 1 M codes on 5x5k4 (2,471,848 blocks of 64 KiB): the density the sparse batch copies."""


def _reachable_codes(game: Game, count: int, seed: int) -> np.ndarray:
    """``count`` random reachable codes of ``game``, uniform over its reachable boards: legal-count boards drawn at
    random, kept where the rules find them reachable (what a table's reachability is; no table read)."""
    from solver.encoding.coderules import code_rules
    from solver.encoding.layouts import layout
    from solver.rules.base import INVALID

    index, rng, found = layout(game), np.random.default_rng(seed), np.zeros(0, dtype=np.int64)
    while found.size < count:
        drawn = index.codes_at(rng.integers(0, index.size, 2 * count))
        found = np.concatenate([found, drawn[code_rules(game).statuses(drawn) != INVALID]])
    return found[:count]


def _batch_config(path: Path, tmp: Path) -> tuple[dict[str, Any], int]:
    """What every side of :func:`bench_batch_answers` measures on the table at ``path``: 1 M random reachable codes,
    a sparse batch (as many codes a block as 1 M on 5x5k4; none for 5x5k4 itself), saved for the children; and its blocks."""
    table = _open_compact(path)
    codes = _reachable_codes(table.game, 1_000_000, 24)
    blocks = -(-table.layout.size >> 16)
    big = table.layout.size > IN_MEMORY_AT_MOST
    sparse = codes[: round(blocks * SPARSE_5X5K4)] if blocks * SPARSE_5X5K4 < 2e5 else codes[:0]
    np.save(tmp / "codes.npy", codes)
    np.save(tmp / "sparse.npy", sparse)
    config = {"game": table.game.name, "table_dir": str(path.parent), "codes": str(tmp / "codes.npy"), "sparse": str(tmp / "sparse.npy")}
    return {**config, "few": 10_000 if big else 100_000, "memory": not big}, blocks


def _batch_side(python: str, checkout: Path, config: dict[str, Any]) -> dict[str, float]:
    """One run of :data:`BATCH_CHILD` with ``python`` on ``checkout``."""
    done = subprocess.run([python, "-c", BATCH_CHILD, str(checkout), json.dumps(config)], capture_output=True, text=True, cwd=checkout)
    if done.returncode:
        raise RuntimeError(f"the batch benchmark failed on {checkout}: {done.stderr.strip()[-2000:]}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


POSITIONS_CHILD = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[1])  # the checkout measured: this one, or the code before (--before)
import solver

config = json.loads(sys.argv[2])
game, few, many = config["game"], config["few"], config["many"]
solver.table_for(game, build=False)  # opened once: every figure below is a look-up of an open table
for code in few + many:
    solver.best_move(code, game=game)  # the blocks of the warm positions decoded and checked


def each(codes, ask):
    def run():
        for code in codes:
            ask(code)
    return run


lookup = solver.lookup
asks = {
    "lookup": lambda code: lookup(code, game=game),
    "is_over": lambda code: lookup(code, game=game).is_over,
    "to_move": lambda code: lookup(code, game=game).to_move,
    "best_move": lambda code: solver.best_move(code, game=game),
    "best_moves_and_moves": lambda code: (lambda p: (p.best_moves, p.moves))(lookup(code, game=game)),
}
out = {"load": os.getloadavg()[0]}
for label, codes, number, repeats in (("warm", few, 20, 150), ("spread", many, 1, 40)):
    best = {key: float("inf") for key in asks}
    for _ in range(repeats):  # interleaved and short: on a shared machine the least disturbed repeat of each question counts
        for key, ask in asks.items():
            run = each(codes, ask)
            started = time.perf_counter()
            for _ in range(number):
                run()
            best[key] = min(best[key], (time.perf_counter() - started) / number / len(codes))
    out.update({f"{label}_{key}": value for key, value in best.items()})
print(json.dumps(out))
"""
"""One side of :func:`bench_position_costs`, in a process of its own, through the public API only (``solver.lookup``,
``solver.best_move``, ``Position``), so that the same text measures this checkout and the code before."""


def bench_position_costs(path: Path | None, before: Path | None, before_python: str, *, repeats: int = 2) -> None:
    """Issue 29, point 5: what one position costs on a compact table, ``solver.lookup(int)`` against ``.is_over``,
    ``.to_move``, ``solver.best_move`` and ``.best_moves`` with ``.moves``, warm (5 positions, their blocks cached) and
    spread (200 random positions in play), in the same run; with ``before``, the same text on that checkout too,
    alternated, ``repeats`` runs each. Without a table, 3x6k3 is built first (about 10 s)."""
    with tempfile.TemporaryDirectory() as name:
        if path is None:
            from solver.api import Tablebase

            started = time.perf_counter()
            path = Tablebase(table_dir=name).table("3x6k3", build=True).path
            assert path is not None
            print(f"   (3x6k3 built in {time.perf_counter() - started:.1f} s)")
        table = _open_compact(path)
        if path.name != f"{table.game.name}.ttt":
            raise SystemExit(f"--positions wants the table file named after its game, <game>.ttt (found {path.name})")
        from solver.encoding.coderules import code_rules
        from solver.rules.base import IN_PLAY

        codes = _reachable_codes(table.game, 4000, 29)
        playing = [int(code) for code in codes[code_rules(table.game).statuses(codes) == IN_PLAY] if table.at(int(code)).pieces < table.game.cells - 1]
        config = {"game": table.game.name, "few": playing[:5], "many": playing[5:205]}
        sides = [("after", sys.executable, ROOT)] + ([("before", before_python, before)] if before is not None else [])
        runs: dict[str, list[dict[str, float]]] = {side: [] for side, _, _ in sides}
        environment = {**os.environ, "SOLVED_TICTACTOE_DIR": str(path.parent)}
        for _ in range(repeats):
            for side, python, checkout in sides:
                done = subprocess.run(
                    [python, "-c", POSITIONS_CHILD, str(checkout), json.dumps(config)], capture_output=True, text=True, cwd=checkout, env=environment
                )
                if done.returncode:
                    raise RuntimeError(f"the position benchmark failed on {checkout}: {done.stderr.strip()[-2000:]}")
                runs[side].append(json.loads(done.stdout.strip().splitlines()[-1]))
    _report_position_costs(runs, table.game.name)


def _report_position_costs(runs: dict[str, list[dict[str, float]]], game: str) -> None:
    """The figures of :func:`bench_position_costs`: per side the smallest time of each measure over its runs, and each
    question's cost in look-ups of the same run (the targets: ``is_over`` within 1.2, ``best_move`` within 3)."""
    loads = ", ".join(f"{side} {run['load']:.1f}" for side, found in runs.items() for run in found)
    print(f"\n{game}: what a position costs (load average at each run's start: {loads})")
    targets = {"is_over": 1.2, "to_move": 1.2, "best_move": 3.0}
    for label in ("warm", "spread"):
        for side, found in runs.items():
            best = {key: min(run[key] for run in found) for key in found[0] if key.startswith(label + "_")}
            base = best[f"{label}_lookup"]
            report(f"{game} {label}, {side}: lookup(int)", base * 1e6, "us")
            for key in ("is_over", "to_move", "best_move", "best_moves_and_moves"):
                ratio = best[f"{label}_{key}"] / base
                limit = targets.get(key) if side == "after" else None
                shown = f"<= {limit}x lookup" if limit is not None else ""
                report(f"  {key} ({best[f'{label}_{key}'] * 1e6:.1f} us)", ratio, "x lookup", shown, None if limit is None else ratio <= limit)


def bench_5x5k4_batch_decodes() -> None:
    """The blocks a batch of 1 M random reachable 5x5k4 codes decodes, counted from the game's index and rules
    alone (no table needed, none timed): the code before decoded the blocks of each part of a batch split over
    threads (a part per 2**18 codes, up to one per core and 8), this code each block of the batch once."""
    from solver.encoding.coderules import code_rules
    from solver.encoding.layouts import layout
    from solver.encoding.symmetry import symmetries
    from solver.rules.base import IN_PLAY, INVALID
    from solver.rules.game import parse_game

    game = parse_game("5x5k4")
    index, rules = layout(game), code_rules(game)
    drawn = index.codes_at(np.random.default_rng(25).integers(0, index.size, 1_600_000))
    codes = drawn[rules.statuses(drawn) != INVALID][:1_000_000]  # the rules' reachability is the table's
    read = codes[rules.statuses(codes) == IN_PLAY]
    blocks = index.index_of(symmetries(game).canonical_codes(read)) >> 16
    once = np.unique(blocks).size
    report(f"5x5k4: 1 M random reachable codes, {read.size:,} in play; blocks decoded once each (this code)", once, "blocks")
    counts = [once]
    for parts in (2, 4):
        counts.append(sum(np.unique(part).size for part in np.array_split(blocks, parts)))
        report(f"  the code before, split in {parts} parts ({parts if parts < 4 else '4 to 8'} cores)", counts[-1], "blocks")
    print(f"   (exactly: {', '.join(f'{count:,}' for count in counts)} of {-(-index.size >> 16):,} blocks)")


def bench_batch_answers(path: Path, before: Path | None, before_python: str, *, repeats: int = 2) -> None:
    """Issue 24, point 3: a batch of 1 M random reachable codes on a compact table file, ``lookup_codes`` then ``.best``,
    compressed and (a table that fits) in memory; with ``before``, the same process text run on that checkout too,
    alternated, ``repeats`` runs each. The table's file must be ``<game>.ttt`` (the children open it by its game)."""
    if path.name != f"{_open_compact(path).game.name}.ttt":
        raise SystemExit(f"--batch wants the table file named after its game, <game>.ttt (found {path.name})")
    with tempfile.TemporaryDirectory() as name:
        config, blocks = _batch_config(path, Path(name))
        sides = [("after", sys.executable, ROOT)] + ([("before", before_python, before)] if before is not None else [])
        runs: dict[str, list[dict[str, float]]] = {side: [] for side, _, _ in sides}
        for _ in range(repeats):
            for side, python, checkout in sides:
                print(f"   ({side}: {checkout}, load average {os.getloadavg()[0]:.2f})", flush=True)
                runs[side].append(_batch_side(python, checkout, {**config, "full_best": side == "after"}))
    _report_batch_answers(runs, blocks, config["game"])
    bench_5x5k4_batch_decodes()


def _report_batch_answers(runs: dict[str, list[dict[str, float]]], blocks: int, game: str) -> None:
    """The figures of :func:`bench_batch_answers`: per side, the run with the smallest time of each measure (its user and
    system CPU seconds, every thread's, beside it: on a shared machine the wall time grows with the load, the CPU time
    much less; the system time is mostly the kernel handing out fresh memory, which for ``load_into_memory``'s 741 MB
    of 4x5k4 varies from 0.2 to 2.4 s between runs of the same code, as it compacts memory into huge pages)."""
    loads = ", ".join(f"{side} {run['load']:.1f}" for side, found in runs.items() for run in found)
    print(f"\n{game} batches of random reachable codes ({blocks:,} blocks; load average at each run's start: {loads})")
    best = {
        side: {key: min(found, key=lambda run: run[key]) for key in found[0] if not key.endswith(("_cpu", "_sys", "_decodes"))} for side, found in runs.items()
    }
    after = best["after"]

    def line(name: str, side: str, key: str, size: float | None = None) -> float:
        run = best[side][key]
        value, unit = (size / run[key] / 1e6, "M/s") if size else (run[key], "s")
        report(f"{name} ({side})", value, unit)
        print(f"   ({run[key + '_cpu']:.2f} s of user CPU and {run[key + '_sys']:.2f} s of system, {run[key + '_decodes']:,.0f} blocks decoded)")
        return float(run[key])

    few = round(1e5 if "memory_lookup" in after else 1e4)
    sizes = (("1 M codes", "lookup", 1e6), (f"{few:,} codes", "few_lookup", few), ("sparse, 0.40 codes a block", "sparse", blocks * SPARSE_5X5K4))
    for label, key, size in (row for row in sizes if row[1] in after):
        seconds = {side: line(f"lookup_codes, {label}, compressed", side, key, round(size)) for side in best}
        if "before" in seconds:
            report("  speed-up (after / before)", seconds["before"] / seconds["after"], "x")
    for side in best:
        line(f".best of those {few:,}, compressed", side, "few_best")
    ratio = line(".best of the 1 M, compressed", "after", "best") / after["lookup"]["lookup"]
    report("  .best / lookup_codes, compressed", ratio, "x", "<= 3", ratio <= 3)
    for side in best if "memory_lookup" in after else ():
        _report_in_memory(line, side, set(best[side]))


def _report_in_memory(line: Callable[[str, str, str], float], side: str, keys: set[str]) -> None:
    """The in-memory figures of one side of :func:`bench_batch_answers` (``line`` reports one measure; ``keys``: the measures of that side)."""
    line("load_into_memory()", side, "load_into_memory")
    lookup, found = line("lookup_codes, 1 M codes, in memory", side, "memory_lookup"), line("  .best of them", side, "memory_best")
    plies = line("  .plies and .value of them", side, "memory_plies")
    target = side == "after"
    report(f"  .best / lookup_codes, in memory ({side})", found / lookup, "x", "<= 3" if target else "", found / lookup <= 3 if target else None)
    rate = 1 / (lookup + found + plies)
    report(f"  score, best, value, plies of 1 M, in memory ({side})", rate, "M pos/s", ">= 1 M/s" if target else "", rate >= 1 if target else None)
    if "memory_best_unkept" in keys:  # solver.tables.compact.KEEP_FOR_BEST: on, off, on again, in the same process
        for suffix, what in (("_kept", "kept for"), ("_unkept", "computed again by")):
            line(f"lookup_codes, 1 M codes, in memory, board words {what} .best", side, "memory_lookup" + suffix)
            line("  .best of them", side, "memory_best" + suffix)


def bench_compact_stats(path: Path, game: str) -> None:
    """``stats()`` counted by one pass over the compressed table (what a file without histograms in its meta costs)."""
    table = _open_compact(path)
    started = time.perf_counter()
    table.histograms(from_meta=False)
    seconds = time.perf_counter() - started
    report(f"{game} stats() by a pass over the compressed table (no histograms in the meta)", seconds, "s")
    report("  boards counted per second", table.layout.size / seconds / 1e6, "M/s")


CHUNK_RATE = """
import json, resource, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, {root!r})
import numpy as np
from solver.rules.game import parse_game
from solver.encoding.layouts import layout
from solver.retrograde.chunks import chunks
from solver.retrograde.kernel import solve_chunk
game = parse_game({game!r})
index = layout(game)
rows = []
with tempfile.TemporaryDirectory(dir={tmp!r}) as tmp:
    for ply in {plies!r}:
        child = Path(tmp) / "child.i8"
        with child.open("wb") as handle:  # a sparse stand-in for layer ply + 1: the work does not depend on its values
            handle.truncate(index.layer_sizes[ply + 1])
        scores = np.memmap(child, dtype=np.int8, mode="r", shape=(index.layer_sizes[ply + 1],))
        todo = chunks(game, ply)
        biggest = max(range(len(index.tiles[ply])), key=lambda b: index.tiles[ply][b].size)
        picked = [c for c in todo if c.tile == biggest][:{per_layer}]
        for c in picked:  # map the stand-in's pages once, so that neither kernel pays their first touch
            solve_chunk(game, c, scores, plain=True)
        for plain in (False, True):
            solve_chunk(game, todo[0], scores, plain=plain)  # warm the index tables (and load the compiled kernel)
            started, cpu = time.perf_counter(), time.thread_time()
            boards = sum(solve_chunk(game, c, scores, plain=plain).size for c in picked)
            seconds, cpu = time.perf_counter() - started, time.thread_time() - cpu
            rows.append({{"ply": ply, "plain": plain, "boards": boards, "seconds": seconds, "cpu": cpu}})
        del scores
        child.unlink()
print(json.dumps({{"rows": rows, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""
"""One worker's chunks of the biggest tile of some layers of a game, solved by the compiled kernel and by its numpy
twin (``solve_chunk(..., plain=True)``): wall and CPU seconds (the CPU time of the one thread: a core's work)."""


def bench_compact_sample(path: Path, game: str) -> None:
    """``solve verify --sample``'s pass (solver/store/samplecheck.py): 10,000 canonical boards in play per layer
    checked against their children, without and with the reference minimax, on a freshly opened table."""
    from solver.store.samplecheck import check_sample

    for reference in (0, 200):
        report_ = check_sample(_open_compact(path), boards=10_000, seed=0, reference=reference)
        full = [layer.seconds for layer in report_.layers if layer.boards == 10_000]
        with_reference = f" + {reference} by minimax" if reference else ""
        report(f"{game} sample check, 10,000 a layer{with_reference}", report_.seconds, "s")
        report("  per layer of 10,000 boards: mean", statistics.mean(full), "s")
        report("  per layer of 10,000 boards: slowest", max(full), "s")


def chunk_rates(tmp: Path, game: str, plies: list[int], per_layer: int) -> dict[str, Any]:
    """:data:`CHUNK_RATE`'s figures for ``game``: per layer and kernel, boards, wall and CPU seconds; the peak memory."""
    code = CHUNK_RATE.format(root=str(ROOT), tmp=str(tmp), game=game, plies=plies, per_layer=per_layer)
    return cast(dict[str, Any], json.loads(run_tree([sys.executable, "-c", code])["out"]))


def report_kernels(game: str, rows: list[dict[str, Any]]) -> dict[bool, float]:
    """Report the compiled kernel's and its numpy twin's throughput per layer (boards a CPU second: a core's) and in
    all; returns the overall rate of each (keyed by ``plain``), in boards a CPU second."""
    overall = {}
    for plain in (False, True):
        mine = [row for row in rows if row["plain"] is plain]
        name = "numpy twin" if plain else "compiled"
        for row in mine:
            report(f"{game} layer {row['ply']} chunks, {name}", row["boards"] / row["cpu"] / 1e6, "M boards/s/core")
        overall[plain] = sum(row["boards"] for row in mine) / sum(row["cpu"] for row in mine)
        report(f"  {game} those chunks in all, {name}", overall[plain] / 1e6, "M boards/s/core")
    report(f"  {game} compiled kernel / numpy twin", overall[False] / overall[True], "x")
    return overall


def bench_4x5_kernels(tmp: Path) -> None:
    """The chunk kernel, compiled and numpy, on the chunks of the biggest tile of each of 4x5k4's layers 1 to 19."""
    result = chunk_rates(tmp, "4x5k4", list(range(1, 20)), per_layer=1000)
    report_kernels("4x5k4", result["rows"])


def bench_5x5_chunks(tmp: Path) -> None:
    """One worker's throughput on chunks of 5x5k4 layers (compiled kernel and numpy twin), and what it implies for
    a build: the 5x5k4 sweep's CPU time interpolated between the measured layers, and its minutes on 2 cores."""
    from solver.encoding.layouts import layout
    from solver.retrograde.chunks import CHUNK_BOARDS
    from solver.rules.game import parse_game

    result = chunk_rates(tmp, "5x5k4", [6, 10, 13, 16, 20], per_layer=2)
    report_kernels("5x5k4", result["rows"])
    game = parse_game("5x5k4")
    sizes = layout(game).layer_sizes
    for plain in (False, True):
        rows = [row for row in result["rows"] if row["plain"] is plain]
        plies = [row["ply"] for row in rows]
        per_board = [row["cpu"] / row["boards"] for row in rows]  # CPU seconds a board between the measured layers: linear in the ply
        cpu_hours = sum(size * float(np.interp(p, plies, per_board)) for p, size in enumerate(sizes)) / 3600
        name = "numpy twin" if plain else "compiled"
        report(f"  5x5k4 chunk kernel, whole sweep, {name} (interpolated)", cpu_hours, "CPU h")
        report(f"  5x5k4 chunk kernel alone on 2 cores, {name}", cpu_hours * 60 / 2, "min", "<= 20 (the whole build)", None)
    report("  worker peak memory (chunk of ~4 M boards)", result["rss_mb"], "MB")
    print(
        f"   (5x5k4: {sum(sizes) / 2**30:.1f} GiB of layers, largest {max(sizes) / 2**30:.1f} GiB; chunks of {CHUNK_BOARDS:,} boards; "
        "the next layer was a sparse stand-in, so reading it is not in these figures, nor spooling, sealing or the proof)"
    )


def bench_compact(args: argparse.Namespace) -> None:
    """4x5k4 (and, with --3x7k3, 3x7k3): build, resume after a kill, look-ups; 5x5k4 chunk throughput."""
    load = os.getloadavg()
    print(f"\ncompact tables (load average before: {load[0]:.2f}; the machine may be shared)")
    with tempfile.TemporaryDirectory(dir=args.compact_dir) as name:
        tmp = Path(name)
        path, wall = bench_compact_build("4x5k4", tmp, limits=(25, 16, 0.06, None))
        bench_compact_lookups(path, "4x5k4")
        bench_compact_sample(path, "4x5k4")
        bench_compact_stats(path, "4x5k4")
        shutil.rmtree(tmp / "4x5k4.build", ignore_errors=True)
        bench_compact_resume("4x5k4", tmp, wall)
        bench_4x5_kernels(tmp)
        bench_5x5_chunks(tmp)
        if args.big_3x7:
            path, _ = bench_compact_build("3x7k3", tmp, limits=(1200, 16, 0.2, None))
            shutil.rmtree(tmp / "3x7k3.build", ignore_errors=True)
            bench_compact_lookups(path, "3x7k3")


def bench_compact_lookups_only(path: Path) -> None:
    """The look-up figures of one compact table file already built (``--compact-lookups``), with the load around them."""
    from solver.store.locate import open_compact

    game = open_compact(path).game.name
    before = os.getloadavg()
    print(f"\ncompact look-ups on {path} ({game}); load average before: {before[0]:.2f} {before[1]:.2f} {before[2]:.2f}")
    bench_compact_lookups(path, game)
    after = os.getloadavg()
    print(f"   (load average after: {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}; the machine may be shared)")


def _served(path: Path) -> tuple[subprocess.Popen[str], str]:
    """``solve serve`` of the table file at ``path`` (its directory as the table directory) on a free loopback port:
    the process and the URL of the table file."""
    env = {**os.environ, "SOLVED_TICTACTOE_DIR": str(path.parent)}
    command = [sys.executable, "-m", "solver.cli", "serve", "--port", "0", "--quiet", "--table-dir", str(path.parent)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, cwd=ROOT)
    assert process.stdout is not None
    line = process.stdout.readline()
    if " at http://" not in line:
        process.kill()
        raise SystemExit(f"solve serve did not start: {line!r}")
    return process, line.split(" at ", 1)[1].split(" ", 1)[0] + "tables/" + path.name


def _fresh_blocks(table: CompactTable, count: int, seed: int) -> list[int]:
    """``count`` random reachable codes in play, each read from a different block (its canonical board's)."""
    from solver.encoding.symmetry import symmetries

    rng = np.random.default_rng(seed)
    codes = table.layout.codes_at(rng.integers(0, table.layout.size, 200_000))
    scores = table.lookup_codes(codes, check=False).score
    playing = codes[(scores != -128) & (np.abs(scores.astype(np.int16)) != 100)]
    blocks = table.layout.index_of(symmetries(table.game).canonical(playing)[0]) >> 16
    chosen: list[int] = playing[np.unique(blocks, return_index=True)[1]].tolist()
    return chosen[:count]


def _median_us(table: Table, codes: list[int]) -> float:
    times = []
    for code in codes:
        started = time.perf_counter()
        table.at(code)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e6


def bench_url_table(path: Path) -> None:
    """A compact table read at a URL (``solver.table_for(game, url=...)``) over the loopback, from ``solve serve`` and
    from a plain static file server (tests/range_server.py: the standard library's http.server with byte ranges):
    opening it, the first touch of a block (one Range request), a warm look-up, a block from the on-disk cache in
    a new reader, a batch; beside the same look-ups on the local file."""
    sys.path.insert(0, str(ROOT / "tests"))
    from range_server import serving  # type: ignore[import-not-found, unused-ignore]

    local = _open_compact(path)
    game = local.game.name
    codes = _fresh_blocks(local, 300, seed=24)
    print(f"\n{game} at a URL over 127.0.0.1 ({path.stat().st_size:,} bytes; load average before: {os.getloadavg()[0]:.2f})")
    report(f"{game} local file: first touch of a block (median of {len(codes)})", _median_us(_open_compact(path), codes), "us")
    process, url = _served(path)
    try:
        _url_figures(url, f"{game} from solve serve", local, codes)
    finally:
        process.terminate()
        process.wait(timeout=30)
    with serving({path.name: path.read_bytes()}) as server:
        _url_figures(server.url + path.name, f"{game} from a static server", local, codes)
    print(f"   (load average after: {os.getloadavg()[0]:.2f}; the machine may be shared)")


def _url_figures(url: str, label: str, local: CompactTable, codes: list[int]) -> None:
    from solver.store.urltable import open_url_table

    try:
        with tempfile.TemporaryDirectory() as cache:
            os.environ["SOLVED_TICTACTOE_CACHE_DIR"] = cache
            started = time.perf_counter()
            table = open_url_table(url, cache_bytes=1 << 30)
            report(f"{label}: open (header, digests, index)", (time.perf_counter() - started) * 1e3, "ms")
            report(f"{label}: first touch of a block (median)", _median_us(table, codes), "us")
            report(f"{label}: warm look-up, block in memory", per_call(lambda: table.at(codes[-1]), number=2000) * 1e6, "us")
            again = open_url_table(url, cache_bytes=1 << 30)
            report(f"{label}: new reader, block from the disk cache", _median_us(again, codes), "us")
            batch = _batch_codes(local, 100_000)
            fresh = open_url_table(url, cache_bytes=0)
            seconds = per_call(lambda: fresh.lookup_codes(batch), number=1, repeat=1)
            report(f"{label}: lookup_codes, 100,000 codes, no cache", batch.size / seconds / 1e3, "k/s")
    finally:
        os.environ.pop("SOLVED_TICTACTOE_CACHE_DIR", None)


def _batch_codes(table: CompactTable, count: int) -> np.ndarray:
    rng = np.random.default_rng(46)
    codes = table.layout.codes_at(rng.integers(0, table.layout.size, 4 * count))
    found: np.ndarray = codes[table.lookup_codes(codes, check=False).score != -128][:count]
    return found


def bench_big_games(args: argparse.Namespace) -> None:
    """--big-build GAME: build a 24- or 25-cell game (minutes to hours) measured; --big-table PATH: look-ups on one built."""
    for game in args.big_build or []:
        if args.compact_dir is None:
            raise SystemExit("--big-build needs --compact-dir: a directory with room for the build (its largest raw layer, a spool and the sealed layers)")
        print(f"\n{game} build (load average before: {os.getloadavg()[0]:.2f}; the machine may be shared)")
        path, wall = bench_compact_build(game, Path(args.compact_dir), limits=BIG_TARGETS[game], every=5)
        print(f"   ({game} table written to {path})")
        if args.big_resume:
            shutil.rmtree(Path(args.compact_dir) / f"{game}.build", ignore_errors=True)
            bench_compact_resume(game, Path(args.compact_dir), wall)
    for path in args.big_table or []:
        game = _open_compact(path).game.name
        print(f"\n{game} look-ups on {path} (load average before: {os.getloadavg()[0]:.2f})")
        bench_compact_lookups(path, game)
        bench_compact_sample(path, game)


def add_connect4_options(parser: argparse.ArgumentParser) -> None:
    """The options of the Connect Four section (scripts/bench_connect4.py)."""
    parser.add_argument("--connect4", action="store_true", help="only the Connect Four engine: Pons' six sets (the slow ones sampled), against a plain negamax")
    parser.add_argument("--connect4-all", action="store_true", help="with every position of Pons' six sets, and the empty board from scratch (an hour)")
    parser.add_argument(
        "--connect4-http", metavar="SECONDS", type=float, help="only Connect Four over HTTP: solve serve with this search budget, no answer slower than it"
    )
    parser.add_argument("--connect4-empty", action="store_true", help="only the empty Connect Four board solved from scratch (minutes)")
    parser.add_argument(
        "--connect4-calls",
        metavar="N",
        type=int,
        help="only what one call costs: Engine.score and solver.lookup on N positions of End-Easy and Middle-Easy, and a new process",
    )
    parser.add_argument(
        "--connect4-book", metavar="BOOK", type=Path, help="only the opening book: its build's figures, the empty board from it, Pons' sets with it"
    )
    parser.add_argument(
        "--connect4-book-cost", metavar="N", type=int, help="only what a book of each depth costs: the search of N sampled positions of plies 4 to 8 (an hour)"
    )
    parser.add_argument(
        "--connect4-sets",
        metavar="NAME[:N],...",
        help="only these of Pons' sets (End-Easy, Middle-Easy, Begin-Easy, Middle-Medium, Begin-Medium, Begin-Hard), N sampled of each;"
        " with --connect4-book, searched with the book; with --connect4-calls, only these of its four sets (N unused)",
    )
    parser.add_argument(
        "--connect4-at-hand", metavar="N", type=int, help="only Connect Four at hand: fresh processes, N random positions of plies 0 to 20 (600)"
    )
    parser.add_argument(
        "--at-hand-http", metavar="N", type=int, default=150, help="with --connect4-at-hand: N random positions over HTTP from solve serve (0: none)"
    )
    parser.add_argument("--at-hand-book", metavar="BOOK", type=Path, help="with --connect4-at-hand: Böck's ply-8 positions answered from this book")
    parser.add_argument("--cold", action="store_true", help="with --connect4-at-hand: empty numba's cache first (the first process compiles)")
    parser.add_argument("--pons", metavar="PONS_TIMES", type=Path, help="Pons' C++ solver beside the engine (scripts/baselines/pons_times.cpp built)")
    parser.add_argument(
        "--c4", metavar="C4_TIMES", type=Path, help="Steininger's c4 beside the engine, on the empty board too (scripts/baselines/c4_times.cpp built)"
    )


def _parser() -> argparse.ArgumentParser:
    """The command line of the benchmark: which sections to run, on which tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3x3 only")
    parser.add_argument("--grader", action="store_true", help="only the grader's figures: a player's process started with and without the sandbox")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument("--compact", action="store_true", help="also compact tables: 4x5k4 build, resume, look-ups, 5x5k4 chunks (minutes)")
    parser.add_argument("--3x7k3", dest="big_3x7", action="store_true", help="with --compact, also build 3x7k3 (several minutes)")
    parser.add_argument("--compact-dir", help="where the compact builds go (default: the temporary directory)")
    parser.add_argument(
        "--compact-lookups",
        metavar="TABLE",
        type=Path,
        help="only the compact look-up figures, on this table file (e.g. a 4x5k4.ttt that `solve build` wrote); no build, no other section",
    )
    parser.add_argument(
        "--url-table", metavar="TABLE", type=Path, help="only a compact table read at a URL, served by solve serve on the loopback, beside the local file"
    )
    parser.add_argument("--big-build", action="append", choices=sorted(BIG_TARGETS), help="build this 24/25-cell game measured (hours; repeatable)")
    parser.add_argument("--gravity", action="store_true", help="build the gravity games of up to 25 cells measured, one table row each (minutes)")
    parser.add_argument("--big-resume", action="store_true", help="with --big-build, then kill a second build at 70 %% of the first's time and resume it")
    parser.add_argument("--big-table", action="append", type=Path, help="look-ups and the sample check on this built table file (repeatable)")
    parser.add_argument(
        "--batch", metavar="TABLE", type=Path, help="only the batch figures (lookup_codes, .best) on this compact <game>.ttt (4x5k4 for the manual)"
    )
    parser.add_argument(
        "--positions",
        metavar="TABLE",
        nargs="?",
        const="",
        help="only what a position costs (lookup, is_over, best_move) on this compact <game>.ttt; without TABLE, 3x6k3 is built first",
    )
    parser.add_argument(
        "--builds",
        metavar="GAMES",
        nargs="?",
        const="",
        help="only builds against --before, alternated, and their bytes compared: of these games (comma-separated), or of six (dense, compact, gravity)",
    )
    parser.add_argument(
        "--before",
        metavar="CHECKOUT",
        type=Path,
        help="with --batch, --positions or --builds, also measure the code of this checkout (the code before), alternated",
    )
    parser.add_argument(
        "--runs",
        type=int,
        help="with --before: runs of each side, alternated (default 2); with --connect4 or --connect4-sets: runs of each set by the engine"
        " and by each C++ solver, each with a fresh table (default 1); each figure is a side's best; with --connect4-calls: runs of each"
        " side, each in a fresh process, alternated (default 3); each figure is the median of a side's runs",
    )
    parser.add_argument("--before-python", default=sys.executable, help="the Python for --before (a venv where its dependencies are installed)")
    return parser


def _one_section(args: argparse.Namespace) -> bool:
    """Run the section an option asks for alone (Connect Four, batches, positions, ...); whether there was one."""
    if args.connect4 or args.connect4_all or args.connect4_empty or args.connect4_book or args.connect4_book_cost or args.connect4_sets or args.connect4_calls:
        _connect4_section(args)
    elif args.connect4_at_hand or args.connect4_http:
        _connect4_as_users_wait(args)
    elif args.pons or args.c4:
        raise SystemExit("bench.py: --pons and --c4 go with --connect4, --connect4-all, --connect4-empty or --connect4-sets")
    elif args.builds is not None:
        from bench_builds import BUILDS, bench_builds

        if args.before is None:
            raise SystemExit("bench.py: --builds compares this checkout with another: give --before CHECKOUT")
        games = tuple(args.builds.split(",")) if args.builds else BUILDS
        bench_builds(report, args.before, args.before_python, games=games, repeats=args.runs or 2)
    elif args.batch:
        bench_batch_answers(args.batch, args.before, args.before_python, repeats=args.runs or 2)
    elif args.positions is not None:
        bench_position_costs(Path(args.positions) if args.positions else None, args.before, args.before_python, repeats=args.runs or 2)
    elif args.compact_lookups:
        bench_compact_lookups_only(args.compact_lookups)
    elif args.grader:
        bench_grader()
    elif args.url_table:
        bench_url_table(args.url_table)
    elif args.gravity:
        bench_gravity(Path(args.compact_dir or tempfile.mkdtemp()))
    else:
        return False
    return True


def _connect4_as_users_wait(args: argparse.Namespace) -> None:
    """Connect Four as a user waits for it: at hand (scripts/bench_at_hand.py) or over HTTP (scripts/bench_http_search.py)."""
    if args.connect4_at_hand:
        from bench_at_hand import bench_at_hand

        bench_at_hand(report, count=args.connect4_at_hand, book=args.at_hand_book, cold=args.cold, http=args.at_hand_http)
    else:
        from bench_http_search import bench_search_budget

        bench_search_budget(report, args.connect4_http)


def _connect4_section(args: argparse.Namespace) -> None:
    """The Connect Four section (scripts/bench_connect4.py), with the C++ baselines of ``--pons`` and ``--c4``; or
    only what one call costs (``--connect4-calls``, scripts/bench_calls.py)."""
    if args.connect4_calls:
        from bench_calls import CALL_SETS, bench_call_costs

        try:
            chosen = list(parse_sets(args.connect4_sets, [name for name, _ in CALL_SETS])) if args.connect4_sets else None
        except argparse.ArgumentTypeError as error:
            raise SystemExit(f"bench.py: --connect4-sets: {error}") from None
        bench_call_costs(report, args.connect4_calls, args.pons, runs=args.runs or 3, sets=chosen)
        return
    from bench_connect4 import SETS, bench_connect4

    try:
        sets = parse_sets(args.connect4_sets, [name for name, *_ in SETS]) if args.connect4_sets else None
    except argparse.ArgumentTypeError as error:
        raise SystemExit(f"bench.py: --connect4-sets: {error}") from None
    baselines = baselines_of(args)
    if baselines and (args.connect4_book or args.connect4_book_cost):
        raise SystemExit("bench.py: --pons and --c4 time the engine without a book: not with --connect4-book or --connect4-book-cost")
    options = {"book": args.connect4_book, "book_cost": args.connect4_book_cost, "sets": sets, "runs": args.runs or 1}
    bench_connect4(report, every=args.connect4_all, only_empty=args.connect4_empty, baselines=baselines, **options)


def _default_sections(args: argparse.Namespace) -> None:
    """The sections run when no option asks for one alone: 3x3, the big dense tables, the grader; compact and big games on request."""
    if not (args.big_build or args.big_table) or args.quick:
        bench_tictactoe()
    if not args.quick and not (args.big_build or args.big_table):
        bench_big()
        bench_grader()
    if args.compact:
        bench_compact(args)
    if args.big_build or args.big_table:
        bench_big_games(args)


def _as_installed() -> None:
    """Fresh processes start as after ``pip install .``: the package byte-compiled (pip compiles it on install) and
    bytecode written where Python writes it. A shell with ``PYTHONDONTWRITEBYTECODE`` set (as some CI images and
    containers are) would otherwise make every new process compile each module from source: about 140 ms of a late
    look-up's 370 ms on 2026-12-05."""
    import compileall

    import solver

    if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
        print("   PYTHONDONTWRITEBYTECODE unset for the fresh processes (a user's Python writes its bytecode)")
    compileall.compile_dir(Path(solver.__file__).parent, quiet=1)


def main() -> None:
    parser = _parser()
    add_connect4_options(parser)
    args = parser.parse_args()
    _as_installed()
    machine = platform.processor() or platform.platform()
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}, {os.cpu_count()} cores, {machine}")
    print(f"{'measure':<52} {'value':>12} {'unit':<9} {'target':<12} status")
    if not _one_section(args):
        _default_sections(args)
    missed = [r["name"] for r in RESULTS if r["status"] == "MISSED"]
    print(f"\n{len(RESULTS)} figures; targets missed: {', '.join(missed) if missed else 'none'}")
    if args.json:
        args.json.write_text(json.dumps({"machine": platform.platform(), "results": RESULTS}, indent=2))


if __name__ == "__main__":
    main()
