"""Connect Four at hand (``python scripts/bench.py --connect4-at-hand``): what a user waits for, through the calls a user
makes, with the figures the issue sets beside each.

1. **A fresh process**: ``solve lookup --game connect4 --moves "" --json`` (the empty board, every move valued) in a
   new process with an empty table directory, then ``solve lookup --game connect4 --moves 4453 --json`` in a second
   one: wall time of each (targets 3 s and 1.5 s). With ``cold``, numba's cache of the search is emptied first, so
   the first process compiles (said apart).
2. **Random positions of plies 0 to 20** (random legal play from the empty board, seeded; games that end are played
   again), one :func:`solver.lookup` a position (every move valued), one warm process: median, 99th percentile and
   the slowest (targets 50 ms, 1 s, none over 5 s), wall time and CPU.
3. **Ply-8 positions from a book** (``book``: a book file of depth 8 or more): mean wall time of a position's value
   and plies (``Table.score_of``, one call a position) on Böck's ply-8 positions, every one of his entries equal
   (target 5 ms); and of a full look-up (every move valued: each move's child is searched past a depth-8 book) on a
   few of them.
4. **Over HTTP** (``http``: how many random positions): ``solve serve --game connect4`` with its default search
   budget and an empty table directory, on the loopback: the seconds until it listens, then the first screen as the
   page asks it (the page, its style, script and icon, the list of games, the game's rules, the empty board: target
   1 s in all), then random positions of plies 0 to 20 one request at a time (none refused, 99th percentile 1 s).

The load is printed (load averages before and after): the figures are the user's only on quiet cores.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import solver
from solver.rules.score import decode
from solver.search.book import open_book
from solver.storage import trust

Report = Callable[..., None]
"""scripts/bench.py's ``report(name, value, unit, target, ok)``."""

BOECK_PLY8 = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "connect4" / "boeck_books" / "c4_w7_h6_ply8_dte.csv"
COLUMNS, ROWS = 7, 6


