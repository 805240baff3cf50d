"""Every position up to a ply, and the scores of a ply derived from the next one's: the compiled kernels of a book's
build (:mod:`solver.store.book` runs it; :mod:`solver.search.book` reads and writes the file).

A book builder walks the positions with :func:`positions`: each ply's canonical keys (:mod:`solver.search.bitboard`:
``pos + mask + bottom``, or its mirror's if smaller), every position whose game goes on once (a position and its
mirror image once), sorted; :func:`solver.search.position.code_of_key` gives a key's board. Only the deepest ply is
searched: every shallower position's score follows from its children's (:func:`derive`: the best of
:func:`solver.rules.score.parent_score` over the moves, a move that completes a line winning at once, a move that
fills the board drawing).

>>> from solver.search.games import engine_game
>>> game = engine_game("connect4")
>>> [len(keys) for _, keys in positions(game, 4)]  # Connect Four: 1, 7, 49, 238 and 1,120 positions, a mirror pair once
[1, 4, 25, 121, 568]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from ..rules.game import Game
from ..rules.score import WIN
from .bitboard import G_BOTTOM, G_CELLS, G_COLMASK, G_COLS, G_ROWS, ONE, ZERO, canonical, has_line, key_of, popcount, possible
from .kernel import cached
from .position import geometry_of

MISSING = -128
"""What :func:`derive` finds for a child the deeper ply lacks (never in a whole book)."""


def positions(game: Game, ply: int) -> Iterator[tuple[int, np.ndarray]]:
    """``(pieces, keys)`` for each ply from 0 to ``ply``: the sorted canonical keys of the positions with that many
    pieces whose game goes on (no line, a move left), each position and its mirror image once.

    A breadth-first walk: each ply's children are made from the one before, finished games dropped, keys made
    canonical and repeats removed (:func:`numpy.unique`), so it costs memory in proportion to one ply's positions.
    """
    geo = geometry_of(game)
    keys = np.array([int(geo[G_BOTTOM])], dtype=np.uint64)
    for pieces in range(ply + 1):
        yield pieces, keys
        if pieces + 1 >= game.cells:
            return
        keys = np.unique(_children(keys, geo))


@cached
def _split(key: np.uint64, geo: np.ndarray) -> tuple[np.uint64, np.uint64]:
    """The ``(pos, mask)`` of a key: in each column's field the top set bit marks the height."""
    mask = ZERO
    stride = geo[G_ROWS] + ONE
    for c in range(np.int64(geo[G_COLS])):
        field = (key >> (np.uint64(c) * stride)) & ((ONE << stride) - ONE)
        height = np.uint64(0)
        while field >> (height + ONE):
            height += ONE
        mask |= ((ONE << height) - ONE) << (np.uint64(c) * stride)
    return key - mask - geo[G_BOTTOM], mask


@cached
def _children(keys: np.ndarray, geo: np.ndarray) -> np.ndarray:
    """The canonical keys of the children of these positions whose game goes on (repeats kept)."""
    cols = np.int64(geo[G_COLS])
    out = np.empty(keys.size * cols, dtype=np.uint64)
    count = 0
    for i in range(keys.size):
        pos, mask = _split(keys[i], geo)
        free = possible(mask, geo)
        for c in range(cols):
            move = free & geo[G_COLMASK + c]
            if move == ZERO or has_line(pos | move, geo):
                continue
            out[count] = canonical(key_of(pos ^ mask, mask | move, geo), geo)
            count += 1
    return out[:count]


def derive(game: Game, keys: np.ndarray, child_keys: np.ndarray, child_scores: np.ndarray) -> np.ndarray:
    """The score bytes of the positions ``keys`` (one ply) from their children's (the next ply: sorted canonical keys
    and their scores): for each position the best move's :func:`~solver.rules.score.parent_score`, a move that
    completes a line scoring a win in 1 and a move that fills the board a draw.

    :raises ValueError: when a child is not among ``child_keys`` (the next ply is not whole).
    """
    found = _derive(
        np.ascontiguousarray(keys, dtype=np.uint64),
        np.ascontiguousarray(child_keys, dtype=np.uint64),
        np.ascontiguousarray(child_scores, dtype=np.int8),
        geometry_of(game),
    )
    missing = np.flatnonzero(found == MISSING)
    if missing.size:
        raise ValueError(f"{missing.size:,} positions of {game.name} have a child the next ply lacks (the first: key {int(keys[missing[0]]):#x})")
    return found


@cached
def _derive(keys: np.ndarray, child_keys: np.ndarray, child_scores: np.ndarray, geo: np.ndarray) -> np.ndarray:
    cols, cells = np.int64(geo[G_COLS]), np.int64(geo[G_CELLS])
    out = np.empty(keys.size, dtype=np.int8)
    for i in range(keys.size):
        pos, mask = _split(keys[i], geo)
        full = np.int64(popcount(mask)) + 1 == cells
        free = possible(mask, geo)
        best = np.int64(-WIN - 1)
        for c in range(cols):
            move = free & geo[G_COLMASK + c]
            if move == ZERO:
                continue
            if has_line(pos | move, geo):
                best = np.int64(WIN - 1)
                break
            if full:
                best = max(best, np.int64(0))
                continue
            child = canonical(key_of(pos ^ mask, mask | move, geo), geo)
            at = np.searchsorted(child_keys, child)
            if at >= child_keys.size or child_keys[at] != child:
                best = np.int64(MISSING)
                break
            score = np.int64(child_scores[at])
            best = max(best, np.int64(score > 0) - np.int64(score < 0) - score)
        out[i] = best
    return out


def derive_all(game: Game, levels: Sequence[np.ndarray], deepest: np.ndarray) -> list[np.ndarray]:
    """Every ply's score bytes, from the deepest ply's (``deepest``, for ``levels[-1]``) up to the empty board
    (:func:`derive` ply by ply); ``levels`` are :func:`positions`' keys of plies 0 to the depth."""
    scores = [np.ascontiguousarray(deepest, dtype=np.int8)]
    for ply in range(len(levels) - 2, -1, -1):
        scores.insert(0, derive(game, levels[ply], levels[ply + 1], scores[0]))
    return scores
