"""The layered build of compact tables: one score byte per legal-count board, layer by layer, backward.

Boards are numbered by :mod:`solver.encoding.index` (layer ``p`` holds the boards with ``p``
pieces, X ``ceil(p/2)`` and O ``floor(p/2)``). Layer ``p`` is solved from layer
``p + 1`` only, from the full board down to the empty one, in bounded **chunks**:
whole rows of one block of the index (a row is one high half-board with every low
half-board of its group). Per chunk, with numpy, Python looping over lines and
cells only:

* **reachable** (closed form, exactly :func:`solver.encoding.board.rule_violation`'s rule):
  the player to move has no line (else the game went on after a win, or both have
  one); if the last mover has lines, they all share a cell (the winning move).
* **finished**: the last mover has a line (the rule's line score, ``-WIN``: lost for the side to
  move) or the board is full (``0``, a draw).
* otherwise the score is ``sign(m) - m`` where ``m`` is the smallest score among
  the children (one per empty cell), read from layer ``p + 1``. A move in the low
  half keeps the row of the child block and one in the high half keeps its column,
  so the children of a chunk are whole columns or whole rows of the next layer's
  blocks (``np.take`` along an axis, no per-board index arithmetic).

Scores follow :mod:`solver.rules.score` (int8, for the side to move: ``100 - d`` a win in
``d`` plies, 0 a draw, ``-(100 - d)`` a loss, ``UNREACHABLE`` = -128).

**On disk** (a *build directory*): each finished layer is a raw int8 file
``layer-PP.i8`` (in layer-local index order) with its size and SHA-256 in
``manifest.json``. The layer being solved is **spooled** into ``layer-PP.i8.partial``,
a sparse file of the layer's size in which every worker writes each chunk compressed
(zstd or zlib at level 1, :func:`spool_bytes`) at the chunk's own offset, and a journal
line ``start crc32 bytes`` per chunk once it is written. So while layer ``p`` is solved
only its child ``p + 1`` is raw on disk; then (:func:`finish_layer`) the chunks are
decoded into ``layer-PP.i8``, checked against their CRC-32 and hashed. A build that
retires its layers (a ``release`` hook, :mod:`solver.retrograde.sealing`) retires ``p + 1`` before
``p`` is decoded, so it never holds two large raw layers at once. A build run again on
the same directory checks the finished layers and resumes below the last one, keeping
every journaled chunk whose bytes still decode to their CRC-32. The bytes do not depend
on the number of workers or their order. The manifest is replaced atomically by
:func:`solver.storage.fsutil.write_atomic`, the one atomic writer.

The directory is the builder's alone: created 0700 and refused unless it is this
user's and writable by nobody else; every file in it is opened with ``O_NOFOLLOW``
(``O_EXCL`` where new) and must be a regular file of this user, so a link planted as
a layer, a partial layer or a journal is refused and nothing outside the directory is
ever written (:func:`solver.storage.fsutil.open_private`). Pool workers die with the build's
process (:func:`die_with_parent`), even when it is killed with SIGKILL.

>>> import tempfile
>>> from solver.rules.game import Game
>>> with tempfile.TemporaryDirectory() as directory:
...     done = build_layers(Game(3, 3, 3), directory, jobs=1)
...     scores = np.fromfile(done.layer_path(0), dtype=np.int8)
>>> int(scores[0])          # the empty board: a draw
0
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import re
import shutil
import signal
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import cache, lru_cache
from multiprocessing import get_all_start_methods, get_context
from pathlib import Path
from typing import Any

import numpy as np

from ..encoding.board import render
from ..encoding.index import SCHEME, SCHEME_VERSION, Block, Layout, half, layout
from ..errors import SolverError, quote
from ..rules.game import Game, parse_game
from ..rules.score import UNREACHABLE
from ..storage.blockarray import Codec, codec_of, default_codec
from ..storage.fsutil import create_private, open_private, private_directory, remove_dead_temporaries, write_atomic
from ..words import count

CHUNK_BOARDS = 1 << 22
"""Boards per chunk (at least one row): bounds a worker's working memory to about 130 MiB."""
WORKING_BYTES_PER_BOARD = 32
"""Working memory of a chunk per board: the kernel's reused arrays (measured: at most 30 bytes a board, 2x9k2) and the scores."""
MANIFEST = "manifest.json"
_NO_CHILD = np.int8(127)
"""Start value of the smallest child score: above every real score."""


class BuildError(SolverError):
    """A compact build that cannot run: not enough disk or memory, or a build directory of another game."""


@dataclass(frozen=True)
class Chunk:
    """Rows ``row_start .. row_stop - 1`` of block ``block`` of layer ``ply``: layer-local indices ``start .. stop - 1``."""

    ply: int
    block: int
    row_start: int
    row_stop: int
    start: int
    stop: int

    @property
    def boards(self) -> int:
        """How many boards the chunk holds."""
        return self.stop - self.start


@dataclass(frozen=True)
class ChunkDone:
    """Reported to the progress callback after every chunk: its layer, boards and work units.

    A chunk's work is its boards plus :data:`CHUNK_COST`: measured on 3x6k3, a board
    costs about the same in every big layer (45 to 57 ns on one core, whatever its
    empty cells), and a chunk has a fixed cost of about a millisecond. So the fraction
    of :attr:`BuildPlan.work` done is a fair guide to the time left.
    """

    ply: int
    boards: int
    work: int


Progress = Callable[[ChunkDone], None]
"""Called in the client process after each chunk is written."""

ChunkResult = tuple[int, int, int, int]
"""What a worker reports for a chunk: its first index in the layer, its boards, the CRC-32 of its scores and
the bytes it takes in the layer's partial file (:func:`spool_bytes`)."""


