"""The parts a rule is composed of: the grid it is played on, a move rule and a scoring.

A game's rule (:class:`solver.rules.base.Rules`) is one grid (:class:`solver.rules.grid.Grid`:
cells, the directions lines run in, symmetries), one :class:`MoveRule` (where a piece may go:
placement, drop) and one :class:`Scoring` (what a completed line and a full board score: normal,
misère). Each part is a small class in a module of its own, listed in :mod:`solver.rules.catalog`;
no class exists per combination, and no code outside this package tests which part a rule has: it
asks the part a question named for what it needs (the search engine alone holds a list of the part
types it plays, :data:`solver.search.games.ENGINE_PARTS`).

A **move rule** answers what its moves are (one board and many), which pieces it forbids where
(a piece that floats under gravity), whether the winning move may be where it is, why a board
breaks it (in words), how a move is written, read and ordered (:attr:`MoveRule.writes_columns`,
:meth:`MoveRule.written`, :meth:`MoveRule.move_words`, :meth:`MoveRule.in_move_order`), whether a table must find
the boards a game reaches by walking the games forward (:attr:`MoveRule.forward_pass`: the status
of a board does not tell them all), which of the board's symmetries it keeps, and the size limits
of its games. What the build kernel needs of it is the kernel's hook, registered by the move rule's
type in :mod:`solver.retrograde.kernel` (and its layout in :func:`solver.encoding.index.layout`).

A **scoring** answers who wins a completed line and what a full board without a line scores, for
the side to move (:mod:`solver.rules.score`), and so which scores a table may hold.

The parts see the game through :class:`Shape` (what :class:`solver.rules.game.Game` is), so that
nothing below the catalogue imports the game: the package has no import circle.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar, Literal, Protocol

import numpy as np

from .score import UNREACHABLE, WIN

if TYPE_CHECKING:  # pragma: no cover - types only, and below this module
    from collections.abc import Iterable, Sequence


class Shape(Protocol):
    """What a rule reads of its game (:class:`solver.rules.game.Game` is one): the board's size, ``k`` and name."""

    @property
    def rows(self) -> int: ...
    @property
    def cols(self) -> int: ...
    @property
    def k(self) -> int: ...
    @property
    def variant(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def cells(self) -> int: ...
    @property
    def codes(self) -> int: ...
    @property
    def full_mask(self) -> int: ...
    @property
    def dense(self) -> bool: ...
    def cell(self, row: int, col: int) -> int: ...
    def coords(self, cell: int) -> tuple[int, int]: ...


MoveForm = Literal["cell", "column"]
"""How a move is written: a cell (``row,col``, a flat index) or a column (the piece drops)."""


class MoveRule(ABC):
    """Where the side to move may put a piece (module docstring). One instance per game, from the catalogue."""

    name: ClassVar[str]
    """The move rule's part of a game's name suffix (``""`` for placement, ``"gravity"``)."""
    title: ClassVar[str]
    """The move rule in a few words, for people (``""`` for placement: the usual game)."""
    form: ClassVar[MoveForm] = "cell"
    """How a move is read and written: a cell, or a column. Code outside :mod:`solver.rules` asks the questions
    below (:attr:`writes_columns`, :meth:`written`, :meth:`move_words`, :meth:`in_move_order`), not the form."""
    forward_pass: ClassVar[bool] = False
    """Whether the status of a board misses some boards no game reaches, so that a build finds the reached boards
    by walking the games forward and a table stores a byte for every board the rule does not call invalid
    (``UNREACHABLE`` where no game reaches it)."""
    max_cells: ClassVar[int] = 25
    """The largest board a game's name may give (past :data:`solver.rules.game.WORD_CELLS` cells a board is named,
    and refused with an estimate where a table is needed)."""
    dense_max_cells: ClassVar[int] = 16
    """The largest board given a dense table (:attr:`solver.rules.game.Game.dense`)."""

    def __init__(self, shape: Shape) -> None:
        self.shape = shape
        self.full = shape.full_mask

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self.shape.name}>"

    @abstractmethod
    def moves(self, taken: int) -> int:
        """The cells the side to move may play, from the occupied cells (a bit each; the game not over)."""

    @abstractmethod
    def moves_many(self, taken: np.ndarray) -> np.ndarray:
        """:meth:`moves` of many boards, from their occupied cells (masks, same dtype)."""

    # -- how a move is written, read and ordered (the front ends, the tables' best move) ---------------------
    @property
    def writes_columns(self) -> bool:
        """Whether a player writes a move as its column (``3``) rather than its cell (``row,col``): the front ends then
        read a bare number as a column, head their tables "column", and a position lists its best columns too.
        Not whether pieces drop: where a column's move lands is :meth:`landing`'s."""
        return self.form == "column"

    def written(self, cell: int) -> int | tuple[int, int]:
        """The move to ``cell`` as a player writes it: its column, or its ``(row, col)``."""
        row, col = self.shape.coords(cell)
        return col if self.writes_columns else (row, col)

    def move_words(self, cell: int, cell_style: str = "{row},{col}") -> str:
        """The move to ``cell`` in words: ``column 2``, or the cell in ``cell_style`` (``"{row},{col}"``: ``1,2``)."""
        row, col = self.shape.coords(cell)
        return f"column {col}" if self.writes_columns else cell_style.format(row=row, col=col)

    def in_move_order(self, cells: Iterable[int]) -> list[int]:
        """Cells in the order their moves are listed and the first best move is chosen: cell order, or column order
        where a move is written as its column."""
        key = (lambda cell: (cell % self.shape.cols, cell)) if self.writes_columns else None
        return sorted(cells, key=key)

    def landing(self, taken: int, col: int) -> int | None:
        """The cell a move in column ``col`` takes (``taken``: the occupied cells), or None if it has none
        (a column is a move only where :attr:`form` is ``"column"``)."""
        return None

    def symmetries(self, of_board: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
        """The board's symmetries (cell permutations, identity first) that keep this move rule: placement keeps them all."""
        return of_board

    def misplaced(self, taken: int) -> int:
        """The pieces no game of this move rule puts where they are (a bit each; none under placement)."""
        return 0

    def misplaced_many(self, taken: np.ndarray) -> np.ndarray:
        """:meth:`misplaced` of many boards (same dtype as ``taken``)."""
        return np.zeros_like(taken)

    def last_move_fits(self, common: int, taken: int) -> bool:
        """Whether the move that completed the lines whose common cells are ``common`` can have been the last one
        (the occupied cells ``taken``); placement: any common cell."""
        return True

    def last_move_fits_many(self, common: np.ndarray, taken: np.ndarray) -> np.ndarray:
        """:meth:`last_move_fits` of many boards (bool)."""
        return np.ones(np.shape(common), dtype=bool)

    def not_a_move(self, taken: int, cell: int, describe: DescribeCells) -> str:
        """Why the empty ``cell`` is not a move on a board whose occupied cells are ``taken``, in words."""
        return f"{describe([cell])} is not a move"

    def misplaced_words(self, cell: int, describe: DescribeCells) -> str:
        """Why the misplaced piece at ``cell`` (:meth:`misplaced`) cannot be there, in words."""
        return f"the piece at {describe([cell])} cannot be there"

    def order_violation(self, x: int, o: int, lines: Sequence[tuple[int, ...]], describe: DescribeCells) -> str | None:
        """Why no order of moves of this move rule reaches the board (piece counts and lines already hold), or None.

        :param lines: the lines of the last mover (empty when nobody has one).
        """
        return None


class DescribeCells(Protocol):
    """Cells in words, as a rule's messages write them: ``(0,1),(1,1)``."""

    def __call__(self, cells: Sequence[int], /) -> str: ...


class Scoring(ABC):
    """What a finished board scores (module docstring). One instance per game, from the catalogue."""

    name: ClassVar[str]
    """The scoring's part of a game's name suffix (``""`` for normal play, ``"misere"``)."""
    title: ClassVar[str]
    """The scoring in a few words, for people (``""`` for normal play)."""
    line_wins: ClassVar[bool] = True
    """Whether completing a line wins (normal play) or loses (misère)."""

    def __init__(self, shape: Shape) -> None:
        self.shape = shape

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self.shape.name}>"

    @property
    def line_score(self) -> int:
        """The score of a board whose last mover completed a line, for the side to move: ``-WIN`` (lost) or ``WIN``."""
        return -WIN if self.line_wins else WIN

    @property
    def full_score(self) -> int:
        """The score of a full board without a line, for the side to move: 0, a draw."""
        return 0

    def full_winner(self) -> str | None:
        """Who wins on a full board without a line (``"X"``, ``"O"``), or None: a draw."""
        return None

    def full_words(self) -> str:
        """The end of a game on a full board without a line, in words: ``"a draw"``."""
        return "a draw"

    def possible_scores(self, ply: int) -> frozenset[int]:
        """Every score a position with ``ply`` pieces can hold under this scoring (any other is a damaged table).

        A win in ``d`` plies needs the right parity, at most the empty cells, and the player who completes
        a line holding ``k`` pieces by then; a draw and :data:`UNREACHABLE` are always possible.
        """
        cells, k = self.shape.cells, self.shape.k
        mover, other, left = ply // 2, ply - ply // 2, cells - ply
        found = {UNREACHABLE, 0}
        for d in range(left + 1):
            if d % 2 and mover + (d + 1) // 2 >= k:  # the side to move completes a line on ply d
                found.add(WIN - d if self.line_wins else d - WIN)
            if d % 2 == 0 and other + d // 2 >= k:  # the other side completes one on ply d
                found.add(d - WIN if self.line_wins else WIN - d)
        return frozenset(found)
