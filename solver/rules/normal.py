"""Normal play, the usual scoring: whoever completes a line of ``k`` wins; a full board without a line is a draw.

>>> from solver.rules.game import parse_game
>>> rules = parse_game("3x3").rules
>>> rules.line_score, rules.full_score, rules.end_words("X")
(-100, 0, 'X has won')
"""

from __future__ import annotations

from .parts import Scoring


class Normal(Scoring):
    """Completing a line wins (module docstring)."""

    name = ""
    title = ""
    line_wins = True
