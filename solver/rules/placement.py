"""Placement, the move rule of the m,n,k games: a piece may go on any empty cell.

Every empty cell is a move, every symmetry of the board keeps the rule, and the status of a
board tells every board no game reaches (:meth:`solver.rules.base.Rules.judge_word`): the layered
build solves it backward only (:mod:`solver.retrograde.placement`).

>>> from solver.rules.game import parse_game
>>> bin(parse_game("3x3").rules.move.moves(0b000_010_001))
'0b111101110'
"""

from __future__ import annotations

import numpy as np

from .parts import MoveRule


class Placement(MoveRule):
    """A piece on any empty cell (module docstring)."""

    name = ""
    title = ""

    def moves(self, taken: int) -> int:
        """Every empty cell (a bit each)."""
        return self.full & ~taken

    def moves_many(self, taken: np.ndarray) -> np.ndarray:
        """:meth:`moves` of many boards: every empty cell."""
        return np.asarray(self.full & ~taken)
