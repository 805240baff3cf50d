"""The claimeven bound (solver/search/bitboard.py: ``claimeven_bound``) on Connect Four positions: it applies where
each line the side to move could still make comes after one of the opponent's, its distance is that of the
opponent's line completed first, and it is never below the exact score of any even position of Pons' six sets
(``../shared/data/connect4/pons_tests``, skipped where absent).

The small boards' dense tables check it on every position too (tests/test_search_engine.py; the 16-cell ones here,
in the slow set).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_search_engine import _claimeven_checked

from solver.rules.game import parse_game
from solver.search import from_moves
from solver.search.bitboard import G_BOARD, G_EVEN, NO_BOUND, claimeven_bound, has_line, possible
from solver.search.position import geometry_of

PONS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "connect4" / "pons_tests"
SETS = ["Test_L3_R1", "Test_L2_R1", "Test_L1_R1", "Test_L2_R2", "Test_L1_R2", "Test_L1_R3"]
GAME = parse_game("connect4")
GEO = geometry_of(GAME)
WORD = (1 << 64) - 1


def _bound(moves: str) -> tuple[int, bool]:
    """The bound of a position, and whether the side to move could make a line of the cells claimeven leaves it."""
    where = from_moves(GAME, moves)
    pos, mask = np.uint64(where.pos), np.uint64(where.mask)
    theirs = int(pos ^ mask) | (int(GEO[G_EVEN]) & ~int(mask) & ~int(possible(mask, GEO)) & WORD)
    mine = np.uint64(int(GEO[G_BOARD]) & ~theirs & WORD)
    return int(claimeven_bound(pos, mask, GEO)), bool(has_line(mine, GEO))


def test_the_bound_applies_where_each_line_the_side_to_move_could_make_comes_after_one_of_the_opponents() -> None:
    """Pons' Middle-Medium position scored -2 (a loss on ply 38): the side to move could still make a line of the
    cells claimeven leaves it, but the opponent completes one of its own first, so the bound is a loss, here exact."""
    bound, has_lines = _bound("656432257222236551373556")
    assert has_lines, "the side to move can make a line: the plain claimeven rule gives no bound"
    assert bound == -2


def test_the_bounds_distance_is_that_of_the_opponents_line_completed_first() -> None:
    """Pons' End-Easy position scored -2: the opponent's lowest line ends the game by ply 38 (-2); its highest empty
    cell of all its lines would only say by ply 40 (-1)."""
    assert _bound("473457735543145756116234731734")[0] == -2


@pytest.mark.parametrize("name", SETS)
def test_the_bound_is_never_below_the_exact_score_of_an_even_position_of_pons_sets(name: str) -> None:
    path = PONS / name
    if not path.is_file():
        pytest.skip(f"Pons' test set {name} is not beside the checkout (../shared/data/connect4/pons_tests)")
    bounded = 0
    for line in path.read_text().splitlines():
        moves, score = line.split()
        if len(moves) % 2 == 0:
            bound, _ = _bound(moves)
            assert bound == NO_BOUND or int(score) <= bound, f"{name} {moves}: bound {bound}, Pons' score {score}"
            bounded += bound != NO_BOUND
    assert name != "Test_L3_R1" or bounded > 150, f"the bound applies on End-Easy: {bounded}"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["4x4k4-gravity", "4x4k3-gravity"])
def test_the_bound_is_never_below_the_score_of_a_position_of_the_16_cell_tables(name: str) -> None:
    assert _claimeven_checked(name) > 500
