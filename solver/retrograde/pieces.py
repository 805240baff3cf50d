"""A layer's boards sealed in pieces: a range sealed apart from the boards before it (on a worker), and the stream that
joins the pieces of a layer, in order, into the table's blocks (:mod:`solver.retrograde.sealing`).

A piece is any range of a layer, aligned to nothing: a chunk the worker has just solved (its scores still in memory:
the sweep seals a layer as it is solved, :func:`solver.retrograde.spool.run_chunks`), or a segment of a finished raw
layer. Its worker finds which boards are canonical and read, their stored bytes and the histograms in one compiled
pass, and compresses the blocks that lie whole inside the piece after its first board read. What it cannot know is the
score before the piece (the boards before its first board read hold the last score read before them in the layer,
:mod:`solver.contents.stored`), nor the bytes of the blocks it shares with the pieces beside it: those the stream fills
and joins, in order (:class:`LayerStream`). So the blocks are the bytes one pass over the layer gives, however the
layer is cut.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..contents.stored import canonical_pieces, read_scores
from ..rules.game import Game
from ..storage.blockarray import EncodedBlock, codec_of, default_codec, encode_block, repeated_block


@dataclass(frozen=True)
class Compression:
    """The codec (by name, :mod:`solver.storage.blockarray`) and level a build seals with (the same for every layer of a table)."""

    name: str
    level: int

    @classmethod
    def default(cls) -> Compression:
        """The default codec (:func:`solver.storage.blockarray.default_codec`) at its default level."""
        name = default_codec()
        return cls(name, codec_of(name).default_level)


@dataclass(frozen=True)
class PieceSealing:
    """How a worker seals the pieces it is given: the codec, and the table's block size (bytes; blocks start at the
    multiples of it in the whole table, so a piece needs the index of its layer's first board in the table too)."""

    codec: Compression
    block: int


@dataclass(frozen=True)
class SealedPiece:
    """Boards ``start .. start + size - 1`` of a layer (layer-local indices) sealed apart from those before them.

    The boards before the first board read (``first`` of them) are left for the stream to fill; from that board on
    the stored bytes are known: ``lead`` up to the end of its block (or of the piece), then ``blocks``, the whole blocks
    inside the piece, compressed, then ``trail``, the bytes after them.
    """

    start: int
    size: int
    first: int
    """Boards before the first board read (``size``: none is read)."""
    lead: bytes
    blocks: list[EncodedBlock]
    trail: bytes
    last: int
    """The piece's last stored byte (a score), if a board is read."""
    opening: int
    """The score of the piece's first board: what a layer none of whose boards is read stores."""
    histograms: np.ndarray
    """How many boards of the piece hold each score: all of them (row 0) and the canonical ones (row 1), int64 (2, 256)."""


def seal_piece(game: Game, ply: int, scores: np.ndarray, start: int, offset: int, sealing: PieceSealing) -> SealedPiece:
    """Seal boards ``start .. start + len(scores) - 1`` of layer ``ply`` (:class:`SealedPiece`).

    :param scores: the piece's raw int8 scores (a memory map is read once).
    :param offset: the index of the layer's first board in the whole table (where the blocks start).
    """
    from .compiled import stored_range_counted, uniform_blocks  # numba, loaded by the first piece a build seals (not by a look-up)

    size = len(scores)
    stored, found, first = stored_range_counted(scores, canonical_pieces(game, ply, start, start + size), read_scores(game, ply), 0)
    opening = int(scores[0]) if size else 0
    if first == size:
        return SealedPiece(start, size, size, b"", [], b"", 0, opening, found)
    block = sealing.block
    lead_end = min(size, first + block - (offset + start + first) % block)  # the end of the block holding the first board read
    whole_end = lead_end + (size - lead_end) // block * block
    codec = sealing.codec
    starts = range(lead_end, whole_end, block)
    uniform = np.zeros(len(starts), dtype=bool)
    uniform_blocks(stored, lead_end, block, uniform)
    blocks = [
        repeated_block(int(stored[at]) & 255, block, codec.name, codec.level) if same else encode_block(stored[at : at + block].data, codec.name, codec.level)
        for at, same in zip(starts, uniform.tolist(), strict=True)
    ]
    return SealedPiece(start, size, first, stored[first:lead_end].tobytes(), blocks, stored[whole_end:].tobytes(), int(stored[-1]), opening, found)


