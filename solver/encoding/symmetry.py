"""The board's symmetries acting on base-3 codes: images, the canonical code, and the way back.

A game's symmetries are its rule's (``game.rules.symmetries``, identity first): 8 on a square
board and 4 on any other rectangle where a piece goes on any empty cell, 2 (the identity and the
left-right mirror) under gravity. Symmetry ``s`` is the cell permutation
``perm = game.rules.symmetries[s]``: the **image** of a board under ``s`` has at cell ``c`` what
the board has at cell ``perm[c]``.

**Canonical code.** The canonical code of a board is the *smallest* code among its
images, and its symmetry is the *smallest* ``s`` whose image is that code (so a
board that is its own canonical form always reports ``s = 0``, the identity). A
table that stores only canonical boards answers a board through
``canonical_of(code)``; a cell or a best-move mask read in the canonical orientation
goes back to the caller's orientation with :meth:`Symmetries.cell_to_caller` and
:meth:`Symmetries.mask_to_caller` (cell ``m`` of the image is cell ``perm[m]`` of
the caller's board).

**How it is fast.** A code's base-3 digits are cut into a few fields of at most
:data:`solver.encoding.board.FIELD_CELLS` cells. For every symmetry and field, a table over the field's
``3**width`` digit patterns holds what those digits contribute to the image code
(``digit * 3**target cell``, summed): an image is a sum of one table entry per
field. Arrays of codes are processed in steps of :data:`STEP` codes so the
temporaries stay in the CPU caches; one code takes plain Python ints and
memoryview look-ups (no numpy scalars). Best-move masks use byte tables
(8 cells per table). ``scripts/bench_symmetry.py`` prints the costs.

>>> from solver.rules.game import Game, parse_game
>>> [symmetries(parse_game(name)).count for name in ("3x3k3", "3x4k3", "4x4k4-gravity")]
[8, 4, 2]
>>> sym = symmetries(Game(3, 3, 3))
>>> sym.count
8
>>> x_in_corner = 3**8               # X on cell 8, the bottom-right corner
>>> sym.canonical_of(x_in_corner)    # X on cell 0, reached by the half turn
(1, 1)
>>> sym.cell_to_caller(0, 1)         # cell 0 of the canonical board is the caller's cell 8
8
>>> bin(sym.mask_to_caller(0b10, 1)) # a best move on cell 1 there is cell 7 here
'0b10000000'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from operator import add
from typing import Any

import numpy as np

from ..rules.game import Game
from .coderules import code_fields, digit_fields

STEP = 1 << 14
"""Codes per step of a vectorised call (temporaries of about 128 KiB each)."""


def _inverse(perm: tuple[int, ...]) -> tuple[int, ...]:
    inverse = [0] * len(perm)
    for target, source in enumerate(perm):
        inverse[source] = target
    return tuple(inverse)


def _digit_table(width: int) -> np.ndarray:
    """The base-3 digits of ``0 .. 3**width - 1``: shape ``(3**width, width)``, int64."""
    patterns = np.arange(3**width, dtype=np.int64)
    return np.stack([(patterns // 3**i) % 3 for i in range(width)], axis=1) if width else np.zeros((1, 0), dtype=np.int64)


class Symmetries:
    """The symmetries of one game acting on codes, cells and cell masks.

    Get one with :func:`symmetries` (built once per game and process).

    ==========================  ===========================================================
    ``count``                   number of symmetries (8 square, 4 rectangle); ``s`` in
                                ``0 .. count - 1``, 0 the identity
    ``perms[s]``                the cell permutation (``image[c] = board[perms[s][c]]``)
    ``inverse[s]``              the symmetry undoing ``s``
    ==========================  ===========================================================
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.perms: tuple[tuple[int, ...], ...] = game.rules.symmetries
        self.count = len(self.perms)
        inverses = [_inverse(perm) for perm in self.perms]
        self.inverse: tuple[int, ...] = tuple(self.perms.index(inv) for inv in inverses)
        """``inverse[s]``: the symmetry whose image of ``s``'s image is the board itself."""
        self.fields = code_fields(game.cells)
        self.moduli: tuple[int, ...] = tuple(3**width for _, width in self.fields)
        """``3**width`` of each digit field (what :func:`solver.encoding.board.digit_fields` cuts codes by)."""
        # tables[s][j][pattern]: what field j's digits contribute to the image code under s
        tables = []
        for target_of in inverses:  # the content of cell c moves to cell target_of[c]
            per_field = []
            for first, width in self.fields:
                powers = np.array([3 ** target_of[first + i] for i in range(width)], dtype=np.int64)
                per_field.append(_digit_table(width) @ powers if width else np.zeros(1, dtype=np.int64))
            tables.append(per_field)
        self._tables: tuple[tuple[np.ndarray, ...], ...] = tuple(tuple(t) for t in tables)
        self._views = tuple(tuple(t.data.cast("B").cast("q") for t in per) for per in self._tables)
        self._tables32 = tuple(tuple(t.astype(np.uint32) for t in per) for per in self._tables) if 3**game.cells <= 1 << 32 else None
        """The tables in uint32 when every code fits (up to 20 cells), for :meth:`canonical_codes`."""
        self._powers = 3 ** np.arange(game.cells, dtype=np.int64)
        self._target_powers = np.stack([3 ** np.array(inv, dtype=np.int64) for inv in inverses])
        """``[s, cell]``: ``3**`` the cell that ``cell``'s content moves to under ``s``."""
        self._child_steps = {piece: tuple(tuple(column.tolist()) for column in (piece * self._target_powers).T) for piece in (1, 2)}
        """``[piece][cell]``: what adding ``piece`` at ``cell`` adds to a board's image under each ``s`` (plain ints)."""
        self._rows = tuple(_rows(per_field) for per_field in zip(*self._tables, strict=True)) if len(self.fields) == 3 else ()
        """Per field (three fields: 3 to 27 cells), every symmetry's entry for a digit pattern side by side
        (entry ``pattern * count + s``), for one code's images: one row per field (a 64-byte cache line for
        8 symmetries) rather than one entry per field and symmetry (:meth:`images_of`)."""
        self._masks = self._mask_tables()
        self._mask_lists: tuple[tuple[list[int], ...], ...] = tuple(tuple(t.tolist() for t in per) for per in self._masks)

    def __repr__(self) -> str:
        return f"<Symmetries of {self.game.name}: {self.count}>"

    def _mask_tables(self) -> tuple[tuple[np.ndarray, ...], ...]:
        """``[s][byte][value]``: where the 8 cells of one byte of a canonical-orientation mask go in the caller's (the rule's mask type)."""
        out = []
        byte = np.arange(256, dtype=np.int64)
        for perm in self.perms:
            per_byte = []
            for base in range(0, self.game.cells, 8):
                table = np.zeros(256, dtype=np.int64)
                for bit in range(min(8, self.game.cells - base)):
                    table |= ((byte >> bit) & 1) << perm[base + bit]
                per_byte.append(table.astype(self.game.rules.mask_type))
            out.append(tuple(per_byte))
        return tuple(out)

    # -- one code -------------------------------------------------------------------
    def image_of(self, code: int, s: int) -> int:
        """The code of a board's image under symmetry ``s`` (plain ints)."""
        image = 0
        for view, modulus in zip(self._views[s], self.moduli, strict=True):
            code, pattern = divmod(code, modulus)
            image += view[pattern]
        return image

    def canonical_of(self, code: int) -> tuple[int, int]:
        """``(canonical code, s)``: the smallest image of ``code`` and the first symmetry giving it.

        The canonical board is the image of the caller's board under ``s``; a cell of it
        is cell :meth:`cell_to_caller` of the caller's board. Two to five microseconds for 8
        symmetries of 25 cells here (scripts/bench_symmetry.py): plain ints, three table rows.
        """
        images = self.images_of(code)
        best = min(images)
        return best, images.index(best)

    def canonical_code_of(self, code: int) -> int:
        """The canonical code of one board: :meth:`canonical_of` without the symmetry (what a look-up reads).

        Three table rows, the images summed and their minimum taken in C (the identity's image is
        ``code`` itself): a few cache lines, what counts on the first touch of a block, after its
        decode has evicted the tables from the CPU caches.
        """
        if not self._rows:
            return self.canonical_of(code)[0]
        return min(self._row_images(code))

    def images_of(self, code: int) -> list[int]:
        """The codes of the ``count`` images of one board, in symmetry order (identity first)."""
        if not self._rows:
            return [self.image_of(code, s) for s in range(self.count)]
        return list(self._row_images(code))

    def _row_images(self, code: int) -> Iterator[int]:
        """The images of one board from its three table rows (three fields only), in symmetry order."""
        rest, p0 = divmod(code, self.moduli[0])
        p2, p1 = divmod(rest, self.moduli[1])
        n = self.count
        r0, r1, r2 = self._rows
        p0, p1, p2 = p0 * n, p1 * n, p2 * n
        return map(sum, zip(r0[p0 : p0 + n], r1[p1 : p1 + n], r2[p2 : p2 + n], strict=True))

    def canonical_child_codes(self, code: int, piece: int, cells: Iterable[int]) -> Iterator[int]:
        """The canonical code of the board with ``piece`` (1 X, 2 O) added at each of ``cells``, in order.

        Plain ints, for the few children of one position (a best move): the board's images
        are computed once, and a child's image under ``s`` is that image plus ``piece *
        3**(where s moves the cell)``; a child costs a sum and a minimum over the symmetries.
        """
        images = self.images_of(code)
        steps = self._child_steps[piece]
        return (min(map(add, images, steps[cell])) for cell in cells)

    def canonical_children(self, code: int, piece: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every move from one board, canonicalised at once: ``(cells, canonical codes, s)``.

        For each empty cell (ascending), the canonical code of the board with ``piece``
        (1 X, 2 O) added there and the first symmetry giving it. A child's image under
        ``s`` is the parent's image plus ``piece * 3**(where s moves the cell)``, so the
        parent's images are computed once (what a best-move search over the children
        of one position needs: a few microseconds for 25 cells, not 25 canonical forms).
        """
        cells = np.flatnonzero((code // self._powers) % 3 == 0)
        children = np.array(self.images_of(code), dtype=np.int64)[:, None] + piece * self._target_powers
        which = children.argmin(axis=0)[cells]
        best = children.min(axis=0)[cells]
        return cells, best, which.astype(np.uint8)

    def cell_to_caller(self, cell: int, s: int) -> int:
        """The caller's cell that is ``cell`` of the image under ``s``."""
        return self.perms[s][cell]

    def cell_from_caller(self, cell: int, s: int) -> int:
        """The cell of the image under ``s`` that holds the caller's ``cell``."""
        return self.perms[self.inverse[s]][cell]

    def mask_to_caller(self, mask: int, s: int) -> int:
        """A cell mask (e.g. best moves) of the image under ``s``, in the caller's orientation."""
        out = 0
        for index, table in enumerate(self._mask_lists[s]):
            out |= table[(mask >> (8 * index)) & 255]
        return out

    def mask_from_caller(self, mask: int, s: int) -> int:
        """A cell mask of the caller's board, in the orientation of its image under ``s``."""
        return self.mask_to_caller(mask, self.inverse[s])

    # -- many codes -----------------------------------------------------------------
    def _patterns(self, codes: np.ndarray) -> list[np.ndarray]:
        return digit_fields(codes, self.moduli)

    def image(self, codes: np.ndarray, s: int | np.ndarray) -> np.ndarray:
        """The images of many codes (int64, same shape) under one symmetry or one per code.

        :param s: a symmetry, or an integer array of them shaped like ``codes``.
        """
        flat = np.ascontiguousarray(codes, dtype=np.int64).reshape(-1)
        if isinstance(s, (int, np.integer)):
            which = np.full(flat.size, int(s), dtype=np.intp)
        else:
            which = np.broadcast_to(np.asarray(s, dtype=np.intp), np.shape(codes)).reshape(-1)
        stacked = [np.stack([self._tables[t][j] for t in range(self.count)]) for j in range(len(self.fields))]
        out = np.empty(flat.size, dtype=np.int64)
        for a in range(0, flat.size, STEP):
            patterns = self._patterns(flat[a : a + STEP])
            rows = which[a : a + STEP]
            part = stacked[0][rows, patterns[0]]
            for table, pattern in zip(stacked[1:], patterns[1:], strict=True):
                part += table[rows, pattern]
            out[a : a + STEP] = part
        return out.reshape(np.shape(codes))

    def canonical(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(canonical codes, s)`` of many codes: the smallest image (int64) and the first
        symmetry giving it (uint8), both shaped like ``codes``."""
        flat = np.ascontiguousarray(codes, dtype=np.int64).reshape(-1)
        best = np.empty(flat.size, dtype=np.int64)
        which = np.zeros(flat.size, dtype=np.uint8)
        for a in range(0, flat.size, STEP):
            step = flat[a : a + STEP]
            patterns = self._patterns(step)
            low, low_s = step.copy(), which[a : a + STEP]
            for s in range(1, self.count):
                tables = self._tables[s]
                image = tables[0][patterns[0]]
                for table, pattern in zip(tables[1:], patterns[1:], strict=True):
                    image += table[pattern]
                smaller = image < low
                np.minimum(low, image, out=low)
                low_s[smaller] = s
            best[a : a + STEP] = low
        return best.reshape(np.shape(codes)), which.reshape(np.shape(codes))

    @property
    def keeps_images(self) -> bool:
        """Whether a batch look-up keeps its codes' images for their best moves (:meth:`canonical_codes`
        ``images``): where they are uint32 (up to 20 cells), ``4 * (count - 1)`` bytes a code; a larger
        board's (int64, up to 56 bytes a code) are computed again (:meth:`canonical_child_grid`)."""
        return self._tables32 is not None

    def canonical_codes(self, codes: np.ndarray, patterns: Sequence[np.ndarray] | None = None, images: np.ndarray | None = None) -> np.ndarray:
        """The canonical code of each of many codes (int64, flat): :meth:`canonical` without the symmetry,
        for batch look-ups (about half its cost).

        :param patterns: the codes' digit fields if the caller has them already
            (:func:`solver.encoding.board.digit_fields` of ``codes`` and this game's field moduli,
            :attr:`moduli`); the codes are then done in one step (keep them to a few
            :data:`STEP` so the temporaries stay in cache).
        :param images: with ``patterns`` and where :attr:`keeps_images`: a uint32 array
            ``(count - 1, codes)`` that receives each code's image under symmetries ``1 ..
            count - 1`` (what :meth:`canonical_child_grid` starts from: a batch's best moves).
        """
        flat = np.ascontiguousarray(codes, dtype=np.int64).reshape(-1)
        best = np.empty(flat.size, dtype=np.int64)
        if patterns is not None:
            self._canonical_step(flat, patterns, best, images)
            return best
        for a in range(0, flat.size, STEP):
            step = flat[a : a + STEP]
            self._canonical_step(step, digit_fields(step, self.moduli), best[a : a + STEP])
        return best

    def _canonical_step(self, codes: np.ndarray, patterns: Sequence[np.ndarray], out: np.ndarray, images: np.ndarray | None = None) -> None:
        """The canonical codes of one step into ``out`` (int64): in uint32 where every code fits
        (up to 20 cells: half the bytes to move, tables that stay in the fastest cache); each image
        into ``images`` too if given (:meth:`canonical_codes`)."""
        every: tuple[tuple[np.ndarray, ...], ...]
        if self._tables32 is not None:
            every, low = self._tables32, codes.astype(np.uint32)
        else:
            every, low = self._tables, out
            low[:] = codes
        image, term = np.empty(codes.size, dtype=low.dtype), np.empty(codes.size, dtype=low.dtype)
        for s, tables in enumerate(every[1:]):
            if images is not None:
                image = images[s]
            np.take(tables[0], patterns[0], out=image)
            for table, pattern in zip(tables[1:], patterns[1:], strict=True):
                image += np.take(table, pattern, out=term)
            np.minimum(low, image, out=low)
        if low is not out:
            out[:] = low

    def canonical_child_grid(self, codes: np.ndarray, piece: int, images: np.ndarray | None = None) -> np.ndarray:
        """The canonical code of each board with ``piece`` (1 X, 2 O) added at each cell, cell by cell:
        shape ``(cells, codes)`` (row ``c``: every board with the piece on cell ``c``), uint32 where
        every code fits (up to 20 cells), else int64; meaningless where the cell is taken.

        :meth:`canonical_child_codes` for many boards: a child's image under ``s`` is its
        parent's image plus ``piece * 3**(where s moves the cell)``, so each board's images are
        computed once and a child costs a sum and a minimum per symmetry, on whole rows. Keep
        ``codes`` to a few :data:`STEP` (the grid has ``cells`` entries a board).

        :param images: the boards' images under symmetries ``1 .. count - 1`` if the caller kept
            them (uint32, ``(count - 1, codes)``: :meth:`canonical_codes` ``images``); else computed here.
        """
        flat = np.ascontiguousarray(codes, dtype=np.int64).reshape(-1)
        if images is not None:
            return self._child_grid_from_images(flat, piece, images)
        patterns = self._patterns(flat)
        every = self._tables32 if self._tables32 is not None else self._tables
        kind: type[np.unsignedinteger[Any] | np.signedinteger[Any]] = np.uint32 if self._tables32 is not None else np.int64
        steps = (piece * self._target_powers).astype(kind)[:, :, None]  # [s, cell, 1]
        grid: np.ndarray = np.empty((self.game.cells, flat.size), dtype=kind)
        child: np.ndarray = np.empty_like(grid)
        image: np.ndarray = flat.astype(kind)  # the identity's image is the code itself
        term: np.ndarray = np.empty(flat.size, dtype=kind)
        np.add(image, steps[0], out=grid)
        for s, tables in enumerate(every[1:], 1):
            np.take(tables[0], patterns[0], out=image)
            for table, pattern in zip(tables[1:], patterns[1:], strict=True):
                image += np.take(table, pattern, out=term)
            np.minimum(grid, np.add(image, steps[s], out=child), out=grid)
        return grid

    def _child_grid_from_images(self, codes: np.ndarray, piece: int, images: np.ndarray) -> np.ndarray:
        """:meth:`canonical_child_grid` from the boards' kept images (uint32: up to 20 cells)."""
        steps = (piece * self._target_powers).astype(np.uint32)[:, :, None]  # [s, cell, 1]
        grid: np.ndarray = np.add(codes.astype(np.uint32), steps[0])  # the identity's image is the code itself
        child: np.ndarray = np.empty_like(grid)
        for s in range(1, self.count):
            np.minimum(grid, np.add(images[s - 1], steps[s], out=child), out=grid)
        return grid

    def is_canonical(self, codes: np.ndarray) -> np.ndarray:
        """Whether each code is its own canonical code (bool, shaped like ``codes``)."""
        flat = np.ascontiguousarray(codes, dtype=np.int64).reshape(-1)
        out = np.ones(flat.size, dtype=bool)
        for a in range(0, flat.size, STEP):
            step = flat[a : a + STEP]
            patterns = self._patterns(step)
            keep = out[a : a + STEP]
            for s in range(1, self.count):
                tables = self._tables[s]
                image = tables[0][patterns[0]]
                for table, pattern in zip(tables[1:], patterns[1:], strict=True):
                    image += table[pattern]
                keep &= step <= image
        return out.reshape(np.shape(codes))

    def is_canonical_grid(self, high: np.ndarray, low: np.ndarray, radix: int) -> np.ndarray:
        """Whether each board ``high[r] * radix + low[c]`` is canonical: bool, ``(rows, cols)``.

        The shape of a tile of :mod:`solver.encoding.index` (high half-boards by low half-boards;
        ``radix`` is the layout's: ``3**low_cells``, or 1 where the halves' codes are already
        where the board has them). An image is digit-wise linear, ``image(h * radix + l) =
        image(h * radix) + image(l)``, so a board is canonical under ``s`` when
        ``h * radix - image(h * radix) <= image(l) - l``: one comparison of a
        row value with a column value per board and symmetry, no table look-up per board.
        """
        return canonical_grid(self.row_sides(high, radix), self.column_sides(low))

    def row_sides(self, high: np.ndarray, radix: int) -> np.ndarray:
        """The rows' side of :meth:`is_canonical_grid`'s comparison for every symmetry but the identity:
        ``h * radix - image(h * radix)``, int64, ``(count - 1, rows)`` (:func:`canonical_grid`)."""
        rows = np.asarray(high, dtype=np.int64).reshape(-1) * radix
        sides = np.empty((self.count - 1, rows.size), dtype=np.int64)
        for s in range(1, self.count):
            np.subtract(rows, self.image(rows, s), out=sides[s - 1])
        return sides

    def column_sides(self, low: np.ndarray) -> np.ndarray:
        """The columns' side of :meth:`is_canonical_grid`'s comparison for every symmetry but the identity:
        ``image(l) - l``, int64, ``(count - 1, cols)`` (:func:`canonical_grid`)."""
        cols = np.asarray(low, dtype=np.int64).reshape(-1)
        sides = np.empty((self.count - 1, cols.size), dtype=np.int64)
        for s in range(1, self.count):
            np.subtract(self.image(cols, s), cols, out=sides[s - 1])
        return sides

    def masks_to_caller(self, masks: np.ndarray, s: np.ndarray) -> np.ndarray:
        """Cell masks of images, one symmetry per mask, in the callers' orientations (the rule's mask type)."""
        flat = np.ascontiguousarray(masks).astype(np.int64, copy=False).reshape(-1)
        which = np.broadcast_to(np.asarray(s, dtype=np.intp), np.shape(masks)).reshape(-1)
        out = np.zeros(flat.size, dtype=self.game.rules.mask_type)
        for index in range(len(self._masks[0])):
            table = np.stack([self._masks[t][index] for t in range(self.count)])
            out |= table[which, (flat >> (8 * index)) & 255]
        return out.reshape(np.shape(masks))


