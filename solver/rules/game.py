"""Games: a board's shape, the length of a line, and the rule, named as one string.

A game is ``rows`` x ``cols`` cells where ``k`` of one player's pieces in a row, column or
diagonal end the game. X moves first. Games are named ``RxCkK`` (``3x3k3`` is tic-tac-toe,
``4x4k4`` four in a row on 4x4); ``k`` defaults to the shorter side, so ``"4x4"`` is
``4x4k4``. A suffix names another rule: ``3x3k3-misere`` (``-misère`` is read too) is
misère play, where whoever completes a line loses. The rule itself is an object of
:mod:`solver.rules` (:attr:`Game.rules`), the one place that knows how the game is played.

Cells are numbered row-major from the top-left: ``cell = row * cols + col``.
Sets of cells are bit masks (bit ``cell`` set).

>>> game = parse_game("3x4")
>>> game.name, game.cells, len(game.rules.lines)
('3x4k3', 12, 14)
>>> parse_game("3x3").rules.has_line(0b000_000_111)
True
>>> parse_game("4x4-misère")
Game(rows=4, cols=4, k=4, variant='misere')
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..errors import GameNameWarning, InvalidGameError, quote
from .base import Rules
from .catalog import TABLE_CELLS, WORD_CELLS, Parts, canonical_variant, parts_of, rules_for
from .parts import MoveRule, Scoring
from .placement import Placement

__all__ = ["ALIASES", "CONNECT_FOUR", "DEFAULT_GAME", "DENSE_MAX_CELLS", "MAX_CELLS", "TABLE_CELLS", "WORD_CELLS", "Game", "parse_game"]

MAX_CELLS = Placement.max_cells
"""Largest m,n,k board supported: 3**25 codes (int64), compact tables (:mod:`solver.encoding.index`). Each move
rule has its own limit (:attr:`solver.rules.parts.MoveRule.max_cells`: gravity names boards up to 64 cells, and
refuses those past :data:`WORD_CELLS` with an estimate where a table is needed, :mod:`solver.store.estimate`)."""

ALIASES = {"connect4": "6x7k4-gravity", "connect-four": "6x7k4-gravity", "connectfour": "6x7k4-gravity"}
"""Games known by a name of their own: Connect Four is ``6x7k4-gravity`` (6 rows, 7 columns)."""

DENSE_MAX_CELLS = Placement.dense_max_cells
"""Largest board of the dense format: 3**16 codes of 4 bytes, best moves in a 16-bit mask (a move rule may
give fewer boards a dense table: :attr:`solver.rules.parts.MoveRule.dense_max_cells`)."""

_NAME = re.compile(r"([0-9]{1,6})x([0-9]{1,6})(?:k([0-9]{1,6}))?(?:-(.{1,40}))?")
_PARSED: dict[str, Game] = {}
"""Games by the name they were asked for, so a name is parsed once per process."""
_WARNED: set[str] = set()
"""The names a :class:`~solver.errors.GameNameWarning` was given for in this process (at most 1,000)."""


@dataclass(frozen=True)
class Game:
    """An m,n,k game: ``rows`` x ``cols`` cells, ``k`` in a row ends it, under the rule named by ``variant``.

    :param variant: the rule's name suffix (``""`` normal play, ``"misere"``; :mod:`solver.rules.catalog`).
    :raises InvalidGameError: for an empty board, more than 25 cells, a ``k`` that fits
        neither side, or a rule that does not exist.
    """

    rows: int = 3
    cols: int = 3
    k: int = 3
    variant: str = ""

    def __post_init__(self) -> None:
        for name in ("rows", "cols", "k"):
            value = getattr(self, name)
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise InvalidGameError(f"{name} must be an int, found {type(value).__name__} {quote(value)}")
            if type(value) is not int:
                object.__setattr__(self, name, int(value))  # numpy ints: equal games hash alike
        if self.rows < 1 or self.cols < 1:
            raise InvalidGameError(f"a board needs at least one row and one column (found {self.rows}x{self.cols})")
        object.__setattr__(self, "variant", canonical_variant(self.variant))
        limit = self.move_rule.max_cells
        if self.rows * self.cols > limit:
            raise InvalidGameError(f"{self.rows}x{self.cols} has {self.rows * self.cols} cells; at most {limit} are supported")
        if not 1 <= self.k <= max(self.rows, self.cols):
            raise InvalidGameError(f"k={self.k} does not fit a {self.rows}x{self.cols} board (expected 1 to {max(self.rows, self.cols)})")

    def __repr__(self) -> str:
        variant = f", variant={self.variant!r}" if self.variant else ""
        return f"Game(rows={self.rows}, cols={self.cols}, k={self.k}{variant})"

    @property
    def name(self) -> str:
        """The game's name, e.g. ``"3x3k3"`` or ``"4x4k4-misere"``."""
        suffix = f"-{self.variant}" if self.variant else ""
        return f"{self.rows}x{self.cols}k{self.k}{suffix}"

    @cached_property
    def rules(self) -> Rules:
        """The rule of this game (:mod:`solver.rules.base`), built once per process and kept on the game: a position
        asks it whether it is over (:meth:`~solver.rules.base.Rules.outcome_of_score`) at every read."""
        return rules_for(self)

    def __getstate__(self) -> dict[str, object]:
        """What a pickle keeps of the game: its fields, not its rule (built again where it is unpickled)."""
        state = dict(self.__dict__)
        state.pop("rules", None)
        return state

    @property
    def move_rule(self) -> type[MoveRule]:
        """The type of the game's move rule: its constants (size limits, :attr:`~solver.rules.parts.MoveRule.forward_pass`)
        hold for boards too large for a rule object (Connect Four is named, and estimated, but played nowhere here)."""
        return parts_of(self.variant).move

    @property
    def scoring(self) -> type[Scoring]:
        """The type of the game's scoring (normal, misère, ...): like :attr:`move_rule`, it holds for any board size."""
        return parts_of(self.variant).scoring

    @property
    def build_walks_forward(self) -> bool:
        """Whether a build of the game walks its games forward from the empty board (to find the boards they reach)
        before it solves them backward: the move rule's :attr:`~solver.rules.parts.MoveRule.forward_pass` (gravity)."""
        return self.move_rule.forward_pass

    @property
    def parts(self) -> Parts:
        """The types of the game's grid, move rule and scoring (:mod:`solver.rules.catalog`): like :attr:`move_rule`,
        they hold for any board size (the search engine asks them which games it plays, :mod:`solver.search.position`)."""
        return parts_of(self.variant)

    @property
    def cells(self) -> int:
        """Number of cells."""
        return self.rows * self.cols

    @property
    def dense(self) -> bool:
        """Whether the game gets a dense table: up to :data:`DENSE_MAX_CELLS` cells, or fewer if the move rule says so
        (:attr:`solver.rules.parts.MoveRule.dense_max_cells`: 12 under gravity)."""
        return self.cells <= self.move_rule.dense_max_cells

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

    def __str__(self) -> str:
        return self.name


