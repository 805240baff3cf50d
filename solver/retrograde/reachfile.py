"""A layer's bits of the boards a game reaches, kept compressed in the build directory: a frame a chunk, and an index.

A gravity build's forward pass (:mod:`solver.retrograde.gravity`) finds which boards of every layer a game reaches
before the sweep solves the first one, so every layer's bits wait on disk at once. A bit a board, 6x6k4-gravity's
600.5 G boards would take 75 GB; its bits are far from random (whole runs of a tile's rows and columns are out of
reach), and zstd at level 1 keeps them in a fifteenth of that (measured on its layers 22 to 30, docs/performance.md).

A file (``reach-PP.zbits``) holds, in this order:

* **frames**: per chunk of the layer, in chunk order, its bits (``np.packbits`` of its boards, from its first board)
  compressed by the codec of new files (:func:`solver.storage.blockcodec.new_file_codec`) at :data:`REACH_LEVEL`;
* **the index**: little-endian int64, a row a frame ``(first board, first byte in the file, boards reached before
  it)`` and a last row ``(boards of the layer, the index's first byte, boards reached in the layer)``;
* **the footer**: the number of frames (little-endian int64) and :data:`MAGIC`.

:class:`FrameWriter` writes a layer as the pass's threads find its chunks, in any order (each chunk compressed on
the thread that found it, the frames written in order); :func:`read_index` and :func:`read_range` read it back, a
range of boards at a time (the sweep reads a chunk's). A file that does not decode raises :class:`ValueError`
saying what is wrong; the build directory names the file and the way out (:meth:`BuildDir.reached`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..storage.blockarray import Codec

REACH_LEVEL = 1
"""The level of a reach file's frames: the fastest (6x6k4-gravity's layers 22 to 25: 14.6 times smaller at level 1,
15.5 at level 3, for about twice the time)."""

MAGIC = b"ttt-rch1"
"""The last 8 bytes of a reach file."""

_ROW = np.dtype("<i8")
"""An index's numbers: little-endian int64."""
_FOOTER = 16


def write_at(fd: int, data: bytes | memoryview, offset: int) -> None:
    """``data`` written at ``offset`` of the file ``fd``, all of it."""
    view = memoryview(data)
    while view:
        written = os.pwrite(fd, view, offset)
        if written <= 0:
            raise OSError(f"wrote no byte of {len(view):,} at {offset:,} of a layer's bits")
        view, offset = view[written:], offset + written


class FrameWriter:
    """A layer's reach file written through a descriptor (an empty file), chunk by chunk (module docstring).

    :param starts: the first board of every chunk of the layer, in order; :meth:`put` takes each exactly once.
    :param boards: the layer's boards (the last chunk's end).
    """

    def __init__(self, fd: int, codec: Codec, starts: Sequence[int], boards: int) -> None:
        self._fd = fd
        self._codec = codec
        self._starts = list(starts)
        self._boards = boards
        self._waiting: dict[int, tuple[bytes, int, int]] = {}
        self._rows: list[tuple[int, int, int]] = []
        self._end = 0  # the next frame's first byte
        self._next = 0  # the next board of the layer a frame must start at
        self._reached = 0
        self._shared = threading.Lock()

    def put(self, start: int, flags: np.ndarray) -> None:
        """The chunk of boards ``start ..`` (``flags``: bool, whether a game reaches each), compressed here and written
        once every chunk before it is."""
        data = self._codec.compress(np.packbits(flags).tobytes(), REACH_LEVEL)
        reached = int(np.count_nonzero(flags))
        with self._shared:
            if start in self._waiting or start < self._next:
                raise ValueError(f"the chunk at board {start:,} of the layer was put twice")
            self._waiting[start] = (data, reached, int(flags.size))
            while self._next in self._waiting and len(self._rows) < len(self._starts):
                data, reached, size = self._waiting.pop(self._next)
                if self._starts[len(self._rows)] != self._next:
                    raise ValueError(f"a chunk starts at board {self._next:,}, where the layer's next chunk is {self._starts[len(self._rows)]:,}")
                write_at(self._fd, data, self._end)
                self._rows.append((self._next, self._end, self._reached))
                self._end += len(data)
                self._next += size
                self._reached += reached

    def close(self) -> int:
        """Write the index and the footer (once every chunk is put); returns how many boards of the layer are reached."""
        if len(self._rows) != len(self._starts) or self._next != self._boards or self._waiting:
            raise ValueError(f"the layer's reach file ends at board {self._next:,} of {self._boards:,}, {len(self._waiting)} chunks out of order")
        rows = np.array([*self._rows, (self._boards, self._end, self._reached)], dtype=_ROW)
        write_at(self._fd, rows.tobytes() + np.array([len(self._rows)], dtype=_ROW).tobytes() + MAGIC, self._end)
        return self._reached


