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
:func:`solver.search.position.code_of_key` gives a key's board. Only the deepest ply is searched:
every shallower position's score follows from its children's (:func:`derive`: the best of
:func:`solver.rules.score.parent_score` over the moves, a move that completes a line winning at
once, a move that fills the board drawing). :mod:`solver.store.book` runs the build.

**The book file** (:func:`write_book`, :func:`open_book`) is a table file
(:mod:`solver.storage.tablefile`) of kind ``book``: the arrays ``keys`` and ``scores``, every
position of plies 0 to ``depth`` sorted by key, and in ``meta`` the depth and each ply's count.
The same entries give the same bytes. Opening copies both arrays into memory and checks every
block of the copy against its SHA-256 digest (the root checksum pins the digests), then the
entries themselves (sorted keys, scores a position can have): a book never answers from bytes
that were not checked, and a damaged one raises :class:`~solver.errors.TableError` naming the
file and the command that rebuilds it.

>>> from solver.search.position import engine_game
>>> game = engine_game("connect4")
>>> [len(keys) for _, keys in positions(game, 4)]  # Connect Four: 1, 7, 49, 238 and 1,120 positions, a mirror pair once
[1, 4, 25, 121, 568]
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..contents.opening import OpenTable, open_table
from ..errors import InvalidBoardError
from ..rules.game import Game
from ..rules.score import WIN
from ..storage.tablefile import write_table
from .bitboard import G_BOTTOM, G_CELLS, G_COLMASK, G_COLS, G_ROWS, ONE, ZERO, canonical, has_line, key_of, popcount, possible
from .kernel import cached
from .position import engine_game, geometry_of

KIND = "book"
"""The table kind of a book file (:mod:`solver.storage.tablefile`)."""

MISSING = -128
"""What :func:`derive` finds for a child the deeper ply lacks (never in a whole book)."""


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


def book_meta(game: Game, depth: int, plies: Sequence[int]) -> dict[str, Any]:
    """What a book file records in ``meta``: its depth, each ply's positions, and what its arrays mean."""
    return {
        "depth": depth,
        "plies": [int(n) for n in plies],
        "keys": "uint64 canonical key of every position of plies 0 to depth whose game goes on, sorted: "
        "pos + mask + bottom on the column bitboard (cols x (rows + 1) bits, bit c * (rows + 1) + h), or its mirror's if smaller",
        "scores": "int8 for the side to move: 100-d win in d plies, 0 draw, -(100-d) loss in d plies",
    }


def write_book(path: str | os.PathLike[str], game: Game, levels: Sequence[np.ndarray], scores: Sequence[np.ndarray]) -> Path:
    """Write a book file atomically: every ply's keys and scores (plies 0 to ``len(levels) - 1``), sorted by key.
    The same entries give the same bytes."""
    keys = np.concatenate([np.asarray(level, dtype=np.uint64) for level in levels])
    values = np.concatenate([np.asarray(level, dtype=np.int8) for level in scores])
    order = np.argsort(keys, kind="stable")
    meta = book_meta(game, len(levels) - 1, [level.size for level in levels])
    return write_table(path, kind=KIND, game=game, arrays={"keys": keys[order], "scores": values[order]}, meta=meta)


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
    problem = entries_problem(opened.game, keys, scores, opened.header.meta["plies"])
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
    pieces = _pieces(keys, geometry_of(game))
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


@cached
def _pieces(keys: np.ndarray, geo: np.ndarray) -> np.ndarray:
    """The pieces on the board of each key's position (its heights summed)."""
    out = np.empty(keys.size, dtype=np.int64)
    for i in range(keys.size):
        out[i] = np.int64(popcount(_split(keys[i], geo)[1]))
    return out
