"""The compact index: a minimal perfect numbering of the legal-count boards, layer by layer.

A **layer** ``p`` holds every board with ``p`` pieces where X has ``ceil(p/2)`` and
O ``floor(p/2)`` ("legal-count boards": a superset of the reachable boards of ply
``p``). The index numbers them ``0 .. size - 1`` without gaps, layer after layer,
so a table of one byte per board has no hole for a board that cannot occur by its
counts alone. Layer ``p`` of a game of ``n`` cells holds the multinomial
``n! / (x! o! (n - x - o)!)`` boards (``x = ceil(p/2)``, ``o = floor(p/2)``); the totals
of the big games are in the manual (``docs/performance.md``, "legal-count boards").

**Split-half mixed radix.** The cells are split into a *low* half (cells
``0 .. low - 1``, ``low = cells // 2``) and a *high* half (the rest). A half-board
is ranked by one look-up in a table over its ``3**half`` base-3 codes: its group
(X count ``a``, O count ``b``) and its rank among the half-boards of that group,
in ascending code order. A layer is a sequence of **tiles**, one for each split of
its X and O pieces between the halves, in ascending ``(high X, high O)`` order;
tile ``(high group, low group)`` is a matrix of ``rows`` high half-boards by
``cols`` low half-boards, stored row by row::

    index = layer offset + tile offset + high rank * cols + low rank

A move in the low half keeps the row and one in the high half keeps the column,
which is what lets :mod:`solver.retrograde.kernel` read a board's children as whole rows or
whole columns of the next layer's tiles.

Codes are the public base-3 codes (``cell = row * cols + col``, digit 0 empty,
1 X, 2 O, ``code = sum(digit * 3**cell)``), int64 in arrays (``3**25 < 2**40``).

>>> from solver.rules.game import Game
>>> from solver.encoding.layouts import layout
>>> index = layout(Game(3, 3, 3))
>>> index.size, index.layer_sizes[:4]
(6046, (1, 9, 72, 252))
>>> index.index_of_code(0), index.index_of_code(1), index.index_of_code(3**8)
(0, 1, 9)
>>> int(index.codes(1, 10)[0][-1]) == 3**8
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property
from itertools import pairwise
from math import comb

import numpy as np

from ..rules.game import Game

SCHEME = "split-half-mixed-radix"
"""The name of this index, stored with every compact table."""
SCHEME_VERSION = 1
"""Bumped whenever the numbering changes (a table is only read with the index that wrote it)."""

GROUP_BITS = 10
"""A half's packed entry is ``rank << 10 | group``: groups fit in 10 bits (at most 17 * 17: a gravity half of
16 cells), ranks in the 21 bits left (a group has at most 923,521 half-boards: 4x7's high half)."""
_GROUP_MASK = (1 << GROUP_BITS) - 1
_FEW = 256
"""Below this many codes, :meth:`Layout.index_of` takes the path of fewer numpy calls (each costs about a microsecond)."""
_NO_TILE = -(1 << 62)
"""Base of a (high group, low group) pair that no layer has: every index from it is negative."""


def group_size(cells: int, a: int, b: int) -> int:
    """How many boards of ``cells`` cells have ``a`` X and ``b`` O pieces (0 if impossible)."""
    if a < 0 or b < 0 or a + b > cells:
        return 0
    return comb(cells, a) * comb(cells - a, b)


def layer_size(cells: int, ply: int) -> int:
    """How many legal-count boards a layer has: X ``ceil(ply/2)``, O ``floor(ply/2)`` pieces."""
    return group_size(cells, (ply + 1) // 2, ply // 2)


@dataclass(frozen=True, eq=False)
class Half:
    """Every board of one half (``cells`` cells), ranked within its (X count, O count) group.

    Group id of ``a`` X and ``b`` O pieces: ``a * (cells + 1) + b``.
    """

    cells: int
    packed: np.ndarray
    """int32 per half key (here the half code; under gravity :mod:`solver.encoding.columns`): ``rank << 10 | group``
    (a key no half-board has: the group of ``cells`` X and ``cells`` O, which no tile has)."""
    codes: tuple[np.ndarray, ...]
    """Per group id: the half codes of the group, ascending (int64; empty for impossible ids): what the half
    adds to a board's code (the low half's code, or the high half's times :attr:`Layout.radix`)."""
    x: tuple[np.ndarray, ...]
    """Per group id: X's cells of each half-board, as bit masks (int32 over the half's cells; int64 over the
    board's cells under gravity): a board's X cells are ``high.x << Layout.shift | low.x``."""
    o: tuple[np.ndarray, ...]
    """Per group id: O's cells, likewise."""

    def group(self, a: int, b: int) -> int:
        """The group id of ``a`` X and ``b`` O pieces."""
        return a * (self.cells + 1) + b

    @property
    def groups(self) -> int:
        """How many group ids there are: ``(cells + 1) ** 2``."""
        return (self.cells + 1) ** 2

    @cached_property
    def packed_list(self) -> memoryview:
        """:attr:`packed` as a memoryview of ints, for scalar look-ups without numpy scalars."""
        return self.packed.data.cast("B").cast("i")

    def rank_of(self, codes: np.ndarray) -> np.ndarray:
        """The rank of half codes within their group (int64)."""
        ranks: np.ndarray = (self.packed[codes] >> GROUP_BITS).astype(np.int64)
        return ranks


@cache
def half(cells: int) -> Half:
    """The ranking tables of a half of ``cells`` cells (0 to 13), built once per process."""
    if not 0 <= cells <= 13:
        raise ValueError(f"a half has 0 to 13 cells, found {cells}")
    count = 3**cells
    codes = np.arange(count, dtype=np.int64)
    rest = codes.copy()
    nx = np.zeros(count, dtype=np.int32)
    no = np.zeros(count, dtype=np.int32)
    xm = np.zeros(count, dtype=np.int32)
    om = np.zeros(count, dtype=np.int32)
    for cell in range(cells):
        digit = rest % 3
        rest //= 3
        is_x, is_o = digit == 1, digit == 2
        nx += is_x
        no += is_o
        xm |= is_x.astype(np.int32) << cell
        om |= is_o.astype(np.int32) << cell
    group = nx * (cells + 1) + no
    order = np.argsort(group, kind="stable")  # ascending code order within each group
    starts = np.searchsorted(group[order], np.arange((cells + 1) ** 2 + 1))
    rank = np.empty(count, dtype=np.int32)
    rank[order] = np.arange(count, dtype=np.int32) - starts[group[order]].astype(np.int32)
    packed = (rank << GROUP_BITS) | group
    members = [order[starts[g] : starts[g + 1]] for g in range((cells + 1) ** 2)]
    return Half(
        cells,
        packed.astype(np.int32),
        tuple(codes[m] for m in members),
        tuple(xm[m] for m in members),
        tuple(om[m] for m in members),
    )


def _cells_of(part: Half) -> int:
    """The cells some half-board of ``part`` holds a piece on (its cells, where its masks are a board's)."""
    found = 0
    for x, o in zip(part.x, part.o, strict=True):
        if x.size:
            found |= int(np.bitwise_or.reduce(x | o))
    return found


@dataclass(frozen=True)
class Tile:
    """One (high group, low group) tile of a layer: ``rows * cols`` boards, row by row.

    ``start`` is the tile's first index within its layer; ``hx, ho`` (``lx, lo``)
    are the X and O counts of the high (low) half.
    """

    ply: int
    hx: int
    ho: int
    lx: int
    lo: int
    start: int
    rows: int
    cols: int

    @property
    def size(self) -> int:
        """Boards in the tile: ``rows * cols``."""
        return self.rows * self.cols

    @property
    def stop(self) -> int:
        """One past the tile's last index within its layer."""
        return self.start + self.rows * self.cols


class Layout:
    """The index of one game: layers, their tiles, and code <-> index in both directions.

    Get one with :func:`layout` (cached per game). Global indices run over all layers
    (layer ``p`` occupies ``layer_offsets[p] .. layer_offsets[p + 1] - 1``); layer-local
    indices are the global ones minus the layer's offset.
    """

    scheme = SCHEME
    """The name of the numbering, stored with every compact table."""
    scheme_version = SCHEME_VERSION
    """Bumped whenever the numbering changes (a table is only read with the index that wrote it)."""

    def __init__(self, game: Game, *, low: Half | None = None, high: Half | None = None, radix: int | None = None, shift: int | None = None) -> None:
        self.game = game
        self.cells = game.cells
        self.low_cells = game.cells // 2 if low is None else low.cells
        self.high_cells = game.cells - self.low_cells
        self.low = half(self.low_cells) if low is None else low
        self.high = half(self.high_cells) if high is None else high
        self.radix = 3**self.low_cells if radix is None else radix
        """What a high half's code is multiplied by in a board's code: ``code = high code * radix + low code``."""
        self.shift = self.low_cells if shift is None else shift
        """Where a high half's cell masks start in a board's: ``x = high x << shift | low x``."""
        self.low_mask = (1 << self.low_cells) - 1 if shift is None else _cells_of(self.low)
        """The low half's cells, as a board's mask."""
        tiles: list[tuple[Tile, ...]] = []
        offsets = [0]
        ngl = self.low.groups
        base = np.full(self.high.groups * ngl, _NO_TILE, dtype=np.int64)
        cols = np.zeros(self.high.groups * ngl, dtype=np.int64)
        for ply in range(self.cells + 1):
            found = self._layer_tiles(ply)
            for tile in found:
                flat = self.high.group(tile.hx, tile.ho) * ngl + self.low.group(tile.lx, tile.lo)
                base[flat] = offsets[-1] + tile.start
                cols[flat] = tile.cols
            tiles.append(tuple(found))
            offsets.append(offsets[-1] + (found[-1].stop if found else 0))
        self.tiles: tuple[tuple[Tile, ...], ...] = tuple(tiles)
        """Per layer, its tiles in index order."""
        self.layer_offsets: tuple[int, ...] = tuple(offsets)
        """Global index of each layer's first board; the last entry is :attr:`size`."""
        self.layer_sizes: tuple[int, ...] = tuple(b - a for a, b in pairwise(offsets))
        """Boards per layer."""
        self.size: int = offsets[-1]
        """Boards of all layers: the length of a compact table."""
        self._base = base
        self._cols = cols
        self._base_list: list[int] = base.tolist()
        self._cols_list: list[int] = cols.tolist()
        self._ngl = ngl

    def _layer_tiles(self, ply: int) -> list[Tile]:
        """The tiles of layer ``ply``: one per split of its X and O pieces between the halves that both halves have."""
        nx, no = (ply + 1) // 2, ply // 2
        found: list[Tile] = []
        start = 0
        for hx in range(min(nx, self.high_cells) + 1):
            for ho in range(min(no, self.high_cells - hx) + 1):
                lx, lo = nx - hx, no - ho
                if lx < 0 or lo < 0 or lx + lo > self.low_cells:
                    continue
                rows, cols = self.high.codes[self.high.group(hx, ho)].size, self.low.codes[self.low.group(lx, lo)].size
                if rows and cols:
                    found.append(Tile(ply, hx, ho, lx, lo, start, rows, cols))
                    start += rows * cols
        return found

    def __repr__(self) -> str:
        return f"<Layout {self.game.name}: {self.size:,} boards in {self.cells + 1} layers>"

    def tile_of(self, ply: int, hx: int, ho: int) -> Tile | None:
        """The tile of layer ``ply`` with ``hx`` X and ``ho`` O pieces in the high half, if any."""
        for tile in self.tiles[ply]:
            if (tile.hx, tile.ho) == (hx, ho):
                return tile
        return None

    # -- code -> index ---------------------------------------------------------
    def keys_of(self, code: int) -> tuple[int, int]:
        """The keys of a code's high and low halves in :attr:`Half.packed` (here the halves' codes)."""
        return divmod(code, self.radix)

    def keys(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`keys_of` of many codes (int64)."""
        high = codes // self.radix  # floor division by a constant, then a product: faster than divmod
        return high, codes - high * self.radix

    def index_of_code(self, code: int) -> int:
        """The global index of one code, or -1 if its piece counts are not legal (or it has no index).

        Plain Python ints and a few list look-ups (about a microsecond).
        """
        high, low = self.keys_of(code)
        pl: int = self.low.packed_list[low]
        ph: int = self.high.packed_list[high]
        flat = (ph & _GROUP_MASK) * self._ngl + (pl & _GROUP_MASK)
        base: int = self._base_list[flat]
        if base < 0:
            return -1
        cols: int = self._cols_list[flat]
        return base + (ph >> GROUP_BITS) * cols + (pl >> GROUP_BITS)

    def index_of(self, codes: np.ndarray) -> np.ndarray:
        """The global index of every code (vectorised, int64, any shape); negative for illegal counts.

        Codes must be in ``0 .. 3**cells - 1`` (not checked here).
        """
        codes = np.asarray(codes, dtype=np.int64)
        if codes.size < _FEW:  # a few codes (a position's children): fewer numpy calls win
            high, low = self.keys(codes)
            pl, ph = self.low.packed[low], self.high.packed[high]
            flat = (ph & _GROUP_MASK).astype(np.intp) * self._ngl + (pl & _GROUP_MASK)
            few: np.ndarray = self._base[flat] + (ph >> GROUP_BITS) * self._cols[flat] + (pl >> GROUP_BITS)
            return few
        high, low = self.keys(codes)
        pl = np.take(self.low.packed, low)
        ph = np.take(self.high.packed, high)
        flat = (ph & _GROUP_MASK) * self._ngl  # int32 throughout: a group pair fits
        flat += pl & _GROUP_MASK
        index: np.ndarray = np.take(self._base, flat)
        index += (ph >> GROUP_BITS) * np.take(self._cols, flat)
        index += pl >> GROUP_BITS
        return index  # illegal counts: _NO_TILE plus less than a tile, still negative

    # -- index -> code ---------------------------------------------------------
    def layer_of(self, index: int) -> int:
        """The layer (pieces on the board) of a global index."""
        if not 0 <= index < self.size:
            raise IndexError(f"index {index} is out of range: expected 0 to {self.size - 1}")
        return int(np.searchsorted(self.layer_offsets, index, side="right")) - 1

    def tile_boards(self, tile: Tile, row_start: int = 0, row_stop: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The boards of rows ``row_start .. row_stop - 1`` of a tile: (codes, x, o), flat, in index order.

        ``x`` and ``o`` are bit masks over all cells (int64).
        """
        row_stop = tile.rows if row_stop is None else row_stop
        gh, gl = self.high.group(tile.hx, tile.ho), self.low.group(tile.lx, tile.lo)
        hc = self.high.codes[gh][row_start:row_stop]
        lc = self.low.codes[gl]
        codes = (hc[:, None] * self.radix + lc[None, :]).ravel()
        shift = self.shift
        x = ((self.high.x[gh][row_start:row_stop].astype(np.int64)[:, None] << shift) | self.low.x[gl][None, :]).ravel()
        o = ((self.high.o[gh][row_start:row_stop].astype(np.int64)[:, None] << shift) | self.low.o[gl][None, :]).ravel()
        return codes, x, o

    def codes(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The boards of global indices ``start .. stop - 1``: (codes, x, o) as int64 arrays."""
        if not 0 <= start <= stop <= self.size:
            raise IndexError(f"index range {start}..{stop} is outside 0..{self.size}")
        parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for ply in range(self.cells + 1):
            offset = self.layer_offsets[ply]
            if offset >= stop or self.layer_offsets[ply + 1] <= start:
                continue
            for tile in self.tiles[ply]:
                a, b = max(start, offset + tile.start), min(stop, offset + tile.stop)
                if a >= b:
                    continue
                first, last = (a - offset - tile.start) // tile.cols, -(-(b - offset - tile.start) // tile.cols)
                codes, x, o = self.tile_boards(tile, first, last)
                skip = a - offset - tile.start - first * tile.cols
                parts.append((codes[skip : skip + b - a], x[skip : skip + b - a], o[skip : skip + b - a]))
        if not parts:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty
        return tuple(np.concatenate(arrays) for arrays in zip(*parts, strict=True))  # type: ignore[return-value]

    @cached_property
    def _tile_table(self) -> tuple[np.ndarray, ...]:
        """Every tile of every layer: global start, cols, and where its groups begin in the halves' sorted codes."""
        tiles = [tile for layer in self.tiles for tile in layer]
        low_start = np.cumsum([0] + [c.size for c in self.low.codes])
        high_start = np.cumsum([0] + [c.size for c in self.high.codes])
        return (
            np.array([self.layer_offsets[b.ply] + b.start for b in tiles], dtype=np.int64),
            np.array([b.cols for b in tiles], dtype=np.int64),
            np.array([high_start[self.high.group(b.hx, b.ho)] for b in tiles], dtype=np.int64),
            np.array([low_start[self.low.group(b.lx, b.lo)] for b in tiles], dtype=np.int64),
            np.concatenate(self.high.codes),
            np.concatenate(self.low.codes),
        )

    def codes_at(self, indices: np.ndarray) -> np.ndarray:
        """The codes of many global indices (vectorised, int64, any order)."""
        indices = np.asarray(indices, dtype=np.int64)
        if indices.size and (indices.min() < 0 or indices.max() >= self.size):
            raise IndexError(f"indices must be in 0..{self.size - 1}")
        starts, cols, high_start, low_start, high_codes, low_codes = self._tile_table
        tile = np.searchsorted(starts, indices, side="right") - 1
        row, col = np.divmod(indices - starts[tile], cols[tile])
        codes: np.ndarray = high_codes[high_start[tile] + row] * self.radix + low_codes[low_start[tile] + col]
        return codes

    def code_of_index(self, index: int) -> int:
        """The code of one global index."""
        ply = self.layer_of(index)
        local = index - self.layer_offsets[ply]
        for tile in self.tiles[ply]:
            if tile.start <= local < tile.stop:
                row, col = divmod(local - tile.start, tile.cols)
                gh, gl = self.high.group(tile.hx, tile.ho), self.low.group(tile.lx, tile.lo)
                code: int = int(self.high.codes[gh][row]) * self.radix + int(self.low.codes[gl][col])
                return code
        raise AssertionError("an index inside a layer lies in none of its tiles")  # pragma: no cover
