"""The build's forward pass held to the published counts of a gravity board's positions, ply by ply.

A gravity build first finds, layer by layer, which boards a game reaches (:mod:`solver.retrograde.gravity`); its
table then holds exactly those. This script runs that pass alone (:func:`solver.retrograde.gravity.count_reached`:
counts only, no file) and compares each ply's count with Böck's per-ply win/draw/loss counts where they are published
(``boeck_perply/results_solve_wW_hH.csv``: 5x5, 5x6, 6x6 and Connect Four's boards) and the total with Böck's table of
every board's positions (``c4_position_counts_wxh_boeck.csv``: 4x8 and 5x7 too), read in ``../shared/data/connect4/``
beside the checkout. It takes minutes for the large boards (6x6k4-gravity: about half an hour on 2 cores).

    python scripts/check_reach_counts.py 6x6k4-gravity --jobs 2

It prints a line a ply (the count, the published one, the time and the peak memory so far), then the total, and exits
with status 1 when any count differs, 2 when nothing published covers the board. As the build's pass does, it reads the
boards in play of the layer before from a file (``--scratch``), mapped, so its memory is what the kernel keeps of it.
"""

from __future__ import annotations

import argparse
import csv
import resource
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent)]  # this checkout's solver

from solver.encoding.layouts import layout  # noqa: E402
from solver.retrograde.builddir import BuildDir  # noqa: E402
from solver.retrograde.gravity import PlayingFiles, count_reached  # noqa: E402
from solver.rules.game import Game, parse_game  # noqa: E402

DATA = HERE.parents[1] / "shared" / "data" / "connect4"
"""The published results (../shared/data/connect4/README.md), read there, never copied."""


def per_ply_outcomes(game: Game, data: Path = DATA) -> dict[int, tuple[int, int, int]] | None:
    """Böck's positions won, drawn and lost for the side to move at each ply, or None if not published."""
    path = data / "boeck_perply" / f"results_solve_w{game.cols}_h{game.rows}.csv"
    if not path.is_file():
        return None
    with path.open(newline="") as handle:
        rows = csv.DictReader(handle, skipinitialspace=True)
        return {int(row["ply"]): (int(row["wincount"]), int(row["drawcount"]), int(row["lostcount"])) for row in rows}


def per_ply(game: Game, data: Path = DATA) -> dict[int, int] | None:
    """Böck's positions of each ply (won, drawn and lost for the side to move, added up), or None if not published."""
    outcomes = per_ply_outcomes(game, data)
    return None if outcomes is None else {ply: sum(counts) for ply, counts in outcomes.items()}


def board_row(game: Game, name: str, data: Path = DATA) -> dict[str, str] | None:
    """The row of the board's size (``width_columns``, ``height_rows``) in the published file ``name`` (``#`` lines
    are comments), or None if the file or the row is not there."""
    path = data / name
    if not path.is_file():
        return None
    with path.open(newline="") as handle:
        for row in csv.DictReader(line for line in handle if not line.startswith("#")):
            if (int(row["width_columns"]), int(row["height_rows"])) == (game.cols, game.rows):
                return row
    return None


def total(game: Game, data: Path = DATA) -> int | None:
    """Böck's count of all the board's positions, or None if not published."""
    row = board_row(game, "c4_position_counts_wxh_boeck.csv", data)
    return None if row is None else int(row["positions"])


def _line(ply: int, boards: int, slots: int, wanted: int | None, start: float) -> list[int]:
    """Print a ply's line; ``[ply]`` if its count differs from the published one, else ``[]``."""
    mark = "" if wanted is None else ("  same" if wanted == boards else f"  DIFFERS: published {wanted:,}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"ply {ply:2d}: {boards:>15,} of {slots:>16,} slots{mark}  ({time.perf_counter() - start:7.1f} s, {peak:.2f} GiB peak)", flush=True)
    return [] if wanted in (None, boards) else [ply]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", help="a gravity game, ROWSxCOLSk4-gravity (rows are the height)")
    parser.add_argument("--jobs", "-j", type=int, default=1, help="threads of the forward pass (default 1)")
    parser.add_argument("--plies", type=int, default=None, metavar="P", help="stop after ply P (the total is then not compared)")
    parser.add_argument(
        "--scratch", default=None, metavar="DIR", help="where the bits in play of two layers go (default: the system's temporary directory; 6x6: 19 GB)"
    )
    args = parser.parse_args()
    game = parse_game(args.game)
    if game.variant != "gravity" or game.k != 4:
        parser.error(f"{game.name}: the published counts are of four in a row under gravity")
    plies, whole = per_ply(game), total(game)
    if plies is None and whole is None:
        print(f"{game.name}: no published count in {DATA}", file=sys.stderr)
        return 2
    sizes = layout(game).layer_sizes
    print(f"{game.name}: {sum(sizes):,} slots; published: {'per ply' if plies else 'no per-ply counts'}, {'a total' if whole else 'no total'}")
    start, found, wrong = time.perf_counter(), 0, []
    with tempfile.TemporaryDirectory(prefix="check-reach-", dir=args.scratch) as scratch:
        build = BuildDir(Path(scratch) / "build", game)
        build.prepare()
        playing = PlayingFiles(build)  # the boards in play of the layer before mapped from a file, not held
        try:
            for ply, boards in count_reached(game, jobs=args.jobs, plies=args.plies, playing=playing):
                found += boards
                wrong += _line(ply, boards, sizes[ply], None if plies is None else plies.get(ply), start)
        finally:
            playing.close()
    finished = args.plies is None or args.plies >= game.cells
    if finished and whole is not None and whole != found:
        wrong.append(-1)
    said = "" if not finished or whole is None else f" (published {whole:,}: {'same' if whole == found else 'DIFFERS'})"
    print(f"{game.name}: {found:,} positions{said} in {time.perf_counter() - start:.1f} s")
    if wrong:
        print(
            f"{game.name}: the forward pass differs from the published counts at plies {[p for p in wrong if p >= 0]}{' and in all' if -1 in wrong else ''}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
