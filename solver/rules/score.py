"""Scores: how the tables store a position's outcome, in one signed byte.

The score is for the **side to move**, under perfect play (the winner wins as
fast as possible, the loser holds out as long as possible):

=====================  ============================================================
score                  meaning for the side to move
=====================  ============================================================
``100 - d`` (d >= 1)   win, the game ends ``d`` plies from now
``0``                  draw (the board fills up: plies = empty cells)
``-(100 - d)``         loss, the game ends ``d`` plies from now (``-100``: already lost)
``100``                already won (misère: the other player completed a line)
``-128``               not a reachable position (:data:`UNREACHABLE`)
=====================  ============================================================

A larger score is always better for the side to move. A child's score ``s``
becomes ``sign(s) - s`` for its parent (:func:`parent_score`), and the best
moves are the ones whose child has the smallest score.

A score is read back into a result and plies here and nowhere else: one
position at a time with :func:`decode`, whole arrays with :func:`decode_many`.

>>> decode(97, empty=6), decode(0, empty=5), decode(-96, empty=6)
(('win', 3), ('draw', 5), ('loss', 4))
>>> parent_score(-100), parent_score(99), parent_score(0)
(99, -98, 0)
"""

from __future__ import annotations

from typing import Literal

import numpy as np

WIN = 100
"""Score of a win on the next ply is ``WIN - 1``; of a lost finished game ``-WIN``."""

UNREACHABLE = -128
"""Stored score of a code that no legal game reaches."""

Result = Literal["win", "draw", "loss"]
"""The outcome for one player: the side to move, or the mover of a move."""

RESULTS: tuple[Result, Result, Result] = ("draw", "win", "loss")
"""The result of each sign of a score: ``RESULTS[sign]``, so index -1 is a loss."""


def parent_score(child: int) -> int:
    """The score of a move for the player making it, from the child's score."""
    return (child > 0) - (child < 0) - child


def decode(score: int, empty: int) -> tuple[Result, int]:
    """``(result, plies)`` for the side to move, from a score.

    :param empty: empty cells on the board: a draw lasts until the board is full,
        which depends on the position, not the score.
    :returns: ``'win'``, ``'draw'`` or ``'loss'``, and the plies to the end under
        perfect play (0 on a finished board).
    """
    if score > 0:
        return "win", WIN - score
    if score < 0:
        return "loss", WIN + score
    return "draw", empty


def decode_many(scores: np.ndarray, empty: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`decode` of a whole array: ``(sign, plies)``, both int8 of the shape of ``scores``.

    :param scores: int8 scores (any integer dtype).
    :param empty: the empty cells of each board (broadcast against ``scores``).
    :returns: ``sign`` 1 win, 0 draw, -1 loss for the side to move (``RESULTS[sign]`` names it),
        and the plies to the end under perfect play. For :data:`UNREACHABLE` both mean nothing.

    >>> sign, plies = decode_many(np.array([97, 0, -96], dtype=np.int8), empty=np.array([6, 5, 6]))
    >>> sign.tolist(), plies.tolist()
    ([1, 0, -1], [3, 5, 4])
    """
    wide = np.asarray(scores).astype(np.int16)
    plies = np.where(wide == 0, empty, WIN - np.abs(wide)).astype(np.int8)
    return np.sign(wide).astype(np.int8), plies


def outcome_label(result: str, plies: int) -> str:
    """A short label: ``W3`` (win in 3 plies), ``D`` (draw), ``L6`` (loss in 6)."""
    return "D" if result == "draw" else f"{result[0].upper()}{plies}"
