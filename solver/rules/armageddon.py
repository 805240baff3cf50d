"""Armageddon: the scoring in which a draw counts as O's win (O has "draw odds", as Black has in chess's armageddon).

Completing a line wins, as in normal play; a full board without a line is O's win, so no game
is drawn: X, who moves first, must complete a line. The lines, moves, symmetries and
reachable boards are the other parts', so the same index and kernels build its tables; only
the score of a full board changes, for the side to move: ``+WIN`` when O is to move on it
(an odd number of cells: X moved last), ``-WIN`` when X is. A position's score is then a win
or a loss in ``d`` plies, never 0.

>>> from solver.rules.game import parse_game
>>> parse_game("3x3k3-armageddon").rules.full_score, parse_game("2x2k2-armageddon").rules.full_score
(100, -100)
>>> sorted(parse_game("3x3k3-armageddon").rules.possible_scores(7))  # O to move, 2 empty: O wins in 1 or by filling the board
[-128, -100, -98, 0, 98, 99]
"""

from __future__ import annotations

from .parts import Scoring
from .score import WIN


class Armageddon(Scoring):
    """A line wins; a full board is O's win (module docstring)."""

    name = "armageddon"
    title = "armageddon (a draw is O's win)"
    line_wins = True

    @property
    def full_score(self) -> int:
        """``+WIN`` for O to move on the full board (an odd number of cells), ``-WIN`` for X: O has won either way."""
        return WIN if self.shape.cells % 2 else -WIN

    def full_winner(self) -> str | None:
        """O: a full board without a line is O's win."""
        return "O"

    def full_words(self) -> str:
        """``"O won (a full board is O's win)"``."""
        return "O won (a full board is O's win)"

    def possible_scores(self, ply: int) -> frozenset[int]:
        """The scores of normal play, and O's win when the board fills, ``cells - ply`` plies from now (0, a draw,
        stays possible as a byte: a table's don't-care bytes may hold it)."""
        left = self.shape.cells - ply
        o_to_move = ply % 2 == 1
        return super().possible_scores(ply) | {WIN - left if o_to_move else left - WIN}
