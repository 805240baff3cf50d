"""Misère play: the m,n,k game in which whoever completes a line of ``k`` loses.

Everything but the winner is the m,n,k rule's (:mod:`solver.rules.mnk`): the same lines,
moves, symmetries and reachable boards (the game still ends at the first line), so the
same index and kernels build its tables. Only the score of a finished board changes:
the side to move has already *won* when the last mover completed a line (``+WIN``), so
every score's parity turns over (:meth:`MisereRules.possible_scores`).

>>> from solver.rules.game import parse_game
>>> rules = parse_game("3x3k3-misere").rules
>>> rules.line_score, rules.end_words("O")
(100, 'O completed a line and lost')
"""

from __future__ import annotations

from .mnk import MnkRules


class MisereRules(MnkRules):
    """Misère play of an m,n,k game (module docstring): completing a line loses."""

    suffix = "misere"
    title = "misère"
    line_wins = False
