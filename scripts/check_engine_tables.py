"""The engine (solver/search/) against a gravity game's table: two independent methods that must agree on every position.

A table is built by retrograde analysis (``solve build --game 5x5k4-gravity``): every reachable board scored from
the end of the game backwards. The engine searches each position forwards. This script reads every position in
play from a table file, layer by layer, asks the engine for its score and compares the two score bytes (the value
and the plies to the end, for the side to move: :mod:`solver.rules.score`). With ``--sample N`` it checks N seeded
positions a layer instead, and with ``--moves M`` it also asks the engine for every move of M positions a layer
(:meth:`solver.search.Engine.solve`) and compares each move's score with the table's score of the child it makes.

    python scripts/check_engine_tables.py 4x5k4-gravity.ttt                      # every position in play (3.1 M: seconds)
    python scripts/check_engine_tables.py 5x5k4-gravity.ttt                      # every position in play (50.7 M: minutes)
    python scripts/check_engine_tables.py 5x6k4-gravity.ttt --sample 2000 --moves 100

It prints each layer's count and time, then the totals, and exits with status 1 (listing the first differences)
when any position or move differs. One engine and its transposition table serve every position, deepest layer first
(so a position's children were searched just before it); the engine's compiled search runs over a whole chunk of
positions at once (:func:`search_all`), so the figures are the search's, not Python's per call.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's solver

from solver.api import Tablebase  # noqa: E402
from solver.rules.game import Game  # noqa: E402
from solver.rules.score import UNREACHABLE, WIN, parent_score  # noqa: E402
from solver.search import Engine  # noqa: E402
from solver.search.negamax import reset_control, solve  # noqa: E402
from solver.tables import CompactTable  # noqa: E402

CHUNK = 1 << 20
"""Positions read, converted and searched at once."""

TABLE_BYTES = 64 << 20
"""The engine's transposition table (its answers do not depend on its size)."""

SHOWN = 10
"""Differences listed at most."""

DRAWN = 8
"""A sample of N positions a layer draws ``DRAWN * N`` of its boards (some unreachable, some finished) and keeps the first N in play."""


@dataclass
class Checked:
    """What a comparison found: positions and moves compared, the differences (the first :data:`SHOWN`), the time."""

    game: str
    positions: int = 0
    moves: int = 0
    wrong: int = 0
    differences: list[str] = field(default_factory=list)
    seconds: float = 0.0
    by_ply: list[tuple[int, int, float]] = field(default_factory=list)
    """``(ply, positions, seconds)`` of each layer checked."""

    def differ(self, text: str) -> None:
        self.wrong += 1
        if len(self.differences) < SHOWN:
            self.differences.append(text)


Book = tuple[np.ndarray, np.ndarray, np.int64]


