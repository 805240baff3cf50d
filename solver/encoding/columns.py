"""The compact index of gravity games: a height per column and a colour per piece, split into two halves of columns.

Under gravity (:mod:`solver.rules.gravity`) a column is a stack: its height ``h`` and the
colours of its ``h`` pieces, bottom first, one of ``2**(rows + 1) - 1`` **column states**
(number ``2**h - 1 + colours``, bit ``j`` of ``colours`` set where the piece at height ``j`` is
X). A board with no floating piece is one column state a column, so numbering them needs
far fewer slots than base-3 codes: 9.9e9 for 5x6 against ``3**30 = 2.1e14``.

The columns are split into a **low** half (columns ``0 .. cols // 2 - 1``) and a **high**
half (the rest). A half-board is one state per column of its half, numbered in mixed radix
(its **key**), and ranked as :mod:`solver.encoding.index` ranks a half of cells: by its X and O
counts (its group) and its code within the group. A layer is then laid out exactly as
there, tile by tile, so the layered build, its files and the compact tables use it
unchanged; what differs is how a code finds its halves' keys (:meth:`ColumnLayout.keys`)
and that a half's code and cell masks are already where the board has them
(``radix = 1``, ``shift = 0``). A move changes one column, so it keeps the other half's rank:
a move in the low half keeps the row of a tile, one in the high half its column.

A code with a floating piece has no index (a negative one, as illegal counts).

>>> from solver.rules.game import parse_game
>>> from solver.encoding.layouts import layout
>>> index = layout(parse_game("4x4k4-gravity"))
>>> index.size, index.layer_sizes[:4]
(201755, (1, 4, 20, 60))
>>> index.index_of_code(0), index.index_of_code(3**15) >= 0, index.index_of_code(3**3) < 0  # X at (0,3) floats
(0, True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from math import comb

import numpy as np

from ..errors import GameTooLargeError
from ..memory import free_memory, size_words
from ..rules.game import Game
from .coderules import code_rules
from .index import GROUP_BITS, Half, Layout

SCHEME = "column-halves"
"""The name of this index, stored with every compact gravity table."""
SCHEME_VERSION = 1
"""Bumped whenever the numbering changes."""


@dataclass(frozen=True, eq=False)
class ColumnHalf(Half):
    """The half-boards of some adjacent columns, ranked within their (X count, O count) groups (:class:`Half`),
    keyed by their column states in mixed radix (module docstring)."""

    rows: int
    first: int
    """The half's first column."""
    columns: int
    """How many columns the half has."""
    states: tuple[np.ndarray, ...]
    """Per group id: the key of each half-board of the group, in rank order (int64)."""

    @property
    def radix(self) -> int:
        """Column states a column has: ``2 ** (rows + 1) - 1`` (the mixed radix of a key)."""
        return (1 << (self.rows + 1)) - 1


def column_states(rows: int) -> tuple[np.ndarray, np.ndarray]:
    """``(heights, colours)`` of every column state of ``rows`` cells, in state order (module docstring)."""
    heights = np.concatenate([np.full(1 << h, h) for h in range(rows + 1)]).astype(np.int64)
    colours = np.concatenate([np.arange(1 << h) for h in range(rows + 1)]).astype(np.int64)
    return heights, colours


@cache
def column_half(game: Game, first: int, columns: int) -> ColumnHalf:
    """The :class:`ColumnHalf` of columns ``first .. first + columns - 1`` of a gravity game (built once)."""
    rows, cols = game.rows, game.cols
    heights, colours = column_states(rows)
    radix = heights.size
    key = np.zeros(1, dtype=np.int64)
    code, x, o, nx, no = (np.zeros(1, dtype=np.int64) for _ in range(5))
    for j in range(columns):
        c = first + j
        c_code, c_x, c_o = np.zeros(radix, np.int64), np.zeros(radix, np.int64), np.zeros(radix, np.int64)
        for level in range(rows):  # height ``level`` is row ``rows - 1 - level``
            cell = (rows - 1 - level) * cols + c
            there = heights > level
            is_x = there & ((colours >> level) & 1 == 1)
            is_o = there & ~is_x
            c_code += np.where(is_x, 3**cell, np.where(is_o, 2 * 3**cell, 0))
            c_x |= is_x.astype(np.int64) << cell
            c_o |= is_o.astype(np.int64) << cell
        c_nx = np.bitwise_count(c_x).astype(np.int64)
        key = (key[:, None] + np.arange(radix, dtype=np.int64)[None, :] * radix**j).ravel()
        code = (code[:, None] + c_code[None, :]).ravel()
        x = (x[:, None] | c_x[None, :]).ravel()
        o = (o[:, None] | c_o[None, :]).ravel()
        nx = (nx[:, None] + c_nx[None, :]).ravel()
        no = (no[:, None] + (heights - c_nx)[None, :]).ravel()
    cells = rows * columns
    group = nx * (cells + 1) + no
    order = np.lexsort((code, group))  # by group, then ascending code
    groups = (cells + 1) ** 2
    starts = np.searchsorted(group[order], np.arange(groups + 1))
    rank = np.empty(key.size, dtype=np.int64)
    rank[order] = np.arange(key.size) - starts[group[order]]
    packed = np.empty(key.size + 1, dtype=np.int32)  # keys are 0 .. radix**columns - 1 in key order; one more: no half-board
    packed[key] = ((rank << GROUP_BITS) | group).astype(np.int32)
    packed[-1] = groups - 1  # cells X and cells O: a group no tile has, so the board's index is negative
    members = [order[starts[g] : starts[g + 1]] for g in range(groups)]
    return ColumnHalf(
        cells,
        packed,
        tuple(code[m] for m in members),
        tuple(x[m] for m in members),
        tuple(o[m] for m in members),
        rows,
        first,
        columns,
        tuple(key[m] for m in members),
    )