DEFAULT_GAME = Game()
"""Tic-tac-toe: 3x3, three in a row."""
CONNECT_FOUR = Game(6, 7, 4, "gravity")
"""Connect Four: 6 rows, 7 columns, four in a row, pieces that drop (``6x7k4-gravity``, also named ``connect4``).
The one place its name is spelled: what is known of it (its book's depth, its published count of positions) is
keyed by this game, not by a name."""


def parse_game(spec: str | Game | None) -> Game:
    """A :class:`Game` from a name such as ``"4x4k3"``, ``"4x4"`` (k = shorter side) or ``"3x3k3-misere"``.

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
    match = _NAME.fullmatch(ALIASES.get(spec.strip().lower(), spec.strip().lower()))
    if match is None:
        expected = "ROWSxCOLS or ROWSxCOLSkK, e.g. '3x3k3' or '4x4', with a rule's suffix if any ('3x3k3-misere', '6x7k4-gravity'), or 'connect4'"
        raise InvalidGameError(f"malformed game name {quote(spec)}: expected {expected}")
    rows, cols = int(match[1]), int(match[2])
    k = int(match[3]) if match[3] else min(rows, cols)
    game = Game(rows, cols, k, match[4] or "")
    surprise = name_surprise(spec, game, k_given=bool(match[3]))
    if surprise is not None and spec not in _WARNED:  # once per name and process, however full the memo of names is
        if len(_WARNED) < 1000:
            _WARNED.add(spec)
        warnings.warn(surprise, GameNameWarning, stacklevel=2)
    if len(_PARSED) < 1000:
        _PARSED[spec] = game
    return game


def name_surprise(spec: str, game: Game, *, k_given: bool) -> str | None:
    """What a gravity game's name chose that its writer may not have meant, or None (:class:`~solver.errors.GameNameWarning`):
    a ``k`` not given (the shorter side: ``6x7-gravity`` is six in a row), or 7 rows by 6 columns (Connect Four is
    often written 7x6, columns first); ``connect4`` is named for a board of 6x7 or 7x6.

    >>> print(name_surprise("7x6k4-gravity", Game(7, 6, 4, "gravity"), k_given=True))
    7x6k4-gravity is 7 rows by 6 columns (a name gives the rows first); Connect Four, 6 rows by 7 columns and four in a row, is connect4 (6x7k4-gravity)
    >>> name_surprise("6x7k4-gravity", parse_game("connect4"), k_given=True) is None
    True
    """
    if game.move_rule.form != "column":
        return None
    said = []
    if not k_given:
        said.append(f"{game.k} in a row (k, when the name gives none, is the shorter side)")
    if (game.rows, game.cols) == (7, 6):
        said.append("7 rows by 6 columns (a name gives the rows first)")
    if not said:
        return None
    written = spec.strip()
    head = f"{written} is" if written.lower() == game.name else f"{written} is {game.name},"
    connect4 = "; Connect Four, 6 rows by 7 columns and four in a row, is connect4 (6x7k4-gravity)" if {game.rows, game.cols} == {6, 7} else ""
    return f"{head} {' and '.join(said)}{connect4}"
