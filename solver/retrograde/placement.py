"""The placement rule's kernel hook: solving one chunk of a layer from the next layer's scores (compiled, with a numpy twin).

The build calls it through :func:`solver.retrograde.kernel.solve_chunk`, the one entry, for a game whose move rule is
:class:`solver.rules.placement.Placement` (every empty cell is a move).

Per chunk:

* **reachable** (closed form, exactly :func:`solver.encoding.board.rule_violation`'s rule):
  the player to move has no line (else the game went on after a win, or both have
  one); if the last mover has lines, they all share a cell (the winning move).
* **finished**: the last mover has a line (the rule's line score, ``-WIN``: lost for the side to
  move) or the board is full (the rule's full score, ``0``: a draw).
* otherwise the score is ``sign(m) - m`` where ``m`` is the smallest score among
  the children (one per empty cell), read from layer ``p + 1``. A move in the low
  half keeps the row of the child tile and one in the high half keeps its column,
  so the children of a chunk are whole columns or whole rows of the next layer's
  tiles (``np.take`` along an axis, no per-board index arithmetic).

The first two are :mod:`solver.retrograde.chunkrules`'s; the third is this module's: :func:`solve_chunk` finds
where the children lie and scores the boards with the compiled kernel
(:func:`solver.retrograde.compiled.best_of_children`), :func:`plain_chunk` by numpy passes (its plain twin: the same
bytes, checked by the tests).
Scores follow :mod:`solver.rules.score` (int8, for the side to move: ``100 - d`` a win in
``d`` plies, 0 a draw, ``-(100 - d)`` a loss, ``UNREACHABLE`` = -128).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ..encoding.index import Layout, Tile, half
from ..encoding.layouts import layout
from ..rules.game import Game
from ..scratch import scratch_array
from .chunkrules import RULES_FOLLOW, rule_parts, rule_scores
from .chunks import Chunk
from .sparse import ChildScores

if TYPE_CHECKING:
    from .compiled import Children  # the compiled kernel loads numba: imported where a chunk is scored

# -- solving one chunk -------------------------------------------------------------
# Per chunk the work is whole-matrix numpy passes over rows x cols int8/uint32 arrays, with
# no boolean-mask writes and no `where=` (each costs about 3 ns a board, the passes used
# here 0.05 to 0.6): children are gathered per *k-th empty cell* (every half-board of a group
# has as many), and lines are per-half line sets combined by one outer AND.


def _child_tile(index: Layout, ply: int, hx: int, ho: int) -> Tile:
    tile = index.tile_of(ply, hx, ho)
    assert tile is not None, f"layer {ply} has no tile with {hx} X and {ho} O in the high half"
    return tile


def solve_chunk(game: Game, chunk: Chunk, child_layer: np.ndarray | ChildScores | None, reached: np.ndarray | None = None) -> np.ndarray:
    """The scores of one chunk (int8, flat, in index order), from the next layer's scores, by the compiled kernel.

    :param child_layer: layer ``chunk.ply + 1``'s int8 scores in layer-local index order
        (None for the full-board layer, which has no children); an array: an m,n,k build's layers are dense.
    :param reached: unused: under placement the rules tell every board no game reaches.
    """
    if chunk.ply == game.cells:  # no children: the rules and the full board's score
        return plain_chunk(game, chunk, None)
    assert isinstance(child_layer, np.ndarray), "an m,n,k build's layers are dense"
    index = layout(game)
    tile = index.tiles[chunk.ply][chunk.tile]
    from .compiled import score_chunk, spread_rules  # numba, loaded by the first chunk a build scores (not by a look-up)

    return score_chunk(_children(index, chunk, tile, np.asarray(child_layer)), spread_rules(*rule_parts(game, chunk, tile)), None)


def _children(index: Layout, chunk: Chunk, tile: Tile, child_layer: np.ndarray) -> Children:
    """Where a chunk's children lie, as :func:`solver.retrograde.compiled.best_of_children` takes them: the child
    panel of the moves in the low half and each move's columns, the child tile of the moves in the high half and
    each move's rows (empty where the half has no move)."""
    r0, r1 = chunk.row_start, chunk.row_stop
    x_to_move = chunk.ply % 2 == 0
    piece = 1 if x_to_move else 2
    columns = _move_targets(index.low_cells, tile.lx, tile.lo, piece)
    across = np.empty((r1 - r0, 0), dtype=np.int8)
    if columns.size:
        child = _child_tile(index, chunk.ply + 1, tile.hx, tile.ho)
        across = child_layer[child.start : child.stop].reshape(child.rows, child.cols)[r0:r1]
    moves = _move_targets(index.high_cells, tile.hx, tile.ho, piece)
    rows = np.ascontiguousarray(moves[:, r0:r1])
    below = np.empty((0, tile.cols), dtype=np.int8)
    if moves.size:
        hx, ho = (tile.hx + 1, tile.ho) if x_to_move else (tile.hx, tile.ho + 1)
        child = _child_tile(index, chunk.ply + 1, hx, ho)
        below = child_layer[child.start : child.stop].reshape(child.rows, child.cols)
    return across, columns, below, rows


