"""Best moves of many positions at once, from their children's scores (a compact table's batch look-up).

A position's best moves are the moves whose child has the smallest score
(:mod:`solver.rules.score`). :meth:`solver.tables.compact.CompactTable.best_mask_of` finds them
for one position; this module does the same for a batch, vectorised over positions, in
three cases:

1. the moves that complete a line (:meth:`solver.rules.mnk.Rules.winning_cells_many`) win
   now: they are the best moves, and no child is read;
2. on the last empty cell, the move draws: it is the best move;
3. else every child is in play, and its score is read at its canonical board
   (:meth:`solver.encoding.symmetry.Symmetries.canonical_child_grid`: from the position's own
   images, a sum and a minimum per symmetry); the moves to the smallest score are the best.

:func:`plan` settles cases 1 and 2 and lists the children that case 3 reads
(:class:`Children`), so that a table reads the children of a whole batch at once (a
compressed table then decodes each block once); :func:`best_of` turns their scores into
best-move masks.

>>> from solver.rules.game import Game
>>> from solver.encoding.board import parse
>>> codes = np.array([parse("XX./OO./...")[1], parse("X../.O./...")[1]])
>>> masks, children = plan(Game(), codes, np.array([4, 2], dtype=np.uint8))
>>> bin(int(masks[0])), [c.rows.tolist() for c in children]  # X completes the top row; the other is read
('0b100', [[1]])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..encoding.index import layout
from ..encoding.symmetry import symmetries
from ..rules.game import Game
from ..rules.mnk import O_SHIFT, rules_of

_ABOVE_EVERY_SCORE = np.int8(127)
"""What a taken cell reads as: above every score, so never a best move."""


@dataclass(frozen=True, eq=False)
class Children:
    """The children of some positions, to be read from the table (case 3 of the module docstring).

    ``rows``: which of the positions given to :func:`plan` (int64); ``empty``: their empty
    cells, ``(rows, cells)`` bool; ``index``: the table index of each child on an empty cell,
    row by row, cell by cell (int64).
    """

    rows: np.ndarray
    empty: np.ndarray
    index: np.ndarray


def plan(game: Game, codes: np.ndarray, pieces: np.ndarray) -> tuple[np.ndarray, list[Children]]:
    """The best-move masks of positions in play where no child need be read, and the children to read for the others.

    :param codes: positions in play (the rules say so and a game reaches them), int64, flat;
        keep them to a few ``2**14`` (each has a row of ``cells`` children).
    :param pieces: the pieces on each board (uint8): X moves when even.
    :returns: the masks (uint32: the winning moves, or the last empty cell; 0 for the
        positions whose children must be read) and those children, X's moves and O's apart.
    """
    rules = rules_of(game)
    words = rules.words(codes)
    x, o = (words & ((1 << O_SHIFT) - 1)).astype(np.uint32), (words >> O_SHIFT).astype(np.uint32)
    x_moves = pieces % 2 == 0
    empty = np.uint32(game.full_mask) & ~(x | o)
    masks = rules.winning_cells_many(np.where(x_moves, x, o), empty)
    last = (masks == 0) & (pieces == game.cells - 1)
    masks[last] = empty[last]
    read = masks == 0
    children = [_children(game, codes, empty, np.flatnonzero(read & (x_moves == (piece == 1))), piece) for piece in (1, 2)]
    return masks, [found for found in children if found.rows.size]


def _children(game: Game, codes: np.ndarray, empty: np.ndarray, rows: np.ndarray, piece: int) -> Children:
    """The children of ``codes[rows]`` with ``piece`` added on each empty cell."""
    cells = _cell_grid(empty[rows], game.cells)
    canonical = symmetries(game).canonical_child_grid(codes[rows], piece)
    return Children(rows, cells, layout(game).index_of(canonical[cells]))


def best_of(children: Children, scores: np.ndarray) -> np.ndarray:
    """The best-move masks of :class:`Children` from the scores read at ``children.index`` (int8, in
    that order): bit ``cell`` set for every move to the smallest child score (uint32, one per row)."""
    grid = np.full(children.empty.shape, _ABOVE_EVERY_SCORE, dtype=np.int8)
    grid[children.empty] = scores
    return _cell_masks(grid == grid.min(axis=1, keepdims=True))


def _cell_grid(masks: np.ndarray, cells: int) -> np.ndarray:
    """Cell masks as ``(masks, cells)`` bool: entry ``[i, c]`` is bit ``c`` of ``masks[i]``."""
    as_bytes = np.ascontiguousarray(masks, dtype="<u4").view(np.uint8).reshape(-1, 4)
    grid: np.ndarray = np.unpackbits(as_bytes, axis=1, count=cells, bitorder="little").view(bool)
    return grid


def _cell_masks(grid: np.ndarray) -> np.ndarray:
    """``(rows, cells)`` bool as cell masks (uint32): bit ``c`` set where ``grid[i, c]``."""
    packed = np.zeros((grid.shape[0], 4), dtype=np.uint8)
    bits = np.packbits(grid, axis=1, bitorder="little")
    packed[:, : bits.shape[1]] = bits
    masks: np.ndarray = packed.view("<u4").reshape(-1).astype(np.uint32, copy=False)
    return masks
