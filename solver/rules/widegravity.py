"""Gravity play on boards past 32 cells (Connect Four's 42): one board at a time, on Python integers.

The tables' rules (:class:`solver.rules.base.Rules`) read a board as a 64-bit word, X's
cells in the low 32 bits and O's above, so that numpy judges millions of boards at once. No table
of a board past 32 cells is built here (Connect Four's would hold 4.5 trillion positions), so
nothing judges many of them at once; but a position answered by search (:mod:`solver.search`,
:mod:`solver.store.searched`) is still a position of the rule: its moves, its landing cells, whether
it is over and whether a legal game reaches it. :class:`WideRules` answers those, one board at
a time, with the same rule and the same words: its board word holds O's cells from bit
:data:`WIDE_SHIFT`. The methods over many boards refuse with :class:`~solver.errors.GameTooLargeError`.

>>> from solver.rules.game import parse_game
>>> game = parse_game("connect4")
>>> rules = game.rules
>>> x = 1 << game.cell(5, 3) | 1 << game.cell(5, 4)  # X on the bottom row's d and e, O on c and on d's second row
>>> o = 1 << game.cell(5, 2) | 1 << game.cell(4, 3)
>>> rules.judge_word(rules.join(x, o)), bin(rules.moves(x, o)).count("1"), rules.move.form
((0, 4), 7, 'column')
"""

from __future__ import annotations

from typing import NoReturn

import numpy as np

from ..errors import GameTooLargeError
from .base import DRAWN, IN_PLAY, INVALID, Rules
from .grid import Grid
from .parts import MoveRule, Scoring, Shape

WIDE_SHIFT = 64
"""Where O's cells start in a wide board word (X's are the low bits)."""


class WideRules(Rules):
    """A rule on a board of 33 to 64 cells (module docstring): its board, move rule and scoring, one board at a time."""

    def __init__(self, game: Shape, grid: Grid, move: MoveRule, scoring: Scoring) -> None:  # not Rules': its tables are for 32-bit words
        self.game = game
        self.grid = grid
        self.move = move
        self.scoring = scoring
        self.full = game.full_mask

    @staticmethod
    def split(word: int) -> tuple[int, int]:
        """X's and O's cells of a wide board word."""
        return word & ((1 << WIDE_SHIFT) - 1), word >> WIDE_SHIFT

    @staticmethod
    def join(x: int, o: int) -> int:
        """The wide board word of X's cells ``x`` and O's cells ``o``."""
        return x | o << WIDE_SHIFT

    def judge_word(self, word: int) -> tuple[int, int]:
        """``(status, pieces)`` of a wide board word (:meth:`solver.rules.base.Rules.judge_word`)."""
        x, o = self.split(word)
        nx, no = x.bit_count(), o.bit_count()
        if nx not in (no, no + 1) or self.move.misplaced(x | o):
            return INVALID, nx + no
        if not (self.has_line(x) or self.has_line(o)):
            return (DRAWN if nx + no == self.game.cells else IN_PLAY), nx + no
        return self._won(x, o, nx, no), nx + no

    # -- many boards: a table's business, and no table of these boards is built here --------
    def _many(self) -> NoReturn:
        raise GameTooLargeError(f"{self.game.name} has {self.game.cells} cells: its boards are judged one at a time here (no table of them is built)")

    def classify_words(self, words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self._many()

    def statuses_of_words(self, words: np.ndarray) -> np.ndarray:
        self._many()

    def winning_cells_many(self, masks: np.ndarray, empty: np.ndarray) -> np.ndarray:
        self._many()

    def completes_line(self, masks: np.ndarray) -> np.ndarray:
        self._many()
