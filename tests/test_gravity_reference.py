"""The reference's gravity play (tests/reference.py) checked against itself, published counts and hand-solved boards.

Gravity games (Connect Four's family) have no table to compare with yet, so the reference must
earn trust on its own:

* two searches written apart, the minimax's depth-first :meth:`Reference.reachable` and the
  breadth-first bit-mask :func:`reachable_counts`, find the same number of boards at every ply;
  misère play reaches the same boards as normal play;
* the backward :meth:`Reference.is_reachable` agrees with the forward set on every settled board
  of small games, and :func:`can_stack` (lines ignored) agrees with it wherever no line is on the board;
* published counts: Connect Four's positions per ply (OEIS A212693) and the number of complete
  games on small boards (OEIS A342329), both in tests/golden.py with their sources;
* positions solved by hand: a column of three completed, a forced block, a floating cell that is
  no move;
* the left-right mirror is the only symmetry, and it carries every solution, best moves included.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator

import golden
import pytest
from reference import DRAW, LOSS, WIN, Board, O, Reference, X, can_stack, line_masks, reachable_counts, reference, stacking_order, winning_lines

SMALL_GAMES = ["2x2k2", "3x3k3", "3x4k3", "4x3k3", "4x4k3", "4x4k4"]
"""Gravity games small enough for the tuple-based minimax to search whole (a second or two at most)."""

SETTLED_GAMES = ["2x2k2", "3x3k3", "3x4k3", "4x3k3"]
"""Gravity games small enough to list every settled board (15**4 = 50,625 on 3x4)."""

SAMPLE_EVERY = {"4x4k4": 8}
"""Games whose slower checks look at every n-th reachable board in sorted order (161,029 on 4x4k4); the others at all."""


def some_reachable(ref: Reference) -> list[Board]:
    """The reachable boards of ``ref``, or every n-th of them in sorted order on the games of :data:`SAMPLE_EVERY`."""
    every = SAMPLE_EVERY.get(f"{ref.rows}x{ref.cols}k{ref.k}", 1)
    return sorted(ref.reachable())[::every]


def per_ply(boards: frozenset[Board]) -> list[int]:
    """How many of ``boards`` have 0, 1, 2, ... pieces, up to the most any has."""
    pieces = Counter(sum(1 for digit in board if digit) for board in boards)
    return [pieces[n] for n in range(max(pieces) + 1)]


def settled_boards(rows: int, cols: int) -> Iterator[Board]:
    """Every board whose pieces all rest on the bottom row or on a piece, whatever the counts or lines."""
    stacks = [stack for height in range(rows + 1) for stack in itertools.product((X, O), repeat=height)]
    for columns in itertools.product(stacks, repeat=cols):
        board = [0] * (rows * cols)
        for col, stack in enumerate(columns):
            for height, piece in enumerate(stack):
                board[(rows - 1 - height) * cols + col] = piece
        yield tuple(board)


def board_of_rows(*rows: str) -> Board:
    """A board from its rows, top first, as ``"X..."`` strings (``.`` empty)."""
    return tuple(".XO".index(char) for row in rows for char in row)


def mirror(ref: Reference, board: Board) -> Board:
    """``board`` with its columns in reverse order."""
    return tuple(board[row * ref.cols + ref.cols - 1 - col] for row in range(ref.rows) for col in range(ref.cols))


# -- the two forward searches ----------------------------------------------------------------


@pytest.mark.parametrize("game", SMALL_GAMES)
def test_the_breadth_first_count_and_the_minimax_search_find_as_many_boards_at_every_ply(game: str) -> None:
    ref = reference(f"{game}-gravity")
    assert reachable_counts(ref.rows, ref.cols, ref.k, gravity=True) == per_ply(ref.reachable())


@pytest.mark.parametrize("game", ["2x2k2", "3x3k3", "3x4k3"])
def test_the_breadth_first_count_without_gravity_matches_the_minimax_search_too(game: str) -> None:
    ref = reference(game)
    assert reachable_counts(ref.rows, ref.cols, ref.k, gravity=False) == per_ply(ref.reachable())


def test_the_breadth_first_count_finds_tic_tac_toes_published_5478_positions() -> None:
    assert sum(reachable_counts(3, 3, 3, gravity=False)) == golden.POSITIONS["3x3k3"]


@pytest.mark.parametrize("game", ["2x2k2", "3x3k3", "3x4k3", "4x3k3", "4x4k4"])
def test_misere_gravity_reaches_exactly_the_boards_of_normal_gravity(game: str) -> None:
    normal, misere = reference(f"{game}-gravity"), reference(f"{game}-gravity-misere")
    assert misere.reachable() == normal.reachable()


@pytest.mark.parametrize("game", SMALL_GAMES)
def test_every_reachable_gravity_board_is_settled_and_its_moves_are_the_landing_cells_of_its_columns(game: str) -> None:
    ref = reference(f"{game}-gravity")
    for board in ref.reachable():
        assert ref.settled(board)
        landings = [ref.drop(board, col) for col in range(ref.cols)]
        assert ref.moves(board) == sorted(cell for cell in landings if cell is not None)


def test_a_count_stopped_after_some_plies_is_the_start_of_the_whole_count() -> None:
    whole = reachable_counts(4, 4, 4)
    assert reachable_counts(4, 4, 4, plies=5) == whole[:6]
    assert reachable_counts(4, 4, 4, plies=40) == whole


@pytest.mark.parametrize("rows, cols, k", [(1, 1, 1), (2, 2, 2), (3, 4, 3), (4, 3, 3), (5, 4, 4), (6, 7, 4), (2, 6, 3)])
def test_the_enumerations_line_masks_are_the_minimaxs_lines(rows: int, cols: int, k: int) -> None:
    lines = {sum(1 << cell for cell in line) for line in winning_lines(rows, cols, k)}
    assert set(line_masks(rows, cols, k)) == lines
    assert len(line_masks(rows, cols, k)) == len(lines)


# -- published counts ----------------------------------------------------------------------


def test_connect_fours_first_eight_plies_have_the_published_numbers_of_positions() -> None:
    # OEIS A212693 (tests/golden.py); plies 7 and 8 are the first where a four can stop a game.
    assert reachable_counts(6, 7, 4, plies=8) == list(golden.CONNECT_FOUR_POSITIONS_BY_PLY[:9])


@pytest.mark.parametrize("game", ["1x2k4-gravity", "2x3k4-gravity", "3x4k4-gravity"])
def test_complete_games_on_small_connect_four_boards_have_the_published_counts(game: str) -> None:
    # OEIS A342329 (tests/golden.py); its 4x5 term (1.5e11 games) is beyond the tuple-based reference.
    assert sum(reference(game).games()) == golden.CONNECT_FOUR_GAMES[game]


# -- reachability, backward and by stacking ---------------------------------------------------


@pytest.mark.parametrize("game", SETTLED_GAMES)
def test_the_backward_search_agrees_with_the_forward_set_on_every_settled_board(game: str) -> None:
    ref = reference(f"{game}-gravity")
    reachable = ref.reachable()
    disagree = [board for board in settled_boards(ref.rows, ref.cols) if ref.is_reachable(board) != (board in reachable)]
    assert not disagree, f"{len(disagree)} boards, e.g. {disagree[:3]}"


def test_a_piece_over_an_empty_cell_is_neither_reachable_nor_stackable() -> None:
    ref = reference("3x3k3-gravity")
    floating = board_of_rows("...", "X..", ".O.")  # X hangs over the empty bottom-left cell
    assert not ref.settled(floating)
    assert not ref.is_reachable(floating)
    assert not can_stack(floating, 3, 3)


@pytest.mark.parametrize("game", SETTLED_GAMES)
def test_stacking_agrees_with_reachability_on_every_board_without_a_line(game: str) -> None:
    # Pieces are only ever added, so a board without a line had none on the way: lines cannot
    # have stopped any stacking order, and reachable means stackable.
    ref = reference(f"{game}-gravity")
    reachable = ref.reachable()
    for board in settled_boards(ref.rows, ref.cols):
        if not ref.winner(board):
            assert can_stack(board, ref.rows, ref.cols) == (board in reachable), board


@pytest.mark.parametrize("game", SMALL_GAMES)
def test_every_reachable_board_can_be_stacked_and_the_order_found_rebuilds_it(game: str) -> None:
    ref = reference(f"{game}-gravity")
    for board in some_reachable(ref):
        order = stacking_order(board, ref.rows, ref.cols)
        assert order is not None, board
        assert replay(ref, order) == board


def replay(ref: Reference, columns: tuple[int, ...]) -> Board:
    """The board after dropping pieces into ``columns`` in turn, X first, lines ignored."""
    board = ref.empty
    for col in columns:
        cell = ref.drop(board, col)
        assert cell is not None, f"column {col} is full"
        board = board[:cell] + (X if board.count(X) == board.count(O) else O,) + board[cell + 1 :]
    return board


def test_a_board_stackable_only_through_a_line_is_not_reachable() -> None:
    ref = reference("2x2k2-gravity")
    board = board_of_rows("OO", "XX")  # X's bottom row ended the game at ply 3, before O's second piece
    assert stacking_order(board, 2, 2) in {(0, 0, 1, 1), (1, 1, 0, 0)}
    assert not ref.is_reachable(board)
    assert board not in ref.reachable()


def test_stacking_refuses_piece_counts_no_alternating_game_has() -> None:
    assert not can_stack(board_of_rows("..", "OO"), 2, 2)  # O moved first
    assert not can_stack(board_of_rows("..", "XX"), 2, 2)  # X two moves ahead
    assert can_stack(board_of_rows("X.", "XO"), 2, 2)  # X, O beside it, X on top
    assert not can_stack(board_of_rows("X.", "O."), 2, 2)  # O under X in one column: O first
    assert can_stack(board_of_rows("O.", "X."), 2, 2)


def test_stacking_a_full_connect_four_board_built_at_random_finds_an_order_that_rebuilds_it() -> None:
    ref = Reference(6, 7, 4, gravity=True)
    rng = random.Random(20240601)
    columns = [col for col in range(7) for _ in range(6)]
    rng.shuffle(columns)
    board = replay(ref, tuple(columns))
    order = stacking_order(board, 6, 7)
    assert order is not None
    assert replay(ref, order) == board


# -- hand-solved positions -----------------------------------------------------------------


def test_x_wins_in_one_by_dropping_a_fourth_piece_on_its_column_of_three() -> None:
    ref = reference("4x4k4-gravity")
    board = board_of_rows("....", "X...", "X...", "XOOO")
    assert ref.moves(board) == [0, 9, 10, 11]
    assert ref.solve(board) == (WIN, 1, frozenset({0}))
    assert ref.value(board) == 1


def test_in_misere_the_same_drop_loses_at_once_and_is_not_a_best_move() -> None:
    ref = reference("4x4k4-gravity-misere")
    board = board_of_rows("....", "X...", "X...", "XOOO")
    assert ref.move_outcomes(board)[0] == (LOSS, 1)
    assert 0 not in ref.solve(board).best


def test_o_must_block_the_column_of_three_and_every_other_move_loses_in_two() -> None:
    ref = reference("4x4k4-gravity")
    board = board_of_rows("....", "X...", "X...", "XOO.")
    outcomes = ref.move_outcomes(board)
    assert set(outcomes) == {0, 9, 10, 15}
    assert {cell: outcome for cell, outcome in outcomes.items() if cell != 0} == {9: (LOSS, 2), 10: (LOSS, 2), 15: (LOSS, 2)}
    solution = ref.solve(board)
    assert solution.best == frozenset({0})
    assert (solution.result, solution.plies) == outcomes[0] != (LOSS, 2)


def test_a_winning_cell_that_floats_is_no_move_under_gravity() -> None:
    # X has the centre and the bottom-right corner: the top-left corner completes the diagonal,
    # at once off-gravity, but under gravity it floats over an empty cell.
    board = board_of_rows("...", ".X.", "OOX")
    assert reference("3x3k3").solve(board) == (WIN, 1, frozenset({0}))
    gravity = reference("3x3k3-gravity")
    assert gravity.moves(board) == [1, 3, 5]
    assert gravity.move_outcomes(board)  # moves exist, yet none wins at once
    assert all(outcome != (WIN, 1) for outcome in gravity.move_outcomes(board).values())


def test_a_full_gravity_board_without_a_line_is_a_draw_with_no_plies_left() -> None:
    ref = reference("2x3k3-gravity")
    board = board_of_rows("OXO", "XOX")
    assert ref.is_reachable(board)
    assert ref.solve(board) == (DRAW, 0, frozenset())


# -- symmetry ----------------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["3x3k3", "3x4k3", "4x4k4", "6x7k4"])
def test_the_gravity_symmetries_are_the_identity_and_the_left_right_mirror_only(game: str) -> None:
    ref = reference(f"{game}-gravity")
    identity = tuple(range(ref.cells))
    flipped = tuple(row * ref.cols + ref.cols - 1 - col for row in range(ref.rows) for col in range(ref.cols))
    assert ref.symmetries() == (identity, flipped)


def test_upside_down_is_no_symmetry_under_gravity() -> None:
    ref = reference("3x3k3-gravity")
    board = board_of_rows("...", "...", "X..")
    upside_down = board_of_rows("X..", "...", "...")
    assert ref.is_reachable(board)
    assert not ref.is_reachable(upside_down)
    assert reference("3x3k3").is_reachable(upside_down)


@pytest.mark.parametrize("game", ["3x4k3-gravity", "4x3k3-gravity", "4x4k3-gravity", "4x4k4-gravity", "4x4k4-gravity-misere"])
def test_a_mirrored_board_has_the_same_result_and_plies_and_the_mirrored_best_moves(game: str) -> None:
    ref = reference(game)
    for board in some_reachable(ref):
        solution, image = ref.solve(board), ref.solve(mirror(ref, board))
        flipped_best = frozenset(cell - cell % ref.cols + ref.cols - 1 - cell % ref.cols for cell in solution.best)
        assert (image.result, image.plies, image.best) == (solution.result, solution.plies, flipped_best), board
