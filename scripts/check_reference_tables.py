"""A table against the plain reference solver of ``tests/reference.py``, which shares no code with the package.

``scripts/check_engine_tables.py`` holds a gravity table to the search engine on positions of every ply; this script
holds it to the reference's memoised minimax, written again from the rules, on the positions that minimax can reach
in seconds: a seeded sample of each layer with at most ``--empty`` empty cells. For each position it compares the
position's result and plies to the end, and every move's (the child's answer, seen from the mover), as
``solve lookup`` reports them.

    python scripts/check_reference_tables.py 4x8k4-gravity.ttt --sample 20 --empty 10

It prints each layer's count and time, then the totals, and exits with status 1 (listing the first differences)
when any position or move differs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "tests"), str(HERE)]  # this checkout's solver, the reference, the scripts

from check_engine_tables import SHOWN, _boards  # noqa: E402  (the same seeded sample of a layer's positions in play)
from reference import Reference, board_of, reference  # type: ignore[import-not-found]  # noqa: E402  (tests/, not a package)

from solver.api import Position, Tablebase  # noqa: E402
from solver.tables import CompactTable  # noqa: E402

RESULTS = {1: "win", 0: "draw", -1: "loss"}
"""The reference's results for the side to move, in the words of :attr:`solver.Position.result`."""


def differences(position: Position, ref: Reference) -> list[str]:
    """What the reference says otherwise than the table about a position and each of its moves."""
    board = board_of(position.code, position.game.cells)
    said = ref.solve(board)
    found = []
    if (RESULTS[said.result], said.plies) != (position.result, position.plies):
        found.append(f"the position: the reference {RESULTS[said.result]} in {said.plies}, the table {position.result} in {position.plies}")
    for move in position.moves:
        child = ref.solve(ref.play(board, move.cell))  # for the side to move there: the mover's is the opposite
        if (RESULTS[-child.result], child.plies + 1) != (move.result, move.plies):
            found.append(f"move {move.cell}: the reference {RESULTS[-child.result]} in {child.plies + 1}, the table {move.result} in {move.plies}")
    if not position.is_over and {move.cell for move in position.moves} != set(ref.moves(board)):
        found.append(f"the moves: the reference {sorted(ref.moves(board))}, the table {sorted(move.cell for move in position.moves)}")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", type=Path, help="a table file (<game>.ttt: solve build --game G --output FILE)")
    parser.add_argument("--sample", type=int, default=20, metavar="N", help="N seeded positions a layer (default 20)")
    parser.add_argument("--empty", type=int, default=10, metavar="E", help="layers with at most E empty cells (default 10)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    table = Tablebase().open_file(args.table)
    if not isinstance(table, CompactTable):
        parser.error(f"{args.table} is not a compact table")
    game, rng = table.game, np.random.default_rng(args.seed)
    ref = reference(game.name)
    positions = moves = 0
    shown: list[str] = []
    wrong = 0
    started = time.perf_counter()
    print(f"{game.name}: the reference of tests/reference.py against {args.table}")
    for ply in range(game.cells - 1, game.cells - args.empty - 1, -1):
        began, count = time.perf_counter(), 0
        for codes, _, _, _ in _boards(table, ply, args.sample, rng):
            for code in codes.tolist():
                position = table.at(int(code))
                found = differences(position, ref)
                wrong += bool(found)
                shown += [f"code {code} (ply {ply}): {line}" for line in found][: max(0, SHOWN - len(shown))]
                count, moves = count + 1, moves + len(position.moves)
        positions += count
        print(f"ply {ply:2d}: {count:12,} positions, {time.perf_counter() - began:8.2f} s")
    print(f"{game.name}: {positions:,} positions and {moves:,} moves compared in {time.perf_counter() - started:.1f} s")
    if wrong:
        print(f"{game.name}: {wrong:,} positions differ; the first:", *shown, sep="\n  ")
        return 1
    print(f"{game.name}: every position agrees")
    return 0


if __name__ == "__main__":
    sys.exit(main())