def plain_chunk(game: Game, chunk: Chunk, child_layer: np.ndarray | ChildScores | None, reached: np.ndarray | None = None) -> np.ndarray:
    """:func:`solve_chunk` by numpy passes: the compiled kernel's plain twin (the same bytes).

    :param child_layer: layer ``chunk.ply + 1``'s int8 scores in layer-local index order
        (None for the full-board layer, which has no children).
    :param reached: unused: under placement the rules tell every board no game reaches.
    """
    index = layout(game)
    tile = index.tiles[chunk.ply][chunk.tile]
    shape = (chunk.row_stop - chunk.row_start, tile.cols)
    rules = rule_scores(game, chunk, tile)
    if chunk.ply == game.cells:
        scores = np.full(shape, game.rules.full_score, dtype=np.int8)  # full, no line: a draw (armageddon: O's win)
    else:
        assert isinstance(child_layer, np.ndarray), "an m,n,k build's layers are dense"
        smallest = _smallest_child(index, chunk, tile, child_layer, shape)
        scores = np.sign(smallest)  # int8: -128 -> 127 and 127 -> -126 only where a rule decides below
        np.subtract(scores, smallest, out=scores)
    # where a rule decides: (score | -1) & rule = rule; elsewhere (score | 0) & -1 = score
    decided = np.not_equal(rules, RULES_FOLLOW, out=scratch_array("flag", shape, bool))
    np.bitwise_or(scores, np.negative(decided.view(np.int8), out=scratch_array("mask", shape, np.int8)), out=scores)
    np.bitwise_and(scores, rules, out=scores)
    return scores.reshape(-1)


@lru_cache(maxsize=256)
def _move_targets(cells: int, a: int, b: int, piece: int) -> np.ndarray:
    """The children of every half-board of a group (``a`` X, ``b`` O) by a move of ``piece`` (1 X, 2 O) in that half.

    ``(empty cells, boards)``, intp: ``[k, i]`` is the rank, within the child's group, of
    half-board ``i`` with ``piece`` on its ``k``-th empty cell (in cell order). Every
    half-board of a group has the same number of empty cells, so each ``k`` is one gather.
    """
    part = half(cells)
    group = part.group(a, b)
    codes = part.codes[group]
    taken = part.x[group] | part.o[group]
    targets = np.empty((cells - a - b, codes.size), dtype=np.intp)
    nth = np.zeros(codes.size, dtype=np.intp)
    boards = np.arange(codes.size)
    for cell in range(cells):
        empty = (taken >> cell & 1) == 0
        targets[nth[empty], boards[empty]] = part.rank_of(codes[empty] + piece * 3**cell)
        nth += empty
    return targets


TRANSPOSE_FROM = 4
"""Low-half empty cells from which a chunk's child panel is transposed first (see :func:`_smallest_child`)."""


def _smallest_child(index: Layout, chunk: Chunk, tile: Tile, child_layer: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The smallest child score of every board of a chunk (int8, rows x cols): a gather and a minimum per empty cell.

    A move in the high half takes whole rows of the child tile (a copy per row); one in
    the low half takes columns (a lookup per board, about 0.6 ns). With many empty low
    cells, the child panel is transposed once so that those become row copies too, and
    their minimum is merged back through a transposed view (about 2 ns a board in all).
    """
    r0, r1 = chunk.row_start, chunk.row_stop
    x_to_move = chunk.ply % 2 == 0
    piece = 1 if x_to_move else 2
    gathers: list[tuple[np.ndarray, np.ndarray, int]] = []
    low_moves = _move_targets(index.low_cells, tile.lx, tile.lo, piece)
    transposed = None
    if low_moves.size:  # a move in the low half: same row, another column
        lx, lo = (tile.lx + 1, tile.lo) if x_to_move else (tile.lx, tile.lo + 1)
        child = _child_tile(index, chunk.ply + 1, tile.hx, tile.ho)
        assert child.rows == tile.rows and child.cols == _cols(index, lx, lo)
        panel = child_layer[child.start : child.stop].reshape(child.rows, child.cols)[r0:r1]
        if low_moves.shape[0] >= TRANSPOSE_FROM:
            panel_t = scratch_array("panel_t", (child.cols, r1 - r0), np.int8)
            np.copyto(panel_t, panel.T)
            transposed = _min_of_gathers([(panel_t, columns, 0) for columns in low_moves], (shape[1], shape[0]), "low_t")
        else:
            gathers += [(panel, columns, 1) for columns in low_moves]
    high_moves = _move_targets(index.high_cells, tile.hx, tile.ho, piece)
    if high_moves.size:  # a move in the high half: same column, another row
        hx, ho = (tile.hx + 1, tile.ho) if x_to_move else (tile.hx, tile.ho + 1)
        child = _child_tile(index, chunk.ply + 1, hx, ho)
        assert child.cols == tile.cols
        rows_of_child = child_layer[child.start : child.stop].reshape(child.rows, child.cols)
        gathers += [(rows_of_child, rows[r0:r1], 0) for rows in high_moves]
    if not gathers:
        assert transposed is not None
        smallest = scratch_array("smallest", shape, np.int8)
        np.copyto(smallest, transposed.T)
        return smallest
    smallest = _min_of_gathers(gathers, shape, "smallest")
    if transposed is not None:
        np.minimum(smallest, transposed.T, out=smallest)
    return smallest


def _min_of_gathers(gathers: list[tuple[np.ndarray, np.ndarray, int]], shape: tuple[int, int], slot: str) -> np.ndarray:
    """The elementwise minimum of ``np.take(source, at, axis)`` over the gathers (int8, scratch ``slot``)."""
    smallest, scratch = scratch_array(slot, shape, np.int8), scratch_array(f"{slot} gathered", shape, np.int8)
    for number, (source, at, axis) in enumerate(gathers):
        # mode="clip": no bounds check per index (they are ranks of real children) and no buffered copy of `out`
        np.take(source, at, axis=axis, out=scratch if number else smallest, mode="clip")
        if number:
            np.minimum(smallest, scratch, out=smallest)
    return smallest


def _cols(index: Layout, lx: int, lo: int) -> int:
    return int(index.low.codes[index.low.group(lx, lo)].size)