def chunks(game: Game, ply: int, *, boards: int | None = None) -> list[Chunk]:
    """The chunks of a layer, in index order: whole rows of one block, about ``boards`` boards each
    (default :data:`CHUNK_BOARDS`)."""
    boards = boards or CHUNK_BOARDS
    found = []
    for number, block in enumerate(layout(game).blocks[ply]):
        rows = max(1, boards // block.cols)
        for first in range(0, block.rows, rows):
            last = min(block.rows, first + rows)
            found.append(Chunk(ply, number, first, last, block.start + first * block.cols, block.start + last * block.cols))
    return found


CHUNK_COST = 20_000
"""A chunk's fixed cost in work units (boards): about a millisecond."""


def layer_work(game: Game, ply: int) -> int:
    """Work units of a layer: its boards plus :data:`CHUNK_COST` per chunk (see :class:`ChunkDone`)."""
    return layout(game).layer_sizes[ply] + CHUNK_COST * len(chunks(game, ply))


# -- solving one chunk -------------------------------------------------------------
# Per chunk the work is whole-matrix numpy passes over rows x cols int8/uint32 arrays, with
# no boolean-mask writes and no `where=` (each costs about 3 ns a board, the passes used
# here 0.05 to 0.6): children are gathered per *k-th empty cell* (every half-board of a group
# has as many), and lines are per-half line sets combined by one outer AND.
_WORD = 32
"""Lines per word of a line set (uint32): a game's lines are numbered as in :attr:`Game.line_masks`."""


@cache
def _split_lines(game: Game) -> tuple[tuple[int, int, int], ...]:
    """Every line as (full mask, low-half mask, high-half mask shifted down)."""
    low = game.cells // 2
    return tuple((line, line & ((1 << low) - 1), line >> low) for line in game.rules.line_masks)


def _words(game: Game) -> int:
    """How many uint32 words a line set of the game takes."""
    return max(1, -(-len(game.rules.line_masks) // _WORD))


def _half_lines(game: Game, high: bool, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """X's and O's line sets in one half, for every half-board of a group (``a`` X, ``b`` O), in rank order.

    Each is ``(words, boards)`` uint32 (line ``i`` is bit ``i % 32`` of word ``i // 32``): the
    lines whose cells in this half all hold the player's stones (a line with no cell here
    counts). A board has a line of a player exactly where its two half-boards' sets share a bit.
    """
    index = layout(game)
    part = index.high if high else index.low
    group = part.group(a, b)
    found = []
    for stones in (part.x[group], part.o[group]):
        sets = np.zeros((_words(game), stones.size), dtype=np.uint32)
        for number, (_, line_low, line_high) in enumerate(_split_lines(game)):
            mask = line_high if high else line_low
            sets[number // _WORD] |= ((stones & mask) == mask).astype(np.uint32) << np.uint32(number % _WORD)
        found.append(sets)
    return found[0], found[1]


@lru_cache(maxsize=1024)
def _line_classes(game: Game, high: bool, a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The half-boards of a group sorted into classes by their X and O line sets (:func:`_half_lines`).

    Returns the class of each half-board (intp, in rank order), and X's and O's line sets of
    each class (``(words, classes)`` uint32). The rules see a board only through its two
    half-boards' classes: a group of 4x5k4's 4200 half-boards has 211 classes, 5x5k4's
    biggest (90,090) 3,921.
    """
    x_sets, o_sets = _half_lines(game, high, a, b)
    classes, of_board = np.unique(np.concatenate([x_sets, o_sets]).T, axis=0, return_inverse=True)
    words = x_sets.shape[0]
    return of_board.reshape(-1).astype(np.intp), np.ascontiguousarray(classes[:, :words].T), np.ascontiguousarray(classes[:, words:].T)


@cache
def _common_tables(game: Game) -> np.ndarray:
    """The AND of the cell masks of the lines in each byte of a line set: ``[word, byte, value]``, int32 (-1: no line)."""
    tables = np.full((_words(game), 4, 256), -1, dtype=np.int32)
    values = np.arange(256)
    for number, line in enumerate(game.rules.line_masks):
        word, bit = divmod(number, _WORD)
        tables[word, bit // 8, (values >> (bit % 8) & 1) == 1] &= line
    return tables


def _may_meet(rows: np.ndarray, cols: np.ndarray) -> bool:
    """Whether some row's line set and some column's share a bit (else the outer AND is all zero)."""
    return int(np.bitwise_or.reduce(rows)) & int(np.bitwise_or.reduce(cols)) != 0


RULES_FOLLOW = -1
"""In a chunk's rule scores: the board's score follows from its children (no rule decides it)."""


def _rule_scores(game: Game, chunk: Chunk, block: Block) -> np.ndarray:
    """What the rules say of every board of a chunk (int8, rows x cols): ``UNREACHABLE``, ``-WIN``
    (the last mover has a line), or :data:`RULES_FOLLOW`.

    The rules are applied once per pair of a high-half class and a low-half class present in
    the chunk (:func:`_line_classes`) and spread to the boards by a row gather (a copy per
    row) and a column gather; where classes do not save at least half the work, to every
    board directly.
    """
    r0, r1 = chunk.row_start, chunk.row_stop
    row_class, high_x, high_o = _line_classes(game, True, block.hx, block.ho)
    col_class, low_x, low_o = _line_classes(game, False, block.lx, block.lo)
    rows = row_class[r0:r1]
    shape = (r1 - r0, block.cols)
    present = np.zeros(high_x.shape[1], dtype=np.intp)
    present[rows] = 1
    used = np.flatnonzero(present)
    if 2 * used.size * low_x.shape[1] > shape[0] * shape[1]:
        return _apply_rules(game, chunk.ply, (high_x[:, rows], high_o[:, rows]), (low_x[:, col_class], low_o[:, col_class]))
    table = _apply_rules(game, chunk.ply, (high_x[:, used], high_o[:, used]), (low_x, low_o))
    present[used] = np.arange(used.size)  # now: a present class's row in the table
    spread = np.take(table, present[rows], axis=0, out=_scratch("spread", (shape[0], table.shape[1]), np.int8), mode="clip")
    return np.take(spread, col_class, axis=1, out=_scratch("rules", shape, np.int8), mode="clip")


def _apply_rules(game: Game, ply: int, rows: tuple[np.ndarray, np.ndarray], cols: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """The rules for every pair of a row's and a column's X and O line sets (``(words, n)`` each): int8, scratch.

    Exactly :func:`solver.encoding.board.rule_violation`'s rule: unreachable if the side to move has a
    line, or the last mover's lines share no cell; else ``-WIN`` if the last mover has a line.
    """
    x_moved_last = ply % 2 == 1
    mover, to_move = ((rows[0], cols[0]), (rows[1], cols[1])) if x_moved_last else ((rows[1], cols[1]), (rows[0], cols[0]))
    shape = (rows[0].shape[1], cols[0].shape[1])
    unreachable, won, flag = _scratch("unreachable", shape, bool), _scratch("won", shape, bool), _scratch("flag", shape, bool)
    unreachable.fill(False)
    won.fill(False)
    mover_sets: list[tuple[int, np.ndarray]] = []
    for word in range(_words(game)):
        high, low = to_move[0][word], to_move[1][word]
        if _may_meet(high, low):
            sets = np.bitwise_and(high[:, None], low[None, :], out=_scratch("sets", shape, np.uint32))
            unreachable |= np.not_equal(sets, 0, out=flag)
        high, low = mover[0][word], mover[1][word]
        if _may_meet(high, low):
            lines = np.bitwise_and(high[:, None], low[None, :], out=_scratch(f"lines{word}", shape, np.uint32))
            won |= np.not_equal(lines, 0, out=flag)
            mover_sets.append((word, lines))
    if mover_sets:
        _mark_unshared(game, mover_sets, won, unreachable)
    rules = _scratch("rule table", shape, np.int8)
    rules.fill(RULES_FOLLOW)
    _set_where(rules, won, game.rules.line_score)  # -WIN, or +WIN in misère play
    _set_where(rules, unreachable, UNREACHABLE)
    return rules


def _mark_unshared(game: Game, mover_sets: list[tuple[int, np.ndarray]], won: np.ndarray, unreachable: np.ndarray) -> None:
    """Mark unreachable the boards whose last mover has lines that share no cell (only boards with a line are looked at)."""
    at = np.flatnonzero(won)
    if len(mover_sets) == 1:  # one word: a single line always shares its cells
        word, lines = mover_sets[0]
        sets = lines.reshape(-1)[at]
        several = (sets & (sets - np.uint32(1))) != 0
        at, picked = at[several], [(word, sets[several])]
    else:
        picked = [(word, lines.reshape(-1)[at]) for word, lines in mover_sets]
    tables = _common_tables(game)
    common = np.full(at.size, -1, dtype=np.int32)
    for word, sets in picked:
        for byte in range(-(-min(_WORD, len(game.rules.line_masks) - word * _WORD) // 8)):
            common &= tables[word, byte][(sets >> np.uint32(8 * byte)) & np.uint32(255)]
    unreachable.reshape(-1)[at[common == 0]] = True


_arenas = threading.local()
"""Per thread (a Dask worker may run chunks in threads): reused working arrays, by slot name."""


def _scratch(slot: str, shape: tuple[int, int], dtype: type) -> np.ndarray:
    """A working array of this thread for one slot, reused from chunk to chunk (its contents are left over).

    Fresh temporaries of a few MiB cost a page fault per 4 KiB on every chunk: about a
    third of the kernel's time before (measured with ``getrusage``, system time).
    """
    arena: dict[str, np.ndarray] = _arenas.__dict__.setdefault("arena", {})
    size = shape[0] * shape[1] * np.dtype(dtype).itemsize
    if slot not in arena or arena[slot].size < size:
        arena[slot] = np.empty(size, dtype=np.uint8)
    return arena[slot][:size].view(dtype).reshape(shape)


def _set_where(scores: np.ndarray, flags: np.ndarray, value: int) -> None:
    """``scores[flags] = value`` without a boolean mask: ``scores ^= (scores ^ value) & -flags``."""
    mask = np.negative(flags.view(np.int8), out=_scratch("mask", scores.shape, np.int8))  # -1 where set, 0 elsewhere
    change = np.bitwise_xor(scores, np.int8(value), out=_scratch("change", scores.shape, np.int8))
    np.bitwise_and(change, mask, out=change)
    np.bitwise_xor(scores, change, out=scores)


def _child_block(index: Layout, ply: int, hx: int, ho: int) -> Block:
    block = index.block_of(ply, hx, ho)
    assert block is not None, f"layer {ply} has no block with {hx} X and {ho} O in the high half"
    return block


def solve_chunk(game: Game, chunk: Chunk, child_layer: np.ndarray | None) -> np.ndarray:
    """The scores of one chunk (int8, flat, in index order), from the next layer's scores.

    :param child_layer: layer ``chunk.ply + 1``'s int8 scores in layer-local index order
        (None for the full-board layer, which has no children).
    """
    index = layout(game)
    block = index.blocks[chunk.ply][chunk.block]
    shape = (chunk.row_stop - chunk.row_start, block.cols)
    rules = _rule_scores(game, chunk, block)
    if chunk.ply == game.cells:
        scores = np.zeros(shape, dtype=np.int8)
    else:
        assert child_layer is not None
        smallest = _smallest_child(index, chunk, block, child_layer, shape)
        scores = np.sign(smallest)  # int8: -128 -> 127 and 127 -> -126 only where a rule decides below
        np.subtract(scores, smallest, out=scores)
    # where a rule decides: (score | -1) & rule = rule; elsewhere (score | 0) & -1 = score
    decided = np.not_equal(rules, RULES_FOLLOW, out=_scratch("flag", shape, bool))
    np.bitwise_or(scores, np.negative(decided.view(np.int8), out=_scratch("mask", shape, np.int8)), out=scores)
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


def _smallest_child(index: Layout, chunk: Chunk, block: Block, child_layer: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The smallest child score of every board of a chunk (int8, rows x cols): a gather and a minimum per empty cell.

    A move in the high half takes whole rows of the child block (a copy per row); one in
    the low half takes columns (a lookup per board, about 0.6 ns). With many empty low
    cells, the child panel is transposed once so that those become row copies too, and
    their minimum is merged back through a transposed view (about 2 ns a board in all).
    """
    r0, r1 = chunk.row_start, chunk.row_stop
    x_to_move = chunk.ply % 2 == 0
    piece = 1 if x_to_move else 2
    gathers: list[tuple[np.ndarray, np.ndarray, int]] = []
    low_moves = _move_targets(index.low_cells, block.lx, block.lo, piece)
    transposed = None
    if low_moves.size:  # a move in the low half: same row, another column
        lx, lo = (block.lx + 1, block.lo) if x_to_move else (block.lx, block.lo + 1)
        child = _child_block(index, chunk.ply + 1, block.hx, block.ho)
        assert child.rows == block.rows and child.cols == _cols(index, lx, lo)
        panel = child_layer[child.start : child.stop].reshape(child.rows, child.cols)[r0:r1]
        if low_moves.shape[0] >= TRANSPOSE_FROM:
            panel_t = _scratch("panel_t", (child.cols, r1 - r0), np.int8)
            np.copyto(panel_t, panel.T)
            transposed = _min_of_gathers([(panel_t, columns, 0) for columns in low_moves], (shape[1], shape[0]), "low_t")
        else:
            gathers += [(panel, columns, 1) for columns in low_moves]
    high_moves = _move_targets(index.high_cells, block.hx, block.ho, piece)
    if high_moves.size:  # a move in the high half: same column, another row
        hx, ho = (block.hx + 1, block.ho) if x_to_move else (block.hx, block.ho + 1)
        child = _child_block(index, chunk.ply + 1, hx, ho)
        assert child.cols == block.cols
        rows_of_child = child_layer[child.start : child.stop].reshape(child.rows, child.cols)
        gathers += [(rows_of_child, rows[r0:r1], 0) for rows in high_moves]
    if not gathers:
        assert transposed is not None
        smallest = _scratch("smallest", shape, np.int8)
        np.copyto(smallest, transposed.T)
        return smallest
    smallest = _min_of_gathers(gathers, shape, "smallest")
    if transposed is not None:
        np.minimum(smallest, transposed.T, out=smallest)
    return smallest


def _min_of_gathers(gathers: list[tuple[np.ndarray, np.ndarray, int]], shape: tuple[int, int], slot: str) -> np.ndarray:
    """The elementwise minimum of ``np.take(source, at, axis)`` over the gathers (int8, scratch ``slot``)."""
    smallest, scratch = _scratch(slot, shape, np.int8), _scratch(f"{slot} gathered", shape, np.int8)
    for number, (source, at, axis) in enumerate(gathers):
        # mode="clip": no bounds check per index (they are ranks of real children) and no buffered copy of `out`
        np.take(source, at, axis=axis, out=scratch if number else smallest, mode="clip")
        if number:
            np.minimum(smallest, scratch, out=smallest)
    return smallest


def _cols(index: Layout, lx: int, lo: int) -> int:
    return int(index.low.codes[index.low.group(lx, lo)].size)


# -- the build directory -----------------------------------------------------------
MAX_MANIFEST_BYTES = 1 << 20
"""A manifest larger than this is no build's (a real one holds at most 26 short entries and their retired files)."""
_LAYER_KEY = re.compile(r"[0-9]{1,2}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_RETIRED_FILE = re.compile(r"layer-[0-9]{2}\.[a-z]{1,12}")


@dataclass(frozen=True)
class BuildDir:
    """A build directory: finished layers, their checksums, and the layer being solved.

    The directory is the builder's alone (:func:`solver.storage.fsutil.private_directory`:
    0700, owned by this user); every file in it is opened through :meth:`open`
    (``O_NOFOLLOW``, regular files of this user only), so a link planted in it is
    refused, never followed.
    """

    path: Path
    game: Game

    def layer_path(self, ply: int) -> Path:
        """The finished file of layer ``ply``."""
        return self.path / f"layer-{ply:02d}.i8"

    def partial_path(self, ply: int) -> Path:
        """The file of layer ``ply`` while it is being solved."""
        return self.path / f"layer-{ply:02d}.i8.partial"

    def journal_path(self, ply: int) -> Path:
        """The journal of layer ``ply`` while it is being solved: one ``start crc32`` line per finished chunk."""
        return self.path / f"layer-{ply:02d}.journal"

    def prepare(self) -> None:
        """Create the directory (0700), or check that an existing one is this user's alone and holds only regular files.

        :raises TableError: naming what was found (another owner, a link, a FIFO...).
        """
        private_directory(self.path)
        remove_dead_temporaries(self.path)  # a manifest's temporary file left by a killed build

    def open(self, path: Path, flags: int) -> int:
        """A descriptor of the file ``path`` of this directory (:func:`solver.storage.fsutil.open_private`: no link followed)."""
        return open_private(self.path, path.name, flags)

    def create(self, path: Path, flags: int = os.O_RDWR) -> int:
        """A new, empty file ``path`` in this directory (``O_EXCL``; a stale regular file is replaced, a link refused)."""
        return create_private(self.path, path.name, flags)

    def map(self, path: Path, size: int, *, writable: bool = False) -> np.ndarray:
        """The ``size`` int8 scores of the file ``path``, memory-mapped from a descriptor opened by :meth:`open`."""
        if size == 0:
            return np.zeros(0, dtype=np.int8)
        fd = self.open(path, os.O_RDWR if writable else os.O_RDONLY)
        with os.fdopen(fd, "r+b" if writable else "rb") as handle:
            found = os.fstat(fd).st_size
            if found < size:
                raise BuildError(f"{path}: {found:,} bytes, expected {size:,}; delete the build directory {self.path} to start again")
            return np.memmap(handle, dtype=np.int8, mode="r+" if writable else "r", shape=(size,))

    def manifest(self) -> dict[str, Any]:
        """The manifest (an empty one for a new directory).

        :raises BuildError: if it is not a build manifest, or belongs to another game or index scheme.
        """
        path = self.path / MANIFEST
        try:
            fd = self.open(path, os.O_RDONLY)
        except FileNotFoundError:
            return {"game": self.game.name, "scheme": SCHEME, "scheme_version": SCHEME_VERSION, "layers": {}}
        with os.fdopen(fd, "rb") as handle:
            raw = handle.read(MAX_MANIFEST_BYTES + 1)
        return _parse_manifest(path, raw, self.game)

    def finished(self, *, check: bool = True) -> dict[int, str]:
        """The finished layers and their SHA-256, after checking each file's size (and hash, with ``check``).

        A layer is finished when its raw file is there, or when it was retired (:meth:`retire`)
        and every file it was retired into is there (with ``check``, with its recorded
        SHA-256). A layer whose files are missing or wrong is dropped, with every layer above
        it kept only if contiguous from the full board down.
        """
        sizes = layout(self.game).layer_sizes
        manifest = self.manifest()
        recorded = {int(ply): entry["sha256"] for ply, entry in manifest["layers"].items()}
        retired = {int(ply): entry for ply, entry in manifest.get("retired", {}).items()}
        good: dict[int, str] = {}
        for ply in range(self.game.cells, -1, -1):
            if ply not in recorded:
                break
            if ply in retired:
                if not all(self._holds(name, digest, check) for name, digest in retired[ply]["files"].items()):
                    break
            elif not self._holds(self.layer_path(ply).name, recorded[ply], check, sizes[ply]):
                break
            good[ply] = recorded[ply]
        return good

    def _holds(self, name: str, digest: str, check: bool, size: int | None = None) -> bool:
        """Whether the file ``name`` of this directory is there (of ``size`` bytes) and, with ``check``, hashes to ``digest``."""
        try:
            fd = self.open(self.path / name, os.O_RDONLY)
        except FileNotFoundError:
            return False
        with os.fdopen(fd, "rb") as handle:
            if size is not None and os.fstat(fd).st_size != size:
                return False
            return not check or hashlib.file_digest(handle, "sha256").hexdigest() == digest

    def record(self, ply: int, digest: str) -> None:
        """Add a finished layer to the manifest (atomically)."""
        data = self.manifest()
        data["layers"][str(ply)] = {"size": layout(self.game).layer_sizes[ply], "sha256": digest}
        write_atomic(self.path / MANIFEST, json.dumps(data, sort_keys=True, indent=1).encode())

    def retired(self) -> dict[int, dict[str, Any]]:
        """The retired layers: for each, ``files`` (name: SHA-256) and the caller's ``info``."""
        return {int(ply): entry for ply, entry in self.manifest().get("retired", {}).items()}

    def retire(self, ply: int, files: dict[str, str], info: dict[str, Any]) -> None:
        """Record that finished layer ``ply`` now lives in ``files`` of this directory (name: SHA-256), then delete its raw file.

        What the files hold is the caller's business (a table's compressed blocks); the
        layer stays finished for :meth:`finished` as long as they are there and match.

        :param info: a small JSON object recorded with the files (at most a few KiB).
        """
        for name in files:
            if not _RETIRED_FILE.fullmatch(name):
                raise ValueError(f"a retired layer's file is named layer-PP.<suffix>, found {name!r}")
        data = self.manifest()
        data.setdefault("retired", {})[str(ply)] = {"files": dict(files), "info": info}
        write_atomic(self.path / MANIFEST, json.dumps(data, sort_keys=True, indent=1).encode())
        self.layer_path(ply).unlink(missing_ok=True)

    def raw_layers(self) -> list[int]:
        """The finished layers whose raw file is still here, not retired (full board first)."""
        retired = self.retired()
        return [ply for ply in self.finished(check=False) if ply not in retired]

    def layers(self) -> list[np.ndarray]:
        """Every finished layer as a read-only memory map, layer 0 first (for the table file)."""
        return [self.map(self.layer_path(ply), layout(self.game).layer_sizes[ply]) for ply in range(self.game.cells + 1)]


def _plain(value: object) -> str:
    """A short name or number as it is, anything else quoted and cut short (:func:`solver.errors.quote`)."""
    text = str(value)
    return text if isinstance(value, (str, int)) and len(text) <= 40 and text.isprintable() else quote(value)


def _parse_manifest(path: Path, raw: bytes, game: Game) -> dict[str, Any]:
    """The manifest's JSON, every field checked.

    :raises BuildError: naming the file, what is wrong and the way out (delete the build directory).
    """

    def bad(problem: str) -> BuildError:
        return BuildError(f"{path}: {problem}; delete the build directory {path.parent} to start again")

    if len(raw) > MAX_MANIFEST_BYTES:
        raise bad(f"larger than {MAX_MANIFEST_BYTES:,} bytes, not a build manifest")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as error:
        raise bad(f"unreadable ({type(error).__name__}: {str(error)[:80]})") from None
    if not isinstance(data, dict):
        raise bad(f"holds a JSON {type(data).__name__}, expected an object")
    found = (data.get("game"), data.get("scheme"), data.get("scheme_version"))
    if found != (game.name, SCHEME, SCHEME_VERSION):
        raise BuildError(
            f"{path.parent} holds a build of {_plain(found[0])} ({_plain(found[1])} v{_plain(found[2])}), "
            f"expected {game.name} ({SCHEME} v{SCHEME_VERSION}); use another directory"
        )
    layers = data.get("layers")
    if not isinstance(layers, dict):
        raise bad(f'"layers" is {quote(layers)}, expected an object of finished layers')
    sizes = layout(game).layer_sizes
    for key, entry in layers.items():
        ply = int(key) if _LAYER_KEY.fullmatch(key) else None
        if ply is None or ply > game.cells:
            raise bad(f"names layer {quote(key)}, expected a number from 0 to {game.cells}")
        if not isinstance(entry, dict) or entry.get("size") != sizes[ply] or not _SHA256.fullmatch(str(entry.get("sha256"))):
            raise bad(f"layer {ply} is recorded as {quote(entry)}, expected its size {sizes[ply]} and a SHA-256")
    _check_retired(data.get("retired", {}), layers, bad)
    return data


def _check_retired(retired: Any, layers: dict[str, Any], bad: Callable[[str], BuildError]) -> None:
    """Every retired layer is a finished one, with files named ``layer-PP.<suffix>`` and a SHA-256 each."""
    if not isinstance(retired, dict):
        raise bad(f'"retired" is {quote(retired)}, expected an object of retired layers')
    for key, entry in retired.items():
        if key not in layers:
            raise bad(f"retires layer {quote(key)}, which is not a finished layer")
        files = entry.get("files") if isinstance(entry, dict) else None
        if (
            not isinstance(files, dict)
            or not isinstance(entry.get("info"), dict)
            or not all(isinstance(name, str) and _RETIRED_FILE.fullmatch(name) and _SHA256.fullmatch(str(digest)) for name, digest in files.items())
        ):
            raise bad(f"retired layer {key} is recorded as {quote(entry)}, expected its files (layer-PP.<suffix>: SHA-256) and info")


# -- workers -----------------------------------------------------------------------
PARENT_POLL_SECONDS = 1.0
"""How often a pool worker checks that the build's process still lives (where the parent-death signal is missing)."""
_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """Initializer of a build's pool workers: end the worker when the process that started it dies.

    A build killed with SIGKILL (the out-of-memory killer) cannot stop its workers, and
    a worker orphaned that way waits for work for ever, holding the build's standard
    output (``solve build | grep`` never ends). On Linux the parent-death signal
    (``prctl(PR_SET_PDEATHSIG, SIGKILL)``) kills the worker at once; everywhere, a
    thread also checks every :data:`PARENT_POLL_SECONDS` that the parent is still
    ``parent`` and ends the worker if not.
    """
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # no prctl: the thread below does the job within a second
    if os.getppid() != parent:
        os._exit(1)  # the parent died before the signal was asked for
    threading.Thread(target=_watch_parent, args=(parent,), name="watch-parent", daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)


def run_chunks(directory: str, game_name: str, ply: int, todo: Sequence[Chunk], *, flush: bool = False) -> list[ChunkResult]:
    """Solve chunks of layer ``ply`` of the build in ``directory`` and spool them into its partial file.

    Runs in a worker (a local process or a Dask worker), so the game travels by its
    name (the task's arguments are sent to the worker): it memory-maps layer
    ``ply + 1`` read-only and opens the partial file of layer ``ply`` (both without
    following links, :meth:`BuildDir.open`), and writes each chunk compressed at the
    chunk's own offset (:func:`spool_bytes`). Returns, per chunk, its first index, its
    boards, the CRC-32 of its scores and how many bytes it takes in the partial file
    (for the layer's journal).

    :param flush: write the chunks to the file before returning (for a shared file
        system seen by other machines; on one machine the page cache is shared).
    """
    game = parse_game(game_name)
    build = BuildDir(Path(directory), game)
    sizes = layout(game).layer_sizes
    # opened per task, not kept: a map kept by a worker would hold the child's disk after it retires
    child = None if ply == game.cells else build.map(build.layer_path(ply + 1), sizes[ply + 1])
    fd = build.open(build.partial_path(ply), os.O_WRONLY)
    done = []
    try:
        for chunk in todo:
            scores = solve_chunk(game, chunk, child)
            data = spool_bytes(scores)
            os.pwrite(fd, data, chunk.start)
            done.append((chunk.start, chunk.boards, zlib.crc32(scores.data), len(data)))
        if flush:
            os.fsync(fd)
    finally:
        os.close(fd)
    return done


SPOOL_LEVEL = 1
"""The compression level of the layer being solved: the fastest (it is read once, when the layer is finished)."""


def spool_bytes(scores: np.ndarray) -> bytes:
    """A chunk's scores as they are spooled: compressed (the default codec of :mod:`solver.storage.blockarray`, at
    :data:`SPOOL_LEVEL`) when that is shorter, else raw; so they always fit in the chunk's own bytes."""
    packed = spool_codec().compress(scores.data, SPOOL_LEVEL)
    return packed if len(packed) < scores.size else scores.tobytes()


def unspool(data: bytes, boards: int) -> bytes | None:
    """The scores of a spooled chunk of ``boards`` boards (:func:`spool_bytes`), or None if they cannot be decoded."""
    if len(data) == boards:
        return data
    try:
        return spool_codec().decompress(data, boards)
    except ValueError:
        return None


@cache
def spool_codec() -> Codec:
    """The codec of the spooled chunks (zstd where installed, else zlib)."""
    return codec_of(default_codec())


# -- the sweep -----------------------------------------------------------------------
@dataclass(frozen=True)
class BuildPlan:
    """What a build will do: the layers left and the resources it needs (bytes)."""

    game: Game
    todo: tuple[int, ...]
    """Layers to solve, in order (the full board first)."""
    resumed_below: int | None
    """The lowest finished layer found in the directory, if any."""
    work: int
    """Work units of the layers left (see :class:`ChunkDone`)."""
    disk_bytes: int
    """Disk still to be written at the peak: the layers left (or, retiring, see :func:`plan_build`)."""
    memory_bytes: int
    """Peak memory the build needs for itself: every worker's chunk and index tables (:func:`worker_bytes`).

    The layers are read and written through memory maps: file pages that the kernel
    keeps while memory is free and drops when not, so they are not counted (a build
    whose two largest layers fit in memory runs faster; 5x5k4's do not: 49 GiB)."""


RETIRED_AT_MOST = 16
"""A retired layer's files take at most ``1 / 16`` of its raw bytes (a table's compressed blocks: measured 24x to 337x)."""
SPOOLED_AT_MOST = 4
"""A spooled layer (:func:`spool_bytes`) takes at most ``1 / 4`` of its raw bytes (measured: see docs/performance.md)."""


def _retiring_peak(sizes: Sequence[int], ply: int, *, resumed: bool) -> int:
    """Disk at the peak of layer ``ply`` in a retiring build: the most of (while it is solved) its raw child,
    its spool and the retired layers above, and (while it is finished) its raw bytes, its spool and the
    retired layers from its child up; a resumed layer is finished before its child retires (both raw)."""
    spool, above = sizes[ply] // SPOOLED_AT_MOST, sum(sizes[ply + 2 :]) // RETIRED_AT_MOST
    child = sizes[ply + 1] if ply + 1 < len(sizes) else 0
    if resumed:
        return child + sizes[ply] + spool + above
    return max(child + spool, sizes[ply] + spool + child // RETIRED_AT_MOST) + above


def plan_build(game: Game, directory: str | os.PathLike[str], *, jobs: int = 1, check: bool = True, retiring: bool = False) -> BuildPlan:
    """The :class:`BuildPlan` of a build directory (finished layers are checked by size and hash).

    :param retiring: the build retires each finished layer once nothing reads it raw (a
        ``release`` hook of :func:`sweep`): the disk needed is then about the largest raw
        layer left, its spool and the retired files, not every layer (:func:`_retiring_peak`).
    """
    build = BuildDir(Path(directory), game)
    done = build.finished(check=check) if build.path.is_dir() else {}
    todo = tuple(p for p in range(game.cells, -1, -1) if p not in done)
    sizes = layout(game).layer_sizes

    disk = sum(sizes[p] for p in todo)
    if retiring:
        disk = max(max((_retiring_peak(sizes, p, resumed=p == todo[0] and bool(done)) for p in todo), default=0), 2 * sum(sizes) // RETIRED_AT_MOST)
    return BuildPlan(game, todo, min(done) if done else None, sum(layer_work(game, p) for p in todo), disk, jobs * worker_bytes(game))


TABLE_BYTES_PER_HIGH_BOARD = 1024
"""A worker's index and move tables per half-board of the high half (all ``3 ** high cells``): measured
1.77 GB at the peak of a 5x5k4 worker (13 high cells, 1.6 M half-boards), with its chunk."""


def worker_bytes(game: Game) -> int:
    """Peak memory of one build worker: its chunk's working arrays and the game's index and move tables."""
    return CHUNK_BOARDS * WORKING_BYTES_PER_BOARD + TABLE_BYTES_PER_HIGH_BOARD * int(3 ** (game.cells - game.cells // 2))


def check_resources(plan: BuildPlan, directory: Path, *, extra_disk: int = 0, check_memory: bool = True) -> None:
    """Refuse a build that cannot fit, with the figures.

    :param extra_disk: more bytes the caller will write afterwards (the table file).
    :param check_memory: compare the memory needed with this machine's (not for a cluster's client).
    :raises BuildError: if the free disk or the available memory is too small.
    """
    free = shutil.disk_usage(directory).free
    present = _allocated(directory)  # a resumed build's files count towards its peak already
    need = max(0, plan.disk_bytes + extra_disk - present)
    if need > free:
        raise BuildError(
            f"building {plan.game.name} needs {need / 2**30:.2f} GiB of disk in {directory} beyond what it holds "
            f"({plan.disk_bytes / 2**30:.2f} GiB of layers + {extra_disk / 2**30:.2f} GiB for the table file, "
            f"{present / 2**30:.2f} GiB there already), "
            f"but only {free / 2**30:.2f} GiB is free"
        )
    available = _available_memory() if check_memory else None
    if available is not None and plan.memory_bytes > available:
        raise BuildError(
            f"building {plan.game.name} needs about {plan.memory_bytes / 2**30:.2f} GiB of memory "
            f"({worker_bytes(plan.game) / 2**30:.2f} GiB for each worker's chunk and tables), "
            f"but only {available / 2**30:.2f} GiB is available; use fewer --jobs or a bigger machine"
        )


def _allocated(directory: Path) -> int:
    """Bytes the files of a build directory hold on disk (a partial layer only what was written)."""
    try:
        return sum(entry.stat(follow_symlinks=False).st_blocks * 512 for entry in os.scandir(directory) if entry.is_file(follow_symlinks=False))
    except OSError:
        return 0


def _available_memory() -> int | None:
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


@dataclass(frozen=True)
class BuildResult:
    """A finished build directory and what the run did."""

    game: Game
    path: Path
    resumed_below: int | None
    """The lowest layer already finished when this run started (None: a fresh build)."""
    solved: tuple[int, ...]
    """The layers this run solved."""
    sha256: dict[int, str] = field(repr=False)
    """Every layer's SHA-256."""
    resumed: tuple[int, ...] = ()
    """The layers holding bytes from an earlier run: those finished before, and a layer
    whose journaled chunks were kept (what a consistency check of a resumed build covers)."""

    def layer_path(self, ply: int) -> Path:
        """The file of layer ``ply``."""
        return BuildDir(self.path, self.game).layer_path(ply)

    def layers(self) -> list[np.ndarray]:
        """Every layer as a read-only memory map, layer 0 first."""
        return BuildDir(self.path, self.game).layers()


Dispatch = Callable[[int, list[list[Chunk]]], Iterator[list[ChunkResult]]]
"""Runs the chunk groups of a layer (somewhere) and yields each group's results as they finish."""

Mapper = Callable[[Callable[[Any], Any], Iterable[Any]], Iterator[Any]]
"""Runs a module-level function over items on the build's workers and yields the results in order (like :func:`map`)."""

Release = Callable[[BuildDir, int, Mapper, Sequence[int]], None]
"""Called as ``release(build, below, mapper, resumed)`` when no finished layer above ``below`` will be read
raw again (after each layer, and at the start of a resumed build; ``below = -1`` at the end): it may
:meth:`BuildDir.retire` them, using ``mapper`` to spread its work over the build's workers.
``resumed`` lists the layers so far that hold bytes of an earlier run (:attr:`BuildResult.resumed`)."""


def sweep(
    game: Game,
    directory: str | os.PathLike[str],
    dispatch: Dispatch,
    *,
    jobs: int,
    progress: Progress | None = None,
    notify: Callable[[str], None] | None = None,
    extra_disk: int = 0,
    check_memory: bool = True,
    release: Release | None = None,
    mapper: Mapper = map,
) -> BuildResult:
    """The layer sweep shared by the local and the cluster builds (see the module docstring).

    :param dispatch: runs a layer's chunk groups and yields each group's :data:`ChunkResult` list.
    :param jobs: how many workers run chunks (for the memory estimate and the batching).
    :param release: retires the finished layers nothing reads raw any more (:data:`Release`).
    :param mapper: given to ``release``: runs its work on the build's workers.
    :raises TableError: if the directory is not this user's alone, or a file in it is a link
        or not a regular file (nothing outside the directory is ever written).
    """
    path = Path(directory)
    build = BuildDir(path, game)
    build.prepare()
    plan = plan_build(game, path, jobs=jobs, retiring=release is not None)
    check_resources(plan, path, extra_disk=extra_disk, check_memory=check_memory)
    if notify is not None and plan.resumed_below is not None:
        left = f"solving layers {plan.todo[0]} to 0" if plan.todo else "nothing left to solve"
        notify(f"resuming the {game.name} build in {path}: layers {game.cells} to {plan.resumed_below} are done, {left}")
    resumed = [ply for ply in range(game.cells, -1, -1) if ply not in plan.todo]
    for ply in resumed:
        _drop_spool(build, ply)  # a build killed between recording a layer and deleting its spool
    if release is not None and plan.resumed_below is not None:
        release(build, plan.resumed_below, mapper, resumed)  # a build killed while it retired a layer
    for ply in plan.todo:
        kept = _solve_layer(build, ply, dispatch, jobs=jobs, progress=progress, notify=notify)
        if kept:
            resumed.append(ply)
        # a layer holding an earlier run's chunks is finished while its raw child is still there to check it against
        early = release is None or kept
        if early:
            finish_layer(build, ply)
        if release is not None:
            release(build, ply, mapper, resumed)
            if not early:
                finish_layer(build, ply)
    if release is not None:
        release(build, -1, mapper, resumed)
    return BuildResult(game, path, plan.resumed_below, plan.todo, build.finished(check=False), tuple(resumed))


def _solve_layer(build: BuildDir, ply: int, dispatch: Dispatch, *, jobs: int, progress: Progress | None, notify: Callable[[str], None] | None) -> bool:
    """Solve layer ``ply`` into its partial file, chunk by chunk, resuming its journaled chunks. Returns whether
    chunks of an earlier run were kept. The layer is finished (made raw) by :func:`finish_layer`.

    :raises BuildError: if chunks are left to solve but the layer above, which they read, is retired.
    """
    layer_chunks = chunks(build.game, ply)
    fd, finished = _open_partial(build, ply, layer_chunks, notify)
    try:
        todo = [chunk for chunk in layer_chunks if chunk.start not in finished]
        if todo and ply < build.game.cells and ply + 1 in build.retired():
            raise BuildError(
                f"layer {ply} of the {build.game.name} build in {build.path} is missing or damaged, and cannot be solved again: "
                f"layer {ply + 1}, which it reads, is retired (its raw scores are gone); delete {build.path} and build again"
            )
        if progress is not None:
            for chunk in layer_chunks:
                if chunk.start in finished:
                    progress(ChunkDone(ply, chunk.boards, chunk.boards + CHUNK_COST))
        with os.fdopen(build.open(build.journal_path(ply), os.O_WRONLY | os.O_APPEND), "ab") as log:
            for done in dispatch(ply, _groups(todo, jobs)):
                # after the worker wrote them: a killed build keeps these chunks (their CRC is checked on resume)
                log.write("".join(f"{start} {crc} {stored}\n" for start, _, crc, stored in done).encode())
                log.flush()
                if progress is not None:
                    for _, boards, _, _ in done:
                        progress(ChunkDone(ply, boards, boards + CHUNK_COST))
        os.fsync(fd)
    finally:
        os.close(fd)
    return bool(finished)


def finish_layer(build: BuildDir, ply: int) -> None:
    """Make the solved layer ``ply`` raw: its spooled chunks decoded in order into ``layer-PP.i8`` (each checked
    against its journaled CRC-32), hashed, recorded in the manifest; then its partial file and journal go.

    A build killed here resumes here: the partial file and the journal are kept until the layer is recorded.

    :raises BuildError: if a chunk cannot be read back (the partial file was damaged after it was journaled).
    """
    layer_chunks = chunks(build.game, ply)
    spool = build.open(build.partial_path(ply), os.O_RDONLY)
    try:
        stored = _journal(build, ply, layer_chunks)[0]
        digest = hashlib.sha256()
        expanding = build.path / f"{build.layer_path(ply).name}.expanding"
        with os.fdopen(build.create(expanding, os.O_WRONLY), "wb") as out:
            for chunk in layer_chunks:
                crc, length = stored.get(chunk.start, (None, 0))
                scores = unspool(os.pread(spool, length, chunk.start), chunk.boards) if crc is not None else None
                if scores is None or zlib.crc32(scores) != crc:
                    raise BuildError(
                        f"{build.partial_path(ply)}: the chunk at {chunk.start:,} does not read back as it was written; "
                        f"delete the build directory {build.path} and build again"
                    )
                digest.update(scores)
                out.write(scores)
            out.flush()
            os.fsync(out.fileno())
        os.replace(expanding, build.layer_path(ply))
    finally:
        os.close(spool)
    build.record(ply, digest.hexdigest())
    _drop_spool(build, ply)


def _drop_spool(build: BuildDir, ply: int) -> None:
    for path in (build.partial_path(ply), build.journal_path(ply)):
        path.unlink(missing_ok=True)


def _open_partial(build: BuildDir, ply: int, layer_chunks: list[Chunk], notify: Callable[[str], None] | None) -> tuple[int, set[int]]:
    """The partial file of layer ``ply`` (a descriptor) and the chunks an earlier run finished in it.

    With none, the partial file and the journal are created afresh (``O_EXCL``), the
    partial file at the layer's size: a sparse file in which every chunk is spooled at
    its own offset (:func:`spool_bytes`), so only the compressed chunks take disk.
    """
    size = layout(build.game).layer_sizes[ply]
    fd, finished, skipped = _journaled_chunks(build, ply, size, layer_chunks)
    if fd is not None and finished:
        if notify is not None:
            unread = f"; {count(skipped, 'unreadable journal line')} {'was' if skipped == 1 else 'were'} skipped" if skipped else ""
            were = "was" if len(finished) == 1 else "were"
            notify(f"layer {ply}: {len(finished)} of its {len(layer_chunks)} chunks {were} finished before (checked by their CRC-32){unread}")
        return fd, finished
    if fd is not None:
        os.close(fd)
    fd = build.create(build.partial_path(ply))
    try:
        os.ftruncate(fd, size)
        os.close(build.create(build.journal_path(ply), os.O_WRONLY))
    except BaseException:
        os.close(fd)
        raise
    return fd, set()


_JOURNAL_LINE = re.compile(rb"([0-9]{1,15}) ([0-9]{1,10}) ([0-9]{1,15})")
"""A journal line: a chunk's first index in its layer, the CRC-32 of its scores and its spooled bytes, in decimal ASCII."""
JOURNAL_BYTES_PER_CHUNK = 64
"""Journal bytes read per chunk of the layer (a line takes at most 43), beyond :data:`JOURNAL_SLACK_BYTES`."""
JOURNAL_SLACK_BYTES = 1 << 20
"""Journal bytes read beyond the chunks' share: room for lines repeated by several resumed runs, or damage."""


def _journal(build: BuildDir, ply: int, layer_chunks: list[Chunk]) -> tuple[dict[int, tuple[int, int]], int]:
    """The journal of layer ``ply``: per chunk (by first index) the CRC-32 of its scores and its spooled bytes,
    and how many lines could not be read.

    A journal is read up to :data:`JOURNAL_BYTES_PER_CHUNK` bytes per chunk plus
    :data:`JOURNAL_SLACK_BYTES` (what lies beyond is solved again); a line that is not
    three decimal numbers (a torn last line, random bytes), or names no chunk, or more
    bytes than the chunk's, is skipped, and its chunk solved again.
    """
    with os.fdopen(build.open(build.journal_path(ply), os.O_RDONLY), "rb") as handle:
        lines = handle.read(JOURNAL_BYTES_PER_CHUNK * len(layer_chunks) + JOURNAL_SLACK_BYTES).split(b"\n")
    bounds = {chunk.start: chunk.boards for chunk in layer_chunks}
    recorded = {}
    skipped = 0
    for number, line in enumerate(lines):
        match = _JOURNAL_LINE.fullmatch(line)
        if match and bounds.get(int(match[1]), -1) >= int(match[3]) > 0:
            recorded[int(match[1])] = (int(match[2]), int(match[3]))
        elif line and number < len(lines) - 1:  # the last line: torn by a kill
            skipped += 1
    return recorded, skipped


def _journaled_chunks(build: BuildDir, ply: int, size: int, layer_chunks: list[Chunk]) -> tuple[int | None, set[int], int]:
    """The partial file of a layer a killed build left (a descriptor, or None), the chunks (by first index)
    in its journal whose spooled bytes still decode to the CRC-32 recorded, and how many journal lines could
    not be read (:func:`_journal`)."""
    try:
        fd = build.open(build.partial_path(ply), os.O_RDWR)
    except FileNotFoundError:
        return None, set(), 0
    try:
        if os.fstat(fd).st_size != size:
            return fd, set(), 0
        recorded, skipped = _journal(build, ply, layer_chunks)
    except FileNotFoundError:
        return fd, set(), 0
    except BaseException:
        os.close(fd)
        raise
    bounds = {chunk.start: chunk.boards for chunk in layer_chunks}
    good = set()
    for start, (crc, length) in recorded.items():
        scores = unspool(os.pread(fd, length, start), bounds[start])
        if scores is not None and zlib.crc32(scores) == crc:
            good.add(start)
    return fd, good, skipped


def _groups(todo: list[Chunk], jobs: int) -> list[list[Chunk]]:
    """Chunks batched so each worker gets several tasks (load balance) but few tiny ones."""
    per_task = max(1, len(todo) // (8 * jobs))
    return [todo[i : i + per_task] for i in range(0, len(todo), per_task)]


def build_layers(
    game: Game,
    directory: str | os.PathLike[str],
    *,
    jobs: int | None = None,
    progress: Progress | None = None,
    notify: Callable[[str], None] | None = None,
    extra_disk: int = 0,
    release: Release | None = None,
) -> BuildResult:
    """Solve a game into a build directory with ``jobs`` local worker processes; resume if it is half done.

    :param jobs: worker processes (default: every core; 1 solves in this process).
    :param progress: called after every chunk (:class:`ChunkDone`).
    :param notify: called with a line of text when the build resumes (what was found).
    :param extra_disk: bytes the caller will write after the build (the table file), counted in the disk check.
    :param release: retires finished layers once nothing reads them raw (:data:`Release`; run with the pool's workers).
    :raises BuildError: if the disk or the memory is too small (checked before anything is written).
    """
    jobs = jobs or os.cpu_count() or 1
    options: dict[str, Any] = {"progress": progress, "notify": notify, "extra_disk": extra_disk, "release": release}
    if jobs == 1:
        return sweep(game, directory, _in_process(game, Path(directory)), jobs=1, **options)
    # fork: workers inherit the index tables and need no `if __name__ == "__main__"` guard in the caller.
    method = "fork" if "fork" in get_all_start_methods() else "spawn"
    with ProcessPoolExecutor(jobs, mp_context=get_context(method), initializer=die_with_parent, initargs=(os.getpid(),)) as pool:
        dispatch = _on_executor(pool, game, Path(directory))
        return sweep(game, directory, dispatch, jobs=jobs, mapper=pool.map, **options)


def _in_process(game: Game, path: Path) -> Dispatch:
    def dispatch(ply: int, groups: list[list[Chunk]]) -> Iterator[list[ChunkResult]]:
        for group in groups:
            yield run_chunks(str(path), game.name, ply, group)

    return dispatch


def _on_executor(pool: Executor, game: Game, path: Path) -> Dispatch:
    def dispatch(ply: int, groups: list[list[Chunk]]) -> Iterator[list[ChunkResult]]:
        from concurrent.futures import as_completed

        futures = [pool.submit(run_chunks, str(path), game.name, ply, group) for group in groups]
        for future in as_completed(futures):
            yield future.result()

    return dispatch


def iter_layers(result: BuildResult) -> Iterable[np.ndarray]:
    """The layers of a finished build, layer 0 first, as read-only memory maps."""
    return result.layers()


def check_layers(game: Game, layers: Sequence[np.ndarray], *, limit: int = 5, plies: Iterable[int] | None = None) -> list[str]:
    """Parent/child consistency of a whole table, layer by layer (vectorised).

    Every board's stored score is recomputed from the *stored* scores of its
    children (and the reachability rule) and compared. Together with the full
    layer (which has no children) this proves the table by induction, without a
    second table in memory.

    :param layers: every layer's int8 scores, layer 0 first.
    :param plies: check only these layers, each against its stored children (default: every layer).
    :returns: up to ``limit`` problems, each naming the board (empty when consistent).
    """
    index = layout(game)
    problems: list[str] = []
    if [len(layer) for layer in layers] != list(index.layer_sizes):
        return [f"layer sizes {[len(layer) for layer in layers]} do not fit {game.name}: expected {list(index.layer_sizes)}"]
    for ply in sorted(set(range(game.cells + 1) if plies is None else plies), reverse=True):
        child = None if ply == game.cells else layers[ply + 1]
        for chunk in chunks(game, ply):
            stored = np.asarray(layers[ply][chunk.start : chunk.stop])
            wrong = np.flatnonzero(stored != solve_chunk(game, chunk, child))
            if wrong.size:
                at = index.layer_offsets[ply] + chunk.start + int(wrong[0])
                code = index.code_of_index(at)
                expected = solve_chunk(game, chunk, child)[int(wrong[0])]
                disagree = "disagrees with its" if wrong.size == 1 else "disagree with their"
                problems.append(
                    f"layer {ply}: {count(int(wrong.size), 'board')} {disagree} children, first {render(game, code)} "
                    f"(code {code}): stored {int(stored[wrong[0]])}, expected {int(expected)}"
                )
                if len(problems) >= limit:
                    return problems
    return problems
