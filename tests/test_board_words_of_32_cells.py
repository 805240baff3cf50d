"""A board word holds X's cells in its low 32 bits and O's in its high 32 (solver/rules/base.py): on a board of 32
cells, O on the last cell sets the word's top bit, which a signed 64-bit word (numpy's int64, and the Python ints
made from it) reads as a negative number. These tests hold the rules and the table's readers to the board itself on
such words (4x8k4-gravity, the first table of 32 cells: its look-ups read a move's child as "no position" before)."""

from __future__ import annotations

import numpy as np

from solver.encoding.coderules import code_rules
from solver.rules.game import parse_game

GAME = parse_game("4x8k4-gravity")
ROWS, COLS = 4, 8


def _code(cells: dict[int, int]) -> int:
    """The base-3 code of a board given as ``{cell: 1 for X, 2 for O}`` (cell ``row * cols + col``, row 0 the top)."""
    return sum(piece * 3**cell for cell, piece in cells.items())


def _plain_drops(cells: dict[int, int]) -> set[int]:
    """Where a piece dropped in each column that is not full lands: the lowest empty cell, by looking at the board."""
    found = set()
    for col in range(COLS):
        empty = [row * COLS + col for row in range(ROWS) if row * COLS + col not in cells]
        if empty:
            found.add(max(empty))
    return found


# O on cell 31 (the bottom row's last column) and X beside it: two pieces, X to move.
O_LAST = {31: 2, 30: 1}
# Sixteen pieces, the two bottom rows full, O on cell 31, eight pieces each: X to move.
O_LAST_MIDGAME = {24: 1, 25: 2, 26: 1, 27: 1, 28: 2, 29: 1, 30: 2, 31: 2, 16: 2, 17: 1, 20: 1, 21: 2, 22: 1, 23: 2, 19: 2, 18: 1}


def test_a_word_with_o_on_the_last_cell_splits_into_the_boards_own_cells() -> None:
    for cells in (O_LAST, O_LAST_MIDGAME):
        word = code_rules(GAME).word_of(_code(cells))
        x, o = GAME.rules.split(word)
        assert x == sum(1 << cell for cell, piece in cells.items() if piece == 1)
        assert o == sum(1 << cell for cell, piece in cells.items() if piece == 2)


def test_the_moves_and_pieces_of_a_board_with_o_on_the_last_cell_are_the_boards() -> None:
    coded = code_rules(GAME)
    for cells in (O_LAST, O_LAST_MIDGAME):
        code = _code(cells)
        x, o = GAME.rules.split(coded.word_of(code))
        moves = GAME.rules.moves(x, o)
        assert {cell for cell in range(GAME.cells) if moves >> cell & 1} == _plain_drops(cells)
        status, pieces = coded.judge(code)
        assert pieces == len(cells)
        many_status, many_pieces = coded.classify(np.array([code], dtype=np.int64))
        assert (int(many_status[0]), int(many_pieces[0])) == (status, pieces)
