"""Sealing: a finished layer of a compact build, compressed into the table's blocks as soon as nothing reads it raw.

A compact table file (format version 3, :mod:`solver.storage.tablefile`) stores one int8 array,
the stored bytes of every layer (:mod:`solver.contents.stored`) one after the other, cut
into blocks of :data:`~solver.storage.blockarray.DEFAULT_BLOCK_BYTES` that are compressed one
by one (:mod:`solver.storage.blockarray`). The layered build (:mod:`solver.retrograde.sweep`)
solves the layers from the full board down, and layer ``p + 1`` is read raw only
while layer ``p`` is solved; then it is **sealed** here: its blocks are compressed (in
pieces, on the build's workers) into three files of the build directory, and its raw
file is deleted (:meth:`~solver.retrograde.builddir.BuildDir.retire`). A 5x5k4 build so holds
two large raw layers on disk only where the disk has room for them (else the layer being solved
is spooled compressed: :func:`solver.retrograde.sweep.raw_fits`), and writing the table at
the end is a copy of compressed blocks (:func:`assemble`).

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

A worker seals its segment apart from the boards before it (:class:`SealedRange`): which boards are canonical and
read, the stored bytes and the histograms in one compiled pass, the boards before its first board read left for
:func:`seal_layer` to fill, in order, with the score read last before them. So no segment searches back through the
layer for that score (on 5x5k4 the search was half of a worker's sealing: a run of boards none of which is read can
be millions long).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..contents.stored import canonical_pieces, compact_meta, histograms_json, read_scores
from ..encoding.layouts import layout
from ..errors import BuildError, ResumedLayerWrong, TableError
from ..rules.game import Game, parse_game
from ..storage import tablefile
from ..storage.blockarray import DEFAULT_BLOCK_BYTES, EncodedBlock, codec_of, default_codec, encode_block
from .builddir import BuildDir
from .proof import check_layers
from .sweep import Mapper

SEGMENT_BLOCKS = 256
"""Blocks a worker seals at once (16 MiB of scores): enough work to hide the task's cost, little to return."""
BLOCK = DEFAULT_BLOCK_BYTES
_INDEX = np.dtype([("packed", "<u8"), ("size", "<u4"), ("digest", "V32")])
"""One entry of a ``layer-PP.index`` file."""
SUFFIXES = ("blocks", "index", "head")


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


