"""Positions near the end of a game searched in Python, with no compiled kernel loaded.

A new process that looks up a position near the end (``solve lookup --game connect4 --moves`` of 30 pieces) would
pay a second or more to import numba and load the compiled search, for a search of a few hundred positions. This
search answers such a position in milliseconds instead: Pons' ``negamax`` over Pons scores (:mod:`solver.search.negamax`:
the side to move's, a move's the negative of its child's; each turned into a score byte at the end,
:func:`~solver.search.answer.score_byte`) on the book's Python bitboard (:mod:`solver.search.booked`), with the moves that
lose at once left out (a single threat blocked, no cell under the opponent's win) and the bounds of the positions
searched kept in a dictionary by key. It stops at a budget of positions (:class:`TooLong`), and the caller then loads
the engine (:class:`solver.store.searched.SearchTable` spends at most :data:`~solver.store.searched.LATE_SECONDS` a
process this way: the engine's load is paid once it would have cost less).

>>> from solver.rules.game import parse_game
>>> game = parse_game("connect4")
>>> bits = booked.play(game, "2252576253462244111563365343671351441")
>>> answer(game, bits.pos, bits.mask, bits.pieces, 10_000)  # a loss in 4 plies; each move's (cell, score byte)
(-96, ((5, -96), (27, -98)))
"""

from __future__ import annotations

from ..rules.game import Game
from . import booked
from .answer import score_byte

__all__ = ["TooLong", "answer"]


class TooLong(Exception):  # noqa: N818 - not an error: the caller searches with the engine instead
    """The search passed its budget of positions (nothing it kept is wrong; the caller searches otherwise)."""


class _Search:
    """One search's state: the game's bitboard, the positions left in its budget, and the bounds found so far by key
    (``(lower, upper)``: the Pons score lies between them)."""

    def __init__(self, game: Game, nodes: int) -> None:
        self.columns = columns = booked.columns_of(game)
        self.cells = game.cells
        self.left = nodes
        self.full = sum(columns.fields)
        self.kept: dict[int, tuple[int, int]] = {}
        middle = (columns.cols - 1) / 2
        self.fields = [columns.fields[column] for column in sorted(range(columns.cols), key=lambda c: (abs(c - middle), c))]
        k = game.k
        self.lines = [[(step - gap) * shift for step in range(k) if step != gap] for shift in columns.shifts for gap in range(k)]
        """For each direction and each cell of a line: the offsets of the line's other cells from it."""

    def winning(self, bits: int, mask: int) -> int:
        """The empty cells where a piece would complete a line of ``bits`` (one player's pieces)."""
        found = 0
        for offsets in self.lines:
            run = -1
            for offset in offsets:
                run &= bits >> offset if offset > 0 else bits << -offset
            found |= run
        return found & self.full & ~mask

    def possible(self, mask: int) -> int:
        """The cells a piece may be dropped on: each column's lowest empty cell."""
        return (mask + self.columns.bottom) & self.full

    def value(self, pos: int, mask: int, pieces: int, alpha: int, beta: int) -> int:
        """The side to move's Pons score (:mod:`solver.search.negamax`) of a position in play where it cannot win at once,
        as Pons' ``negamax`` finds it: exact when within ``(alpha, beta)``, else a bound on the side the window was passed."""
        self.left -= 1
        if self.left < 0:
            raise TooLong
        cells = self.cells
        possible = self.possible(mask)
        threats = self.winning(pos ^ mask, mask)
        forced = possible & threats
        if forced & (forced - 1):  # two of the opponent's wins to stop at once: it wins with its next move
            return -((cells - pieces) // 2)
        moves = (forced or possible) & ~(threats >> 1)  # never under a cell where the opponent would win
        if not moves:
            return -((cells - pieces) // 2)
        if pieces >= cells - 2:  # neither side can win with the last cells
            return 0
        alpha = max(alpha, -((cells - 2 - pieces) // 2))  # the opponent cannot win with its next move
        beta = min(beta, (cells - 1 - pieces) // 2)  # nor this side with this one
        if alpha >= beta:
            return alpha
        key = pos + mask
        lower, upper = self.kept.get(key, (-cells, cells))
        if lower >= beta:
            return lower
        if upper <= alpha:
            return upper
        alpha, beta = max(alpha, lower), min(beta, upper)
        if alpha >= beta:
            return alpha
        start = alpha
        for field in self.fields:
            move = moves & field
            if not move:
                continue
            score = -self.value(pos ^ mask, mask | move, pieces + 1, -beta, -alpha)
            if score >= beta:
                self.kept[key] = (score, upper)
                return score
            alpha = max(alpha, score)
        self.kept[key] = (alpha, alpha) if alpha > start else (lower, alpha)
        return alpha


def answer(game: Game, pos: int, mask: int, pieces: int, nodes: int) -> tuple[int, tuple[tuple[int, int], ...]]:
    """What :meth:`~solver.search.engine.Engine.move_scores` answers, searched in Python: the score byte of the position
    ``pos``, ``mask`` (:class:`~solver.search.booked.Bits`: in play, ``pieces`` pieces) for the side to move, and each
    legal move's ``(cell, score byte)`` for the player making it, by cell.

    :param nodes: the positions the search may visit in all.
    :raises TooLong: past them.
    """
    search = _Search(game, nodes)
    cells = game.cells
    scored = []
    for cell, move in booked.drops(game, mask):
        if booked.has_line(game, pos | move):
            score = (cells + 1 - pieces) // 2  # a win with this move
        elif pieces + 1 == cells:
            score = 0
        elif search.winning(pos ^ mask, mask | move) & search.possible(mask | move):
            score = -((cells - pieces) // 2)  # the opponent wins with its next move
        else:
            score = -search.value(pos ^ mask, mask | move, pieces + 1, -cells, cells)
        scored.append((cell, score_byte(score, pieces, cells)))
    scored.sort()
    return max(byte for _, byte in scored), tuple(scored)
