"""Sealing: a finished layer of a compact build, compressed into the table's blocks as soon as nothing reads it raw.

A compact table file (format version 3, :mod:`solver.storage.tablefile`) stores one int8 array,
the stored bytes of every layer (:mod:`solver.contents.stored`) one after the other, cut
into blocks of :data:`~solver.storage.blockarray.DEFAULT_BLOCK_BYTES` that are compressed one
by one (:mod:`solver.storage.blockarray`). The layered build (:mod:`solver.retrograde.sweep`)
solves the layers from the full board down, and each layer is **sealed** here: its blocks are compressed into three
files of the build directory, and its raw file is deleted once nothing reads it
(:meth:`~solver.retrograde.builddir.BuildDir.retire`: layer ``p + 1`` is read raw while layer ``p`` is solved). A
layer solved in one run is sealed **as it is solved**: the worker that solves a chunk seals it while its scores are in
memory (:class:`SealingLayer`), so no pass reads the layer again to seal it (5x5k4's sealing took 681 s of a 23-minute
build when it read each raw layer back, 2026-12-05). A layer an earlier run solved is sealed from its raw file, in
segments, on the build's workers (:func:`seal_into`), before it retires. Writing the table at the end is a copy of
compressed blocks (:func:`assemble`).

=====================  ================================================================
file                   content
=====================  ================================================================
``layer-PP.blocks``    the compressed blocks that *start* in layer ``PP``, back to back
``layer-PP.index``     per block: its compressed length (u8), decoded size (u4) and the
                       SHA-256 of its decoded bytes (32 bytes); little-endian
``layer-PP.head``      the stored bytes from the layer's first board up to the first block
                       boundary (they belong to the last block of the layer below, which
                       is compressed when that layer is sealed)
=====================  ================================================================

The layer's own last block runs into the layers above, whose first bytes are their
``head``: so layers are sealed from the top down, each with the head of the one above.
Every file's SHA-256 is in the build's manifest, and the layer's **histograms** (how
many boards have each score: all boards, canonical boards) in its info. The blocks are
the bytes :func:`solver.storage.tablefile.write_table` writes from the same scores in one pass:
a sealed build and a table written from layers in memory (:func:`write_layers`) are
identical.

A worker seals its chunk or segment apart from the boards before it (:mod:`solver.retrograde.pieces`): which boards
are canonical and read, the stored bytes and the histograms in one compiled pass, the boards before its first board
read, and the blocks it shares with its neighbours, left for the layer's stream to fill and join, in order. So no piece
searches back through the layer for the score before it (on 5x5k4 the search was half of a worker's sealing: a run of
boards none of which is read can be millions long).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..contents.stored import compact_meta, histograms_json
from ..encoding.layouts import layout
from ..errors import BuildError, ResumedLayerWrong, TableError
from ..rules.game import Game, parse_game
from ..storage import tablefile
from ..storage.blockarray import DEFAULT_BLOCK_BYTES, EncodedBlock, EncodedRun
from .builddir import BuildDir
from .pieces import Compression as Compression
from .pieces import LayerStream, PieceSealing, SealedPiece, seal_piece
from .proof import check_layers
from .spool import ChunkResult
from .sweep import Mapper

SEGMENT_BLOCKS = 256
"""Blocks a worker seals at once (16 MiB of scores): enough work to hide the task's cost, little to return."""
BLOCK = DEFAULT_BLOCK_BYTES
_INDEX = np.dtype([("packed", "<u8"), ("size", "<u4"), ("digest", "V32")])
"""One entry of a ``layer-PP.index`` file."""
SUFFIXES = ("blocks", "index", "head")


