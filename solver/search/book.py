"""The book hook: exact scores of the early positions, consulted by the search, and every position up to a ply.

A **book** is any object of the :class:`Book` shape: the game it is for, its depth (it holds every
position with at most ``depth`` pieces whose game goes on, or as many of them as it likes), and
its entries as two arrays: the canonical keys (:mod:`solver.search.bitboard`: ``pos + mask +
bottom``, or its mirror's if smaller; ``uint64``, sorted, unique) and each one's score byte for
the side to move (:mod:`solver.rules.score`: ``100 - d`` a win in ``d`` plies, ``0`` a draw,
``-(100 - d)`` a loss; ``int8``). The engine (:class:`solver.search.engine.Engine`) passes the
arrays to the search, which looks a position with at most ``depth`` pieces up by binary search
and takes the book's score as exact; ``probe`` answers the same from Python. :class:`ArrayBook`
is a book made from those two arrays.

A book builder walks the positions with :func:`positions`: each ply's canonical keys, every
position whose game goes on once (a position and its mirror image once), sorted;
:func:`solver.search.position.code_of_key` gives a key's board.

>>> from solver.search.position import engine_game
>>> game = engine_game("connect4")
>>> [len(keys) for _, keys in positions(game, 4)]  # Connect Four: 1, 7, 49, 238 and 1,120 positions, a mirror pair once
[1, 4, 25, 121, 568]
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol, runtime_checkable

import numpy as np
from numba import njit

from ..errors import InvalidBoardError
from ..rules.game import Game
from .bitboard import G_BOTTOM, G_COLMASK, G_COLS, G_ROWS, ONE, ZERO, canonical, has_line, key_of, possible
from .position import geometry_of


@runtime_checkable
class Book(Protocol):
    """What the engine asks of a book (module docstring)."""

    @property
    def game(self) -> Game:
        """The game whose positions the book holds."""
        ...

    @property
    def depth(self) -> int:
        """The most pieces a position in the book has (the ply it reaches)."""
        ...

    def probe(self, key: int) -> int | None:
        """The exact score byte, for the side to move, of the position with this canonical key; None when the book lacks it."""
        ...

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """``(keys, scores)``: the canonical keys, ``uint64`` sorted and unique, and their score bytes (``int8``)."""
        ...


class ArrayBook:
    """A :class:`Book` made of two arrays: sorted canonical keys and their score bytes.

    >>> from solver.rules.game import parse_game
    >>> book = ArrayBook(parse_game("connect4"), 0, np.array([5], dtype=np.uint64), np.array([59], dtype=np.int8))
    >>> book.probe(5), book.probe(6)
    (59, None)
    """

    def __init__(self, game: Game, depth: int, keys: np.ndarray, scores: np.ndarray) -> None:
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        scores = np.ascontiguousarray(scores, dtype=np.int8)
        if keys.shape != scores.shape or keys.ndim != 1:
            raise InvalidBoardError(f"a book needs as many scores as keys, in two flat arrays: found shapes {keys.shape} and {scores.shape}")
        if keys.size > 1 and not bool(np.all(keys[1:] > keys[:-1])):
            raise InvalidBoardError("a book's keys must be sorted and unique (np.unique gives them so)")
        self._game, self._depth, self._keys, self._scores = game, depth, keys, scores

    @property
    def game(self) -> Game:
        """The game whose positions the book holds."""
        return self._game

    @property
    def depth(self) -> int:
        """The most pieces a position in the book has."""
        return self._depth

    def probe(self, key: int) -> int | None:
        """The score byte of a canonical key, or None."""
        at = int(np.searchsorted(self._keys, np.uint64(key)))
        if at < self._keys.size and int(self._keys[at]) == key:
            return int(self._scores[at])
        return None

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The sorted keys and their score bytes."""
        return self._keys, self._scores


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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
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
