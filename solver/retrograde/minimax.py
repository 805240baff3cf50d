"""A plain recursive negamax: the score of a position near the end of a game, from the rules alone.

The reference that :mod:`solver.store.samplecheck` compares a table's sampled positions with.
It shares nothing with the tables or the build kernels: it asks the game's rule
(:attr:`solver.rules.game.Game.rules`) for the lines, the moves and the score of a finished
board, reads the board digit by digit from its base-3 code, and tries every move, with a
memo over the positions of one search (keyed by the two players' cell masks). The tests
compare the tables with a minimax of their own that shares nothing with the package at all
(``tests/reference.py``).

The score is the one every table stores (:mod:`solver.rules.score`), for the **side to move**:
``100 - d`` a win in ``d`` plies, ``0`` a draw, ``-(100 - d)`` a loss in ``d`` plies,
``-100`` already lost (the last mover completed a line; ``+100``, already won, in misère
play); a full board without a line is ``0``.

**Limits.** No pruning (an exact distance needs every line of play), so the work grows
like the positions below the root: about 17,000 with 10 empty cells, 6,000 with 9,
2,000 with 8 (fewer where lines end the game early), some microseconds each in Python:
about a tenth to a third of a second for a root with 10 empty cells. Positions with more
than :data:`MAX_EMPTY` empty cells are refused. The memo lives for one call, so memory
stays at one search's positions. The code is not checked for reachability: pass a
position that a legal game reaches.

>>> from solver.rules.game import Game, parse_game
>>> negamax_score(Game(), 0)                  # the empty 3x3 board has 9 empty cells: a draw
0
>>> from solver.encoding.board import parse
>>> negamax_score(Game(), parse("XX./OO./...")[1])   # X wins on the next ply
99
>>> negamax_score(Game(), parse("XX./OO./..X")[1])   # O to move: O wins at once
99
>>> negamax_score(parse_game("3x3k3-misere"), parse("XXX/OO./...")[1])   # misère: X completed a line, O has won
100
"""

from __future__ import annotations

from functools import cache

from ..rules.game import Game
from ..rules.score import parent_score

MAX_EMPTY = 10
"""The most empty cells :func:`negamax_score` accepts (about a third of a second a position in Python)."""


@cache
def _lines_through(game: Game) -> tuple[tuple[int, ...], ...]:
    """For every cell, the masks of the rule's lines through it."""
    return tuple(tuple(mask for mask in game.rules.line_masks if mask >> cell & 1) for cell in range(game.cells))


def _masks(cells: int, code: int) -> tuple[int, int]:
    """X's and O's cells of a base-3 code (digit ``i``: 0 empty, 1 X, 2 O)."""
    x = o = 0
    for cell in range(cells):
        code, digit = divmod(code, 3)
        if digit == 1:
            x |= 1 << cell
        elif digit == 2:
            o |= 1 << cell
    return x, o


def negamax_score(game: Game, code: int, *, max_empty: int = MAX_EMPTY) -> int:
    """The score of a position for the side to move (module docstring), by trying every line of play.

    :param code: a reachable position's base-3 code; X is to move when both have as many pieces.
    :param max_empty: refuse positions with more empty cells than this.
    :raises ValueError: for a position with more than ``max_empty`` empty cells.
    """
    cells, rules = game.cells, game.rules
    x, o = _masks(cells, code)
    empty = cells - (x | o).bit_count()
    if empty > max_empty:
        raise ValueError(f"the position has {empty} empty cells; the reference minimax takes at most {max_empty}")
    last, mover = (x, o) if x.bit_count() > o.bit_count() else (o, x)
    if rules.has_line(last):
        return rules.line_score
    if (x | o) == game.full_mask:
        return rules.full_score
    return _Search(game).solve(mover, last)


class _Search:
    """One search: the rules of a board and the memo of the positions met (gone with the search)."""

    def __init__(self, game: Game) -> None:
        self.cells, self.through, self.full, self.rules = game.cells, _lines_through(game), game.full_mask, game.rules
        self.completed = parent_score(game.rules.line_score)
        self.filled = parent_score(game.rules.full_score)
        """The score of a move that fills the board without a line, for its mover (a draw; armageddon: O's win in 1)."""
        """The score of a move that completes a line, for its mover (a win in 1, or in misère a loss in 1)."""
        self.memo: dict[tuple[int, int], int] = {}

    def solve(self, me: int, other: int) -> int:
        """The score for the player with cells ``me`` to move (``other``: the opponent's cells, no line on the board)."""
        key = (me, other)
        found = self.memo.get(key)
        if found is not None:
            return found
        moves, best = self.rules.moves(me, other), -128
        for cell in range(self.cells):
            if not moves >> cell & 1:
                continue
            mine = me | 1 << cell
            if any(mine & line == line for line in self.through[cell]):
                value = self.completed
            elif mine | other == self.full:
                value = self.filled
            else:
                value = parent_score(self.solve(other, mine))
            best = max(best, value)
        self.memo[key] = best
        return best
