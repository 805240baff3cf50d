"""The forward pass of the gravity build counts the boards legal games reach, ply by ply, as the plain reference's
breadth-first enumeration (tests/reference.py) and Böck's published counts (../shared/data/connect4, read there and
skipped where absent) do, on boards of 36 and 35 cells too (6x6 and 5x7, whose tables issue 40 asks for), in their
first plies here and in all of them in ``scripts/check_reach_counts.py`` (half an hour each)."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from reference import reachable_counts  # type: ignore[import-not-found]

from solver.retrograde import gravity
from solver.retrograde.builddir import BuildDir
from solver.rules.game import parse_game

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "connect4"
SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "check_reach_counts.py"


def _boeck_per_ply(cols: int, rows: int) -> list[int]:
    path = DATA / "boeck_perply" / f"results_solve_w{cols}_h{rows}.csv"
    if not path.is_file():
        pytest.skip(f"Böck's per-ply counts {path.name} are not beside the checkout (../shared/data/connect4/boeck_perply)")
    with path.open(newline="") as handle:
        found = {int(row["ply"]): sum(int(row[key]) for key in ("wincount", "drawcount", "lostcount")) for row in csv.DictReader(handle, skipinitialspace=True)}
    return [found[ply] for ply in range(len(found))]


@pytest.mark.parametrize("name", ["6x6k4-gravity", "5x7k4-gravity", "4x8k4-gravity"])
def test_the_forward_pass_of_6x6_5x7_and_4x8_reaches_the_boards_the_reference_enumerates_in_their_first_plies(name: str) -> None:
    game = parse_game(name)
    plies = 9
    counted = list(gravity.count_reached(game, jobs=2, plies=plies))
    assert [ply for ply, _ in counted] == list(range(plies + 1))
    assert [boards for _, boards in counted] == reachable_counts(game.rows, game.cols, game.k, plies=plies)


def test_the_forward_pass_counts_boecks_positions_of_5x5_at_every_ply_and_of_6x6_at_its_first_twelve() -> None:
    assert [boards for _, boards in gravity.count_reached(parse_game("5x5k4-gravity"), jobs=2)] == _boeck_per_ply(5, 5)
    assert [boards for _, boards in gravity.count_reached(parse_game("6x6k4-gravity"), jobs=2, plies=12)] == _boeck_per_ply(6, 6)[:13]


def test_counting_the_boards_reached_gives_the_bits_of_the_pass_that_keeps_them_in_memory_or_in_files(tmp_path: Path) -> None:
    game = parse_game("4x4k3-gravity-misere")
    kept = [int(np.unpackbits(bits).sum()) for _, bits in gravity.reach_layers(game, jobs=2)]
    assert [boards for _, boards in gravity.count_reached(game, jobs=2)] == kept
    assert len(kept) == game.cells + 1 and sum(kept) > 0
    build = BuildDir(tmp_path / "build", game)
    build.prepare()
    playing = gravity.PlayingFiles(build)
    seen: list[list[str]] = []
    for _, boards in gravity.count_reached(game, jobs=2, playing=playing):
        seen.append(sorted(path.name for path in build.path.iterdir()))
        assert boards == kept[len(seen) - 1]
    playing.close()
    assert seen[5] == ["playing-05.bits"] and all(len(names) == 1 for names in seen), "the layer before's file is deleted as the next is found"
    assert not list(build.path.iterdir())


def test_the_script_says_same_for_5x5_and_exits_0() -> None:
    if not DATA.is_dir():
        pytest.skip("the published counts are not beside the checkout (../shared/data/connect4)")
    done = subprocess.run([sys.executable, str(SCRIPT), "5x5k4-gravity", "--jobs", "2"], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("  same") == 26 and "69,763,700 positions (published 69,763,700: same)" in done.stdout
