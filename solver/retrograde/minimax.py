"""A plain recursive negamax: the score of a position near the end of a game, from the rules alone.

The reference that :mod:`solver.store.samplecheck` compares a table's sampled positions with.
It shares nothing with the tables or the build kernels: the winning lines are found
again here from the game's ``rows``, ``cols`` and ``k`` (not :attr:`solver.rules.game.Game.line_masks`),
the board is read digit by digit from its base-3 code, and every move is tried, with a
memo over the positions of one search (keyed by the two players' cell masks).

The score is the one every table stores (:mod:`solver.rules.score`), for the **side to move**:
``100 - d`` a win in ``d`` plies, ``0`` a draw, ``-(100 - d)`` a loss in ``d`` plies,
``-100`` already lost (the last mover has a line); a full board without a line is ``0``.

**Limits.** No pruning (an exact distance needs every line of play), so the work grows
like the positions below the root: about 17,000 with 10 empty cells, 6,000 with 9,
2,000 with 8 (fewer where lines end the game early), some microseconds each in Python:
about a tenth to a third of a second for a root with 10 empty cells. Positions with more
than :data:`MAX_EMPTY` empty cells are refused. The memo lives for one call, so memory
stays at one search's positions. The code is not checked for reachability: pass a
position that a legal game reaches.

>>> from solver.rules.game import Game
>>> negamax_score(Game(), 0)                  # the empty 3x3 board has 9 empty cells: a draw
0
>>> from solver.encoding.board import parse
>>> negamax_score(Game(), parse("XX./OO./...")[1])   # X wins on the next ply
99
>>> negamax_score(Game(), parse("XX./OO./..X")[1])   # O to move: O wins at once
99
"""

from __future__ import annotations

from functools import cache

from ..rules.game import Game

MAX_EMPTY = 10
"""The most empty cells :func:`negamax_score` accepts (about a third of a second a position in Python)."""

_LOST = -100
"""The score of a position whose last mover made a line (:data:`solver.rules.score.WIN`, restated)."""


@cache
def _lines_through(rows: int, cols: int, k: int) -> tuple[tuple[int, ...], ...]:
    """For every cell, the masks of the winning lines (``k`` in a row, column or diagonal) through it."""
    through: list[list[int]] = [[] for _ in range(rows * cols)]
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(rows):
            for c in range(cols):
                cells = [(r + dr * i, c + dc * i) for i in range(k)]
                if all(0 <= rr < rows and 0 <= cc < cols for rr, cc in cells):
                    mask = sum(1 << (rr * cols + cc) for rr, cc in cells)
                    for rr, cc in cells:
                        through[rr * cols + cc].append(mask)
    return tuple(tuple(masks) for masks in through)


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
    cells = game.cells
    x, o = _masks(cells, code)
    full = (1 << cells) - 1
    empty = cells - (x | o).bit_count()
    if empty > max_empty:
        raise ValueError(f"the position has {empty} empty cells; the reference minimax takes at most {max_empty}")
    through = _lines_through(game.rows, game.cols, game.k)
    last, mover = (x, o) if x.bit_count() > o.bit_count() else (o, x)
    if any(last & line == line for masks in through for line in masks):
        return _LOST
    if (x | o) == full:
        return 0
    return _Search(cells, through).solve(mover, last)


class _Search:
    """One search: the rules of a board and the memo of the positions met (gone with the search)."""

    def __init__(self, cells: int, through: tuple[tuple[int, ...], ...]) -> None:
        self.cells, self.through, self.full = cells, through, (1 << cells) - 1
        self.memo: dict[tuple[int, int], int] = {}

    def solve(self, me: int, other: int) -> int:
        """The score for the player with cells ``me`` to move (``other``: the opponent's cells, no line on the board)."""
        key = (me, other)
        found = self.memo.get(key)
        if found is not None:
            return found
        taken, best = me | other, -128
        for cell in range(self.cells):
            if taken >> cell & 1:
                continue
            mine = me | 1 << cell
            if any(mine & line == line for line in self.through[cell]):
                value = -_LOST - 1  # a win on this ply
            elif mine | other == self.full:
                value = 0
            else:
                child = self.solve(other, mine)
                value = (child > 0) - (child < 0) - child
            best = max(best, value)
        self.memo[key] = best
        return best
