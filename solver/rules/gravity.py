"""Gravity play: Connect Four's family. The m,n,k game in which a piece drops to the lowest empty cell of its column.

Boards are written as every other game's, top row first; the bottom row is row
``rows - 1``. A move is a column: the piece lands on the lowest empty cell of it, so the
moves of a position are at most one cell a column (:meth:`GravityRules.moves`: an empty
cell on the bottom row or on top of a piece). Lines and who wins them are the m,n,k rule's
(:mod:`solver.rules.mnk`; :class:`GravityMisereRules` for misère play); the only symmetry
left is the left-right mirror.

**Which boards a game reaches.** Beyond the m,n,k rule (the piece counts, and the lines:
the last mover's lines share a cell, the winning move), a gravity board needs

1. no piece above an empty cell (a piece *floats*);
2. the winning move on top of its column: some cell common to the last mover's lines has
   nothing above it;
3. an order of moves, X first and alternating, that stacks exactly these columns (and,
   after a line, stacks the board without a top cell of the line).

The first two are cheap and are part of the status (:meth:`GravityRules.judge`,
:meth:`GravityRules.classify`). The third is not a few bit operations: the status of a
board answers it only through the table, whose build walks the games forward
(:attr:`GravityRules.status_is_exact` is False, and a table stores a byte for every board
the rules do not call invalid, ``UNREACHABLE`` where no game reaches it).
:meth:`GravityRules.violation`, which explains a refused board, decides all three exactly
(a search over the columns' heights, :func:`stacking_order`).

>>> from solver.rules.game import parse_game
>>> from solver.encoding.board import parse
>>> rules = parse_game("4x4k4-gravity").rules
>>> game = rules.game
>>> bin(rules.moves(0, 0))  # the bottom row
'0b1111000000000000'
>>> rules.violation(parse("..../..../X.../...O", game)[1])
'the piece at (2,0) floats: (3,0) below it is empty (a piece falls to the lowest empty cell of its column)'
>>> rules.violation(parse("..../..../..../O.X.", game)[1]) is None
True
>>> rules.violation(parse("..../..../X.../O...", game)[1])
'no order of moves stacks these columns: X moves first, so the pieces cannot be played in turn, each on top of its column'
"""

from __future__ import annotations

from functools import cached_property
from typing import ClassVar

import numpy as np

from .base import INVALID, LINE
from .game import Game
from .mnk import O_SHIFT, X_MASK, MnkRules


