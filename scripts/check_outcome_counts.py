"""A gravity table's outcomes held to the published ones: every ply's wins, draws and losses, and the root.

The counts of a compact table file, ply by ply, for the side to move (the histograms its build kept in the file:
:meth:`solver.tables.compact.CompactTable.layer_counts`), against Böck's per-ply win/draw/loss counts where they are
published (``boeck_perply/results_solve_wW_hH.csv``: 5x5, 5x6 and 6x6), the positions in all against Böck's table
of every board (``c4_position_counts_wxh_boeck.csv``: 4x8 and 5x7 too), and the empty board's value and the ply the
game ends on under perfect play against Tromp's and Steininger's (``c4_board_values_steininger_tromp.csv``), each
read in ``../shared/data/connect4/`` beside the checkout (never copied).

    python scripts/check_outcome_counts.py ~/.local/share/solved-tictactoe/6x6k4-gravity.ttt

It prints a line a ply, then the total and the root, and exits with status 1 when anything differs, 2 when nothing
published covers the board. Opening the file checks it as any look-up does (a table built here is trusted).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]  # this checkout's solver, and check_reach_counts beside this script

from check_reach_counts import DATA, board_row, per_ply_outcomes, total  # noqa: E402

from solver.api import Tablebase  # noqa: E402
from solver.rules.game import Game, parse_game  # noqa: E402
from solver.rules.score import decode  # noqa: E402
from solver.tables.compact import CompactTable  # noqa: E402


def root_value(game: Game, data: Path = DATA) -> tuple[str, int] | None:
    """The published value of the empty board (``first_player_win``, ``draw``, ``second_player_win``) and the ply the
    game ends on under perfect play, or None."""
    row = board_row(game, "c4_board_values_steininger_tromp.csv", data)
    return None if row is None else (row["value"], int(row["last_move"]))


def table_root(table: CompactTable) -> tuple[str, int]:
    """The table's value of the empty board, as the published file words it, and the ply the game ends on."""
    result, plies = decode(table.at(0).score, empty=table.game.cells)
    value = {"win": "first_player_win", "draw": "draw", "loss": "second_player_win"}[result]
    return value, plies


def compare(table: CompactTable, data: Path = DATA) -> tuple[list[str], bool]:
    """The lines of the report, and whether every published figure was found equal (False: one differs). Raises
    ``LookupError`` if nothing published covers the board."""
    game = table.game
    if game.k != 4 or game.variant != "gravity":
        raise LookupError(f"nothing published covers {game.name}: the published figures are of four in a row under gravity, normal play")
    plies, positions, root = per_ply_outcomes(game, data), total(game, data), root_value(game, data)
    if plies is None and positions is None and root is None:
        raise LookupError(f"nothing published in {data} covers {game.name}")
    lines, same = [], True
    counted = 0
    for layer in table.layer_counts():
        found = (layer.every.wins, layer.every.draws, layer.every.losses)
        counted += layer.every.positions
        wanted = None if plies is None else plies.get(layer.ply)
        mark = "" if wanted is None else ("  same" if wanted == found else f"  DIFFERS: published {wanted[0]:,} {wanted[1]:,} {wanted[2]:,}")
        same &= wanted in (None, found)
        lines.append(f"ply {layer.ply:2d}: won {found[0]:>14,}  drawn {found[1]:>14,}  lost {found[2]:>14,}{mark}")
    if positions is not None:
        same &= positions == counted
        lines.append(f"positions: {counted:,}" + ("  same" if positions == counted else f"  DIFFERS: published {positions:,}"))
    if root is not None:
        found_root = table_root(table)
        same &= found_root == root
        lines.append(f"root: {found_root[0]}, the game ends on ply {found_root[1]}" + ("  same" if found_root == root else f"  DIFFERS: published {root}"))
    return lines, same


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", type=Path, help="a compact table file of a four-in-a-row gravity game")
    parser.add_argument("--game", default=None, help="the table's game (default: as its file says)")
    args = parser.parse_args()
    table = Tablebase().open_file(args.table, game=None if args.game is None else parse_game(args.game), kind="compact")
    assert isinstance(table, CompactTable)
    try:
        lines, same = compare(table)
    except LookupError as error:
        print(f"check_outcome_counts: {error}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    print("every published figure equal" if same else "SOME FIGURES DIFFER")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
