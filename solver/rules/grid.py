"""The grid, the rule's part that says where the lines run: ``rows`` x ``cols`` cells, its lines of ``k``, its symmetries.

A *board* is a position's pieces (:mod:`solver.encoding.board`); the *grid* is the part of a rule
that the board is laid on (:class:`Grid`). Cells are numbered row-major from the top-left
(``cell = row * cols + col``); a line is ``k`` cells in a row along one of the grid's
:attr:`Grid.directions` (the usual grid: a row, a column, a diagonal or an anti-diagonal); a
symmetry is a cell permutation that maps every line onto a line (a square grid has 8, any other
rectangle 4). A move rule may keep fewer of them (:meth:`solver.rules.parts.MoveRule.symmetries`:
gravity keeps the mirror only).

A grid variant is a subclass with a :attr:`Grid.name` (its part of a game's name suffix, before the
move rule's) and its own :attr:`Grid.directions`, and a line of :mod:`solver.rules.catalog`; everything
that finds a line asks the grid (the build's kernels through :meth:`Grid.line_starts`, the search
engine's bitboard through :attr:`Grid.directions`, :mod:`solver.search.position`).

>>> from solver.rules.game import parse_game
>>> grid = Grid(parse_game("3x4"))
>>> len(grid.lines), len(grid.symmetries)
(14, 4)
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import ClassVar

from .parts import Shape

Direction = tuple[int, int]
"""A direction a line runs in: ``(rows, cols)`` from one cell of a line to the next (row 0 is the top)."""
DIRECTIONS: tuple[Direction, ...] = ((0, 1), (1, 0), (1, 1), (1, -1))
"""Row, column, diagonal, anti-diagonal: the directions a line runs in on the usual grid."""


class Grid:
    """The usual grid: cells, lines of ``k`` in the four :data:`DIRECTIONS`, and symmetries (module docstring).
    One instance per game, from the catalogue."""

    name: ClassVar[str] = ""
    """The grid's part of a game's name suffix (``""``: the usual grid), before the move rule's."""
    title: ClassVar[str] = ""
    """The grid in a few words, for people (``""``: the usual grid)."""
    directions: ClassVar[tuple[Direction, ...]] = DIRECTIONS
    """The directions a line runs in: a line is ``k`` cells, each one step of a direction from the last."""

    def __init__(self, shape: Shape) -> None:
        self.shape = shape

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self.shape.name}>"

    @cached_property
    def lines(self) -> tuple[tuple[int, ...], ...]:
        """Every line: ``k`` cells in one of :attr:`directions` (cell tuples, in a fixed order)."""
        shape, found = self.shape, []
        for dr, dc in self.directions:
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
        for dr, dc in self.directions:
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
        reflections), any other rectangle 4. ``perm[cell]`` is the cell whose content moves to ``cell``.
        Each maps the four :data:`DIRECTIONS` onto themselves (rows and columns, the two diagonals), so a grid whose
        directions are such a set (rows and columns only, say) keeps them all."""
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
