"""Misère play: the scoring in which whoever completes a line of ``k`` loses.

Everything but the winner is the other parts': the same lines, moves, symmetries and
reachable boards (the game still ends at the first line), so the same index and kernels
build its tables. Only the score of a finished board changes: the side to move has already
*won* when the last mover completed a line (``+WIN``), so every score's parity turns over
(:meth:`solver.rules.parts.Scoring.possible_scores`).

>>> from solver.rules.game import parse_game
>>> rules = parse_game("3x3k3-misere").rules
>>> rules.line_score, rules.end_words("O")
(100, 'O completed a line and lost')
"""

from __future__ import annotations

from .parts import Scoring


class Misere(Scoring):
    """Completing a line loses (module docstring)."""

    name = "misere"
    title = "misère"
    line_wins = False
