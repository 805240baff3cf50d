"""Games: an m,n,k board, its winning lines and its symmetries.

A game is ``rows`` x ``cols`` cells where a player wins with ``k`` of their own
pieces in a row, column or diagonal. X moves first. Games are named ``RxCkK``
(``3x3k3`` is tic-tac-toe, ``4x4k4`` four in a row on 4x4); ``k`` defaults to
the shorter side, so ``"4x4"`` is ``4x4k4``.

Cells are numbered row-major from the top-left: ``cell = row * cols + col``.
Sets of cells are bit masks (bit ``cell`` set).

>>> game = parse_game("3x4")
>>> game.name, game.cells, len(game.lines)
('3x4k3', 12, 14)
>>> parse_game("3x3").has_line(0b000_000_111)
True
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..errors import InvalidGameError, quote

MAX_CELLS = 25
"""Largest board supported: 3**25 codes (int64), compact tables (:mod:`solver.encoding.index`)."""

DENSE_MAX_CELLS = 16
"""Largest board of the dense format: 3**16 codes of 4 bytes, best moves in a 16-bit mask."""

_NAME = re.compile(r"([0-9]{1,6})x([0-9]{1,6})(?:k([0-9]{1,6}))?", re.ASCII)
_PARSED: dict[str, Game] = {}
"""Games by the name they were asked for, so a name is parsed once per process."""


@dataclass(frozen=True)
class Game:
    """An m,n,k game: ``rows`` x ``cols`` cells, ``k`` in a row wins.

    :raises InvalidGameError: for an empty board, more than 25 cells, or a
        ``k`` that fits neither side.
    """

    rows: int = 3
    cols: int = 3
    k: int = 3

    def __post_init__(self) -> None:
        for name in ("rows", "cols", "k"):
            value = getattr(self, name)
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise InvalidGameError(f"{name} must be an int, found {type(value).__name__} {quote(value)}")
            if type(value) is not int:
                object.__setattr__(self, name, int(value))  # numpy ints: equal games hash alike
        if self.rows < 1 or self.cols < 1:
            raise InvalidGameError(f"a board needs at least one row and one column (found {self.rows}x{self.cols})")
        if self.rows * self.cols > MAX_CELLS:
            raise InvalidGameError(f"{self.rows}x{self.cols} has {self.rows * self.cols} cells; at most {MAX_CELLS} are supported")
        if not 1 <= self.k <= max(self.rows, self.cols):
            raise InvalidGameError(f"k={self.k} does not fit a {self.rows}x{self.cols} board (expected 1 to {max(self.rows, self.cols)})")

    @property
    def name(self) -> str:
        """The game's name, e.g. ``"3x3k3"``."""
        return f"{self.rows}x{self.cols}k{self.k}"

    @property
    def cells(self) -> int:
        """Number of cells."""
        return self.rows * self.cols

    @cached_property
    def codes(self) -> int:
        """Number of base-3 codes: ``3 ** cells``."""
        return int(3**self.cells)

    @property
    def full_mask(self) -> int:
        """The mask with every cell set."""
        return (1 << self.cells) - 1

    def cell(self, row: int, col: int) -> int:
        """The cell index of ``(row, col)``."""
        return row * self.cols + col

    def coords(self, cell: int) -> tuple[int, int]:
        """The ``(row, col)`` of a cell index."""
        return divmod(cell, self.cols)

    @cached_property
    def lines(self) -> tuple[tuple[int, ...], ...]:
        """Every winning line: ``k`` cells in a row, column or diagonal."""
        found = []
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            for r in range(self.rows):
                for c in range(self.cols):
                    end_r, end_c = r + dr * (self.k - 1), c + dc * (self.k - 1)
                    if 0 <= end_r < self.rows and 0 <= end_c < self.cols:
                        found.append(tuple(self.cell(r + dr * t, c + dc * t) for t in range(self.k)))
        return tuple(found)

    @cached_property
    def line_masks(self) -> tuple[int, ...]:
        """:attr:`lines` as bit masks."""
        return tuple(sum(1 << cell for cell in line) for line in self.lines)

    def has_line(self, mask: int) -> bool:
        """Whether the pieces in ``mask`` include a whole winning line."""
        return any(mask & line == line for line in self.line_masks)

    def lines_in(self, mask: int) -> list[tuple[int, ...]]:
        """The winning lines wholly inside ``mask``."""
        return [line for line, m in zip(self.lines, self.line_masks, strict=True) if mask & m == m]

    @cached_property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """The board's symmetries as cell permutations, identity first.

        ``perm[cell]`` is the cell whose content moves to ``cell``. A square
        board has 8 (rotations and reflections), any other rectangle 4.
        """
        r, c = self.rows, self.cols
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
        return tuple(tuple(self.cell(*f(*self.coords(cell))) for cell in range(self.cells)) for f in maps)

    def __str__(self) -> str:
        return self.name


DEFAULT_GAME = Game()
"""Tic-tac-toe: 3x3, three in a row."""


def parse_game(spec: str | Game | None) -> Game:
    """A :class:`Game` from a name such as ``"4x4k3"`` or ``"4x4"`` (k = shorter side).

    ``None`` gives tic-tac-toe; a :class:`Game` is returned as it is.

    :raises InvalidGameError: naming what was found and what was expected.
    """
    if spec is None:
        return DEFAULT_GAME
    if isinstance(spec, Game):
        return spec
    if not isinstance(spec, str):
        raise InvalidGameError(f"a game is a name like '3x3k3', found {type(spec).__name__} {quote(spec)}")
    game = _PARSED.get(spec)
    if game is not None:
        return game
    match = _NAME.fullmatch(spec.strip().lower())
    if match is None:
        raise InvalidGameError(f"malformed game name {quote(spec)}: expected ROWSxCOLS or ROWSxCOLSkK, e.g. '3x3k3' or '4x4'")
    rows, cols = int(match[1]), int(match[2])
    k = int(match[3]) if match[3] else min(rows, cols)
    game = Game(rows, cols, k)
    if len(_PARSED) < 1000:
        _PARSED[spec] = game
    return game
