"""A gravity build's layers kept sparse: a byte a board a game reaches, and how a layer is read dense again.

Under gravity most of a big layer's boards are boards no game reaches (:mod:`solver.retrograde.gravity`): 6x6k4-gravity
reaches 69.2 G of its 600.5 G boards, and its two largest adjacent layers, 141 GiB at a byte a board, hold 15 GiB of
boards reached. So a gravity build keeps a layer's file ``layer-PP.i8`` **sparse**: the scores of the boards reached
alone, in index order. A chunk's scores lie from the boards reached before it, which its layer's reach file counts
(:mod:`solver.retrograde.reachfile`: a frame a chunk; :meth:`solver.retrograde.builddir.BuildDir.spans`).

A sparse layer is read dense through :class:`SparseLayer`: its bits of the boards reached laid out a bit a board
(``reached-PP.bits``, made from the reach file by :func:`expand`) and the boards reached before every
``2 ** COUNT_SHIFT``-th board (``reached-PP.counts``), so that a row of boards is made dense by
:func:`solver.retrograde.compiled.densify_rows` from a count and at most 511 bytes of bits before it. The build makes
them for the layer the next one reads (its child), and deletes them once it is solved. The kernel asks a child layer
for whole rows of a tile (:class:`ChildScores`): a dense layer (:class:`DenseLayer`, m,n,k builds and the proofs of
tables) gives views, a sparse one the rows it is asked for, made dense in the worker's working arrays.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

import numpy as np

from ..scratch import scratch_array
from ..storage.blockarray import Codec
from .reachfile import ReachIndex, frame_bits, write_at

COUNT_SHIFT = 12
"""A count of the boards reached every ``2 ** 12`` boards (as :data:`solver.retrograde.compiled.COUNT_SHIFT`, which
the kernel reads): 8 bytes a 4,096 boards, 147 MB for 6x6k4-gravity's largest layer."""
COUNT_BYTES = 1 << (COUNT_SHIFT - 3)
"""Bytes of bits a count covers."""
COUNT_PIECE = 1 << 16
"""Counts found at a time (:func:`block_counts`): 32 MiB of bits."""


