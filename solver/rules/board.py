"""The board part of a rule: a grid of ``rows`` x ``cols`` cells, its lines of ``k`` and its symmetries.

Cells are numbered row-major from the top-left (``cell = row * cols + col``); a line is ``k``
cells in a row, a column, a diagonal or an anti-diagonal; a symmetry is a cell permutation that
maps every line onto a line (a square grid has 8, any other rectangle 4). A move rule may keep
fewer of them (:meth:`solver.rules.parts.MoveRule.symmetries`: gravity keeps the mirror only).

>>> from solver.rules.game import parse_game
>>> board = Board(parse_game("3x4"))
>>> len(board.lines), len(board.symmetries)
(14, 4)
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

from .parts import Shape

DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
"""Row, column, diagonal, anti-diagonal: the directions a line runs in."""


class Board:
    """A grid's cells, lines and symmetries (module docstring)."""

    def __init__(self, shape: Shape) -> None:
        self.shape = shape

    def __repr__(self) -> str:
        return f"<Board of {self.shape.name}>"

    @cached_property
    def lines(self) -> tuple[tuple[int, ...], ...]:
        """Every line: ``k`` cells in a row, column or diagonal (cell tuples, in a fixed order)."""
        shape, found = self.shape, []
        for dr, dc in DIRECTIONS:
            for r in range(shape.rows):
                for c in range(shape.cols):
                    end_r, end_c = r + dr * (shape.k - 1), c + dc * (shape.k - 1)
                    if 0 <= end_r < shape.rows and 0 <= end_c < shape.cols:
                        found.append(tuple(shape.cell(r + dr * t, c + dc * t) for t in range(shape.k)))
        return tuple(found)

    @cached_property
    def line_masks(self) -> tuple[int, ...]:
        """:attr:`lines` as bit masks."""
        return tuple(sum(1 << cell for cell in line) for line in self.lines)

    def line_starts(self) -> tuple[tuple[int, int], ...]:
        """``(step, starts)`` per direction with a line: ``step`` cells from one cell of a line to the next, and
        ``starts`` a mask of the cells a line starts at."""
        shape, found = self.shape, []
        for dr, dc in DIRECTIONS:
            starts = 0
            for r in range(shape.rows):
                for c in range(shape.cols):
                    end_r, end_c = r + dr * (shape.k - 1), c + dc * (shape.k - 1)
                    if 0 <= end_r < shape.rows and 0 <= end_c < shape.cols:
                        starts |= 1 << shape.cell(r, c)
            if starts:
                found.append((dr * shape.cols + dc, starts))
        return tuple(found)

    @cached_property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """The grid's symmetries as cell permutations, identity first: a square grid has 8 (rotations and
        reflections), any other rectangle 4. ``perm[cell]`` is the cell whose content moves to ``cell``."""
        r, c, shape = self.shape.rows, self.shape.cols, self.shape
        maps: list[Callable[[int, int], tuple[int, int]]] = [
            lambda i, j: (i, j),
            lambda i, j: (r - 1 - i, c - 1 - j),
            lambda i, j: (i, c - 1 - j),
            lambda i, j: (r - 1 - i, j),
        ]
        if r == c:
            maps += [
                lambda i, j: (j, i),
                lambda i, j: (c - 1 - j, r - 1 - i),
                lambda i, j: (j, r - 1 - i),
                lambda i, j: (c - 1 - j, i),
            ]
        return tuple(tuple(shape.cell(*f(*shape.coords(cell))) for cell in range(shape.cells)) for f in maps)