class ColumnLayout(Layout):
    """The index of a gravity game (module docstring): :class:`solver.encoding.index.Layout` over column halves."""

    scheme = SCHEME
    scheme_version = SCHEME_VERSION

    def __init__(self, game: Game) -> None:
        refuse_beyond_memory(game)
        split = game.cols // 2
        low, high = column_half(game, 0, split), column_half(game, split, game.cols - split)
        rows, cols = game.rows, game.cols
        states = (1 << (rows + 1)) - 1
        self._state_of_column = _state_of_column_value(rows)
        """Per base-3 value of a column (digit of height ``j`` times ``3**j``): its state, or -1 if a piece floats."""
        self._row_tables = [_row_to_columns(rows, cols, r) for r in range(rows)]
        self._row_radix = 3**cols
        self._states = states
        super().__init__(game, low=low, high=high, radix=1, shift=0)
        self._rules = game.rules
        self._coded = code_rules(game)
        self._row_keys = tuple((_row_keys(game, r, low), _row_keys(game, r, high)) for r in range(rows))
        """Per row: what each pattern of the row's cells (a bit a column) adds to the low and the high half's key."""
        self._no_keys = (high.packed.size - 1, low.packed.size - 1)

    def __repr__(self) -> str:
        return f"<ColumnLayout {self.game.name}: {self.size:,} boards in {self.cells + 1} layers>"

    def _column_values(self, codes: np.ndarray) -> np.ndarray:
        """The base-3 value of each column of many codes (``(cols, n)`` int64, height ``j``'s digit times ``3**j``)."""
        rest = np.asarray(codes, dtype=np.int64)
        transposed = np.zeros(rest.shape, dtype=np.int64)
        for table in self._row_tables:  # the top row first: the lowest digits of a code
            quotient = rest // self._row_radix
            transposed += np.take(table, rest - quotient * self._row_radix)
            rest = quotient
        place = 3**self.game.rows
        out = np.empty((self.game.cols, *transposed.shape), dtype=np.int64)
        for c in range(self.game.cols):
            quotient = transposed // place
            out[c] = transposed - quotient * place
            transposed = quotient
        return out

    def _half_keys(self, values: np.ndarray, half: Half) -> np.ndarray:
        assert isinstance(half, ColumnHalf)
        key = np.zeros(values.shape[1:], dtype=np.int64)
        bad = np.zeros(values.shape[1:], dtype=bool)
        for j in range(half.columns):
            state = np.take(self._state_of_column, values[half.first + j])
            bad |= state < 0
            key += state * self._states**j
        key[bad] = half.packed.size - 1  # the key of no half-board
        return key

    def keys(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The keys of many codes' high and low halves (int64; a floating piece: the key of no half-board)."""
        values = self._column_values(codes)
        return self._half_keys(values, self.high), self._half_keys(values, self.low)

    def keys_of(self, code: int) -> tuple[int, int]:
        """:meth:`keys` of one code, in plain ints (a few microseconds).

        Where no piece floats, a column's state ``2**h - 1 + colours`` is the sum over its
        heights ``j`` of ``2**j`` for a piece there and ``2**j`` more for an X, so a key is a
        sum of one table entry per row for the occupied cells and one for X's.
        """
        word = self._coded.word_of(code)
        x, o = self._rules.split(word)
        taken = x | o
        if self._rules.move.misplaced(taken):  # a floating piece
            return self._no_keys
        cols, mask = self.game.cols, (1 << self.game.cols) - 1
        high = low = 0
        for r, (low_keys, high_keys) in enumerate(self._row_keys):
            row_taken, row_x = taken >> (r * cols) & mask, x >> (r * cols) & mask
            low += low_keys[row_taken] + low_keys[row_x]
            high += high_keys[row_taken] + high_keys[row_x]
        return high, low


HALF_BYTES_PER_KEY = 100
"""Bytes :func:`column_half` holds at its peak per key of a half (a column state a column, combined): about twelve int64
arrays of that length and the packed int32 one."""


def index_bytes(rows: int, cols: int) -> int:
    """Bytes of memory a :class:`ColumnLayout` of a ``rows`` x ``cols`` gravity board needs, counted before any is taken:
    the table of column values (``3**rows`` int64), the row tables (``rows`` of ``3**cols`` int64) and the two halves
    (:data:`HALF_BYTES_PER_KEY` a key, ``(2**(rows + 1) - 1)**columns`` keys a half)."""
    radix = (1 << (rows + 1)) - 1
    halves: int = radix ** (cols // 2) + radix ** (cols - cols // 2)
    return int(8 * 3**rows + 8 * rows * 3**cols + HALF_BYTES_PER_KEY * halves)


def index_fits(game: Game, *, share: int = 1) -> bool:
    """Whether the index of a gravity game takes at most ``1 / share`` of the memory free now (:func:`index_bytes`)."""
    free = free_memory()
    return free is None or index_bytes(game.rows, game.cols) * share <= free


def refuse_beyond_memory(game: Game) -> None:
    """Refuse, before any allocation, a gravity game whose index needs more memory than this machine has free.

    :raises GameTooLargeError: naming the bytes needed and the bytes free (a tall board such as ``20x1k4-gravity``:
        a table of ``3**20`` column values, 26 GiB).
    """
    needed, free = index_bytes(game.rows, game.cols), free_memory()
    if free is not None and needed > free:
        raise GameTooLargeError(
            f"{game.name} cannot be indexed on this machine: the index of its boards (tables over the {3**game.rows:,} "
            f"base-3 values of a column of {game.rows} cells and the {(1 << (game.rows + 1)) - 1:,} states of a column) "
            f"needs {size_words(needed)} of memory and {size_words(free)} is free; a gravity board of fewer rows fits"
        )


def _row_keys(game: Game, row: int, part: ColumnHalf) -> list[int]:
    """Per pattern of row ``row``'s cells (bit ``c``: column ``c``): ``2**height`` times the key's place value of each
    of ``part``'s columns in the pattern (:meth:`ColumnLayout.keys_of`)."""
    level = game.rows - 1 - row
    return [
        sum((1 << level) * part.radix ** (c - part.first) for c in range(part.first, part.first + part.columns) if pattern >> c & 1)
        for pattern in range(1 << game.cols)
    ]


def _state_of_column_value(rows: int) -> np.ndarray:
    """Per base-3 value of a column (height ``j``'s digit times ``3**j``): its column state, or -1 if a piece floats."""
    heights, colours = column_states(rows)
    out = np.full(3**rows, -1, dtype=np.int64)
    values = np.zeros(heights.size, dtype=np.int64)
    for level in range(rows):
        there = heights > level
        values += np.where(there, np.where((colours >> level) & 1 == 1, 1, 2), 0) * 3**level
    out[values] = np.arange(heights.size)
    return out


def _row_to_columns(rows: int, cols: int, row: int) -> np.ndarray:
    """Per base-3 pattern of row ``row``'s cells: what they add to the board's columns' values, column ``c`` at ``(3**rows)**c``."""
    patterns = np.arange(3**cols, dtype=np.int64)
    out = np.zeros(patterns.size, dtype=np.int64)
    level = rows - 1 - row
    for c in range(cols):
        digit = (patterns // 3**c) % 3
        out += digit * 3**level * (3**rows) ** c
    return out


def layer_slots(rows: int, cols: int) -> list[int]:
    """The boards of each layer of the gravity index of a ``rows`` x ``cols`` board, counted, not built: a layer of
    ``p`` pieces has a slot per way of stacking ``p`` pieces (at most ``rows`` a column) times ``C(p, ceil(p/2))``
    colourings. For boards too large to index here (Connect Four), the estimate's figures.

    >>> sum(layer_slots(6, 7))  # Connect Four: 7.1e13 slots for 4,531,985,219,092 reachable positions
    70728639995483
    >>> layer_slots(4, 4) == list(ColumnLayout(Game(4, 4, 4, "gravity")).layer_sizes)
    True
    """
    stackings = [1]  # coefficients of (1 + x + ... + x**rows) ** cols: the ways to stack p pieces
    for _ in range(cols):
        grown = [0] * (len(stackings) + rows)
        for p, ways in enumerate(stackings):
            for h in range(rows + 1):
                grown[p + h] += ways
        stackings = grown
    return [ways * comb(p, (p + 1) // 2) for p, ways in enumerate(stackings)]