def _solve_command() -> list[str]:
    """The ``solve`` of this Python's environment (a user's command), else the module run by this Python."""
    found = shutil.which("solve", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-c", "from solver.cli import main; main()"]


def _timed_process(arguments: list[str], env: dict[str, str]) -> tuple[float, int, str]:
    started = time.monotonic()
    done = subprocess.run([*_solve_command(), *arguments], env=env, capture_output=True, text=True, timeout=600, check=False)
    return time.monotonic() - started, done.returncode, done.stdout


def fresh_processes(report: Report, *, cold: bool = False) -> None:
    """Point 1 (module docstring)."""
    with tempfile.TemporaryDirectory() as empty:
        env = {**os.environ, "SOLVED_TICTACTOE_DIR": empty}
        if cold:
            for cache in (Path(solver.__file__).parent / "search" / "__pycache__").glob("*.nb[ic]"):
                cache.unlink()
            seconds, code, _ = _timed_process(["lookup", "--game", "connect4", "--moves", "4", "--json"], env)
            report("c4 at hand: first process, cache emptied (compiles)", seconds, "s", f"exit {code}")
        seconds, code, out = _timed_process(["lookup", "--game", "connect4", "--moves", "", "--json"], env)
        moves = len(json.loads(out)["moves"]) if code == 0 else 0
        report("c4 at hand: empty board, 7 moves, fresh process", seconds, "s", "<= 3 s", code == 0 and moves == COLUMNS and seconds <= 3.0)
        seconds, code, _ = _timed_process(["lookup", "--game", "connect4", "--moves", "4453", "--json"], env)
        report("c4 at hand: --moves 4453, second fresh process", seconds, "s", "<= 1.5 s", code == 0 and seconds <= 1.5)


def random_positions(count: int, seed: int = 0, *, most: int = 20) -> list[str]:
    """``count`` move strings of 0 to ``most`` plies, each by random legal play from the empty board (a game that ends
    on the way is played again): the positions a user clicking through openings meets."""
    rng = random.Random(seed)
    found: list[str] = []
    while len(found) < count:
        plies = rng.randint(0, most)
        moves = _random_game(rng, plies)
        if moves is not None:
            found.append(moves)
    return found


def _random_game(rng: random.Random, plies: int) -> str | None:
    heights = [0] * COLUMNS
    board: dict[tuple[int, int], int] = {}
    moves = []
    for ply in range(plies):
        column = rng.choice([c for c in range(COLUMNS) if heights[c] < ROWS])
        board[(column, heights[column])] = ply % 2
        heights[column] += 1
        moves.append(str(column + 1))
        if _four(board, column, heights[column] - 1):
            return None
    return "".join(moves)


def _four(board: dict[tuple[int, int], int], column: int, row: int) -> bool:
    who = board[(column, row)]
    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            c, r = column + sign * dc, row + sign * dr
            while board.get((c, r)) == who:
                run, c, r = run + 1, c + sign * dc, r + sign * dr
        if run >= 4:
            return True
    return False


PAST_THE_BOOK = "2252576253462244111563365343671351441"
"""A late position (37 plies) looked up before the timing: a search, so the engine and its kernels are loaded."""

CAP_SECONDS = 10.0
"""A random position's search is stopped here (a position past 5 s misses the bound however long it would take): the
slowest figure is then at least this."""


SHOWN_SLOWEST = 8
"""The slowest random positions printed with their plies (where the time goes)."""


def warm_random(report: Report, count: int = 600) -> None:
    """Point 2 (module docstring); each search stopped at :data:`CAP_SECONDS`."""
    positions = random_positions(count)
    solver.lookup(moves=PAST_THE_BOOK, game="connect4")  # the engine loaded: a warm process (a book answer loads none)
    walls, cpus = [], []
    for moves in positions:
        wall, cpu = time.monotonic(), time.process_time()
        try:
            solver.lookup(moves=moves, game="connect4", budget=CAP_SECONDS)
        except solver.SearchTimeout:
            pass  # counted at the cap: past the 5 s bound either way
        walls.append(time.monotonic() - wall)
        cpus.append(time.process_time() - cpu)
    ordered = sorted(walls)
    median, p99, slowest = statistics.median(walls), ordered[int(0.99 * (len(ordered) - 1))], ordered[-1]
    for seconds, moves in sorted(zip(walls, positions, strict=True), reverse=True)[:SHOWN_SLOWEST]:
        print(f"   slow: {moves or '(empty)'} ({len(moves)} plies) {seconds * 1e3:,.0f} ms")
    report(f"c4 at hand: {count} random plies 0-20, median", median * 1e3, "ms", "<= 50 ms", median <= 0.050)
    report(f"c4 at hand: {count} random plies 0-20, p99", p99 * 1e3, "ms", "<= 1 s", p99 <= 1.0)
    report(f"c4 at hand: {count} random plies 0-20, slowest", slowest * 1e3, "ms", "<= 5 s", slowest <= 5.0)
    report(f"c4 at hand: {count} random plies 0-20, CPU mean", statistics.fmean(cpus) * 1e3, "ms")
    depth = solver.table_for("connect4").book_depth
    if depth is not None:  # what a book one ply deeper would give: its deepest positions' moves answered from it
        deeper = sorted(0.0 if len(moves) == depth else seconds for seconds, moves in zip(walls, positions, strict=True))
        p99_deeper = deeper[int(0.99 * (len(deeper) - 1))]
        report(f"c4 at hand: the same p99 were positions of {depth} pieces answered at once (a depth-{depth + 1} book)", p99_deeper * 1e3, "ms")


def book_ply8(report: Report, book: Path, sample: int | None = 2000, *, trusted: bool = True) -> None:
    """Point 3 (module docstring): ``sample`` of Böck's ply-8 positions (None: all) answered through ``book`` in a table
    directory; ``trusted``: believed as if proved here (else the Tablebase proves it first, or refuses it)."""
    if not BOECK_PLY8.is_file():
        print("c4 at hand: ply 8 from a book: skipped (Böck's ply-8 results are not beside the checkout)")
        return
    with tempfile.TemporaryDirectory() as directory:
        copy = Path(directory) / "6x7k4-gravity.ttt"
        shutil.copy(book, copy)
        if trusted:  # the caller vouches for it (a book this benchmark need not prove first)
            trust.record(directory, "6x7k4-gravity", "book", open_book(copy).checksum)
        tablebase = solver.Tablebase(table_dir=directory)
        table = tablebase.table("connect4", table_dir=directory)
        rows = [line.split(",") for line in BOECK_PLY8.read_text().splitlines()[1:] if line and not line.startswith("#")]
        rows = rows if sample is None else random.Random(0).sample(rows, sample)
        walls, wrong = [], 0
        for moves, _board, _ply, result, plies, _score in rows:
            code = solver.encode(_board_of(moves), game="connect4")
            wall = time.monotonic()
            try:
                found = decode(table.score_of(code), COLUMNS * ROWS - 8)
            except solver.InvalidBoardError:
                continue  # a game that ended on ply 8: not a position
            walls.append(time.monotonic() - wall)
            wrong += found != (result, int(plies))
        mean = statistics.fmean(walls)
        report(f"c4 at hand: {len(walls):,} ply-8 values from {book.name}, mean", mean * 1e3, "ms", "<= 5 ms", mean <= 0.005)
        report("c4 at hand: ply-8 values unlike Böck's", wrong, "positions", "0", wrong == 0)
        _ply8_every_move(report, table, rows[:MOVES_SAMPLE])


MOVES_SAMPLE = 50
"""Ply-8 positions also looked up with every move valued (each move's child, of nine pieces, is past a depth-8 book)."""


def _ply8_every_move(report: Report, table: Any, rows: list[list[str]]) -> None:
    walls = []
    for moves, *_ in rows:
        wall = time.monotonic()
        try:
            table.lookup(_board_of(moves))
        except solver.InvalidBoardError:
            continue
        walls.append(time.monotonic() - wall)
    report(f"c4 at hand: {len(walls)} ply-8 with every move valued, mean", statistics.fmean(walls) * 1e3, "ms")


FIRST_SCREEN = ("", "static/style.css", "static/app.js", "static/favicon.svg", "api/v1/games", "api/v1/games/connect4")
"""What the page asks before it draws Connect Four (``?game=connect4``), the empty board's answer after these."""


def served(report: Report, count: int = 150) -> None:
    """Point 4 (module docstring)."""
    with tempfile.TemporaryDirectory() as empty:
        command = [*_solve_command(), "serve", "--game", "connect4", "--port", "0", "--quiet"]
        started = time.monotonic()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env={**os.environ, "SOLVED_TICTACTOE_DIR": empty})
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            if " at http://" not in line:
                raise SystemExit(f"solve serve did not start: {line!r}")
            report("c4 at hand: solve serve listening", time.monotonic() - started, "s")
            base = line.split(" at ", 1)[1].split(" ", 1)[0]
            _first_screen(report, base)
            _random_requests(report, base, count)
        finally:
            process.terminate()
            process.wait(10)