class ChildScores(Protocol):
    """A layer the kernel reads its children from: whole rows of a tile (``start``: its first board in the layer,
    ``width``: its columns)."""

    def __len__(self) -> int:
        """The layer's boards."""

    def panel(self, start: int, width: int, first: int, stop: int, needed: np.ndarray | None = None) -> np.ndarray:
        """Rows ``first .. stop - 1`` of the tile (int8, rows x ``width``); with ``needed`` (bool, a row each), only
        those rows need hold their scores."""

    def rows_of(self, start: int, width: int, height: int, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The tile's rows named in ``rows`` (intp, any shape, -1 for none) as an int8 array of rows x ``width``, and
        ``rows`` renumbered into it (-1 kept). ``height``: the tile's rows."""


class DenseLayer:
    """A layer of a byte a board (an array, in memory or mapped): rows are views."""

    def __init__(self, scores: np.ndarray) -> None:
        self.scores = np.asarray(scores)

    def __len__(self) -> int:
        """The layer's boards."""
        return int(self.scores.size)

    def panel(self, start: int, width: int, first: int, stop: int, needed: np.ndarray | None = None) -> np.ndarray:
        """Rows ``first .. stop - 1`` of the tile, a view."""
        return self.scores[start + first * width : start + stop * width].reshape(stop - first, width)

    def rows_of(self, start: int, width: int, height: int, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The whole tile, a view, and ``rows`` as they are."""
        return self.scores[start : start + height * width].reshape(height, width), rows


class SparseLayer:
    """A sparse layer (module docstring) read dense: its scores of the boards reached, its bits of them and their
    counts (:func:`block_counts`), each an array (mapped from the build directory's files)."""

    def __init__(self, scores: np.ndarray, bits: np.ndarray, counts: np.ndarray, boards: int) -> None:
        self.scores = scores
        self.bits = bits
        self.counts = counts
        self.boards = boards
        self.words = np.asarray(bits)[: bits.size // 8 * 8].view(np.uint64)
        """The bits' whole 8-byte words, for counting them."""

    def __len__(self) -> int:
        """The layer's boards."""
        return self.boards

    def __getitem__(self, where: slice) -> np.ndarray:
        """Boards ``where`` of the layer, dense (a new array)."""
        start, stop, step = where.indices(self.boards)
        if step != 1:
            raise ValueError("a sparse layer is read a range of boards at a time")
        out = np.empty((1, max(0, stop - start)), dtype=np.int8)
        self._densify(np.array([start], dtype=np.int64), out)
        return out.reshape(-1)

    def panel(self, start: int, width: int, first: int, stop: int, needed: np.ndarray | None = None) -> np.ndarray:
        """Rows ``first .. stop - 1`` of the tile, made dense in this thread's working array (rows not ``needed``
        hold what was left there)."""
        out = scratch_array("dense panel", (stop - first, width), np.int8)
        starts = start + np.arange(first, stop, dtype=np.int64) * width
        if needed is not None:
            starts[~needed] = -1
        self._densify(starts, out)
        return out

    def rows_of(self, start: int, width: int, height: int, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rows named, each once, made dense in this thread's working array, and ``rows`` renumbered."""
        named = np.unique(rows[rows >= 0])
        out = scratch_array("dense rows", (named.size, width), np.int8)
        self._densify(start + named.astype(np.int64) * width, out)
        renumbered = np.where(rows >= 0, np.searchsorted(named, rows), -1).astype(np.intp)
        return out, renumbered

    def _densify(self, starts: np.ndarray, out: np.ndarray) -> None:
        from .compiled import TOP_BIT, densify_rows  # numba, loaded when a build reads a sparse layer (not by a look-up)

        densify_rows(self.bits, self.words, self.counts, self.scores, starts, TOP_BIT, out)


def as_child(layer: np.ndarray | ChildScores) -> ChildScores:
    """A layer as the kernel reads it: a sparse layer as it is, an array as a :class:`DenseLayer`."""
    return DenseLayer(layer) if isinstance(layer, np.ndarray) else layer


def expand(fd: int, index: ReachIndex, codec: Codec, bits: np.ndarray, *, threads: int = 1) -> None:
    """A layer's bits of the boards reached, a bit a board from its first (``np.packbits`` order), set in ``bits``
    (uint8, all 0 before, ``ceil(boards / 8)``) from its reach file open at ``fd``: each frame's bytes shifted into
    place (a frame starts at any board) and ORed (the byte two frames share), on ``threads`` threads, each a run of
    frames (zstd and numpy let go of the GIL). The first byte of a run after the first, which the run before may share,
    is ORed once every run is done.

    :raises ValueError: a frame that does not decode (:func:`solver.retrograde.reachfile.frame_bits`).
    """
    frames = index.starts.size - 1
    parts = max(1, threads)
    cuts = [frames * part // parts for part in range(parts + 1)]
    runs = [(cuts[part], cuts[part + 1], part > 0) for part in range(parts) if cuts[part] < cuts[part + 1]]
    with ThreadPoolExecutor(max(1, len(runs)), thread_name_prefix="solver-expand") as pool:
        held = list(pool.map(lambda run: _expand_run(fd, index, codec, bits, *run), runs))
    for at, value in held:
        if at >= 0:
            bits[at] |= value


def _expand_run(fd: int, index: ReachIndex, codec: Codec, bits: np.ndarray, first_frame: int, stop_frame: int, hold: bool) -> tuple[int, int]:
    """Frames ``first_frame .. stop_frame - 1`` ORed into ``bits`` (:func:`expand`); with ``hold``, the byte the run
    starts in is not written but returned, ``(its place, its bits)`` (``(-1, 0)``: none held)."""
    held_at = int(index.starts[first_frame]) >> 3 if hold else -1
    held = 0
    for frame in range(first_frame, stop_frame):
        packed = frame_bits(fd, index, codec, frame)
        if not packed.size:
            continue
        start = int(index.starts[frame])
        first, lead = start >> 3, start & 7
        moved = packed
        if lead:
            moved = np.zeros(packed.size + 1, dtype=np.uint8)
            moved[:-1] = packed >> lead
            moved[1:] |= packed << (8 - lead)
        moved = moved[: bits.size - first]
        if first == held_at:
            held |= int(moved[0])
            moved, first = moved[1:], first + 1
        bits[first : first + moved.size] |= moved
    return held_at, held


def block_counts(bits: np.ndarray, boards: int, *, threads: int = 1) -> np.ndarray:
    """The boards reached before board ``k << COUNT_SHIFT``, for ``k`` from 0 to ``ceil(boards / 2 ** COUNT_SHIFT)``
    (int64; the last: every board reached), from a layer's bits (:func:`expand`), a piece at a time on ``threads``
    threads."""
    blocks = -(-boards >> COUNT_SHIFT)
    counts = np.zeros(blocks + 1, dtype=np.int64)

    def piece(first: int) -> None:
        last = min(blocks, first + COUNT_PIECE)
        ones = np.bitwise_count(np.asarray(bits[first * COUNT_BYTES : last * COUNT_BYTES]))
        padded = np.zeros((last - first) * COUNT_BYTES, dtype=np.uint8)
        padded[: ones.size] = ones
        counts[first + 1 : last + 1] = padded.reshape(-1, COUNT_BYTES).sum(axis=1, dtype=np.int64)

    with ThreadPoolExecutor(max(1, threads), thread_name_prefix="solver-counts") as pool:
        list(pool.map(piece, range(0, blocks, COUNT_PIECE)))
    return np.cumsum(counts, out=counts)


def bits_bytes(boards: int) -> int:
    """Bytes of a layer's bits of the boards reached (``reached-PP.bits``)."""
    return -(-boards // 8)


def counts_bytes(boards: int) -> int:
    """Bytes of a layer's counts (``reached-PP.counts``)."""
    return 8 * (-(-boards >> COUNT_SHIFT) + 1)


def write_counts(fd: int, counts: np.ndarray) -> None:
    """The counts written to the empty file open at ``fd`` (little-endian int64)."""
    write_at(fd, counts.astype("<i8").tobytes(), 0)