@njit(cache=True, nogil=True)
def search_all(pos: np.ndarray, mask: np.ndarray, geo: np.ndarray, table: np.ndarray, book: Book, control: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """The engine's compiled search (:func:`solver.search.negamax.solve`: Pons scores) of every position, in order."""
    out = np.empty(pos.size, dtype=np.int64)
    for i in range(pos.size):
        out[i] = solve(pos[i], mask[i], geo, table, book, control, scratch)
    return out


def bitboards(game: Game, x: np.ndarray, o: np.ndarray, pieces: int) -> tuple[np.ndarray, np.ndarray]:
    """The engine's ``(pos, mask)`` column bitboards (:mod:`solver.search.bitboard`: bit ``col * (rows + 1) + height``)
    of boards given as X's and O's cell masks (cell ``row * cols + col``, row 0 the top), all with ``pieces`` pieces."""
    xb = np.zeros(x.size, dtype=np.uint64)
    ob = np.zeros(x.size, dtype=np.uint64)
    for cell in range(game.cells):
        row, col = divmod(cell, game.cols)
        bit = np.uint64(col * (game.rows + 1) + game.rows - 1 - row)
        xb |= ((x >> cell) & 1).astype(np.uint64) << bit
        ob |= ((o >> cell) & 1).astype(np.uint64) << bit
    return (xb if pieces % 2 == 0 else ob), xb | ob


def score_bytes(pons: np.ndarray, pieces: int, cells: int) -> np.ndarray:
    """Pons scores (:mod:`solver.search.negamax`) as the project's score bytes, as :func:`solver.search.score_byte` gives them."""
    size = np.abs(pons)
    last = cells - 2 * (size - 1)
    last = last - (((last - pieces) % 2) != (pons > 0))
    plies = last - pieces
    return np.where(pons == 0, 0, np.where(pons > 0, WIN - plies, plies - WIN)).astype(np.int8)


def _engine_args(engine: Engine, pos: np.ndarray, mask: np.ndarray) -> tuple[object, ...]:
    """The search kernel's arguments for these positions, from the engine (as :meth:`Engine.score` passes them), its
    control words cleared as every search of the engine clears them (a stop or a node limit left by the last
    :meth:`Engine.solve` would stop these searches early)."""
    reset_control(engine._control)
    return (pos, mask, engine._geo, engine._table, engine._book, engine._control, engine._scratch)


def _in_play(scores: np.ndarray, ply: int, cells: int) -> np.ndarray:
    """Which boards of a layer are positions in play: reachable, not finished (a line scores a loss in 0 plies), not full."""
    if ply >= cells:
        return np.zeros(scores.size, dtype=bool)
    playing: np.ndarray = (scores != UNREACHABLE) & (np.abs(scores.astype(np.int16)) != WIN)
    return playing


def check_layer(table: CompactTable, engine: Engine, ply: int, checked: Checked, *, sample: int | None, moves: int, rng: np.random.Generator) -> None:
    """Compare the engine with the table on the positions in play of one layer (all, or a seeded sample)."""
    game, start = table.game, time.perf_counter()
    done = 0
    for codes, x, o, scores in _boards(table, ply, sample, rng):
        keep = np.flatnonzero(_in_play(scores, ply, game.cells))
        pos, mask = bitboards(game, x[keep], o[keep], ply)
        found = score_bytes(search_all(*_engine_args(engine, pos, mask)), ply, game.cells)  # type: ignore[arg-type]
        for at in np.flatnonzero(found != scores[keep])[: SHOWN + 1].tolist():
            checked.differ(f"{game.name} code {int(codes[keep[at]])} (ply {ply}): the engine says {int(found[at])}, the table {int(scores[keep[at]])}")
        checked.wrong += max(0, int(np.count_nonzero(found != scores[keep])) - SHOWN - 1)
        for at in keep[: max(0, moves - done)].tolist():
            _check_moves(table, engine, int(codes[at]), checked)
        done += keep.size
    checked.positions += done
    checked.by_ply.append((ply, done, time.perf_counter() - start))


def _boards(table: CompactTable, ply: int, sample: int | None, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """``(codes, x, o, scores)`` of a layer's boards (X's and O's cell masks): every board, :data:`CHUNK` at a time
    (the layer's scores read once), or up to ``sample`` seeded positions in play (drawn among the layer's boards,
    only those read)."""
    first, stop = table.layout.layer_offsets[ply], table.layout.layer_offsets[ply + 1]
    if sample is None:
        layer = table.layer(ply)
        for a in range(first, stop, CHUNK):
            b = min(stop, a + CHUNK)
            codes, x, o = table.layout.codes(a, b)
            yield codes, x, o, np.asarray(layer[a - first : b - first])
        return
    drawn = first + np.sort(rng.choice(stop - first, size=min(stop - first, DRAWN * sample), replace=False))
    codes = table.layout.codes_at(drawn)
    scores = table.scores_of(codes)
    keep = np.flatnonzero(_in_play(scores, ply, table.game.cells))[:sample]
    x, o = cell_masks(codes[keep], table.game.cells)
    yield codes[keep], x, o, scores[keep]


def cell_masks(codes: np.ndarray, cells: int) -> tuple[np.ndarray, np.ndarray]:
    """X's and O's cell masks (bit ``cell``) of base-3 codes (digit ``cell``: 1 X, 2 O)."""
    x = np.zeros(codes.size, dtype=np.int64)
    o = np.zeros(codes.size, dtype=np.int64)
    rest = codes.astype(np.int64)
    for cell in range(cells):
        rest, digit = np.divmod(rest, 3)
        x |= (digit == 1).astype(np.int64) << cell
        o |= (digit == 2).astype(np.int64) << cell
    return x, o


def _check_moves(table: CompactTable, engine: Engine, code: int, checked: Checked) -> None:
    """Every move of one position: the engine's score for the mover against the table's score of the child."""
    answer = engine.solve(code)
    if answer.score != table.score_of(code):
        checked.differ(f"{table.game.name} code {code}: Engine.solve says {answer.score}, the table {table.score_of(code)}")
    mover = 1 if _pieces(code) % 2 == 0 else 2
    for move in answer.moves:
        child = table.score_of(code + mover * 3**move.cell)
        checked.moves += 1
        if move.score != parent_score(child):
            checked.differ(
                f"{table.game.name} code {code}: the move in column {move.column + 1} scores {move.score} by search, {parent_score(child)} by the table"
            )


def _pieces(code: int) -> int:
    pieces = 0
    while code:
        code, digit = divmod(code, 3)
        pieces += digit != 0
    return pieces


def check_table(
    table: CompactTable, *, sample: int | None = None, moves: int = 0, seed: int = 0, say: Callable[[str], None] = print, engine: Engine | None = None
) -> Checked:
    """Compare the engine with a compact table of a gravity game on every layer, deepest first (module docstring).

    :param sample: positions a layer (seeded), None for every one.
    :param moves: positions a layer whose every move is compared too (:meth:`Engine.solve`).
    """
    engine = engine or Engine(table.game, table_bytes=TABLE_BYTES)
    checked = Checked(table.game.name)
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    for ply in range(table.game.cells - 1, -1, -1):
        check_layer(table, engine, ply, checked, sample=sample, moves=moves, rng=rng)
        _, count, seconds = checked.by_ply[-1]
        say(f"ply {ply:2d}: {count:>12,} positions, {seconds:8.2f} s ({count / max(seconds, 1e-9):,.0f} a second)")
    checked.seconds = time.perf_counter() - start
    return checked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("table", type=Path, help="a gravity game's table file (<game>.ttt: solve build --game G --output FILE)")
    parser.add_argument("--sample", type=int, default=None, metavar="N", help="N seeded positions a layer instead of every one")
    parser.add_argument("--moves", type=int, default=0, metavar="M", help="also every move of M positions a layer")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    table = Tablebase().open_file(args.table)
    if args.sample is None:
        table = table.load_into_memory()  # every block decoded once, not once a layer (a sample reads only its boards)
    if not isinstance(table, CompactTable):
        raise SystemExit(f"{args.table} holds a {table.kind} table: this script reads compact tables (gravity games of 17 to 39 cells)")
    print(f"{table.game.name}: the engine against {args.table} (load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)")
    engine = Engine(table.game, table_bytes=TABLE_BYTES)
    empty = np.zeros(0, dtype=np.uint64)
    search_all(*_engine_args(engine, empty, empty))  # type: ignore[arg-type]  # compiled (or loaded from numba's cache) before any timing
    checked = check_table(table, sample=args.sample, moves=args.moves, seed=args.seed, engine=engine)
    rate = checked.positions / max(checked.seconds, 1e-9)
    print(f"{checked.game}: {checked.positions:,} positions and {checked.moves:,} moves compared in {checked.seconds:.1f} s ({rate:,.0f} a second)")
    print(f"(load average after: {os.getloadavg()[0]:.2f})")
    if checked.wrong:
        print("\n".join(checked.differences))
        raise SystemExit(f"{checked.game}: {checked.wrong:,} differences between the engine and the table")
    print(f"{checked.game}: every position agrees")


if __name__ == "__main__":
    main()