def _first_screen(report: Report, base: str) -> None:
    from bench_http_search import _asked

    empty = "/".join(["." * COLUMNS] * ROWS)
    paths = [*FIRST_SCREEN, f"api/v1/connect4?board={empty}"]
    start = time.monotonic()
    statuses = [_asked(base + path)[0] for path in paths]
    seconds = time.monotonic() - start
    report("c4 at hand: HTTP first screen (7 requests)", seconds, "s", "<= 1 s", seconds <= 1.0 and set(statuses) == {200})


def _random_requests(report: Report, base: str, count: int) -> None:
    from bench_http_search import _asked

    walls, refused = [], 0
    for moves in random_positions(count, seed=1):
        status, seconds = _asked(f"{base}api/v1/connect4?moves={moves}")
        walls.append(seconds)
        refused += status != 200
    ordered = sorted(walls)
    p99 = ordered[int(0.99 * (len(ordered) - 1))]
    report(f"c4 at hand: HTTP {count} random plies 0-20, refused", refused, "requests", "0", refused == 0)
    report(f"c4 at hand: HTTP {count} random plies 0-20, p99", p99 * 1e3, "ms", "<= 1 s", p99 <= 1.0)
    report(f"c4 at hand: HTTP {count} random plies 0-20, median", statistics.median(walls) * 1e3, "ms")


def _board_of(moves: str) -> str:
    """The board string (top row first) of a move string (columns from 1)."""
    cells = [["."] * COLUMNS for _ in range(ROWS)]
    heights = [0] * COLUMNS
    for ply, move in enumerate(moves):
        column = int(move) - 1
        cells[ROWS - 1 - heights[column]][column] = "XO"[ply % 2]
        heights[column] += 1
    return "/".join("".join(row) for row in cells)


def bench_at_hand(report: Report, *, count: int = 600, book: Path | None = None, cold: bool = False, http: int = 150) -> None:
    """Every point of the module docstring (the book's only with ``book``, HTTP's only with ``http`` positions)."""
    print(f"c4 at hand: load averages before {os.getloadavg()}")
    fresh_processes(report, cold=cold)
    if count:
        warm_random(report, count)
    if book is not None:
        book_ply8(report, book)
    if http:
        served(report, http)
    print(f"c4 at hand: load averages after {os.getloadavg()}")
