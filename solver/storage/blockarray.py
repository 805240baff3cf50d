"""A compressed, random-access int8 array: independently compressed blocks, an index, per-block digests.

The format of the score array of tables past 16 cells (issue 14). The array is cut
into blocks of ``block_bytes`` decoded bytes (64 KiB by default; the last block may be
shorter); each block is compressed on its own, so a look-up decodes one block. Decoded
blocks are kept in a small LRU cache (:class:`BlockArray`). Nothing here knows about
games or scores: one int8 array in, the same array out. The codecs that compress a
block are :mod:`solver.storage.blockcodec`'s (re-exported here).

**The bytes of a region** (what :func:`write_blocks` writes at the current position of a
file; integers little-endian; ``B`` blocks):

==============================  ===============================================================
bytes (from the region start)   content
==============================  ===============================================================
``0 .. D - 1``                  the compressed blocks, back to back, block 0 first
                                (``D`` = ``Encoding.data_bytes``)
``D .. D + 8 (B + 1) - 1``      the **offset table**: ``B + 1`` unsigned 64-bit offsets,
                                block ``i`` is bytes ``offset[i] .. offset[i + 1] - 1``;
                                ``offset[0] = 0``, ``offset[B] = D``
``... + 4 B``                   the **block CRCs**: the CRC-32 (``zlib.crc32``) of each
                                block's *compressed* bytes, unsigned 32-bit
==============================  ===============================================================

Outside the region, kept by the file that holds it (:mod:`solver.storage.tablefile`), are the
:class:`Encoding` (codec, block size, counts: a JSON object) and the ``B`` block
**digests**: the SHA-256 of each block's *decoded* bytes.

**Why the digests hash the decoded bytes.** The digests (and the file's root checksum
over them) then name the *content*, not its encoding: the same scores give the same
root whichever codec, level or version of the codec library wrote them. A compressor
does not promise the same output across its versions, so a root over compressed bytes
would make a user's own rebuild fail the checksum that the package ships. The CRC-32 of
the compressed bytes is the damage check in front of the decoder: a flipped byte in a
block, an offset or a CRC is refused before any decoder reads it; a forged block with
a matching CRC still has to decode to bytes whose SHA-256 is the digest pinned by the
root. Decoding is bounded: a block never decodes to more than ``block_bytes``.

**Deterministic**: the same array, codec, level and block size give the same region
(single-threaded compression, no timestamps, the frame's content size always written).

**How it plugs into** :mod:`solver.storage.tablefile` (format version 3): an
entry of the header's ``arrays`` gains ``"encoding": Encoding.to_json()``; its
``offset`` is the region's start, and its blocks are ``encoding.blocks`` blocks of
``encoding.block_bytes`` (the file's ``block_bytes`` stays the unit of the plain
arrays); its digests go into the file's digest section at ``first_block`` as today.
The root hashes the header *without* the fields that depend on the compressed bytes
(the array's ``offset``, the encoding's ``codec``, ``level`` and ``data_bytes``,
``digests.offset``), so it is the checksum of the content. ``TableFile`` then opens such an array as a
:class:`BlockArray` over a :class:`FileRegion` of the file (read with ``os.pread``, not a
memory map: a block is read once, then kept decoded, and a file truncated under a
reader gives a short read, a :class:`TableError`, where a memory map would end the
process with SIGBUS), with ``digest=`` the
file's :meth:`~solver.storage.tablefile.TableFile.digest` shifted by ``first_block`` and
``error=`` :meth:`~solver.storage.tablefile.TableFile.error`, so messages name the file and
the rebuild command.

>>> import io
>>> scores = np.repeat(np.arange(-3, 4, dtype=np.int8), 50_000)
>>> out = io.BytesIO()
>>> written = write_blocks(out, [scores[:123_456], scores[123_456:]], codec="zlib", block_bytes=1 << 16)
>>> written.encoding.blocks, written.encoding.size
(6, 350000)
>>> array = BlockArray(out.getbuffer(), written.encoding, written.digest, name="example")
>>> array[0], array[349_999], array.read(99_998, 100_002).tolist()
(-3, 3, [-2, -2, -1, -1])
"""

from __future__ import annotations

import hashlib
import os
import threading
import weakref
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from typing import IO, Any, Protocol, runtime_checkable

import numpy as np

from ..errors import TableError
from .blockcodec import CODECS as CODECS
from .blockcodec import Codec as Codec
from .blockcodec import codec_of as codec_of
from .blockcodec import compressed_bound as compressed_bound
from .blockcodec import default_codec as default_codec
from .blockcodec import new_file_codec as new_file_codec
from .integrity import COMPRESSED, BlockChecks, ValuesCheck

