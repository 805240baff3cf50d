"""What the engine answers of a position in play, without loading it: the answer a table-like reader
(:class:`solver.store.searched.SearchTable`) keeps, and the score byte of a Pons score (the kernels compile the same
function). A reader imports this module at its top as it does :mod:`solver.search.options`, so that a look-up the
book answers starts without numba."""

from __future__ import annotations

from typing import NamedTuple

from ..rules.score import WIN

__all__ = ["Answer", "score_byte"]


class Answer(NamedTuple):
    """What a search found about a position in play (a named tuple: one is made a look-up, where a frozen dataclass's
    fields cost a microsecond more).

    :param score: the position's score byte for the side to move (:mod:`solver.rules.score`).
    :param best_mask: its best moves, a bit a landing cell (``row * cols + col``, row 0 the top).
    :param scored: each legal move's ``(cell, score byte)`` for the player making it, by cell.
    """

    score: int
    best_mask: int
    scored: tuple[tuple[int, int], ...]


def score_byte(score: int, pieces: int, cells: int) -> int:
    """The project's score byte of a Pons score of a position with ``pieces`` pieces (:mod:`solver.rules.score`: the
    side to move's, or a move's for the player making it with ``pieces`` the pieces before it).

    >>> score_byte(18, 4, 42), score_byte(-15, 11, 42), score_byte(0, 9, 42)  # win in 3, loss in 2, draw
    (97, -98, 0)
    """
    if score == 0:
        return 0
    last = cells - 2 * (abs(score) - 1)
    if (last - pieces) % 2 != int(score > 0):
        last -= 1
    plies = last - pieces
    return WIN - plies if score > 0 else plies - WIN
