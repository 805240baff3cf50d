"""The book hook: exact scores of the early positions, consulted by the search, and the book file.

A **book** is any object of the :class:`Book` shape: the game it is for, its depth (it holds every
position with at most ``depth`` pieces whose game goes on, or as many of them as it likes), and
its entries as two arrays: the canonical keys (:mod:`solver.search.bitboard`: ``pos + mask +
bottom``, or its mirror's if smaller; ``uint64``, sorted, unique) and each one's score byte for
the side to move (:mod:`solver.rules.score`: ``100 - d`` a win in ``d`` plies, ``0`` a draw,
``-(100 - d)`` a loss; ``int8``). The engine (:class:`solver.search.engine.Engine`) passes the
arrays to the search, which looks a position with at most ``depth`` pieces up by binary search
and takes the book's score as exact; ``probe`` answers the same from Python. :class:`ArrayBook`
is a book made from those two arrays.

The book's positions are walked and its shallower plies derived by :mod:`solver.search.plies` (compiled); this module
loads no compiled kernel, so that a process answering the opening from the book (:mod:`solver.search.booked`) never
loads numba.

**The book file** (:func:`write_book`, :func:`open_book`) is a table file
(:mod:`solver.storage.tablefile`) of kind ``book``: the arrays ``keys`` and ``scores``, every
position of plies 0 to ``depth`` sorted by key, and in ``meta`` the depth and each ply's count.
The same entries give the same bytes. Opening copies both arrays into memory and checks every
block of the copy against its SHA-256 digest (the root checksum pins the digests), then the
entries themselves (sorted keys, scores a position can have) of a book whose checksum does not ship (the
shipped book's bytes, once they match its checksum, are the ones proved when it was built: checking its
400,000 entries again cost every new process 30 to 50 ms): a book never answers from bytes
that were not checked, and a damaged one raises :class:`~solver.errors.TableError` naming the
file and the command that rebuilds it.

>>> from solver.search.games import engine_game
>>> from solver.search.plies import derive_all, positions
>>> game = engine_game("4x4k4-gravity")
>>> levels = [keys for _, keys in positions(game, 1)]
>>> book = ArrayBook(game, 1, *merged(levels, derive_all(game, levels, np.zeros(levels[-1].size, dtype=np.int8))))
>>> book.depth, book.probe(int(levels[0][0]))  # the empty board, derived from a ply of draws: a draw
(1, 0)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..contents.opening import OpenTable, open_table
from ..errors import InvalidBoardError
from ..rules.game import Game
from ..rules.score import WIN
from ..storage.tablefile import write_table
from ..storage.trust import is_shipped
from .games import engine_game

KIND = "book"
"""The table kind of a book file (:mod:`solver.storage.tablefile`)."""


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


def book_meta(game: Game, depth: int, plies: Sequence[int]) -> dict[str, Any]:
    """What a book file records in ``meta``: its depth, each ply's positions, and what its arrays mean."""
    return {
        "depth": depth,
        "plies": [int(n) for n in plies],
        "keys": "uint64 canonical key of every position of plies 0 to depth whose game goes on, sorted: "
        "pos + mask + bottom on the column bitboard (cols x (rows + 1) bits, bit c * (rows + 1) + h), or its mirror's if smaller",
        "scores": "int8 for the side to move: 100-d win in d plies, 0 draw, -(100-d) loss in d plies",
    }