DEFAULT_BLOCK_BYTES = 1 << 16
"""64 KiB: the first touch of a block costs a zstd decode (70 to 90 µs for a 5x5k4 block in play) and a
SHA-256 (40 µs); 256 KiB blocks store 10 to 20 % less but cost four times that, 32 KiB blocks would halve
it for a 6 % larger 5x5k4 file (measured on 20,000 of its blocks) and twice the digests to hash on open."""
MAX_BLOCK_BYTES = 1 << 24
DEFAULT_CACHE_BLOCKS = 64
"""Decoded blocks kept per array (64 KiB each: 4 MiB)."""
WAVE_BLOCKS = 256
"""Blocks a batch (:meth:`BlockArray.take`) holds decoded at a time: 16 MiB of 64 KiB blocks."""
_MAX_WAVES = 1 << 16
"""Waves of one batch at most (their numbers are sorted as 16-bit keys); past it the waves grow."""
_DECODE_THREADS = max(1, min(8, os.cpu_count() or 1))
"""Threads a batch's blocks are decoded by: the cores, up to 8."""
DIGEST_BYTES = 32
_OFFSET = np.dtype("<u8")
_CRC = np.dtype("<u4")


# -- what the file records -----------------------------------------------------------
@dataclass(frozen=True)
class Encoding:
    """How one compressed array is stored: everything a reader needs besides the digests.

    ``size`` items of int8 in ``blocks`` blocks of ``block_bytes`` (the last one
    ``size - (blocks - 1) * block_bytes``); ``data_bytes`` of compressed blocks, then the
    offset table and the CRCs (:attr:`region_bytes` in all).
    """

    codec: str
    level: int
    block_bytes: int
    size: int
    data_bytes: int

    @property
    def blocks(self) -> int:
        """Number of blocks: ``ceil(size / block_bytes)``."""
        return -(-self.size // self.block_bytes)

    @property
    def index_bytes(self) -> int:
        """Bytes of the offset table and the CRCs."""
        return _OFFSET.itemsize * (self.blocks + 1) + _CRC.itemsize * self.blocks

    @property
    def region_bytes(self) -> int:
        """Bytes of the whole region: blocks, offsets, CRCs."""
        return self.data_bytes + self.index_bytes

    def block_size(self, block: int) -> int:
        """Decoded bytes of block ``block``."""
        return min(self.block_bytes, self.size - block * self.block_bytes)

    def to_json(self) -> dict[str, Any]:
        """The header entry (a JSON object)."""
        return {"codec": self.codec, "level": self.level, "block_bytes": self.block_bytes, "size": self.size, "data_bytes": self.data_bytes}

    @classmethod
    def from_json(cls, data: Any) -> Encoding:
        """An :class:`Encoding` from its header entry, every field checked.

        :raises ValueError: naming the first bad field.
        """
        if not isinstance(data, dict) or set(data) != {"codec", "level", "block_bytes", "size", "data_bytes"}:
            raise ValueError(f"an encoding is an object with codec, level, block_bytes, size, data_bytes; found {str(data)[:80]}")
        codec = codec_of(str(data["codec"]))
        numbers = {key: data[key] for key in ("level", "block_bytes", "size", "data_bytes")}
        for key, value in numbers.items():
            if type(value) is not int or value < 0:
                raise ValueError(f"encoding {key} must be a non-negative integer, found {str(value)[:20]!r}")
        block = numbers["block_bytes"]
        if not 1 <= block <= MAX_BLOCK_BYTES or block & (block - 1):
            raise ValueError(f"encoding block_bytes {block}: expected a power of two up to {MAX_BLOCK_BYTES:,}")
        if numbers["level"] not in codec.levels:
            raise ValueError(f"encoding level {numbers['level']} is not a {codec.name} level")
        return cls(codec.name, numbers["level"], block, numbers["size"], numbers["data_bytes"])


@dataclass(frozen=True)
class Written:
    """What :func:`write_blocks` wrote: the encoding (for the header) and the block digests."""

    encoding: Encoding
    digests: bytes
    """The SHA-256 of every block's decoded bytes, block 0 first (32 bytes each)."""

    def digest(self, block: int) -> bytes:
        """The digest of one block."""
        return self.digests[block * DIGEST_BYTES : (block + 1) * DIGEST_BYTES]


# -- writing -------------------------------------------------------------------------
def _blocks_of(parts: Iterable[np.ndarray], block_bytes: int) -> Iterable[memoryview]:
    """The bytes of the parts, one after the other, cut into blocks of ``block_bytes`` (the last may be short)."""
    pending = bytearray()
    for part in parts:
        array = np.asarray(part)
        if array.dtype != np.int8:
            raise ValueError(f"a block array holds int8, found a part of dtype {array.dtype}")
        raw = np.ascontiguousarray(array).reshape(-1).view(np.uint8).data.cast("B")
        if pending:
            take = min(len(raw), block_bytes - len(pending))
            pending += raw[:take]
            raw = raw[take:]
            if len(pending) < block_bytes:
                continue
            yield memoryview(bytes(pending))
            pending.clear()
        whole = len(raw) - len(raw) % block_bytes
        for start in range(0, whole, block_bytes):
            yield raw[start : start + block_bytes]
        pending += raw[whole:]
    if pending:
        yield memoryview(bytes(pending))


@dataclass(frozen=True)
class EncodedBlock:
    """One block as a region stores it: its compressed bytes, the SHA-256 of its decoded bytes, its decoded size."""

    packed: bytes
    digest: bytes
    size: int


@dataclass(frozen=True)
class EncodedRun:
    """Blocks one after the other as a region stores them, already compressed: their compressed bytes back to back,
    each block's compressed length and decoded size, and their SHA-256 digests (32 bytes each, in order). A sealed
    build's blocks are copied into its table a run at a time (:func:`write_encoded`), not a Python object a block."""

    packed: bytes
    lengths: np.ndarray
    """Each block's compressed bytes (int64)."""
    sizes: np.ndarray
    """Each block's decoded bytes (int64)."""
    digests: bytes


def _checked(codec: str | None, level: int | None, block_bytes: int) -> tuple[Codec, int]:
    """The codec and level to use; :raises ValueError: for an unknown codec, a bad level or a bad block size."""
    chosen = codec_of(codec or default_codec())
    level = chosen.default_level if level is None else level
    if level not in chosen.levels:
        raise ValueError(f"level {level} is not a {chosen.name} level ({chosen.levels.start} to {chosen.levels.stop - 1})")
    if not 1 <= block_bytes <= MAX_BLOCK_BYTES or block_bytes & (block_bytes - 1):
        raise ValueError(f"block_bytes {block_bytes}: expected a power of two up to {MAX_BLOCK_BYTES:,}")
    return chosen, level


def encode_block(data: bytes | memoryview, codec: str, level: int) -> EncodedBlock:
    """One block compressed with ``codec`` at ``level`` (a name of :data:`CODECS`), with its digest."""
    return EncodedBlock(codec_of(codec).compress(data, level), hashlib.sha256(data).digest(), len(data))


@lru_cache(maxsize=256)
def repeated_block(byte: int, size: int, codec: str, level: int) -> EncodedBlock:
    """:func:`encode_block` of ``size`` bytes all ``byte`` (0 to 255), encoded once (the same object each call):
    half the blocks of 6x6k4-gravity's late layers are one such block, a run of ``UNREACHABLE``."""
    return encode_block(bytes([byte]) * size, codec, level)


def encode_blocks(
    parts: Iterable[np.ndarray], *, codec: str | None = None, level: int | None = None, block_bytes: int = DEFAULT_BLOCK_BYTES
) -> Iterator[EncodedBlock]:
    """int8 arrays, one after the other as one array, cut into blocks of ``block_bytes`` and compressed (streams).

    :raises ValueError: for a part that is not int8, an unknown codec or a bad block size.
    """
    chosen, level = _checked(codec, level, block_bytes)
    for block in _blocks_of(parts, block_bytes):
        yield encode_block(block, chosen.name, level)


def write_encoded(out: IO[bytes], blocks: Iterable[EncodedBlock | EncodedRun], *, codec: str, level: int, block_bytes: int = DEFAULT_BLOCK_BYTES) -> Written:
    """Write a region from blocks already compressed with ``codec`` at ``level`` (:func:`encode_blocks`), in order,
    one at a time or in runs (:class:`EncodedRun`: written at once, the blocks' offsets and CRCs found from their
    lengths).

    Every block but the last must decode to ``block_bytes`` bytes. ``out`` is written
    sequentially from its current position.

    :raises ValueError: for a block of the wrong size, or a bad codec, level or block size.
    """
    chosen, level = _checked(codec, level, block_bytes)
    offsets: list[int] = [0]
    crcs: list[int] = []
    digests = bytearray()
    size = 0
    for item in blocks:
        if isinstance(item, EncodedRun):
            size += _write_run(out, item, offsets, crcs, size, block_bytes)
            digests += item.digests
            continue
        if size % block_bytes or not 0 < item.size <= block_bytes:
            raise ValueError(f"block {len(crcs)} holds {item.size:,} bytes after a short block or beyond {block_bytes:,}")
        out.write(item.packed)
        offsets.append(offsets[-1] + len(item.packed))
        crcs.append(zlib.crc32(item.packed))
        digests += item.digest
        size += item.size
    out.write(np.array(offsets, dtype=_OFFSET).tobytes())
    out.write(np.array(crcs, dtype=_CRC).tobytes())
    return Written(Encoding(chosen.name, level, block_bytes, size, offsets[-1]), bytes(digests))


def _write_run(out: IO[bytes], run: EncodedRun, offsets: list[int], crcs: list[int], before: int, block_bytes: int) -> int:
    """Write a run of blocks (:func:`write_encoded`), its offsets and CRCs appended to ``offsets`` and ``crcs``; the
    bytes its blocks decode to. ``before``: the bytes the blocks before decode to."""
    _check_sizes(run.sizes, before, len(crcs), block_bytes)
    view = memoryview(run.packed)
    ends = np.cumsum(run.lengths, dtype=np.int64).tolist()
    if (ends[-1] if ends else 0) != len(view) or run.sizes.size != len(ends) or len(run.digests) != DIGEST_BYTES * len(ends):
        raise ValueError(f"a run of {len(ends)} blocks holds {len(view):,} bytes and {len(run.digests):,} of digests, not what its lengths say")
    out.write(view)
    crcs.extend(zlib.crc32(view[start:stop]) for start, stop in zip([0, *ends], ends, strict=False))
    base = offsets[-1]
    offsets.extend(base + end for end in ends)
    return int(run.sizes.sum())


def _check_sizes(sizes: np.ndarray, before: int, first: int, block_bytes: int) -> None:
    """Refuse blocks (their decoded ``sizes``, from block ``first`` on; ``before`` bytes decoded in the blocks before)
    of no byte or more than ``block_bytes``, or after a short block (only the last may be short)."""
    if not sizes.size:
        return
    wrong = (sizes <= 0) | (sizes > block_bytes)
    wrong[:-1] |= sizes[:-1] < block_bytes
    if before % block_bytes:
        wrong[0] = True
    if wrong.any():
        at = int(np.argmax(wrong))
        raise ValueError(f"block {first + at} holds {int(sizes[at]):,} bytes after a short block or beyond {block_bytes:,}")


def write_blocks(
    out: IO[bytes],
    parts: Iterable[np.ndarray],
    *,
    codec: str | None = None,
    level: int | None = None,
    block_bytes: int = DEFAULT_BLOCK_BYTES,
) -> Written:
    """Compress int8 arrays, one after the other as one array, into a region written to ``out``.

    Streams: one block is in memory at a time besides the part being read (a part can
    be a memory map of a whole layer). ``out`` is written sequentially from its current
    position (no seeking back). The same as :func:`write_encoded` of :func:`encode_blocks`.

    :param parts: 1-D (or any shape, read in C order) int8 arrays.
    :param codec: a name of :data:`CODECS` (default: :func:`default_codec`).
    :param level: the codec's level (default: the codec's ``default_level``).
    :returns: the :class:`Encoding` to record and the digests of the decoded blocks.
    :raises ValueError: for a part that is not int8, an unknown codec or a bad block size.
    """
    chosen, level = _checked(codec, level, block_bytes)
    blocks = encode_blocks(parts, codec=chosen.name, level=level, block_bytes=block_bytes)
    return write_encoded(out, blocks, codec=chosen.name, level=level, block_bytes=block_bytes)


# -- reading -------------------------------------------------------------------------
Digest = Callable[[int], bytes]
"""``digest(block)``: the stored SHA-256 of a block's decoded bytes."""


PREFETCH_BLOCKS = 256
"""Blocks a batch announces to a remote source at a time (:meth:`RegionSource.prefetch`)."""


@runtime_checkable
class RegionSource(Protocol):
    """Where the bytes of a region come from: a :class:`BlockArray` checks them the same whatever the source.

    The integrity checks are a stage of the reading pipeline, not of the source: a source only
    hands over bytes (a memory map of a file, :class:`MappedRegion`; a server answering Range
    requests, :class:`solver.storage.remote.RemoteRegion`), and every block passes its CRC, the
    bounded decode and its digest before any of it is used.
    """

    size: int
    """Bytes the source holds (at least the region's)."""
    remote: bool
    """Whether reading costs a round trip (then :meth:`prefetch` is worth calling)."""

    def read(self, start: int, stop: int) -> Any:
        """Bytes ``start .. stop - 1`` of the region (a bytes-like object)."""

    def forget(self, start: int, stop: int) -> None:
        """Those bytes failed their checks: a source that keeps copies drops its copy (and may raise a
        :class:`TableError` that names better where they came from: a cache rather than a server)."""

    def passed(self, start: int, stop: int) -> None:
        """Those bytes passed every check: a source that keeps copies may keep them now."""

    def prefetch(self, spans: Sequence[tuple[int, int]]) -> None:
        """Byte ranges about to be read (each a block), in region order: fetch them together if that helps."""


class MappedRegion:
    """A region in memory or memory-mapped: reading is slicing."""

    remote = False

    def __init__(self, region: Any) -> None:
        data = np.frombuffer(region, dtype=np.uint8) if not isinstance(region, np.ndarray) else region.reshape(-1).view(np.uint8)
        self._data = data.view(np.ndarray)  # a plain view of a memory map: its items and slices cost a quarter
        self.size = int(self._data.size)

    def read(self, start: int, stop: int) -> memoryview:
        """Bytes ``start .. stop - 1`` (a view, no copy)."""
        return self._data[start:stop].data

    def forget(self, start: int, stop: int) -> None:
        """Nothing kept: nothing to drop."""

    def passed(self, start: int, stop: int) -> None:
        """Nothing kept: nothing to keep."""

    def prefetch(self, spans: Sequence[tuple[int, int]]) -> None:
        """Nothing to fetch."""


class _Descriptor:
    """An open file descriptor, closed when the object is garbage-collected."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        weakref.finalize(self, os.close, fd)


class FileRegion:
    """Bytes ``offset .. offset + size - 1`` of an open file, read with ``os.pread``: the source of a table file's region.

    Unlike a memory map, a file truncated under it cannot end the process (a map faults
    with SIGBUS past the file's new end): a read past the end comes back short, which
    :class:`BlockArray` refuses with :class:`TableError`. The region owns ``fd`` (shared
    with its :meth:`part` regions): it is closed once none of them is in use.
    """

    remote = False

    def __init__(self, fd: int | _Descriptor, offset: int, size: int) -> None:
        self._descriptor = fd if isinstance(fd, _Descriptor) else _Descriptor(fd)
        self.fd = self._descriptor.fd
        self.offset = offset
        self.size = size

    def __len__(self) -> int:
        return self.size

    def part(self, offset: int, size: int) -> FileRegion:
        """Bytes ``offset .. offset + size - 1`` of this region, on the same descriptor."""
        return FileRegion(self._descriptor, self.offset + offset, size)

    def read(self, start: int, stop: int) -> bytes:
        """Bytes ``start .. stop - 1`` of the region: fewer if the file now ends before ``stop``.

        :raises OSError: if the file cannot be read.
        """
        return os.pread(self.fd, stop - start, self.offset + start)

    def forget(self, start: int, stop: int) -> None:
        """Nothing kept: nothing to drop."""

    def passed(self, start: int, stop: int) -> None:
        """Nothing kept: nothing to keep."""

    def prefetch(self, spans: Sequence[tuple[int, int]]) -> None:
        """Nothing to fetch ahead: each block is read once, then kept decoded."""


def _offsets_of(encoding: Encoding, index: Any) -> np.ndarray:
    """The offset table at the start of a region's index bytes (``B + 1`` unsigned 64-bit offsets)."""
    return np.frombuffer(index, dtype=_OFFSET, count=encoding.blocks + 1)


def region_checks(
    encoding: Encoding,
    index: Any,
    digest: Digest,
    *,
    name: str = "block array",
    error: Callable[[str], TableError] | None = None,
    origin: int | None = None,
    values: ValuesCheck | None = None,
) -> BlockChecks:
    """The stage of a compressed region's blocks (:mod:`solver.storage.integrity`: CRC, bounded decode, digest,
    values), from what the region's reader holds before any block: its :class:`Encoding`, its index bytes
    (the offset table and the CRCs, :attr:`Encoding.index_bytes`) and its blocks' digests.

    The offset table is checked first: offsets in order, the first 0, the last the compressed size,
    no block longer than :func:`compressed_bound`. A reader that keeps copies of blocks (a table at a
    URL) asks :meth:`~solver.storage.integrity.BlockChecks.passes` before it keeps one.

    :param index: the region's index bytes.
    :param digest: the stored SHA-256 of block ``b``'s decoded bytes.
    :param name: what messages call the array (without ``error``).
    :param error: makes the :class:`TableError` of a problem (default: ``"<name>: <problem>"``).
    :param origin: where the region starts in its file (messages then name a block's bytes in the file).
    :raises TableError: if the index is not :attr:`Encoding.index_bytes` long or its offset table is damaged.
    """
    fail = error or (lambda problem: TableError(f"{name}: {problem}"))
    if len(index) != encoding.index_bytes:
        raise fail(f"the index of the compressed blocks holds {len(index):,} bytes, expected {encoding.index_bytes:,}")
    offsets = _offsets_of(encoding, index)
    crcs = np.frombuffer(index, dtype=_CRC, offset=offsets.nbytes, count=encoding.blocks)
    _check_offsets(encoding, offsets, origin, fail)

    def where(block: int) -> str:
        """What a message calls a block: its number and its compressed bytes (in the file when its origin is known), and its CRC's."""
        start, stop = int(offsets[block]), int(offsets[block + 1])
        if origin is None:
            return f"block {block} (compressed bytes {start:,} to {stop - 1:,})"
        at = origin + encoding.data_bytes + _OFFSET.itemsize * block
        crc = origin + encoding.data_bytes + offsets.nbytes + _CRC.itemsize * block
        return (
            f"block {block} (bytes {origin + start:,} to {origin + stop - 1:,} of the file; "
            f"its offsets at bytes {at:,} to {at + 15:,}, its CRC at bytes {crc:,} to {crc + 3:,})"
        )

    codec = codec_of(encoding.codec)
    return BlockChecks(
        COMPRESSED,
        blocks=encoding.blocks,
        digest=digest,
        error=fail,
        where=where,
        block_items=encoding.block_bytes,
        crcs=crcs,
        decode=codec.decompress,
        size=encoding.block_size,
        values=values,
    )


def _check_offsets(encoding: Encoding, offsets: np.ndarray, origin: int | None, fail: Callable[[str], TableError]) -> None:
    """Refuse an offset table out of order or out of range, or with a block longer than any block compresses to."""
    found = offsets.astype(np.int64)
    if encoding.blocks == 0:
        bad = bool(found[0] != 0)
    else:
        lengths = np.diff(found)
        bad = bool(found[0] != 0 or found[-1] != encoding.data_bytes or lengths.min() <= 0)
        bad = bad or bool(lengths.max() > compressed_bound(encoding.block_bytes))
    if bad:
        start = encoding.data_bytes + (origin or 0)
        where = f" (bytes {start:,} to {start + offsets.nbytes - 1:,} of the file)" if origin is not None else ""
        raise fail(
            f"the offset table of the compressed blocks{where} is damaged (offsets out of order or out of range, "
            f"or a block longer than the {compressed_bound(encoding.block_bytes):,} bytes any block compresses to)"
        )


class BlockArray:
    """Random access to a region written by :func:`write_blocks`: an int8 array of ``size`` items.

    A block is checked and decoded whenever it is read from the source, by the region's stage
    (:attr:`checks`, :func:`region_checks`: its CRC, the bounded decode, the SHA-256 of the decoded
    bytes against ``digest(block)``, the values); any mismatch raises :class:`TableError`, and every
    block that passed is marked in ``checks.verified``. The offset table is checked when the
    array is made. The last ``cache_blocks`` decoded blocks
    are kept (least recently used first out); :meth:`decode_all` decodes every block
    into one array, for batch work at memory speed.

    :param region: the region's bytes (bytes, a memory map), or a :class:`RegionSource` that
        fetches them: a :class:`FileRegion` of a table file (``pread``), or a table at a URL.
    :param digest: the stored digest of a block (e.g. ``Written.digest`` or the file's).
    :param name: what messages call the array (the file's path).
    :param error: makes the :class:`TableError` for a problem (default: ``"<name>: <problem>"``;
        a table file passes its own, which adds the rebuild command).
    :param origin: where the region starts in its file: messages then name a block's bytes in the
        file (None: in the region).
    :param values: the ``values`` stage's callable (:data:`solver.storage.integrity.ValuesCheck`; None: left out).
    :raises TableError: if the region is too short or the offset table is damaged.
    """

    def __init__(
        self,
        region: Any,
        encoding: Encoding,
        digest: Digest,
        *,
        name: str = "block array",
        error: Callable[[str], TableError] | None = None,
        cache_blocks: int = DEFAULT_CACHE_BLOCKS,
        origin: int | None = None,
        values: ValuesCheck | None = None,
    ) -> None:
        self.encoding = encoding
        self._origin = origin
        self.name = name
        self.size = encoding.size
        self.block_bytes = encoding.block_bytes
        self.blocks = encoding.blocks
        self._shift = encoding.block_bytes.bit_length() - 1
        self._mask = encoding.block_bytes - 1
        self._codec = codec_of(encoding.codec)
        self._error = error or (lambda problem: TableError(f"{name}: {problem}"))
        self._cache: OrderedDict[int, memoryview] = OrderedDict()
        self._cache_blocks = max(1, cache_blocks)
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self.source: RegionSource = region if isinstance(region, RegionSource) else MappedRegion(region)
        self._read = self.source.read
        raw = self.source.read(encoding.data_bytes, encoding.region_bytes) if self.source.size >= encoding.region_bytes else b""
        if len(raw) != encoding.index_bytes:
            raise self._error(f"the compressed array is truncated ({self.source.size:,} bytes, expected {encoding.region_bytes:,})")
        self.checks = region_checks(encoding, raw, digest, error=self._error, origin=origin, values=values)
        """The stage every block passes before any of it is used (:mod:`solver.storage.integrity`)."""
        self._offsets = _offsets_of(encoding, raw)
        self._codec.require()

    def __repr__(self) -> str:
        return f"<BlockArray {self.name}: {self.size:,} int8 in {self.blocks:,} {self.encoding.codec} blocks>"

    def __len__(self) -> int:
        return self.size

    # -- one block ----------------------------------------------------------------------
    def block(self, block: int) -> memoryview:
        """The decoded bytes of one block, as signed bytes (``memoryview`` of format ``b``), checked.

        :raises IndexError: for a block out of range.
        :raises TableError: if the block is damaged (CRC, codec or digest).
        """
        found = self._cache.get(block)
        if found is not None:
            try:  # one C call, atomic: no lock on the path every warm look-up takes
                self._cache.move_to_end(block)
            except KeyError:  # another thread evicted it meanwhile: the copy in hand is still good
                pass
            return found
        if not 0 <= block < self.blocks:
            raise IndexError(f"block {block} is out of range: expected 0 to {self.blocks - 1}")
        decoded = memoryview(self._decode(block)).cast("b")
        with self._lock:
            self._cache[block] = decoded
            while len(self._cache) > self._cache_blocks:
                self._cache.popitem(last=False)
        return decoded

    def _decode(self, block: int, check: ValuesCheck | None = None) -> bytes:
        """Block ``block`` from the source, through every stage of :attr:`checks` (CRC, bounded decode, digest,
        values: ``check`` instead of the declared one if given).

        Whatever the source (a memory map, a server), the bytes pass the same checks; a block
        that fails any is reported to the source (:meth:`RegionSource.forget`: a caching source
        drops its copy) and raised, one that passes them all too (:meth:`RegionSource.passed`: a
        caching source keeps it only then).
        """
        start, stop = int(self._offsets[block]), int(self._offsets[block + 1])
        try:
            packed = self._read(start, stop)
        except OSError as error:
            raise self._error(f"{self.checks.where(block)} cannot be read ({error.strerror or error})") from None
        if len(packed) != stop - start:
            raise self._error(f"{self.checks.where(block)} is past the end of the file: it was truncated after it was opened")
        try:
            decoded = self.checks.packed(block, packed, values=check)
        except TableError:
            self.source.forget(start, stop)
            raise
        self.source.passed(start, stop)
        return decoded

    def _prefetch(self, blocks: Iterable[int]) -> None:
        """Tell the source which blocks are about to be read (the ones not decoded already), so a
        remote one can fetch them together; a memory map has nothing to do."""
        if not self.source.remote:
            return
        cache = self._cache
        spans = [(int(self._offsets[block]), int(self._offsets[block + 1])) for block in blocks if block not in cache]
        if len(spans) > 1:
            self.source.prefetch(spans)

    # -- items ------------------------------------------------------------------------------
    def __getitem__(self, index: int) -> int:
        """One item (a Python int); negative indices are not accepted.

        :raises IndexError: out of range.
        """
        if not 0 <= index < self.size:
            raise IndexError(f"index {index} is out of range: expected 0 to {self.size - 1}")
        value: int = self.block(index >> self._shift)[index & self._mask]
        return value

    def items(self, indices: Iterable[int]) -> list[int]:
        """The items at a few indices, in order (plain ints: one position's children, no numpy call).

        :raises IndexError: for an index out of range.
        """
        shift, mask, size, block = self._shift, self._mask, self.size, self.block
        found, last, data = [], -1, memoryview(b"")
        for index in indices:
            if not 0 <= index < size:
                raise IndexError(f"index {index} is out of range: expected 0 to {size - 1}")
            if index >> shift != last:
                last = index >> shift
                data = block(last)
            found.append(data[index & mask])
        return found

    def read(self, start: int, stop: int) -> np.ndarray:
        """Items ``start .. stop - 1`` (a new int8 array)."""
        if not 0 <= start <= stop <= self.size:
            raise IndexError(f"range {start}..{stop} is outside 0..{self.size}")
        out = np.empty(stop - start, dtype=np.int8)
        at = start
        while at < stop:
            block = at >> self._shift
            first = block << self._shift
            end = min(stop, first + self.block_bytes)
            out[at - start : end - start] = np.frombuffer(self.block(block), dtype=np.int8)[at - first : end - first]
            at = end
        return out

    def take(self, indices: np.ndarray) -> np.ndarray:
        """Items at many indices (int8, shaped like ``indices``): each block they touch decoded once.

        The indices are grouped by block (no sort of the indices themselves: each gets its
        block's rank among the blocks touched). The blocks are decoded :data:`WAVE_BLOCKS` at a
        time (the memory a batch holds decoded: 16 MiB of 64 KiB blocks), each wave split
        over one thread per core (the codec, the CRC and the hash release the GIL); blocks in the
        cache are copied, not decoded. A batch that touches more blocks than the cache keeps
        leaves the cache as it was (it would only churn it); a smaller one leaves its blocks
        there, as single look-ups do.

        A remote source (a table at a URL) is told each wave's blocks before they are decoded,
        so that it fetches them together.

        :raises IndexError: for an index out of range.
        :raises TableError: for the first damaged block (in block order).
        """
        flat = np.asarray(indices, dtype=np.int64).reshape(-1)
        if flat.size and (flat.min() < 0 or flat.max() >= self.size):
            raise IndexError(f"indices must be in 0..{self.size - 1}")
        out = np.empty(flat.size, dtype=np.int8)
        if flat.size:
            touched, slots = self._touched(flat >> self._shift)
            wave = max(WAVE_BLOCKS, -(-touched.size // _MAX_WAVES))
            if touched.size <= wave:
                np.take(self._decoded(touched), self._places(slots, flat, touched.size), out=out)
            else:
                self._take_in_waves(flat, touched, slots, wave, out)
        return out.reshape(np.shape(indices))

    def _touched(self, blocks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The blocks touched (ascending, unique) and, for each of ``blocks``, its rank among them (int32)."""
        if blocks.size * 16 < self.blocks:  # few: a sort of them costs less than a pass over every block
            touched, slots = np.unique(blocks, return_inverse=True)
            return touched, slots.reshape(-1).astype(np.int32)
        seen = np.zeros(self.blocks, dtype=bool)
        seen[blocks] = True
        rank = np.cumsum(seen, dtype=np.int32)
        rank -= 1
        return np.flatnonzero(seen), np.take(rank, blocks)

    def _places(self, slots: np.ndarray, flat: np.ndarray, count: int) -> np.ndarray:
        """Where each item is in ``count`` blocks decoded back to back (``slots``: its block's place among
        them, int32, reused); int32 unless they hold 2 GiB or more."""
        places = slots.astype(np.int64) if count << self._shift >= 1 << 31 else slots
        places <<= self._shift
        places |= (flat & self._mask).astype(places.dtype, copy=False)
        return places

    def _take_in_waves(self, flat: np.ndarray, touched: np.ndarray, slots: np.ndarray, wave: int, out: np.ndarray) -> None:
        """:meth:`take` of indices touching more than ``wave`` blocks: the indices grouped by wave (a
        radix sort of 16-bit wave numbers), each wave's blocks decoded, then its items gathered."""
        waves = (slots // wave).astype(np.uint16)
        order = np.argsort(waves, kind="stable")  # 16-bit keys: numpy's radix sort, linear
        ends = np.cumsum(np.bincount(waves, minlength=-(-touched.size // wave))).tolist()
        slots -= waves * np.int32(wave)  # now the block's place in its wave
        places = self._places(slots, flat, wave)
        buffer = np.empty(wave << self._shift, dtype=np.int8)  # one for every wave: its pages are touched once
        start = 0
        for number, end in enumerate(ends):
            chosen = order[start:end]
            decoded = self._decoded(touched[number * wave : (number + 1) * wave], buffer)
            out[chosen] = np.take(decoded, np.take(places, chosen))
            start = end

    def _decoded(self, blocks: np.ndarray, buffer: np.ndarray | None = None) -> np.ndarray:
        """The decoded bytes of ``blocks`` (ascending), back to back, ``block_bytes`` apart (int8; a short
        last block leaves the rest of its slot unset), decoded by one thread per core, into the start
        of ``buffer`` if given."""
        size = blocks.size << self._shift
        out = np.empty(size, dtype=np.int8) if buffer is None else buffer[:size]
        keep = blocks.size <= self._cache_blocks
        self._prefetch(blocks.tolist())  # a remote source fetches them together
        threads = min(_DECODE_THREADS, blocks.size)
        if threads <= 1:
            self._decode_run(out, blocks.tolist(), 0, keep)
            return out
        if self._pool is None:
            with self._lock:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(_DECODE_THREADS, thread_name_prefix="solver-blocks")
        step = -(-blocks.size // threads)
        futures = [self._pool.submit(self._decode_run, out, blocks[a : a + step].tolist(), a, keep) for a in range(0, blocks.size, step)]
        for future in futures:  # in block order: the first damaged block is the one raised
            future.result()
        return out

    def _decode_run(self, out: np.ndarray, blocks: list[int], first_slot: int, keep: bool) -> None:
        """Decode ``blocks`` into slots ``first_slot ..`` of ``out`` (cached ones copied); with ``keep``, cache them."""
        for slot, block in enumerate(blocks, first_slot):
            data = self._cache.get(block)
            if data is None:
                data = memoryview(self._decode(block)).cast("b")
                if keep:
                    with self._lock:
                        self._cache[block] = data
                        while len(self._cache) > self._cache_blocks:
                            self._cache.popitem(last=False)
            start = slot << self._shift
            out[start : start + len(data)] = np.frombuffer(data, dtype=np.int8)

    def decode_all(self, *, threads: int | None = None) -> np.ndarray:
        """Every item in one int8 array (``size`` bytes of memory), each block checked as it is decoded.

        Blocks are independent, so they are decoded by ``threads`` threads (default: the
        cores, up to 8), each over one run of consecutive blocks (the codec, the hash and
        numpy release the GIL); the answer is the same for any number of threads.

        :raises TableError: for the first damaged block (in block order).
        """
        out = np.empty(self.size, dtype=np.int8)
        threads = max(1, min(self.blocks, threads if threads is not None else min(8, os.cpu_count() or 1)))
        step = -(-self.blocks // threads) if self.blocks else 1
        runs = [(a, min(self.blocks, a + step)) for a in range(0, self.blocks, step)]
        if len(runs) <= 1:
            for first, last in runs:
                self._decode_into(out, first, last)
            return out
        with ThreadPoolExecutor(len(runs), thread_name_prefix="solver-decode") as pool:
            futures = [pool.submit(self._decode_into, out, first, last) for first, last in runs]
            for future in futures:  # in block order: the first damaged block is the one raised
                future.result()
        return out

    def _decode_into(self, out: np.ndarray, first: int, last: int) -> None:
        """Decode blocks ``first .. last - 1`` into their place in ``out`` (cached ones are copied)."""
        for block in range(first, last):
            if (block - first) % PREFETCH_BLOCKS == 0:
                self._prefetch(range(block, min(last, block + PREFETCH_BLOCKS)))
            cached = self._cache.get(block)
            data = cached if cached is not None else memoryview(self._decode(block)).cast("b")
            start = block << self._shift
            out[start : start + len(data)] = np.frombuffer(data, dtype=np.int8)

    def verify_block(self, block: int) -> None:
        """Check one block as the region holds it now (CRC, codec, digest), whatever the cache holds.

        :raises TableError: if it is damaged.
        """
        self._decode(block)

    def verify(self, *, advance: Callable[[int], None] | None = None, threads: int | None = None) -> None:
        """Check every block (CRC, codec, digest, values) without keeping them, on ``threads`` threads (default:
        the cores, up to 8); ``advance`` is told how many blocks were checked, in block order.

        :raises TableError: for the first damaged block in block order.
        """
        runs = [(first, min(self.blocks, first + PREFETCH_BLOCKS)) for first in range(0, self.blocks, PREFETCH_BLOCKS)]
        threads = max(1, min(len(runs) or 1, threads if threads is not None else min(8, os.cpu_count() or 1)))
        with ThreadPoolExecutor(threads, thread_name_prefix="solver-verify") as pool:
            try:
                for first, last in pool.map(self._check_run, runs):
                    if advance is not None:
                        advance(last - first)
            except BaseException:
                pool.shutdown(cancel_futures=True)  # the runs not started are not checked: the answer is known
                raise

    def _check_run(self, run: tuple[int, int]) -> tuple[int, int]:
        first, last = run
        self._prefetch(range(first, last))
        for block in range(first, last):
            self._decode(block)
        return run

    def problems(self, *, check: ValuesCheck | None = None) -> list[str]:
        """Check every block (CRC, codec, digest, then ``check``, default :attr:`check`); the damaged ones, described
        (empty when all match)."""
        found = []
        for block in range(self.blocks):
            try:
                self._decode(block, check)
            except TableError as error:
                found.append(str(error))
        return found
