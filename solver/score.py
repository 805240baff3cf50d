"""The score: one small integer for win/draw/loss *and* the distance to the end.

Every position's score is from the point of view of the **side to move**, under
perfect play in which the winner wins as fast as possible and the loser holds
out as long as possible (Pascal Pons' "win fastest, lose slowest"):

=====================  ============================================================
score                  meaning for the side to move
=====================  ============================================================
``100 - d`` (d >= 1)   win, the game ends ``d`` plies from now
``0``                  draw (the board fills up: plies = empty cells)
``-(100 - d)``         loss, the game ends ``d`` plies from now (``-100``: already lost)
``-128``               not a reachable position (:data:`UNREACHABLE`)
=====================  ============================================================

A larger score is always better for the side to move. A child's score ``s``
becomes ``sign(s) - s`` for its parent (:func:`parent_score`), and the best
moves are the ones whose child has the smallest score.

>>> describe(97), describe(0), describe(-96)
(('win', 3), ('draw', None), ('loss', 4))
>>> parent_score(-100), parent_score(99), parent_score(0)
(99, -98, 0)
"""

from __future__ import annotations

WIN = 100
"""Score of a win on the next ply is ``WIN - 1``; of a lost finished game ``-WIN``."""

UNREACHABLE = -128
"""Stored score of a code that no legal game reaches."""


def parent_score(child: int) -> int:
    """The score of a move for the player making it, from the child's score."""
    return (child > 0) - (child < 0) - child


def describe(score: int) -> tuple[str, int | None]:
    """``('win' | 'draw' | 'loss', plies)`` for a score; plies is None for a draw.

    A draw lasts until the board is full, which depends on the position, not the score.
    """
    if score > 0:
        return "win", WIN - score
    if score < 0:
        return "loss", WIN + score
    return "draw", None


def outcome_label(result: str, plies: int) -> str:
    """A short label: ``W3`` (win in 3 plies), ``D`` (draw), ``L6`` (loss in 6)."""
    return "D" if result == "draw" else f"{result[0].upper()}{plies}"
