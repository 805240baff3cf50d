"""The value and length of every game under each rule, as the Markdown table of the manual.

Builds (or opens, from the table directory) each game's table under normal and misère play
and prints, per game, its reachable positions and the empty board's value for X and plies
to the end with perfect play under each rule:

    python scripts/game_values.py                        # every game of 9 to 16 cells with k >= 3, 2 <= rows <= cols
    python scripts/game_values.py --compact 3x6k3 4x5k4  # ... and these compact games (built if missing)
    python scripts/game_values.py --table-dir DIR        # where tables are kept (default: the user's table directory)
    python scripts/game_values.py --gravity --compact 4x5k4-gravity   # gravity games of 9 to 16 cells, each shape
                                                         # (rows are the height), normal play and misère

The figures of docs/rules.md come from this script.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solver.rules.game import DENSE_MAX_CELLS, Game, parse_game  # noqa: E402
from solver.store.tablebase import table_for  # noqa: E402
from solver.tables import CompactTable, Table  # noqa: E402

RESULT = {1: "X wins", 0: "draw", -1: "O wins"}


def dense_games(min_cells: int = 9, max_cells: int = DENSE_MAX_CELLS) -> list[Game]:
    """Every game of ``min_cells`` to ``max_cells`` cells with ``2 <= rows <= cols`` and ``k >= 3`` (a mirror has the same
    values; a single row is a draw under both rules whatever ``k``)."""
    return [
        Game(rows, cols, k)
        for cells in range(min_cells, max_cells + 1)
        for rows in range(1, cells + 1)
        if cells % rows == 0 and 2 <= rows <= cells // rows
        for cols in [cells // rows]
        for k in range(3, cols + 1)
    ]


def gravity_games(min_cells: int = 9, max_cells: int = DENSE_MAX_CELLS) -> list[Game]:
    """Every gravity game of ``min_cells`` to ``max_cells`` cells with at least 3 rows and 3 columns and ``k >= 3``
    (rows are the height: a board and its mirror are different games)."""
    return [
        Game(rows, cells // rows, k, "gravity")
        for cells in range(min_cells, max_cells + 1)
        for rows in range(3, cells // 3 + 1)
        if cells % rows == 0 and cells // rows >= 3
        for k in range(3, max(rows, cells // rows) + 1)
    ]


def positions(table: Table) -> int:
    """Reachable positions of a table (from a compact table's layer counts, without listing codes)."""
    if isinstance(table, CompactTable):
        return sum(layer.every.positions for layer in table.layer_counts())
    return int(table.reachable_codes().size)


def row(game: Game, table_dir: str | None) -> str:
    """One line of the table: the game, its positions, and the empty board under each rule."""
    cells = []
    count = None
    for variant in ("gravity", "gravity-misere") if game.rules.move.writes_columns else ("", "misere"):
        table = table_for(Game(game.rows, game.cols, game.k, variant), table_dir=table_dir, build=True)
        start = table.at(0)
        cells.append(f"{RESULT[start.value]}, {start.plies}")
        found = positions(table)
        assert count is None or count == found, f"{game.name}: misère play reaches {found:,} positions, normal play {count:,}"
        count = found
    return f"| {game.name} | {count:,} | {cells[0]} | {cells[1]} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compact", nargs="*", default=[], metavar="GAME", help="compact games to add (built if missing)")
    parser.add_argument("--table-dir", default=None, help="where tables are kept and built")
    parser.add_argument("--gravity", action="store_true", help="the gravity games instead of the m,n,k games")
    args = parser.parse_args()
    started = time.perf_counter()
    print("| game | reachable positions | normal play: result, plies | misère: result, plies |")
    print("| --- | ---: | --- | --- |")
    for game in [*(gravity_games() if args.gravity else dense_games()), *(parse_game(name) for name in args.compact)]:
        print(row(game, args.table_dir), flush=True)
    print(f"\n(the empty board with perfect play; built or opened in {time.perf_counter() - started:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
