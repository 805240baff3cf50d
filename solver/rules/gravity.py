"""Gravity, the drop move rule of Connect Four's family: a piece drops to the lowest empty cell of its column.

Boards are written as every other game's, top row first; the bottom row is row
``rows - 1``. A move is a column: the piece lands on the lowest empty cell of it, so the
moves of a position are at most one cell a column (:meth:`Drop.moves`: an empty
cell on the bottom row or on top of a piece). Lines are the board's and who wins them the
scoring's (``4x4k4-gravity-misere`` is misère play under gravity); the only symmetry
left is the left-right mirror.

**Which boards a game reaches.** Beyond the m,n,k rule (the piece counts, and the lines:
the last mover's lines share a cell, the winning move), a gravity board needs

1. no piece above an empty cell (a piece *floats*);
2. the winning move on top of its column: some cell common to the last mover's lines has
   nothing above it;
3. an order of moves, X first and alternating, that stacks exactly these columns (and,
   after a line, stacks the board without a top cell of the line).

The first two are cheap and are part of the status (:meth:`Drop.misplaced`,
:meth:`Drop.last_move_fits`, asked by :meth:`solver.rules.base.Rules.judge_word` and
:meth:`solver.rules.base.Rules.classify_words`). The third is not a few bit operations: the status
of a board answers it only through the table, whose build walks the games forward
(:attr:`Drop.forward_pass`; the kernel's hook is :mod:`solver.retrograde.gravity`, and a table
stores a byte for every board the rules do not call invalid, ``UNREACHABLE`` where no game
reaches it). :meth:`solver.rules.base.Rules.violation_of_word`, which explains a refused board, decides
all three exactly (:meth:`Drop.order_violation`: a search over the columns' heights,
:func:`stacking_order`).

>>> from solver.rules.game import parse_game
>>> rules = parse_game("4x4k4-gravity").rules
>>> game = rules.game
>>> bin(rules.moves(0, 0))  # the bottom row
'0b1111000000000000'
>>> rules.violation_of_word(rules.join(1 << 8, 1 << 15))  # X at (2,0), O at (3,3): "..../..../X.../...O"
'the piece at (2,0) floats: (3,0) below it is empty (a piece falls to the lowest empty cell of its column)'
>>> rules.violation_of_word(rules.join(1 << 14, 1 << 12)) is None  # "..../..../..../O.X."
True
>>> rules.violation_of_word(rules.join(1 << 8, 1 << 12))  # "..../..../X.../O..."
'no order of moves stacks these columns: X moves first, so the pieces cannot be played in turn, each on top of its column'
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .parts import DescribeCells, MoveRule, Shape


class Drop(MoveRule):
    """A move is a column, the piece drops (module docstring)."""

    name = "gravity"
    title = "gravity"
    form = "column"
    forward_pass = True
    max_cells = 64
    dense_max_cells = 12
    """A gravity game reaches few of its codes (4x4k4-gravity 161,029 of 43 M), so past 12 cells (2 MiB of dense
    entries) its compact table is far smaller (4x4: 172 MB dense)."""

    def __init__(self, shape: Shape) -> None:
        super().__init__(shape)
        rows, cols = shape.rows, shape.cols
        self.cols = cols
        self.bottom = sum(1 << shape.cell(rows - 1, c) for c in range(cols))
        """The bottom row's cells: where a piece lands in an empty column."""
        self.column_masks: tuple[int, ...] = tuple(sum(1 << shape.cell(r, c) for r in range(rows)) for c in range(cols))
        """Each column's cells, as a mask."""

    def symmetries(self, of_board: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
        """The identity and the left-right mirror: gravity has a bottom, so no rotation or up-down flip keeps it."""
        shape = self.shape
        mirror = tuple(shape.cell(r, shape.cols - 1 - c) for r, c in map(shape.coords, range(shape.cells)))
        identity = tuple(range(shape.cells))
        return (identity,) if mirror == identity else (identity, mirror)

    # -- moves -----------------------------------------------------------------------
    def moves(self, taken: int) -> int:
        """The lowest empty cell of every column that is not full (a bit each)."""
        return self.full & ~taken & (self.bottom | taken >> self.cols)

    def moves_many(self, taken: np.ndarray) -> np.ndarray:
        """:meth:`moves` of many boards, from their occupied cells."""
        taken = np.asarray(taken)
        return np.asarray(self.full & ~taken & (self.bottom | (taken >> self.cols)))

    def landing(self, taken: int, col: int) -> int | None:
        """The cell a piece dropped in column ``col`` lands on (``taken``: the occupied cells), or None if the column is full."""
        cell = (self.moves(taken) & self.column_masks[col]).bit_length() - 1
        return None if cell < 0 else cell

    def not_a_move(self, taken: int, cell: int, describe: DescribeCells) -> str:
        """The piece would not rest there: where a piece dropped in its column lands."""
        col = cell % self.cols
        lands = self.landing(taken, col)
        return (
            f"{describe([cell])} is not playable: a piece dropped in column {col} lands on {describe([lands])}"
            if lands is not None
            else f"column {col} is full"
        )

    def tops(self, taken: int) -> int:
        """The pieces with nothing above them (a bit each)."""
        return taken & ~(taken << self.cols)

    # -- which boards a game reaches -------------------------------------------------------
    def misplaced(self, taken: int) -> int:
        """The pieces with an empty cell below them (a bit each): none on a board a game reaches."""
        return taken & ~self.bottom & ~(taken >> self.cols) & self.full

    def misplaced_many(self, taken: np.ndarray) -> np.ndarray:
        """:meth:`misplaced` of many boards."""
        return np.asarray(taken & ~self.bottom & ~(taken >> self.cols) & self.full)

    def misplaced_words(self, cell: int, describe: DescribeCells) -> str:
        """The piece at ``cell`` floats."""
        below = cell + self.cols
        return f"the piece at {describe([cell])} floats: {describe([below])} below it is empty (a piece falls to the lowest empty cell of its column)"

    def last_move_fits(self, common: int, taken: int) -> bool:
        """Whether a cell common to the last mover's lines has nothing above it (the winning move was the last in its column)."""
        return bool(common & self.tops(taken))

    def last_move_fits_many(self, common: np.ndarray, taken: np.ndarray) -> np.ndarray:
        """:meth:`last_move_fits` of many boards (bool)."""
        on_top: np.ndarray = (common & taken & ~(taken << self.cols)) != 0
        return on_top

    def order_violation(self, x: int, o: int, lines: Sequence[tuple[int, ...]], describe: DescribeCells) -> str | None:
        """Why no order of moves builds the board (the counts and the lines' shapes already hold), or None."""
        rows, cols = self.shape.rows, self.shape.cols
        if not lines:
            return None if stacking_order(rows, cols, x, o) is not None else _NO_ORDER
        common = self.full
        for line in lines:
            common &= sum(1 << cell for cell in line)
        tops = common & self.tops(x | o)
        if not tops:
            who = "X" if x.bit_count() > o.bit_count() else "O"
            return f"{who}'s line at {describe(lines[0])} has no piece on top of its column: the move that completed it was the last one there"
        for cell in _bits(tops):
            if stacking_order(rows, cols, x & ~(1 << cell), o & ~(1 << cell)) is not None:
                return None
        return _NO_ORDER


_NO_ORDER = "no order of moves stacks these columns: X moves first, so the pieces cannot be played in turn, each on top of its column"


def _bits(mask: int) -> list[int]:
    return [cell for cell in range(mask.bit_length()) if mask >> cell & 1]


def stacking_order(rows: int, cols: int, x: int, o: int) -> list[int] | None:
    """An order of moves (cells, first move first) that stacks exactly these columns, X first and alternating,
    each piece on top of its column, or None when there is none (lines are not looked at).

    First a greedy order (each move from the column with the most pieces left whose next piece is the mover's),
    which finds one for nearly every board a game reaches in one pass over the pieces; where it gets stuck, a
    depth-first search over the columns' heights, each height vector tried once: at most ``(rows + 1) ** cols``
    of them (46,656 for 5x6).

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
    greedy = _greedy_order(stacks)
    if greedy is not None:
        return greedy
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


def _greedy_order(stacks: list[list[tuple[int, int]]]) -> list[int] | None:
    """An order of moves for :func:`stacking_order` found without backtracking (``stacks``: each column's
    ``(cell, piece)`` from the bottom up, piece 1 X and 2 O), or None where the greedy choice gets stuck."""
    heights = [0] * len(stacks)
    left = [len(column) for column in stacks]
    order = []
    for placed in range(sum(left)):
        piece = 1 if placed % 2 == 0 else 2
        best = -1
        for c, column in enumerate(stacks):
            if left[c] and column[heights[c]][1] == piece and (best < 0 or left[c] > left[best]):
                best = c
        if best < 0:
            return None
        order.append(stacks[best][heights[best]][0])
        heights[best] += 1
        left[best] -= 1
    return order
