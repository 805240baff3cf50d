"""What a compressed compact table stores: every board's score where a look-up reads it, "don't care" elsewhere.

A look-up of a compact table (:meth:`solver.tables.CompactTable.score_of`) reads the
stored byte of a board only when the board is **read**: canonical under the game's
symmetries (:mod:`solver.encoding.symmetry`) and in play (neither unreachable nor finished,
which the rules decide: :mod:`solver.rules.base`). Every other byte is "don't care" and
holds the score of the last board read before it in its layer (a layer's boards before
its first board read hold that board's score; a layer with no board read, its first
board's score), so long runs of one value compress well and every stored byte is a
score some board of its layer has (:func:`solver.contents.plausible.compact_check`).

Under gravity the rules cannot tell every board no game reaches
(:attr:`solver.rules.base.Rules.table_marks_unreached`: the order of the moves matters), so a
look-up reads the byte of every canonical board the rules do not refuse, finished ones
and those no game reaches (``UNREACHABLE``) too: every canonical board is read, in every
layer. The others are filled as above (measured on 5x5k4-gravity: 9,585,568 bytes, against
16,012,128 with every board's own score).

The stored bytes of a layer depend only on that layer's scores, and any range of a
layer can be computed on its own (:func:`stored_range`, given the fill value
:func:`fill_before` finds, or with its boards before its first board read filled
afterwards, as the build's sealing does: :func:`solver.retrograde.sealing.seal_layer`),
so a build compresses a layer in parallel pieces and gets the same bytes as one pass
(:func:`stored_layers`). Deterministic.

>>> from solver.rules.game import parse_game
>>> game = parse_game("3x3k3")
>>> scores = np.array([0], dtype=np.int8)      # layer 0: the empty board, a draw
>>> stored_range(game, 0, scores, 0, 1, before=0).tolist()
[0]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ..encoding.layouts import layout
from ..encoding.symmetry import canonical_grid, symmetries
from ..rules.game import Game
from ..rules.score import UNREACHABLE
from .histograms import SHAPE, histograms, histograms_to_meta

FILL_STEP = 1 << 22
"""Boards handled at once when a whole layer is streamed (4 Mi: a few tens of MiB of working memory)."""
_LOOK_BACK = 1 << 16
"""Boards looked at per step when :func:`fill_before` searches backwards for the last board read."""


def compact_meta(game: Game) -> dict[str, Any]:
    """What a compact table file records about its layout in ``meta``: the index scheme and the layer offsets (the
    table file, :mod:`solver.storage.tablefile`, stores ``meta`` as it is given: the layout is this layer's meaning)."""
    index = layout(game)
    return {
        "index": index.scheme,
        "index_version": index.scheme_version,
        "layer_offsets": list(index.layer_offsets[:-1]),
        "layer_sizes": list(index.layer_sizes),
        "score": "int8 for the side to move: 100-d win in d plies, 0 draw, -(100-d) loss, -128 unreachable",
    }


def forward_fill(values: np.ndarray, keep: np.ndarray, before: int) -> np.ndarray:
    """``values`` where ``keep``, else the last kept value before (``before`` ahead of the first kept one): int8.

    >>> forward_fill(np.array([5, 6, 7, 8], dtype=np.int8), np.array([False, True, False, True]), 0).tolist()
    [0, 6, 6, 8]
    """
    last = np.where(keep, np.arange(values.size), -1)  # each board: the last kept board up to it (-1: none yet)
    np.maximum.accumulate(last, out=last)
    out = np.take(np.asarray(values, dtype=np.int8), last, mode="clip")
    out[last < 0] = before
    return out


@dataclass(frozen=True)
class CanonicalPiece:
    """Where a range of a layer's boards crosses one tile of the index, with the two sides of the canonical test
    (:func:`solver.encoding.symmetry.canonical_grid`) of the rows it touches and of the tile's columns: board ``skip + k`` of those rows
    (row-major, ``k < count``) is the range's board ``at + k``.

    The sides are also given as **ranks** among the tile's column sides, symmetry by symmetry (a column: its side's
    place among the distinct ones; a row: how many of them are below its side), the same test in fewer bytes: a row's
    side is at most a column's exactly when its rank is at most the column's. A tile has at most a few tens of
    thousands of columns, so the ranks fit int16 (int32 past 32,767 distinct sides): what the build's compiled pass
    compares (5x5k4's sealing: 2.7 against 4.1 ns a board with int64 sides, measured 2026-12-05).
    """

    at: int
    skip: int
    count: int
    row_sides: np.ndarray
    """int64, ``(symmetries - 1, rows touched)``."""
    column_sides: np.ndarray
    """int64, ``(symmetries - 1, the tile's columns)``: the same for every range of the tile (kept per tile, read-only)."""
    row_ranks: np.ndarray
    """int16 or int32 (as ``column_ranks``), ``(symmetries - 1, rows touched)``."""
    column_ranks: np.ndarray
    """int16 or int32, ``(symmetries - 1, the tile's columns)`` (kept per tile, read-only)."""


def canonical_pieces(game: Game, ply: int, start: int, stop: int) -> Iterator[CanonicalPiece]:
    """The tiles boards ``start .. stop - 1`` of layer ``ply`` (layer-local indices) cross, in order
    (:class:`CanonicalPiece`): what :func:`canonical_mask` and the build's compiled sealing pass compare."""
    index = layout(game)
    at = 0
    for number, tile in enumerate(index.tiles[ply]):
        first, last = max(start, tile.start), min(stop, tile.stop)
        if first >= last:
            continue
        r0, r1 = (first - tile.start) // tile.cols, -(-(last - tile.start) // tile.cols)
        high = index.high.codes[index.high.group(tile.hx, tile.ho)][r0:r1]
        row_sides = symmetries(game).row_sides(high, index.radix)
        column_sides = _column_sides(game, ply, number)
        column_ranks, distinct = _column_ranks(game, ply, number)
        row_ranks = np.empty(row_sides.shape, dtype=column_ranks.dtype)
        for s, sides in enumerate(distinct):
            row_ranks[s] = np.searchsorted(sides, row_sides[s], side="left")
        yield CanonicalPiece(at, first - tile.start - r0 * tile.cols, last - first, row_sides, column_sides, row_ranks, column_ranks)
        at += last - first


@lru_cache(maxsize=4)
def _column_sides(game: Game, ply: int, tile: int) -> np.ndarray:
    """The column side of the canonical test of every column of a tile (kept: a build seals a tile in many ranges)."""
    index = layout(game)
    part = index.tiles[ply][tile]
    low = index.low.codes[index.low.group(part.lx, part.lo)]
    sides = symmetries(game).column_sides(low)
    sides.flags.writeable = False
    return sides


@lru_cache(maxsize=4)
def _column_ranks(game: Game, ply: int, tile: int) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """The ranks of a tile's column sides (:class:`CanonicalPiece`), and per symmetry the distinct sides, sorted."""
    sides = _column_sides(game, ply, tile)
    distinct = tuple(np.unique(sides[s]) for s in range(sides.shape[0]))
    dtype = np.int16 if max((len(d) for d in distinct), default=0) <= np.iinfo(np.int16).max else np.int32
    ranks = np.empty(sides.shape, dtype=dtype)
    for s, values in enumerate(distinct):
        ranks[s] = np.searchsorted(values, sides[s], side="left")
    ranks.flags.writeable = False
    return ranks, distinct


def canonical_mask(game: Game, ply: int, start: int, stop: int) -> np.ndarray:
    """Whether each board ``start .. stop - 1`` of layer ``ply`` (layer-local indices) is canonical: bool.

    Computed tile by tile of the index (high half-boards by low half-boards, :func:`canonical_pieces`), one
    comparison of a row's side with a column's per symmetry and board
    (:func:`solver.encoding.symmetry.canonical_grid`), about 2 ns a board.
    """
    parts = []
    for piece in canonical_pieces(game, ply, start, stop):
        grid = canonical_grid(piece.row_sides, piece.column_sides)
        parts.append(grid.reshape(-1)[piece.skip : piece.skip + piece.count])
    return np.concatenate(parts) if parts else np.zeros(0, dtype=bool)


def read_scores(game: Game, ply: int) -> np.ndarray:
    """Which scores of a canonical board of layer ``ply`` a look-up reads (bool, 256 entries, by the score viewed as
    uint8): every one under gravity, none on the full layer, else all but ``UNREACHABLE`` and the finished boards'
    (:func:`read_mask`'s rule, in the one place it is written)."""
    reads = np.ones(256, dtype=bool)
    if game.rules.table_marks_unreached:  # gravity: every canonical board is read (module docstring)
        return reads
    if game.rules.all_finished(ply):  # the full layer: no board is in play
        reads[:] = False
        return reads
    for unread in (UNREACHABLE, *game.rules.finished_scores(ply)):  # a finished board: the rule scores it, the table need not
        reads[unread & 255] = False
    return reads


def read_mask(game: Game, ply: int, scores: np.ndarray, start: int, canonical: np.ndarray | None = None) -> np.ndarray:
    """Whether each board of ``scores`` (layer ``ply``'s boards from ``start`` on) is read by a look-up: bool.

    Read: canonical and in play (not unreachable, not finished). No board of the full
    layer is read (every full board is finished). Where the rules cannot tell every
    unreachable board (:attr:`solver.rules.base.Rules.table_marks_unreached`: gravity), every
    canonical board is read: see the module docstring. The scores read: :func:`read_scores`.

    :param canonical: :func:`canonical_mask` of the same boards, if already known.
    """
    part = np.asarray(scores, dtype=np.int8)
    keep = canonical_mask(game, ply, start, start + part.size) if canonical is None else canonical.copy()
    keep &= np.take(read_scores(game, ply), part.view(np.uint8))
    return keep


def first_read(game: Game, ply: int, scores: np.ndarray) -> int:
    """The score of the first board of a layer that a look-up reads (its first board's, if none is read)."""
    if not len(scores):
        return UNREACHABLE
    for start in range(0, 0 if game.rules.all_finished(ply) else len(scores), FILL_STEP):
        part = np.asarray(scores[start : start + FILL_STEP])
        read = np.flatnonzero(read_mask(game, ply, part, start))
        if read.size:
            return int(part[read[0]])
    return int(scores[0])


def fill_before(game: Game, ply: int, scores: np.ndarray, start: int) -> int:
    """The stored byte just before board ``start`` of a layer: the last board read before it, searched backwards
    (:func:`first_read` if none)."""
    stop = start
    step = _LOOK_BACK
    while stop > 0:
        first = max(0, stop - step)
        part = np.asarray(scores[first:stop])
        read = np.flatnonzero(read_mask(game, ply, part, first))
        if read.size:
            return int(part[read[-1]])
        stop, step = first, min(step * 4, FILL_STEP)
    return first_read(game, ply, scores)


def stored_range(game: Game, ply: int, scores: np.ndarray, start: int, stop: int, *, before: int) -> np.ndarray:
    """The stored bytes of boards ``start .. stop - 1`` of layer ``ply`` (int8), given every board's score.

    :param scores: the whole layer's scores (a memory map is read only in the range).
    :param before: :func:`fill_before` of ``start`` (the fill ahead of the range's first board read).
    """
    part = np.asarray(scores[start:stop])
    return forward_fill(part, read_mask(game, ply, part, start), before)


def stored_layer(game: Game, ply: int, scores: np.ndarray) -> Iterator[np.ndarray]:
    """The stored bytes of one layer, part by part in index order (:func:`stored_range` over the layer)."""
    last = first_read(game, ply, scores)
    for start in range(0, len(scores), FILL_STEP):
        filled = stored_range(game, ply, scores, start, min(len(scores), start + FILL_STEP), before=last)
        if filled.size:
            last = int(filled[-1])
        yield filled


def stored_layers(game: Game, layers: Sequence[np.ndarray]) -> Iterator[np.ndarray]:
    """The bytes a compressed table stores, part by part in index order, from every board's score (layer 0 first)."""
    for ply, scores in enumerate(layers):
        yield from stored_layer(game, ply, scores)


# -- what the table says of each layer: how many boards have each score ------------------------------
def layer_histograms(game: Game, layers: Sequence[np.ndarray]) -> dict[str, dict[str, dict[str, int]]]:
    """Every layer's histograms (:func:`solver.contents.histograms.histograms`) as the ``layer_histograms`` of a table file's meta."""
    found = {}
    for ply, scores in enumerate(layers):
        total = np.zeros(SHAPE, dtype=np.int64)
        for start in range(0, len(scores), FILL_STEP):
            part = np.asarray(scores[start : start + FILL_STEP])
            total += histograms(part, canonical_mask(game, ply, start, start + part.size))
        found[ply] = total
    return histograms_to_meta(found)


def histograms_json(found: np.ndarray) -> dict[str, dict[str, int]]:
    """One layer's histograms as its entry of the meta's ``layer_histograms`` (:func:`solver.contents.histograms.histograms_to_meta`)."""
    return histograms_to_meta({0: found})["0"]
