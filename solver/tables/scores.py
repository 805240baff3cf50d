"""The answer of a batch look-up (:meth:`solver.tables.Table.lookup_codes`), for both kinds of table."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..rules.game import Game
from ..rules.score import UNREACHABLE, decode_many

Column = np.ndarray | Callable[[], np.ndarray]
"""An array, or a function that computes it when it is first read."""


@dataclass(frozen=True, eq=False)
class Scores:
    """Arrays aligned with the codes asked (same shape), for the side to move unless said otherwise.

    =============  ===============================================================
    ``score``      int8, for the side to move (:mod:`solver.rules.score`)
    ``pieces``     uint8, pieces on the board (X is to move when even; formerly ``ply``)
    ``best``       unsigned (uint16 for a dense table, uint32 for a compact one, uint64 past 32 cells),
                   bit ``cell`` set for every best move (0 when finished)
    ``value``      int8, for X: 1 X wins, 0 draw, -1 O wins (derived)
    ``plies``      int8, plies to the end under perfect play (derived)
    ``reachable``  bool, False for a code no game reaches (only with ``check=False``;
                   its ``value`` and ``plies`` then mean nothing)
    =============  ===============================================================

    A dense table hands over every column at once (views of its entries); a compact
    table hands over ``score`` and ``pieces`` and computes ``best`` when first read, for the
    whole batch at once (:meth:`solver.tables.compact.CompactTable.best_masks`: vectorised,
    every child read in one pass, so a compressed table decodes each block once; about
    two to three times the cost of the look-up itself). Either way each column is computed
    at most once, the derived ones too. Frozen: its attributes cannot be replaced.

    ``ply`` is a deprecated alias of ``pieces``, kept so that code written before the rename still runs
    (a number of pieces is not a number of plies to the end, which ``plies`` is).

    :param pieces_source: ``pieces``, or the function that computes it when first read.
    :param best_source: ``best``, likewise.
    """

    game: Game
    score: np.ndarray
    pieces_source: Column = field(repr=False)
    best_source: Column = field(repr=False)

    @cached_property
    def pieces(self) -> np.ndarray:
        """uint8: pieces on the board of each code (plies played since the empty board)."""
        return self.pieces_source if isinstance(self.pieces_source, np.ndarray) else self.pieces_source()

    @property
    def ply(self) -> np.ndarray:
        """Deprecated alias of :attr:`pieces` (the pieces on the board, not plies to the end: see :attr:`plies`)."""
        warnings.warn("Scores.ply is deprecated: use Scores.pieces (pieces on the board)", DeprecationWarning, stacklevel=2)
        return self.pieces

    @cached_property
    def best(self) -> np.ndarray:
        """Best-move masks: bit ``cell`` set for every best move (0 when the game is over)."""
        return self.best_source if isinstance(self.best_source, np.ndarray) else self.best_source()

    @property
    def reachable(self) -> np.ndarray:
        """bool: whether a legal game reaches each code (all True when looked up with ``check=True``)."""
        return np.asarray(self.score != UNREACHABLE)

    @cached_property
    def value(self) -> np.ndarray:
        """The value for X (int8: 1 X wins, 0 draw, -1 O wins)."""
        sign = np.sign(self.score)
        return np.asarray(np.where(self.pieces % 2 == 0, sign, -sign), dtype=np.int8)

    @cached_property
    def best_columns(self) -> np.ndarray:
        """bool, shaped like the batch with a last axis of ``cols``: whether each column holds a best move (under gravity,
        where a move is a column, the best columns; none when the game is over)."""
        best = np.asarray(self.best).astype(np.uint64)
        bits = (best[..., None] >> np.arange(self.game.cells, dtype=np.uint64)) & np.uint64(1)
        return np.asarray(bits.reshape(*best.shape, self.game.rows, self.game.cols).any(axis=-2))

    @cached_property
    def plies(self) -> np.ndarray:
        """Plies to the end under perfect play (int8)."""
        return decode_many(self.score, self.game.cells - self.pieces.astype(np.int16))[1]
