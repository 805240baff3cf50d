"""Best moves of many positions at once, from their children's scores (a compact table's batch look-up).

A position's best moves are the moves whose child has the smallest score
(:mod:`solver.rules.score`). :meth:`solver.tables.compact.CompactTable.best_mask_of` finds them
for one position; this module does the same for a batch, vectorised over positions, in
the same three cases:

1. the moves that complete a line (:meth:`solver.rules.base.Rules.winning_cells_many`) end
   the game at once: where that wins, or where every move does, they are the best moves,
   and no child is read;
2. on the last empty cell, the move ends the game: it is the best move (cases 1 and 2 are
   the rule's, :meth:`solver.rules.base.Rules.settled_moves_many`);
3. else every other child is in play (in misère play the moves that complete a line lose
   at once, so they are the worst), and its score is read at its canonical board
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

from ..encoding.coderules import code_rules
from ..encoding.layouts import layout
from ..encoding.symmetry import symmetries
from ..rules.base import mask_type
from ..rules.game import Game

_ABOVE_EVERY_SCORE = np.int8(127)
"""What a taken cell reads as: above every score, so never a best move."""
_CELL_BITS = (np.uint64(1) << np.arange(64, dtype=np.uint64))[:, None]
"""``[cell, 0]``: the mask bit of each cell (``1 << cell``), as a column (cast to the rule's mask type where used)."""


@dataclass(frozen=True, eq=False)
class Children:
    """The children of some positions, to be read from the table (case 3 of the module docstring).

    ``rows``: which of the positions given to :func:`plan` (int64); ``places``: where each child
    on an empty cell is in a ``(cells, rows)`` grid, flat (cell by cell, then row by row; int64);
    ``index``: the table index of each of those children, in that order (int64); ``cells``: the
    board's cells.
    """

    rows: np.ndarray
    places: np.ndarray
    index: np.ndarray
    cells: int


def plan(
    game: Game,
    codes: np.ndarray,
    pieces: np.ndarray,
    words: np.ndarray | None = None,
    images: np.ndarray | None = None,
    columns: np.ndarray | None = None,
) -> tuple[np.ndarray, list[Children]]:
    """The best-move masks of positions in play where no child need be read, and the children to read for the others.

    :param codes: positions in play (the rules say so and a game reaches them), int64, flat;
        keep them to a few ``2**13`` (each has a row of ``cells`` children).
    :param pieces: the pieces on each board (uint8): X moves when even.
    :param words: the boards' words (:meth:`solver.encoding.coderules.CodeRules.words`) if the caller kept them
        (a batch look-up does); else computed here.
    :param images: the boards' images under symmetries ``1 ..`` if the caller kept them (uint32, ``(count - 1,
        boards)``: :meth:`solver.encoding.symmetry.Symmetries.canonical_codes`), a batch's: code ``i``'s in
        column ``columns[i]`` (only the codes whose children are read are taken); else computed here.
    :returns: the masks (the rule's :attr:`~solver.rules.base.Rules.mask_type`: the moves that complete a line where that wins, or where every
        move does; else the last empty cell; 0 for the positions whose children must be read)
        and those children, X's moves and O's apart (in misère play, the moves that complete a
        line lose at once: they are read only when no other move is left).
    """
    rules = game.rules
    if words is None:
        words = code_rules(game).words(codes)
    kind = rules.mask_type
    x, o = (half.astype(kind) for half in rules.split_many(words))
    x_moves = pieces % 2 == 0
    empty = rules.moves_many(x | o).astype(kind)  # the empty cells; under gravity the lowest of each column
    completing = rules.winning_cells_many(np.where(x_moves, x, o), empty)
    others = empty & ~completing
    masks = rules.settled_moves_many(completing, empty, pieces)  # the rule's: no child read
    read = masks == 0
    children = [_children(game, codes, others, np.flatnonzero(read & (x_moves == (piece == 1))), piece, images, columns) for piece in (1, 2)]
    return masks, [found for found in children if found.rows.size]


def _children(
    game: Game, codes: np.ndarray, cells: np.ndarray, rows: np.ndarray, piece: int, images: np.ndarray | None, columns: np.ndarray | None
) -> Children:
    """The children of ``codes[rows]`` with ``piece`` added on each of their ``cells`` (masks; index arrays,
    not boolean masks: a mask that is half true at random costs ten times as much to apply)."""
    places = np.flatnonzero((cells[rows] & _CELL_BITS[: game.cells].astype(cells.dtype)) != 0)
    kept = None if images is None or columns is None else np.take(images, columns[rows], axis=1)
    canonical = symmetries(game).canonical_child_grid(codes[rows], piece, kept)
    return Children(rows, places, layout(game).index_of(np.take(canonical, places)), game.cells)


def best_of(children: Children, scores: np.ndarray) -> np.ndarray:
    """The best-move masks of :class:`Children` from the scores read at ``children.index`` (int8, in
    that order): bit ``cell`` set for every move to the smallest child score (:func:`solver.rules.base.mask_type`
    of the board's cells, one per row)."""
    rows = children.rows.size
    grid = np.full((children.cells, rows), _ABOVE_EVERY_SCORE, dtype=np.int8)
    np.put(grid, children.places, scores)
    kind = mask_type(children.cells)
    best = (grid == grid.min(axis=0)).astype(kind)
    masks: np.ndarray = _CELL_BITS[: children.cells, 0].astype(kind) @ best  # the bits of each row's best cells, summed
    return masks
