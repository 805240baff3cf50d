"""Gravity play on boards past 32 cells (6x6's 36, Connect Four's 42): boards as two masks, not one 64-bit word.

The rules of boards up to 32 cells (:class:`solver.rules.base.Rules`) read a board as one 64-bit
word, X's cells in the low 32 bits and O's above. Past 32 cells a board does not fit one word:
:class:`WideRules` reads one board as a Python int (O's cells from bit :data:`WIDE_SHIFT`) and
many boards as an int64 array of shape ``(boards, 2)``, X's cells and O's. The same rule answers
both ways: one board for the search (:mod:`solver.search`, :mod:`solver.store.searched`) and a
table's look-ups, many boards for a table's batches (tables of up to 39 cells, whose base-3 codes
fit int64: :data:`solver.rules.catalog.TABLE_CELLS`).

>>> from solver.rules.game import parse_game
>>> game = parse_game("connect4")
>>> rules = game.rules
>>> x = 1 << game.cell(5, 3) | 1 << game.cell(5, 4)  # X on the bottom row's d and e, O on c and on d's second row
>>> o = 1 << game.cell(5, 2) | 1 << game.cell(4, 3)
>>> rules.judge_word(rules.join(x, o)), bin(rules.moves(x, o)).count("1"), rules.move.form
((0, 4), 7, 'column')
"""

from __future__ import annotations

import numpy as np

from .base import DRAWN, IN_PLAY, INVALID, Rules
from .grid import Grid
from .parts import MoveRule, Scoring, Shape

WIDE_SHIFT = 64
"""Where O's cells start in a wide board word (X's are the low bits)."""


class WideRules(Rules):
    """A rule on a board of 33 to 64 cells (module docstring): its board, move rule and scoring.

    One board is a Python int (O's cells from bit :data:`WIDE_SHIFT`); many boards are an int64 array
    of shape ``(boards, 2)``, X's cells in column 0 and O's in column 1 (:meth:`join_many`), which the
    many-board methods of :class:`~solver.rules.base.Rules` read through :meth:`split_many` and
    :meth:`flat_words`: each player's lines are found apart (:meth:`_lines`)."""

    def __init__(self, game: Shape, grid: Grid, move: MoveRule, scoring: Scoring) -> None:  # not Rules': its shifts are for 32-bit halves
        if game.cells > WIDE_SHIFT:
            raise ValueError(f"{game.name} has {game.cells} cells: wide board words hold at most {WIDE_SHIFT}")
        self._compose(game, grid, move, scoring)

    @staticmethod
    def split(word: int) -> tuple[int, int]:
        """X's and O's cells of a wide board word."""
        return word & ((1 << WIDE_SHIFT) - 1), word >> WIDE_SHIFT

    @staticmethod
    def join(x: int, o: int) -> int:
        """The wide board word of X's cells ``x`` and O's cells ``o``."""
        return x | o << WIDE_SHIFT

    @staticmethod
    def split_many(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """X's and O's cells of many wide board words (``(boards, 2)`` int64: columns 0 and 1)."""
        return words[..., 0], words[..., 1]

    @staticmethod
    def join_many(x: np.ndarray, o: np.ndarray) -> np.ndarray:
        """The wide board words of many boards from X's and O's cells: ``(boards, 2)`` int64."""
        return np.stack((np.asarray(x, dtype=np.int64), np.asarray(o, dtype=np.int64)), axis=-1)

    @staticmethod
    def flat_words(words: np.ndarray) -> np.ndarray:
        """Many wide board words as a ``(boards, 2)`` int64 array (contiguous)."""
        return np.ascontiguousarray(words, dtype=np.int64).reshape(-1, 2)

    def judge_word(self, word: int) -> tuple[int, int]:
        """``(status, pieces)`` of a wide board word (:meth:`solver.rules.base.Rules.judge_word`)."""
        x, o = self.split(word)
        nx, no = x.bit_count(), o.bit_count()
        if nx not in (no, no + 1) or self.move.misplaced(x | o):
            return INVALID, nx + no
        if not (self.has_line(x) or self.has_line(o)):
            return (DRAWN if nx + no == self.game.cells else IN_PLAY), nx + no
        return self._won(x, o, nx, no), nx + no

    def _lines(self, word: np.ndarray) -> np.ndarray:
        """Where X's and O's lines start (``(boards, 2)`` int64, as the words: :meth:`split_many` parts them)."""
        x, o = self.split_many(word)
        return self.join_many(self._runs_of(np.ascontiguousarray(x), self._starts), self._runs_of(np.ascontiguousarray(o), self._starts))