@dataclass(frozen=True)
class ReachIndex:
    """A reach file's index (module docstring): per frame and once more for the layer's end, ``starts`` (its first
    board), ``offsets`` (its first byte) and ``before`` (the boards reached before it); each int64."""

    starts: np.ndarray
    offsets: np.ndarray
    before: np.ndarray

    @property
    def boards(self) -> int:
        """The layer's boards."""
        return int(self.starts[-1])

    @property
    def reached(self) -> int:
        """How many boards of the layer a game reaches."""
        return int(self.before[-1])


def read_index(fd: int) -> ReachIndex:
    """The index of the reach file open at ``fd``, checked: in order, within the file, a frame a board at least.

    :raises ValueError: saying what is wrong.
    """
    size = os.fstat(fd).st_size
    footer = os.pread(fd, _FOOTER, size - _FOOTER) if size >= _FOOTER else b""
    if len(footer) != _FOOTER or footer[8:] != MAGIC:
        raise ValueError(f"no reach file's footer in its last {_FOOTER} bytes ({size:,} bytes in all)")
    frames = int(np.frombuffer(footer[:8], dtype=_ROW)[0])
    length = (frames + 1) * 3 * _ROW.itemsize
    if not 0 <= frames <= size // 24 or length > size - _FOOTER:
        raise ValueError(f"its footer counts {frames:,} frames, more than its {size:,} bytes can hold")
    at = size - _FOOTER - length
    data = os.pread(fd, length, at)
    if len(data) != length:
        raise ValueError(f"cut short: {len(data):,} bytes of its index where {length:,} were due")
    rows = np.frombuffer(data, dtype=_ROW).reshape(frames + 1, 3).astype(np.int64)
    starts, offsets, before = (np.ascontiguousarray(rows[:, k]) for k in range(3))
    if (
        starts[0] != 0
        or offsets[0] != 0
        or before[0] != 0
        or offsets[-1] != at
        or np.any(np.diff(starts) <= 0)
        or np.any(np.diff(offsets) <= 0)
        or np.any(np.diff(before) < 0)
        or np.any(np.diff(before) > np.diff(starts))
    ):
        raise ValueError("its index is out of order (frames overlap, leave gaps or count more boards reached than they hold)")
    return ReachIndex(starts, offsets, before)


def read_range(fd: int, index: ReachIndex, codec: Codec, start: int, stop: int) -> np.ndarray:
    """Whether a game reaches each of boards ``start .. stop - 1`` of the layer (bool), from the frames they lie in.

    :raises ValueError: a range outside the layer, or a frame that does not decode to its boards' bits (or to as many
        boards reached as the index counts).
    """
    if not 0 <= start <= stop <= index.boards:
        raise ValueError(f"boards {start:,} to {stop:,} are not all in the layer's {index.boards:,}")
    out = np.empty(stop - start, dtype=bool)
    first = int(np.searchsorted(index.starts, start, side="right")) - 1
    at = start
    for frame in range(max(first, 0), index.starts.size - 1):
        low, high = int(index.starts[frame]), int(index.starts[frame + 1])
        if low >= stop:
            break
        flags = _frame(fd, index, codec, frame)
        part = flags[max(at, low) - low : min(stop, high) - low]
        out[max(at, low) - start : max(at, low) - start + part.size] = part
        at = min(stop, high)
    return out


def _frame(fd: int, index: ReachIndex, codec: Codec, frame: int) -> np.ndarray:
    """The bits of frame ``frame`` (bool, a board each), checked against the index's count of boards reached."""
    boards = int(index.starts[frame + 1] - index.starts[frame])
    return np.unpackbits(frame_bits(fd, index, codec, frame), count=boards).view(bool)


def frame_bits(fd: int, index: ReachIndex, codec: Codec, frame: int) -> np.ndarray:
    """The packed bits of frame ``frame`` (uint8, ``np.packbits`` of its boards from its first), checked against the
    index's count of boards reached.

    :raises ValueError: a frame cut short, that does not decode, or reaches other boards than its index counts.
    """
    boards = int(index.starts[frame + 1] - index.starts[frame])
    length = int(index.offsets[frame + 1] - index.offsets[frame])
    where = f"frame {frame} (boards {int(index.starts[frame]):,} to {int(index.starts[frame + 1]):,})"
    data = os.pread(fd, length, int(index.offsets[frame]))
    if len(data) != length:
        raise ValueError(f"{where} is cut short: {len(data):,} of its {length:,} bytes")
    try:
        packed = np.frombuffer(codec.decompress(data, -(-boards // 8)), dtype=np.uint8)
    except ValueError as error:
        raise ValueError(f"{where} does not decode ({error})") from None
    tail = -boards % 8  # the last byte's bits past the frame are 0
    if (
        packed.size != -(-boards // 8)
        or (tail and packed[-1] & ((1 << tail) - 1))
        or int(np.bitwise_count(packed).sum()) != int(index.before[frame + 1] - index.before[frame])
    ):
        raise ValueError(f"{where} reaches other boards than its index counts")
    return packed