def canonical_grid(row_sides: np.ndarray, column_sides: np.ndarray) -> np.ndarray:
    """Whether each board of a tile's rows and columns is canonical (bool, ``(rows, cols)``): board ``(r, c)`` is when
    ``row_sides[s, r] <= column_sides[s, c]`` for every symmetry ``s`` but the identity
    (:meth:`Symmetries.row_sides`, :meth:`Symmetries.column_sides`)."""
    keep: np.ndarray | None = None  # the first symmetry's comparison is the grid (a gravity board has only one)
    for row_side, column_side in zip(row_sides, column_sides, strict=True):
        found = row_side[:, None] <= column_side[None, :]
        keep = found if keep is None else np.logical_and(keep, found, out=keep)
    return np.ones((row_sides.shape[1], column_sides.shape[1]), dtype=bool) if keep is None else keep


def _rows(tables: Sequence[np.ndarray]) -> memoryview:
    """One field's tables of every symmetry (``tables[s][pattern]``), interleaved: entry ``pattern * count + s``,
    as int64 items, in memory aligned to 64 bytes (a row of 8 symmetries is one cache line)."""
    rows = np.stack(tables, axis=1).reshape(-1)
    buffer = np.empty(rows.nbytes + 64, dtype=np.uint8)
    start = -buffer.ctypes.data % 64
    aligned = buffer[start : start + rows.nbytes].view(np.int64)
    aligned[:] = rows
    return aligned.data.cast("B").cast("q")


@cache
def symmetries(game: Game) -> Symmetries:
    """The :class:`Symmetries` of a game (built once per process)."""
    return Symmetries(game)