def _stored(game: Game, ply: int, scores: np.ndarray, start: int, stop: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The stored bytes of boards ``start .. stop - 1`` of a layer but those before the first board read (left 0: the
    caller fills them, :func:`seal_layer`), their histograms, and how many boards come before the first one read (all:
    none is read), in one compiled pass (:func:`solver.retrograde.compiled.stored_range_counted`)."""
    from .compiled import stored_range_counted  # numba, loaded by the first range a build seals (not by a look-up)

    return stored_range_counted(scores[start:stop], canonical_pieces(game, ply, start, stop), read_scores(game, ply), 0)


@dataclass(frozen=True)
class SealedRange:
    """A range of whole blocks of a layer sealed apart from the boards before it (on a worker), so without the score
    its boards before its first board read are filled with (:func:`seal_layer` knows it): the range's blocks from the
    one holding that board on."""

    size: int
    first: int
    """Boards before the first board read (``size``: none is read)."""
    lead: bytes
    """The stored bytes of the block holding the first board read, those before that board not filled (empty if none)."""
    blocks: list[EncodedBlock]
    """The blocks after that one, compressed."""
    last: int
    """The range's last stored byte (a score), if a board is read."""
    histograms: np.ndarray


def _seal_range(game: Game, ply: int, scores: np.ndarray, start: int, stop: int, codec: Compression) -> SealedRange:
    """Boards ``start .. stop - 1`` of a layer (a whole number of blocks) sealed apart from those before them."""
    filled, found, first = _stored(game, ply, scores, start, stop)
    if first == filled.size:
        return SealedRange(filled.size, first, b"", [], 0, found)
    lead = first // BLOCK * BLOCK
    blocks = [encode_block(filled[at : at + BLOCK].data, codec.name, codec.level) for at in range(lead + BLOCK, filled.size, BLOCK)]
    return SealedRange(filled.size, first, filled[lead : lead + BLOCK].tobytes(), blocks, int(filled[-1]), found)


@dataclass(frozen=True)
class SegmentJob:
    """A worker's share of sealing a layer: boards ``start .. stop - 1`` of layer ``ply`` of the build in ``directory``."""

    directory: str
    game: str
    ply: int
    start: int
    stop: int
    codec: Compression


def seal_segment(job: SegmentJob) -> SealedRange:
    """Run in a build worker: one segment sealed (:class:`SealedRange`), read from the raw layer file.

    The layer is mapped for this segment only: a map kept by a worker would hold the disk
    of the raw file after the layer retires (a deleted file's pages stay allocated while
    mapped), and 5x5k4 would hold two large raw layers again.
    """
    game = parse_game(job.game)
    build = BuildDir(Path(job.directory), game)
    _read_ahead(build, job.ply, job.stop, job.stop + READ_AHEAD_SEGMENTS * (job.stop - job.start))
    return _seal_range(game, job.ply, build.map(build.layer_path(job.ply), layout(game).layer_sizes[job.ply]), job.start, job.stop, job.codec)


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
    """What sealing a layer gave besides its blocks: the head and the histograms (filled as the blocks are read)."""

    head: bytes = b""
    histograms: np.ndarray = field(default_factory=lambda: np.zeros((2, 256), dtype=np.int64))


Segments = Callable[[list[tuple[int, int]]], Iterator[SealedRange]]
"""Seals the given ranges of a layer (whole blocks each), somewhere, and yields them in order."""


def seal_layer(game: Game, ply: int, scores: np.ndarray, carry: bytes, segments: Segments, codec: Compression, sealed: Sealed) -> Iterator[EncodedBlock]:
    """The blocks starting in layer ``ply``, in order; ``sealed`` gets the layer's head and histograms.

    The ranges are sealed apart (:class:`SealedRange`) and filled here, in order: a board before the first one read of
    a range holds the last score read before it in the layer, and the boards before the layer's first board read hold
    that board's score (none read: the layer's first board's), as
    :func:`solver.contents.stored.stored_layer` stores them; so no range searches back for the score before it.
    Blocks of boards none of which is read are one byte repeated, compressed once a value.

    :param scores: every board's score of the layer (a memory map is read in pieces).
    :param carry: the head of layer ``ply + 1`` (empty for the full layer).
    :param segments: seals the whole blocks inside the layer (on workers, or here).
    """
    span = Span.of(game, ply)
    if len(carry) != span.carry:
        raise BuildError(f"the head of layer {ply + 1} holds {len(carry):,} bytes, expected {span.carry:,}: delete the build directory")
    fill = _Fill(codec)
    head, found, first = _stored(game, ply, scores, 0, span.head)
    sealed.histograms += found
    fill.add_head(head, first, carry if span.head == span.size else b"")  # no block starts inside the layer: all of it
    ranges = [(at, min(span.whole, at + SEGMENT_BLOCKS * BLOCK)) for at in range(span.head, span.whole, SEGMENT_BLOCKS * BLOCK)]
    for part in segments(ranges):
        sealed.histograms += part.histograms
        yield from fill.add(part)
    layer_first = int(scores[0]) if len(scores) else 0
    if span.tail:
        tail, found, first = _stored(game, ply, scores, span.whole, span.size)
        sealed.histograms += found
        yield from fill.add_tail(tail, first, carry, layer_first)
    yield from fill.end(layer_first)
    sealed.head = fill.head


class _Fill:
    """The blocks of a layer's ranges in order, their boards before each range's first board read filled
    (:func:`seal_layer`): with the last score read before, or, before the layer's first board read, with its score
    once a range holds it (until then the head and whole blocks wait, all of one unknown byte)."""

    def __init__(self, codec: Compression) -> None:
        self._codec = codec
        self._last: int | None = None
        self._waiting = 0
        self._head = (b"", 0, b"")
        self.head = b""
        """The layer's head, once the score before its first board read is known."""
        self._repeats: dict[int, EncodedBlock] = {}

    def add_head(self, head: np.ndarray, first: int, carry: bytes) -> None:
        """The layer's boards before its first block boundary (and ``carry``, if no block starts in the layer)."""
        self._head = (head.tobytes(), first, carry)
        if first < head.size:
            self._known(int(head[first]))
            self._last = int(head[-1])

    def add(self, part: SealedRange) -> Iterator[EncodedBlock]:
        """The blocks of the next range of whole blocks."""
        if part.first == part.size:
            if self._last is None:
                self._waiting += part.size // BLOCK
            else:
                yield from self._repeated(self._last, part.size // BLOCK)
            return
        if self._last is None:
            yield from self._repeated(*self._known(_signed(part.lead[part.first % BLOCK])))
        assert self._last is not None
        yield from self._repeated(self._last, part.first // BLOCK)
        yield encode_block(self._filled(part.lead, part.first % BLOCK), self._codec.name, self._codec.level)
        yield from part.blocks
        self._last = part.last

    def add_tail(self, tail: np.ndarray, first: int, carry: bytes, layer_first: int) -> Iterator[EncodedBlock]:
        """The layer's last block: its boards after the last block boundary and ``carry`` (the head of the layer
        above). ``layer_first``: the layer's first board's score, the fill of a layer none of whose boards is read."""
        if self._last is None:
            yield from self._repeated(*self._known(int(tail[first]) if first < tail.size else layer_first))
        yield encode_block(self._filled(tail.tobytes(), first) + carry, self._codec.name, self._codec.level)

    def end(self, layer_first: int) -> Iterator[EncodedBlock]:
        """What still waits once every range is added: no board of the layer is read (its first board's score fills it)."""
        if self._last is None:
            yield from self._repeated(*self._known(layer_first))

    def _known(self, fill: int) -> tuple[int, int]:
        """The score before the layer's first board read is ``fill``: the head is filled; returns ``(fill, the blocks
        that waited)``."""
        self._last = fill
        head, first, carry = self._head
        self.head = self._filled(head, first) + carry
        waited, self._waiting = self._waiting, 0
        return fill, waited

    def _filled(self, data: bytes, first: int) -> bytes:
        """``data`` with its first ``first`` bytes the last score read (those before a range's first board read)."""
        assert self._last is not None
        return bytes([self._last & 255]) * first + data[first:]

    def _repeated(self, score: int, count: int) -> Iterator[EncodedBlock]:
        """``count`` blocks of boards none of which is read: ``score`` repeated, compressed once."""
        if count:
            block = self._repeats.get(score)
            if block is None:
                block = self._repeats[score] = encode_block(bytes([score & 255]) * BLOCK, self._codec.name, self._codec.level)
            for _ in range(count):
                yield block


def _signed(byte: int) -> int:
    """A stored byte (0 to 255) as the score it holds (int8)."""
    return byte - 256 if byte > 127 else byte


# -- a build directory -------------------------------------------------------------------
def _name(ply: int, suffix: str) -> str:
    return f"layer-{ply:02d}.{suffix}"


def release(codec: Compression, *, check_resumed: bool = False) -> Callable[[BuildDir, int, Mapper, Sequence[int]], None]:
    """The ``release`` hook of :func:`solver.retrograde.sweep.sweep`: seal every raw layer above ``below``, top first.

    :param check_resumed: before a layer left by an earlier run is sealed, or its raw
        child is, re-derive it from that child (:func:`solver.retrograde.proof.check_layers`:
        exact, a sweep's work for that layer), for a game whose table has no shipped
        checksum. Only the top raw layer of a resumed build cannot be checked this way
        (its child is sealed already); a killed build leaves at most two raw layers.
    :raises ResumedLayerWrong: naming the first board that disagrees.
    """
    checked: set[int] = set()

    def run(build: BuildDir, below: int, mapper: Mapper, resumed: Sequence[int]) -> None:
        retired = build.retired()
        for ply in retired:
            build.layer_path(ply).unlink(missing_ok=True)  # a build killed between recording and deleting
        raw = build.raw_layers()
        if check_resumed:
            _check_resumed(build, [ply for ply in resumed if ply in raw and ply not in checked and (ply == build.game.cells or ply + 1 in raw)])
            checked.update(resumed)
        for ply in sorted(raw, reverse=True):
            if ply > below:
                seal_into(build, ply, mapper, codec)

    return run


def _check_resumed(build: BuildDir, plies: Sequence[int]) -> None:
    sizes = layout(build.game).layer_sizes
    for ply in plies:
        problems = check_layers(build.game, lambda p: build.map(build.layer_path(p), sizes[p]), plies=[ply], limit=1)  # the layer and its child mapped
        if problems:
            raise ResumedLayerWrong(problems[0])


def seal_into(build: BuildDir, ply: int, mapper: Mapper, codec: Compression) -> None:
    """Seal finished layer ``ply`` of a build into its three files, then retire it (its raw file goes).

    The layer above must be sealed already (its head is read). The work is spread over
    the build's workers by ``mapper`` in segments of :data:`SEGMENT_BLOCKS` blocks.
    """
    game = build.game
    carry = _read_head(build, ply + 1) if ply < game.cells else b""
    scores = build.map(build.layer_path(ply), layout(game).layer_sizes[ply])

    def segments(ranges: list[tuple[int, int]]) -> Iterator[SealedRange]:
        return mapper(seal_segment, [SegmentJob(str(build.path), game.name, ply, start, stop, codec) for start, stop in ranges])

    sealed = Sealed()
    hashes = {suffix: hashlib.sha256() for suffix in SUFFIXES}
    count, data_bytes = 0, 0
    with _created(build, _name(ply, "blocks")) as blocks, _created(build, _name(ply, "index")) as index:
        for block in seal_layer(game, ply, scores, carry, segments, codec, sealed):
            entry = np.array([(len(block.packed), block.size, block.digest)], dtype=_INDEX).tobytes()
            for out, data, suffix in ((blocks, block.packed, "blocks"), (index, entry, "index")):
                out.write(data)
                hashes[suffix].update(data)
            count, data_bytes = count + 1, data_bytes + len(block.packed)
    del scores
    with _created(build, _name(ply, "head")) as head:
        head.write(sealed.head)
        hashes["head"].update(sealed.head)
    info = {"first_block": Span.of(game, ply).first_block, "blocks": count, "data_bytes": data_bytes, "codec": codec.name, "level": codec.level}
    build.retire(ply, {_name(ply, suffix): hashes[suffix].hexdigest() for suffix in SUFFIXES}, {**info, "histograms": histograms_json(sealed.histograms)})


class _created:
    """A new file of the build directory, written through a buffer and synced to disk when closed."""

    def __init__(self, build: BuildDir, name: str) -> None:
        self._handle = os.fdopen(build.create(build.path / name, os.O_WRONLY), "wb", buffering=1 << 20)

    def __enter__(self) -> Any:
        return self._handle

    def __exit__(self, *exc: object) -> None:
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


def _sealed_blocks(build: BuildDir, ply: int, entry: dict[str, Any]) -> Iterator[EncodedBlock]:
    span = Span.of(build.game, ply)
    if entry["info"].get("first_block") != span.first_block or entry["info"].get("blocks") != span.blocks:
        raise BuildError(f"layer {ply} of the build in {build.path} is recorded with other blocks than its span; delete it and build again")
    index = np.frombuffer(_read_file(build, ply, "index", span.blocks * _INDEX.itemsize, entry), dtype=_INDEX)
    if index.size != span.blocks:
        raise BuildError(f"{build.path / _name(ply, 'index')} lists {index.size} blocks, expected {span.blocks}")
    name = _name(ply, "blocks")
    digest = hashlib.sha256()
    with os.fdopen(build.open(build.path / name, os.O_RDONLY), "rb", buffering=1 << 20) as handle:
        for entry_ in index:
            packed = handle.read(int(entry_["packed"]))
            digest.update(packed)
            yield EncodedBlock(packed, bytes(entry_["digest"]), int(entry_["size"]))
        if handle.read(1) or digest.hexdigest() != entry["files"][name]:
            raise BuildError(f"{build.path / name} does not match its SHA-256; delete the build directory {build.path} and build again")


# -- layers in memory ---------------------------------------------------------------------------
def write_layers(path: str | os.PathLike[str], game: Game, layers: Sequence[np.ndarray], *, verify: bool = False, built_here: bool = True) -> Path:
    """Write a compact table file from every board's score in memory (layer 0 first): the same bytes as a sealed build.

    :raises TableError: if the layers do not fit the game.
    """
    sizes = [len(layer) for layer in layers]
    if sizes != list(layout(game).layer_sizes):
        raise TableError(f"layer sizes {sizes} do not fit {game.name}: expected {list(layout(game).layer_sizes)}")
    codec = Compression.default()
    carry = b""
    per_layer: list[list[EncodedBlock]] = []
    found: dict[str, Any] = {}
    for ply in range(game.cells, -1, -1):
        scores = layers[ply]

        def segments(ranges: list[tuple[int, int]], ply: int = ply, scores: np.ndarray = scores) -> Iterator[SealedRange]:
            return (_seal_range(game, ply, scores, start, stop, codec) for start, stop in ranges)

        sealed = Sealed()
        per_layer.append(list(seal_layer(game, ply, scores, carry, segments, codec, sealed)))
        carry = sealed.head
        found[str(ply)] = histograms_json(sealed.histograms)
    meta = {**compact_meta(game), "layer_histograms": {key: found[key] for key in sorted(found, key=int)}}
    blocks = (block for layer in reversed(per_layer) for block in layer)
    return tablefile.write_compressed(
        path, game, blocks, meta, boards=layout(game).size, codec=codec.name, level=codec.level, verify=verify, built_here=built_here
    )
