"""solver.encode_boards: many boards to codes at once, the same codes as one board at a time."""

from __future__ import annotations

import numpy as np
import pytest

import solver
from solver.encoding.board import render


def random_boards(count: int, rng: np.random.Generator) -> np.ndarray:
    """Reachable 3x3 boards as 1/-1/0 arrays, from random codes of the table."""
    table = solver.build_table()
    codes = rng.choice(table.reachable_codes(), count)
    digits = (codes[:, None] // 3 ** np.arange(9)) % 3
    return np.where(digits == 2, -1, digits).reshape(count, 3, 3)


def test_batch_codes_equal_one_board_at_a_time() -> None:
    boards = random_boards(500, np.random.default_rng(1))
    codes = solver.encode_boards(boards)
    assert codes.shape == (500,)
    for board, code in zip(boards, codes, strict=True):
        assert solver.encode(board) == code, render(solver.Game(), int(code))


def test_any_leading_shape_and_flat_cells_are_accepted() -> None:
    boards = random_boards(24, np.random.default_rng(2))
    codes = solver.encode_boards(boards)
    assert np.array_equal(solver.encode_boards(boards.reshape(4, 6, 3, 3)), codes.reshape(4, 6))
    assert np.array_equal(solver.encode_boards(boards.reshape(24, 9)), codes)
    assert solver.encode_boards(boards[0]).shape == ()


def test_batch_lookup_of_encoded_boards_gives_every_value() -> None:
    boards = random_boards(2000, np.random.default_rng(3))
    batch = solver.lookup_codes(solver.encode_boards(boards))
    for board, value, plies in zip(boards[:200], batch.value[:200], batch.plies[:200], strict=True):
        position = solver.lookup(board)
        assert (position.value, position.plies) == (value, plies), position.board


def test_other_games_take_their_own_shape() -> None:
    boards = np.zeros((5, 4, 4), dtype=np.int8)
    boards[:, 1, 2] = 1
    assert solver.encode_boards(boards, game="4x4").tolist() == [3**6] * 5


@pytest.mark.parametrize(
    ("boards", "message"),
    [
        (np.zeros((2, 4, 4)), r"shape \(2, 4, 4\) do not end in \(3, 3\) or \(9,\) for 3x3k3"),
        (np.array([[[0, 0, 0], [0, 2, 0], [0, 0, 0]]]), r"boards\[0\] has 2 at row 1, col 1"),
        (np.array([[0] * 9, [0] * 8 + [7]]), r"boards\[1\] has 7 at row 2, col 2"),
        (np.array([["X"] * 9]), "must be an array of numbers"),
        (np.array(5), "must be an array of numbers"),
    ],
)
def test_bad_batches_name_the_board_and_cell(boards: np.ndarray, message: str) -> None:
    with pytest.raises(solver.InvalidBoardError, match=message):
        solver.encode_boards(boards)


def test_boards_of_another_game_suggest_the_game_argument_as_lookup_does() -> None:
    """Issue 24: ``encode_boards`` of 4x4 boards said only that the shape did not fit; ``lookup`` names ``game=``."""
    four = np.zeros((2, 4, 4), dtype=int)
    with pytest.raises(solver.InvalidBoardError) as batch:
        solver.encode_boards(four)
    with pytest.raises(solver.InvalidBoardError) as one:
        solver.lookup(four[0])
    hint = "for a 4x4 game pass game='4x4k4' (on the command line --game 4x4k4)"
    assert str(batch.value).endswith(hint) and hint in str(one.value)
    with pytest.raises(solver.InvalidBoardError, match=r"for flat boards of 16 cells pass their game, e\.g\. game='4x4k4'"):
        solver.encode_boards(four.reshape(2, 16))
    assert np.array_equal(solver.encode_boards(four, game="4x4k4"), [0, 0]), "and the game it names reads them"