# -- the pieces of a layer ------------------------------------------------------------------
@dataclass(frozen=True)
class Span:
    """Where layer ``ply``'s stored bytes fall among the blocks (layer-local board indices).

    ``0 .. head`` run up to the first block boundary; the blocks from ``head`` to
    ``whole`` lie inside the layer; ``whole .. size`` (with the next layer's head) make the
    layer's last block, if a block starts there.
    """

    ply: int
    size: int
    head: int
    whole: int
    first_block: int
    carry: int
    """Bytes of the layers above in this layer's last block (the next layer's head)."""

    @classmethod
    def of(cls, game: Game, ply: int) -> Span:
        """The span of layer ``ply`` of ``game``."""
        index = layout(game)
        start, stop = index.layer_offsets[ply], index.layer_offsets[ply + 1]
        end = min(-(-stop // BLOCK) * BLOCK, index.size)
        first = min(-(-start // BLOCK) * BLOCK, end)
        whole = first + max(0, stop - first) // BLOCK * BLOCK
        return cls(ply, stop - start, min(first, stop) - start, max(whole, first) - start if first <= stop else stop - start, first // BLOCK, end - stop)

    @property
    def tail(self) -> bool:
        """Whether a block starts in the layer's last bytes and runs into the layers above."""
        return self.whole < self.size

    @property
    def blocks(self) -> int:
        """Blocks starting in this layer."""
        return (self.whole - self.head) // BLOCK + int(self.tail)


@dataclass(frozen=True)
class SegmentJob:
    """A worker's share of sealing a finished layer: boards ``start .. stop - 1`` of layer ``ply`` of the build in
    ``directory``."""

    directory: str
    game: str
    ply: int
    start: int
    stop: int
    sealing: PieceSealing


def seal_segment(job: SegmentJob) -> SealedPiece:
    """Run in a build worker: one segment sealed (:func:`solver.retrograde.pieces.seal_piece`), read from the raw layer
    file (a sparse layer made dense: :meth:`solver.retrograde.builddir.BuildDir.scores`, whose bits :func:`seal_into` made).

    The layer is mapped for this segment only: a map kept by a worker would hold the disk
    of the raw file after the layer retires (a deleted file's pages stay allocated while
    mapped), and 5x5k4 would hold two large raw layers again.
    """
    game = parse_game(job.game)
    build = BuildDir(Path(job.directory), game)
    if not build.sparse:
        _read_ahead(build, job.ply, job.stop, job.stop + READ_AHEAD_SEGMENTS * (job.stop - job.start))
    index = layout(game)
    scores = build.scores(job.ply)
    return seal_piece(game, job.ply, scores[job.start : job.stop], job.start, index.layer_offsets[job.ply], job.sealing)


READ_AHEAD_SEGMENTS = 2
"""Segments after its own that a worker asks the kernel to read while it seals (:func:`_read_ahead`)."""


def _read_ahead(build: BuildDir, ply: int, start: int, stop: int) -> None:
    """Ask the kernel to read boards ``start .. stop - 1`` of raw layer ``ply`` into the page cache in the background
    (``POSIX_FADV_WILLNEED``): the segments the workers seal next, so that a worker does not wait for the disk where the
    layer is larger than the cache (5x5k4's layers 15 to 18: 21 to 26 GB)."""
    if not hasattr(os, "posix_fadvise"):  # macOS
        return
    fd = build.open(build.layer_path(ply), os.O_RDONLY)
    try:
        os.posix_fadvise(fd, start, max(0, stop - start), os.POSIX_FADV_WILLNEED)
    finally:
        os.close(fd)


@dataclass
class Sealed:
    """What sealing a layer gave besides its blocks: the head and the histograms (filled once the blocks are read)."""

    head: bytes = b""
    histograms: np.ndarray = field(default_factory=lambda: np.zeros((2, 256), dtype=np.int64))


Segments = Callable[[list[tuple[int, int]]], Iterator[SealedPiece]]
"""Seals the given ranges of a layer, somewhere, and yields them in order."""


def layer_stream(game: Game, ply: int, codec: Compression) -> LayerStream:
    """The stream that joins the pieces of layer ``ply`` into its blocks (:class:`solver.retrograde.pieces.LayerStream`)."""
    span = Span.of(game, ply)
    return LayerStream(span.size, span.head, span.whole, BLOCK, codec)


def piece_sealing(codec: Compression) -> PieceSealing:
    """How workers seal pieces for a table of blocks of :data:`BLOCK` bytes compressed with ``codec``."""
    return PieceSealing(codec, BLOCK)


def _checked_carry(game: Game, ply: int, carry: bytes) -> bytes:
    expected = Span.of(game, ply).carry
    if len(carry) != expected:
        raise BuildError(f"the head of layer {ply + 1} holds {len(carry):,} bytes, expected {expected:,}: delete the build directory")
    return carry


def seal_layer(game: Game, ply: int, carry: bytes, segments: Segments, codec: Compression, sealed: Sealed) -> Iterator[EncodedBlock]:
    """The blocks starting in layer ``ply``, in order; ``sealed`` gets the layer's head and histograms.

    The layer is cut into its head, segments of :data:`SEGMENT_BLOCKS` whole blocks and its tail, sealed apart
    (:func:`solver.retrograde.pieces.seal_piece`) and joined in order (:class:`solver.retrograde.pieces.LayerStream`): a
    board before the first one read of a segment holds the last score read before it in the layer, as
    :func:`solver.contents.stored.stored_layer` stores it, so no segment searches back for that score.

    :param carry: the head of layer ``ply + 1`` (empty for the full layer).
    :param segments: seals the ranges (on workers, or here).
    """
    span = Span.of(game, ply)
    _checked_carry(game, ply, carry)
    stream = layer_stream(game, ply, codec)
    step = SEGMENT_BLOCKS * BLOCK
    ranges = [(0, span.head)] if span.head else []
    ranges += [(at, min(span.whole, at + step)) for at in range(span.head, span.whole, step)]
    ranges += [(span.whole, span.size)] if span.whole < span.size else []
    for piece in segments(ranges):
        yield from stream.add(piece)
    yield from stream.end(carry)
    sealed.head, sealed.histograms = stream.head, stream.histograms


# -- a build directory -------------------------------------------------------------------
def _name(ply: int, suffix: str) -> str:
    return f"layer-{ply:02d}.{suffix}"


def release(codec: Compression, *, check_resumed: bool = False) -> Sealer:
    """The ``release`` hook of :func:`solver.retrograde.sweep.sweep`: each layer solved in one run is sealed as its
    chunks are solved, by the workers that solve them (:meth:`Sealer.solving`); the others are sealed from their raw
    file before they retire, top first.

    :param check_resumed: before a layer left by an earlier run is sealed, or its raw
        child is, re-derive it from that child (:func:`solver.retrograde.proof.check_layers`:
        exact, a sweep's work for that layer), for a game whose table has no shipped
        checksum. Only the top raw layer of a resumed build cannot be checked this way
        (its child is sealed already); a killed build leaves at most two raw layers.
    """
    return Sealer(codec, check_resumed)


class Sealer:
    """Seals a build's layers and retires them once nothing reads them raw (a :class:`solver.retrograde.sweep.Release`)."""

    def __init__(self, codec: Compression, check_resumed: bool) -> None:
        self._codec = codec
        self._check_resumed = check_resumed
        self._checked: set[int] = set()
        self._sealing: dict[int, SealingLayer] = {}

    def solving(self, build: BuildDir, ply: int) -> SealingLayer:
        """Seal layer ``ply`` as its chunks are solved (every chunk of it solved in this run)."""
        layer = self._sealing[ply] = SealingLayer(build, ply, self._codec, lambda: self._carry(build, ply))
        return layer

    def __call__(self, build: BuildDir, below: int, mapper: Mapper, resumed: Sequence[int]) -> None:
        """Seal and retire every raw layer above ``below``, top first.

        :raises ResumedLayerWrong: naming the first board that disagrees (``check_resumed``).
        """
        retired = build.retired()
        for ply in retired:
            build.layer_path(ply).unlink(missing_ok=True)  # a build killed between recording and deleting
        raw = build.raw_layers()
        if self._check_resumed:
            _check_resumed(build, [ply for ply in resumed if ply in raw and ply not in self._checked and (ply == build.game.cells or ply + 1 in raw)])
            self._checked.update(resumed)
        for ply in sorted(raw, reverse=True):
            if ply > below:
                layer = self._sealing.pop(ply, None)
                sealed = layer.end() if layer is not None else None
                if sealed is None:
                    seal_into(build, ply, mapper, self._codec)
                else:
                    build.retire(ply, *sealed)
        for layer in self._sealing.values():  # a layer solved below a resumed one waited for its head
            layer.end()

    def _carry(self, build: BuildDir, ply: int) -> bytes | None:
        """The head of layer ``ply + 1`` (what layer ``ply``'s last block ends with), if it is sealed yet."""
        if ply == build.game.cells:
            return b""
        above = self._sealing.get(ply + 1)
        if above is not None:
            return above.head
        return _read_head(build, ply + 1) if ply + 1 in build.retired() else None


class SealingLayer:
    """A layer sealed as its chunks are solved (:data:`solver.retrograde.sweep.LayerSeal`): the workers seal each chunk
    they solve (:attr:`sealing`), and the pieces are joined here in order, as they come, into the layer's files.

    The layer's last block ends with the head of the layer above: a layer whose layer above is not sealed yet (the
    lowest layer a resumed build found finished, sealed later from its raw file) waits for it (:meth:`end`).
    Nothing of it is recorded before the layer retires; a build killed before then seals it again from its raw file.
    """

    def __init__(self, build: BuildDir, ply: int, codec: Compression, carry: Callable[[], bytes | None]) -> None:
        self.sealing = piece_sealing(codec)
        self._ply = ply
        self._game = build.game
        self._stream = layer_stream(build.game, ply, codec)
        self._files = _LayerFiles(build, ply)
        self._carry = carry
        self._early: dict[int, SealedPiece] = {}
        self._next = 0
        self._sealed: tuple[dict[str, str], dict[str, Any]] | None = None
        self.head: bytes | None = None
        """The layer's head, once it is sealed."""

    def add(self, results: Sequence[ChunkResult]) -> None:
        """The pieces of chunks solved, in any order: those next in the layer are joined at once."""
        for _, _, _, _, piece in results:
            if piece is None:
                raise BuildError(f"a chunk of layer {self._ply} came back unsealed")
            self._early[piece.start] = piece
        while self._next in self._early:
            piece = self._early.pop(self._next)
            self._next += piece.size
            for block in self._stream.add(piece):
                self._files.write(block)

    def solved(self) -> None:
        """Every chunk is added: the layer is sealed now if the layer above is."""
        if self._early or self._next != Span.of(self._game, self._ply).size:
            raise BuildError(f"layer {self._ply} was solved but {len(self._early)} of its chunks could not be joined in order")
        self.end()

    def end(self) -> tuple[dict[str, str], dict[str, Any]] | None:
        """Seal the layer if the layer above is sealed: its files and info as :meth:`BuildDir.retire` records them
        (None: it still waits)."""
        if self._sealed is None and self._next == Span.of(self._game, self._ply).size:
            carry = self._carry()
            if carry is not None:
                for block in self._stream.end(_checked_carry(self._game, self._ply, carry)):
                    self._files.write(block)
                self.head = self._stream.head
                self._sealed = self._files.close(self.head, self._stream.histograms, self.sealing.codec)
        return self._sealed


def _check_resumed(build: BuildDir, plies: Sequence[int]) -> None:
    for ply in plies:
        reached = build.reached if build.sparse else None  # the reach files kept, each checked by its SHA-256
        problems = check_layers(build.game, lambda p: build.scores(p, expand=True), plies=[ply], limit=1, reached=reached)  # the layer and its child mapped
        if problems:
            raise ResumedLayerWrong(problems[0])


def seal_into(build: BuildDir, ply: int, mapper: Mapper, codec: Compression) -> None:
    """Seal finished layer ``ply`` of a build from its raw file into its three files, then retire it (its raw file goes).

    The layer above must be sealed already (its head is read). The work is spread over
    the build's workers by ``mapper`` in segments of :data:`SEGMENT_BLOCKS` blocks.
    """
    game = build.game
    carry = _read_head(build, ply + 1) if ply < game.cells else b""
    sealing = piece_sealing(codec)
    if build.sparse:
        build.expand(ply)  # the workers read it dense (retire deletes them)

    def segments(ranges: list[tuple[int, int]]) -> Iterator[SealedPiece]:
        return mapper(seal_segment, [SegmentJob(str(build.path), game.name, ply, start, stop, sealing) for start, stop in ranges])

    sealed = Sealed()
    files = _LayerFiles(build, ply)
    for block in seal_layer(game, ply, carry, segments, codec, sealed):
        files.write(block)
    build.retire(ply, *files.close(sealed.head, sealed.histograms, codec))


class _LayerFiles:
    """The three files of a sealed layer (module docstring): its blocks and their index written as the blocks come,
    then its head; each file's SHA-256 and the layer's info for the manifest."""

    def __init__(self, build: BuildDir, ply: int) -> None:
        self._build, self._ply = build, ply
        self._hashes = {suffix: hashlib.sha256() for suffix in SUFFIXES}
        self._blocks = _created(build, _name(ply, "blocks"))
        self._index = _created(build, _name(ply, "index"))
        self._count, self._data_bytes = 0, 0

    def write(self, block: EncodedBlock) -> None:
        """The layer's next block."""
        entry = np.array([(len(block.packed), block.size, block.digest)], dtype=_INDEX).tobytes()
        for out, data, suffix in ((self._blocks, block.packed, "blocks"), (self._index, entry, "index")):
            out.write(data)
            self._hashes[suffix].update(data)
        self._count, self._data_bytes = self._count + 1, self._data_bytes + len(block.packed)

    def close(self, head: bytes, histograms: np.ndarray, codec: Compression) -> tuple[dict[str, str], dict[str, Any]]:
        """The files synced and closed, the head written: ``(files, info)`` as :meth:`BuildDir.retire` records them."""
        self._blocks.close()
        self._index.close()
        with _created(self._build, _name(self._ply, "head")) as out:
            out.write(head)
            self._hashes["head"].update(head)
        info = {
            "first_block": Span.of(self._build.game, self._ply).first_block,
            "blocks": self._count,
            "data_bytes": self._data_bytes,
            "codec": codec.name,
            "level": codec.level,
            "histograms": histograms_json(histograms),
        }
        return {_name(self._ply, suffix): self._hashes[suffix].hexdigest() for suffix in SUFFIXES}, info


class _created:
    """A new file of the build directory, written through a buffer and synced to disk when closed."""

    def __init__(self, build: BuildDir, name: str) -> None:
        self._handle = os.fdopen(build.create(build.path / name, os.O_WRONLY), "wb", buffering=1 << 20)

    def __enter__(self) -> _created:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def write(self, data: bytes) -> None:
        """``data`` appended."""
        self._handle.write(data)

    def close(self) -> None:
        """Flushed, synced and closed."""
        try:
            self._handle.flush()
            os.fsync(self._handle.fileno())
        finally:
            self._handle.close()


def _read_file(build: BuildDir, ply: int, suffix: str, limit: int, entry: dict[str, Any] | None) -> bytes:
    """A sealed layer's file, checked against its SHA-256 in the layer's manifest ``entry`` (None: not sealed).

    :raises BuildError: if the layer is not sealed, or the file is missing or does not match.
    """
    name = _name(ply, suffix)
    if entry is None or name not in entry["files"]:
        raise BuildError(f"layer {ply} of the build in {build.path} is not sealed; run the build again")
    try:
        with os.fdopen(build.open(build.path / name, os.O_RDONLY), "rb") as handle:
            data = handle.read(limit + 1)
    except FileNotFoundError:
        data = None
    if data is None or len(data) > limit or hashlib.sha256(data).hexdigest() != entry["files"][name]:
        raise BuildError(f"{build.path / name} is missing or damaged; delete the build directory {build.path} and build again")
    return data


def _read_head(build: BuildDir, ply: int) -> bytes:
    return _read_file(build, ply, "head", BLOCK, build.retired().get(ply))


def assemble(build: BuildDir, output: str | os.PathLike[str], *, verify: bool = False, built_here: bool = True) -> Path:
    """Write the table file of a build whose every layer is sealed: its blocks copied in order (atomically).

    Every sealed file is checked against its SHA-256 as it is read. The meta holds the
    index scheme, the layer offsets and each layer's histograms. The free disk asked for first is what the sealed
    blocks take (their ``data_bytes``), not a quarter of a byte a board.

    :raises BuildError: if a layer is not sealed or a sealed file does not match.
    :raises TableError: as :func:`solver.storage.tablefile.write_compressed` (``verify``: the new table fails its checks).
    """
    game = build.game
    retired = build.retired()
    missing = [ply for ply in range(game.cells + 1) if ply not in retired]
    if missing:
        raise BuildError(f"the build in {build.path} has layers not yet sealed ({missing[0]} first); run the build again")
    codecs = {(entry["info"].get("codec"), entry["info"].get("level")) for entry in retired.values()}
    if len(codecs) != 1:
        raise BuildError(f"the layers in {build.path} were sealed with different codecs {sorted(map(str, codecs))}; delete it and build again")
    name, level = codecs.pop()
    codec = Compression(str(name), int(level))
    meta = {**compact_meta(game), "layer_histograms": {str(ply): retired[ply]["info"]["histograms"] for ply in sorted(retired)}}
    blocks = (block for ply in range(game.cells + 1) for block in _sealed_blocks(build, ply, retired[ply]))
    packed = sum(int(entry["info"].get("data_bytes", 0)) for entry in retired.values())  # checked as the blocks are read
    return tablefile.write_compressed(
        output,
        game,
        blocks,
        meta,
        boards=layout(game).size,
        codec=codec.name,
        level=codec.level,
        verify=verify,
        built_here=built_here,
        packed_bytes=packed,
    )


RUN_BLOCKS = 1024
"""Blocks a sealed layer's file is read and copied into the table at a time (:func:`assemble`): some megabytes (a block
compresses to at most about 64 KiB). 6x6k4-gravity's 9.2 M blocks copied one at a time took about a minute of the
build's end."""


def _sealed_blocks(build: BuildDir, ply: int, entry: dict[str, Any]) -> Iterator[EncodedRun]:
    """The sealed blocks of layer ``ply`` (its ``blocks`` and ``index`` files), in runs of :data:`RUN_BLOCKS`, the
    ``blocks`` file checked against its SHA-256 in the build's manifest (``entry``) as it is read."""
    span = Span.of(build.game, ply)
    if entry["info"].get("first_block") != span.first_block or entry["info"].get("blocks") != span.blocks:
        raise BuildError(f"layer {ply} of the build in {build.path} is recorded with other blocks than its span; delete it and build again")
    index = np.frombuffer(_read_file(build, ply, "index", span.blocks * _INDEX.itemsize, entry), dtype=_INDEX)
    if index.size != span.blocks:
        raise BuildError(f"{build.path / _name(ply, 'index')} lists {index.size} blocks, expected {span.blocks}")
    name = _name(ply, "blocks")
    digest = hashlib.sha256()
    lengths, sizes = index["packed"].astype(np.int64), index["size"].astype(np.int64)
    wrong = BuildError(f"{build.path / name} does not match its SHA-256; delete the build directory {build.path} and build again")
    with os.fdopen(build.open(build.path / name, os.O_RDONLY), "rb", buffering=1 << 20) as handle:
        for first in range(0, index.size, RUN_BLOCKS):
            these = slice(first, first + RUN_BLOCKS)
            packed = handle.read(int(lengths[these].sum()))
            if len(packed) != int(lengths[these].sum()):
                raise wrong
            digest.update(packed)
            yield EncodedRun(packed, lengths[these], sizes[these], index["digest"][these].tobytes())
        if handle.read(1) or digest.hexdigest() != entry["files"][name]:
            raise wrong


# -- layers in memory ---------------------------------------------------------------------------
def write_layers(path: str | os.PathLike[str], game: Game, layers: Sequence[np.ndarray], *, verify: bool = False, built_here: bool = True) -> Path:
    """Write a compact table file from every board's score in memory (layer 0 first): the same bytes as a sealed build.

    :raises TableError: if the layers do not fit the game.
    """
    sizes = [len(layer) for layer in layers]
    if sizes != list(layout(game).layer_sizes):
        raise TableError(f"layer sizes {sizes} do not fit {game.name}: expected {list(layout(game).layer_sizes)}")
    codec = Compression.default()
    sealing = piece_sealing(codec)
    offsets = layout(game).layer_offsets
    carry = b""
    per_layer: list[list[EncodedBlock]] = []
    found: dict[str, Any] = {}
    for ply in range(game.cells, -1, -1):
        scores = layers[ply]

        def segments(ranges: list[tuple[int, int]], ply: int = ply, scores: np.ndarray = scores) -> Iterator[SealedPiece]:
            return (seal_piece(game, ply, scores[start:stop], start, offsets[ply], sealing) for start, stop in ranges)

        sealed = Sealed()
        per_layer.append(list(seal_layer(game, ply, carry, segments, codec, sealed)))
        carry = sealed.head
        found[str(ply)] = histograms_json(sealed.histograms)
    meta = {**compact_meta(game), "layer_histograms": {key: found[key] for key in sorted(found, key=int)}}
    blocks = (block for layer in reversed(per_layer) for block in layer)
    return tablefile.write_compressed(
        path, game, blocks, meta, boards=layout(game).size, codec=codec.name, level=codec.level, verify=verify, built_here=built_here
    )