def merged(levels: Sequence[np.ndarray], scores: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Every ply's keys and scores in one pair of arrays, sorted by key (a book's arrays)."""
    keys = np.concatenate([np.asarray(level, dtype=np.uint64) for level in levels])
    values = np.concatenate([np.asarray(level, dtype=np.int8) for level in scores])
    order = np.argsort(keys, kind="stable")
    return keys[order], values[order]


def write_book(path: str | os.PathLike[str], game: Game, levels: Sequence[np.ndarray], scores: Sequence[np.ndarray]) -> Path:
    """Write a book file atomically: every ply's keys and scores (plies 0 to ``len(levels) - 1``), sorted by key.
    The same entries give the same bytes."""
    keys, values = merged(levels, scores)
    meta = book_meta(game, len(levels) - 1, [level.size for level in levels])
    return write_table(path, kind=KIND, game=game, arrays={"keys": keys, "scores": values}, meta=meta)


class TableBook(ArrayBook):
    """A book read from a book file, every byte checked (:func:`open_book`)."""

    def __init__(self, opened: OpenTable, keys: np.ndarray, scores: np.ndarray) -> None:
        super().__init__(opened.game, int(opened.header.meta["depth"]), keys, scores)
        self.path = opened.path
        self.checksum = opened.header.root
        self.plies: tuple[int, ...] = tuple(opened.header.meta["plies"])


def open_book(path: str | os.PathLike[str], game: Game | str | None = None) -> TableBook:
    """The book in a book file, copied into memory and checked whole (module docstring).

    :param game: the game it must hold (None: the one its header names).
    :raises TableError: naming the file, what is wrong and the command that rebuilds it.
    """
    opened = open_table(path, game=None if game is None else engine_game(game))
    if opened.header.kind != KIND:
        raise opened.error(f"holds a {opened.header.kind} table, not a book")
    depth, plies = opened.header.meta.get("depth"), opened.header.meta.get("plies")
    if not isinstance(plies, list) or any(type(count) is not int for count in plies):
        raise opened.error(f"its header's plies {str(plies)[:40]} are not a list of counts: the file is damaged or forged")
    if type(depth) is not int or not 0 <= depth < opened.game.cells or len(plies) != depth + 1:
        raise opened.error(f"its depth {str(depth)[:20]} does not fit its plies or its game: the file is damaged or forged")
    keys = opened.guard("keys").verified_array()
    scores = opened.guard("scores").verified_array()
    shipped = is_shipped(opened.header.root, opened.game, KIND)  # its bytes are the proved ones: checked just above
    problem = None if shipped else entries_problem(opened.game, keys, scores, opened.header.meta["plies"])
    if problem is not None:
        raise opened.error(f"{problem}: the file is damaged or forged")
    return TableBook(opened, keys, scores)


def entries_problem(game: Game, keys: np.ndarray, scores: np.ndarray, plies: Sequence[int]) -> str | None:
    """What is wrong with a book's entries, or None: a ply its header counts no position of, keys not sorted and
    unique, a key that is not a position of its ply count, or a score no position there can have (a win or loss past
    the board's end, a win in an even number of plies or a loss in an odd one: the winner makes the last move)."""
    if any(count <= 0 for count in plies):
        return f"its header counts {list(plies)} positions by ply: a book holds positions of every ply up to its depth"
    if sum(plies) != keys.size:
        return f"its header counts {sum(plies):,} positions and its arrays hold {keys.size:,}"
    if keys.size > 1 and not bool(np.all(keys[1:] > keys[:-1])):
        return "its keys are not sorted and unique"
    pieces = pieces_of_keys(game, keys)
    if keys.size and int(pieces.min()) < 0:
        at = int(np.argmin(pieces))
        return f"entry {at:,} (key {int(keys[at]):#x}) is no position's key: one of its columns has no set bit"
    counted = np.bincount(pieces, minlength=len(plies)) if keys.size else np.zeros(len(plies), dtype=np.int64)
    if counted.size != len(plies) or counted.tolist() != list(plies):
        return f"its positions by ply, {counted.tolist()}, are not the {list(plies)} its header states"
    wide = scores.astype(np.int64)
    plies_left = WIN - np.abs(wide)
    past_the_end = (wide != 0) & (plies_left > game.cells - pieces)
    # the winner makes the last move: a win for the side to move ends an odd number of plies on, a loss an even one
    wrong_parity = ((wide > 0) & (plies_left % 2 == 0)) | ((wide < 0) & ((plies_left % 2 == 1) | (plies_left < 2)))
    wrong = (np.abs(wide) >= WIN) | past_the_end | wrong_parity
    if bool(wrong.any()):
        at = int(np.flatnonzero(wrong)[0])
        return f"entry {at:,} (key {int(keys[at]):#x}) has score {int(scores[at])}, which no position with {int(pieces[at])} pieces can have"
    return None


def pieces_of_keys(game: Game, keys: np.ndarray) -> np.ndarray:
    """The pieces on the board of each key's position (``int64``; -1 for a key with a column of no set bit, which is no
    position's key): each column's height, the place of the top set bit of its field (:mod:`solver.search.bitboard`:
    ``pos + mask + bottom`` sets the bit above the column's pieces), read from a table of every field's height."""
    stride = game.rows + 1
    heights = _field_heights(stride)
    keys = np.asarray(keys, dtype=np.uint64)
    pieces = np.zeros(keys.size, dtype=np.int64)
    broken = np.zeros(keys.size, dtype=bool)
    for column in range(game.cols):
        fields = ((keys >> np.uint64(column * stride)) & np.uint64((1 << stride) - 1)).astype(np.intp)
        pieces += heights[fields]
        broken |= fields == 0
    pieces[broken] = -1
    return pieces


@cache
def _field_heights(stride: int) -> np.ndarray:
    """The height of every column field of ``stride`` bits: the place of its top set bit (0 for the empty field)."""
    return np.array([max(field.bit_length() - 1, 0) for field in range(1 << stride)], dtype=np.int64)