class LayerStream:
    """The pieces of one layer joined, in order, into its blocks (:meth:`add`, then :meth:`end`), its head
    (:attr:`head`) and histograms (:attr:`histograms`).

    A layer's bytes fall in three parts (layer-local indices): ``0 .. head - 1`` go to the last block of the layer
    below (the layer's head), the blocks from ``head`` to ``whole`` are this layer's, and ``whole .. size - 1``
    with the head of the layer above (``carry``) make its last block, if a block starts there. A board before the
    layer's first board read stores that board's score; where no board of the layer is read, every board stores the
    layer's first board's score. Blocks of one byte repeated are compressed once a value.
    """

    def __init__(self, size: int, head: int, whole: int, block: int, codec: Compression) -> None:
        self._size, self._head_end, self._whole, self._block, self._codec = size, head, whole, block, codec
        self._at = 0
        """Boards added."""
        self._put = 0
        """Bytes given out (as head, blocks or the block being made); fewer than :attr:`_at` while no board is read."""
        self._last: int | None = None
        self._opening: int | None = None
        self._head = bytearray()
        self._pending = bytearray()
        """The bytes of the block being made (or of the layer's last block, past ``whole``)."""
        self.head = b""
        """The layer's head (its bytes before the first block boundary, and ``carry`` where no block starts in it), once ended."""
        self.histograms = np.zeros((2, 256), dtype=np.int64)

    def add(self, piece: SealedPiece) -> Iterator[EncodedBlock]:
        """The blocks the next piece completes (``piece.start`` must be the boards added so far)."""
        if piece.start != self._at:
            raise ValueError(f"a piece at {piece.start:,} added after {self._at:,} boards of the layer")
        self._at += piece.size
        self.histograms += piece.histograms
        if self._opening is None:
            self._opening = piece.opening
        if self._last is not None:
            yield from self._fill(self._last, piece.first)
        if piece.first == piece.size:
            return
        if self._last is None:  # the layer's first board read: every board before it stores its score
            yield from self._fill(_signed(piece.lead[0]), piece.start + piece.first)
        yield from self._bytes(piece.lead)
        for block in piece.blocks:
            if self._pending or not self._head_end <= self._put <= self._whole - block.size:
                raise ValueError(f"a piece's block at {self._put:,} of the layer is not a whole block of it")
            self._put += block.size
            yield block
        yield from self._bytes(piece.trail)
        self._last = piece.last

    def end(self, carry: bytes) -> Iterator[EncodedBlock]:
        """The layer's last block, once every board is added: its bytes past ``whole`` and ``carry``."""
        if self._at != self._size:
            raise ValueError(f"the layer ended after {self._at:,} of its {self._size:,} boards")
        if self._last is None:  # no board of the layer is read
            yield from self._fill(self._opening if self._opening is not None else 0, self._size)
        if self._head_end == self._size:
            self.head = bytes(self._head) + carry
        else:
            self.head = bytes(self._head)
            if self._whole < self._size:
                yield self._encode(bytes(self._pending) + carry)

    def _bytes(self, data: bytes) -> Iterator[EncodedBlock]:
        """``data`` given out as the layer's next bytes."""
        view = memoryview(data)
        while view:
            if self._put < self._head_end:
                taken = min(len(view), self._head_end - self._put)
                self._head += view[:taken]
            elif self._put < self._whole:
                taken = min(len(view), self._block - len(self._pending))
                self._pending += view[:taken]
                if len(self._pending) == self._block:
                    yield self._encode(bytes(self._pending))
                    self._pending.clear()
            else:
                taken = len(view)
                self._pending += view
            self._put += taken
            view = view[taken:]

    def _fill(self, score: int, count: int) -> Iterator[EncodedBlock]:
        """``count`` bytes of ``score`` given out: whole blocks of it compressed once."""
        while count:
            if not self._pending and self._head_end <= self._put and self._put + self._block <= self._whole and count >= self._block:
                blocks = min(count, self._whole - self._put) // self._block
                block = repeated_block(score & 255, self._block, self._codec.name, self._codec.level)
                for _ in range(blocks):
                    yield block
                self._put += blocks * self._block
                count -= blocks * self._block
                continue
            taken = min(count, self._block)
            yield from self._bytes(bytes([score & 255]) * taken)
            count -= taken

    def _encode(self, data: bytes) -> EncodedBlock:
        return encode_block(data, self._codec.name, self._codec.level)


def _signed(byte: int) -> int:
    """A stored byte (0 to 255) as the score it holds (int8)."""
    return byte - 256 if byte > 127 else byte
