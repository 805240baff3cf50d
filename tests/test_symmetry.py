"""Property tests: the tables respect the board's symmetries and the minimax recurrence.

A random legal game prefix gives a reachable position. Then:

* its symmetric images (8 on 3x3; 4 on 3x4k3: two mirrors and the half turn)
  have the same score, value, result and plies, and their best moves are the
  position's best moves carried by the same symmetry;
* its score is the best over its children (a child scoring ``s`` is worth
  ``sign(s) - s`` to the parent), and its best moves are exactly the moves to
  the children reaching that score.

The symmetry maps are the reference's own (tests/reference.py), not the package's.
"""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import Board, code, reference

import solver
from solver.encoding.board import render
from solver.rules.score import UNREACHABLE

GAMES = ["3x3k3", "3x4k3"]
EXAMPLES = settings(max_examples=300, deadline=None)


@cache
def table(name: str) -> solver.Table:
    return solver.build_table(game=name)


@st.composite
def game_prefixes(draw: st.DrawFn, name: str) -> Board:
    """The board after a random legal sequence of moves (stopping early if the game ends)."""
    ref = reference(name)
    order = draw(st.permutations(range(ref.cells)))
    length = draw(st.integers(0, ref.cells))
    board = ref.empty
    for cell in order[:length]:
        if ref.is_over(board):
            break
        board = ref.play(board, cell)
    return board


def _sign(score: int) -> int:
    return (score > 0) - (score < 0)


@pytest.mark.parametrize("name", GAMES)
def test_reference_symmetries_are_the_whole_symmetry_group(name: str) -> None:
    ref = reference(name)
    perms = ref.symmetries()
    assert len(perms) == (8 if ref.rows == ref.cols else 4)
    lines = {frozenset(line) for line in ref.lines}
    for perm in perms:
        assert {frozenset(perm[cell] for cell in line) for line in lines} == lines, f"{perm} does not map lines to lines"


@pytest.mark.parametrize("name", GAMES + ["4x4k4", "2x6k3", "1x5k3"])
def test_package_symmetries_are_the_reference_symmetries(name: str) -> None:
    # The package lists 8 maps for a square and 4 for a rectangle; on a 1-high board two of
    # those coincide. As sets they must be the board's symmetry group.
    assert set(solver.parse_game(name).rules.symmetries) == set(reference(name).symmetries())


def _check_images(name: str, board: Board) -> None:
    ref, tab = reference(name), table(name)
    game = tab.game
    position = tab.lookup(code(board))
    for perm in ref.symmetries():
        image = ref.image(board, perm)
        other = tab.lookup(code(image))
        where = f"{name} {render(game, code(board))} and its image {render(game, code(image))} under {perm}"
        assert other.score == position.score, f"{where}: scores {position.score} and {other.score}"
        assert (other.value, other.result, other.plies) == (position.value, position.result, position.plies), where
        carried = {perm[cell] for cell in position.best_cells}
        assert set(other.best_cells) == carried, f"{where}: best moves {position.best_cells} carried to {sorted(carried)}, image has {other.best_cells}"


def _check_children(name: str, board: Board) -> None:
    ref, tab = reference(name), table(name)
    game = tab.game
    c = code(board)
    where = f"{name} {render(game, c)} (code {c})"
    position = tab.lookup(c)
    if ref.is_over(board):
        expected = -100 if ref.winner(board) else 0
        assert (position.score, position.best_mask) == (expected, 0), f"{where}: finished board scores {position.score}, best {position.best_cells}"
        return
    piece = ref.to_move(board)
    worth = {}
    for cell in range(ref.cells):
        if board[cell] == 0:
            child = tab.score_of(c + piece * 3**cell)
            assert child != UNREACHABLE, f"{where}: the move at cell {cell} leads to an unreachable code"
            worth[cell] = _sign(child) - child
    best = max(worth.values())
    assert position.score == best, f"{where}: score {position.score}, best over children {best} ({worth})"
    reaching = {cell for cell, score in worth.items() if score == best}
    assert set(position.best_cells) == reaching, f"{where}: best moves {position.best_cells}, children reaching {best}: {sorted(reaching)}"
    assert {m.cell: m.score for m in position.moves} == worth, f"{where}: Position.moves scores"


@EXAMPLES
@given(board=game_prefixes("3x3k3"))
def test_tictactoe_symmetric_positions_have_the_same_solution(board: Board) -> None:
    _check_images("3x3k3", board)


@EXAMPLES
@given(board=game_prefixes("3x4k3"))
def test_3x4k3_symmetric_positions_have_the_same_solution(board: Board) -> None:
    _check_images("3x4k3", board)


@EXAMPLES
@given(board=game_prefixes("3x3k3"))
def test_tictactoe_score_is_the_best_over_children_and_best_moves_reach_it(board: Board) -> None:
    _check_children("3x3k3", board)


@EXAMPLES
@given(board=game_prefixes("3x4k3"))
def test_3x4k3_score_is_the_best_over_children_and_best_moves_reach_it(board: Board) -> None:
    _check_children("3x4k3", board)