class GravityRules(MnkRules):
    """Gravity play of an m,n,k game (module docstring): a move is a column, the piece drops."""

    suffix = "gravity"
    title = "gravity"
    line_wins = True
    drops: ClassVar[bool] = True
    status_is_exact: ClassVar[bool] = False

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        rows, cols = self.game.rows, self.game.cols
        self.bottom = sum(1 << self.game.cell(rows - 1, c) for c in range(cols))
        """The bottom row's cells: where a piece lands in an empty column."""
        self.column_masks: tuple[int, ...] = tuple(sum(1 << self.game.cell(r, c) for r in range(rows)) for c in range(cols))
        """Each column's cells, as a mask."""

    # -- the rule's constants ---------------------------------------------------------
    @cached_property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """The identity and the left-right mirror: gravity has a bottom, so no rotation or up-down flip keeps it."""
        game = self.game
        mirror = tuple(game.cell(r, game.cols - 1 - c) for r, c in map(game.coords, range(game.cells)))
        identity = tuple(range(game.cells))
        return (identity,) if mirror == identity else (identity, mirror)

    # -- moves -----------------------------------------------------------------------
    def moves(self, x: int, o: int) -> int:
        """The lowest empty cell of every column that is not full (a bit each)."""
        taken = x | o
        return self.full & ~taken & (self.bottom | taken >> self.game.cols)

    def moves_many(self, occupied: np.ndarray) -> np.ndarray:
        """:meth:`moves` of many boards, from their occupied cells."""
        taken = np.asarray(occupied)
        return np.asarray(self.full & ~taken & (self.bottom | (taken >> self.game.cols)))

    def landing(self, taken: int, col: int) -> int | None:
        """The cell a piece dropped in column ``col`` lands on (``taken``: the occupied cells), or None if the column is full."""
        cell = (self.moves(taken, 0) & self.column_masks[col]).bit_length() - 1
        return None if cell < 0 else cell

    def floating(self, taken: int) -> int:
        """The pieces with an empty cell below them (a bit each): none on a board a game reaches."""
        return taken & ~self.bottom & ~(taken >> self.game.cols) & self.full

    def tops(self, taken: int) -> int:
        """The pieces with nothing above them (a bit each)."""
        return taken & ~(taken << self.game.cols)

    # -- one board -----------------------------------------------------------------------
    def judge_word(self, word: int) -> tuple[int, int]:
        """:meth:`solver.rules.mnk.MnkRules.judge_word`, with a floating piece :data:`INVALID` and the winning
        move on top of its column (see the module docstring: the order of the moves is the table's to say)."""
        x, o = word & X_MASK, word >> O_SHIFT
        if self.floating(x | o):
            return INVALID, (x | o).bit_count()
        return super().judge_word(word)

    def _won(self, x: int, o: int, nx: int, no: int) -> int:
        status = super()._won(x, o, nx, no)
        if status != LINE:
            return status
        winner = x if nx == no + 1 else o
        common = self.full
        for line in self.line_masks:
            if winner & line == line:
                common &= line
        return LINE if common & self.tops(x | o) else INVALID

    def violation(self, code: int) -> str | None:
        """Why no legal game reaches this board, or None when one does: exact (module docstring), by a search on the error path."""
        word = self.word_of(code)
        x, o = word & X_MASK, word >> O_SHIFT
        floating = self.floating(x | o)
        if floating:
            cell = floating.bit_length() - 1
            below = cell + self.game.cols
            return f"the piece at {self._cells([cell])} floats: {self._cells([below])} below it is empty (a piece falls to the lowest empty cell of its column)"
        found = super().violation(code)
        if found is not None:
            return found
        return self._order_violation(x, o)

    def _order_violation(self, x: int, o: int) -> str | None:
        """Why no order of moves builds the board (the counts and the lines' shapes already hold), or None."""
        nx, no = x.bit_count(), o.bit_count()
        winner = x if nx > no else o
        lines = self.lines_in(winner)
        if not lines:
            return None if stacking_order(self.game.rows, self.game.cols, x, o) is not None else _NO_ORDER
        common = self.full
        for line in lines:
            common &= sum(1 << cell for cell in line)
        tops = common & self.tops(x | o)
        if not tops:
            who = "X" if winner == x else "O"
            return f"{who}'s line at {self._cells(lines[0])} has no piece on top of its column: the move that completed it was the last one there"
        for cell in _bits(tops):
            if stacking_order(self.game.rows, self.game.cols, x & ~(1 << cell), o & ~(1 << cell)) is not None:
                return None
        return _NO_ORDER

    # -- many boards -----------------------------------------------------------------------
    def _classify_step(self, word: np.ndarray, status: np.ndarray, pieces: np.ndarray) -> None:
        super()._classify_step(word, status, pieces)
        taken = (word & X_MASK) | (word >> O_SHIFT)
        floating = np.flatnonzero(taken & ~self.bottom & ~(taken >> self.game.cols) & self.full)
        if floating.size:
            status[floating] = INVALID

    def _won_lines(self, x: np.ndarray, o: np.ndarray, nx: np.ndarray, no: np.ndarray, won: np.ndarray) -> np.ndarray:
        """:meth:`solver.rules.mnk.MnkRules._won_lines`, with the winning move on top of its column."""
        out = super()._won_lines(x, o, nx, no, won)
        lined = np.flatnonzero(out == LINE)
        if lined.size:
            winner = np.where(nx[lined] > no[lined], x[lined], o[lined])
            lines = self._line_array
            held = (winner[:, None] & lines) == lines
            common = np.bitwise_and.reduce(np.where(held, lines, self.full), axis=1)
            taken = x[lined] | o[lined]
            on_top = (common & taken & ~(taken << self.game.cols)) != 0
            out[lined] = np.where(on_top, LINE, INVALID)
        return out


class GravityMisereRules(GravityRules):
    """Misère play under gravity: completing a line loses."""

    suffix = "gravity-misere"
    title = "gravity, misère"
    line_wins = False


_NO_ORDER = "no order of moves stacks these columns: X moves first, so the pieces cannot be played in turn, each on top of its column"


def _bits(mask: int) -> list[int]:
    return [cell for cell in range(mask.bit_length()) if mask >> cell & 1]


def stacking_order(rows: int, cols: int, x: int, o: int) -> list[int] | None:
    """An order of moves (cells, first move first) that stacks exactly these columns, X first and alternating,
    each piece on top of its column, or None when there is none (lines are not looked at).

    A depth-first search over the columns' heights, each height vector tried once: at most
    ``(rows + 1) ** cols`` of them (46,656 for 5x6), on the error path only.

    >>> stacking_order(2, 1, 0b10, 0b01)  # X at the bottom, O on top
    [1, 0]
    >>> stacking_order(2, 1, 0b01, 0b10) is None  # O at the bottom: X cannot move first
    True
    """
    stacks = []
    for c in range(cols):
        column = []
        for r in range(rows - 1, -1, -1):
            cell = r * cols + c
            if x >> cell & 1:
                column.append((cell, 1))
            elif o >> cell & 1:
                column.append((cell, 2))
            else:
                break
        stacks.append(column)
    target = tuple(len(column) for column in stacks)
    total = sum(target)
    failed: set[tuple[int, ...]] = set()
    order: list[int] = []

    def search(heights: tuple[int, ...], placed: int) -> bool:
        if placed == total:
            return True
        if heights in failed:
            return False
        piece = 1 if placed % 2 == 0 else 2
        for c, column in enumerate(stacks):
            h = heights[c]
            if h < target[c] and column[h][1] == piece:
                order.append(column[h][0])
                if search((*heights[:c], h + 1, *heights[c + 1 :]), placed + 1):
                    return True
                order.pop()
        failed.add(heights)
        return False

    return order if search((0,) * cols, 0) else None
