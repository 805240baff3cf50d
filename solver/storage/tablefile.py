"""Every on-disk table format in one place: magic, a typed header, arrays, block checksums; save, open, verify.

A table file holds a few named numpy arrays behind a JSON header. Three kinds use it:

===========  =======================================================================
kind         arrays
===========  =======================================================================
``dense``    ``entries``: one :data:`ENTRY` (4 bytes) per base-3 code, games of up to
             :data:`solver.rules.game.DENSE_MAX_CELLS` cells (one memory access per look-up)
``compact``  ``scores``: one int8 score per legal-count board, indexed per layer
             (:mod:`solver.encoding.index`); the layer offsets are in ``meta``. Format version 3:
             compressed in blocks (:mod:`solver.storage.blockarray`), only the canonical boards
             in play meaningful (:func:`solver.tables.compact.stored_layers`)
``book``     ``keys`` (``uint64``, sorted, unique) and ``scores`` (``int8``): the opening
             book of a game too big for a table (Connect Four), every position up to
             ``meta["depth"]`` pieces under its canonical key (:mod:`solver.search.book`);
             format version 2, plain arrays (the engine holds them whole in memory, so
             they are verified whole when the book is opened)
===========  =======================================================================

**Compressed compact tables (format version 3).** The ``scores`` entry of ``arrays``
has an ``encoding`` (:class:`solver.storage.blockarray.Encoding`: codec, level, block size,
decoded size, compressed bytes); its ``offset`` is where the region of
:func:`solver.storage.blockarray.write_blocks` starts (compressed blocks, offset table, CRC-32
of each compressed block); the header's ``block_bytes`` is the encoding's, and the
digests are the SHA-256 of each *decoded* block. The root hashes the header without
what depends on the compressed bytes (offsets, codec, level, compressed size) and the
digests, so it names the content: a table compressed with zlib (where zstd is not
installed) has the same root as one compressed with zstd. A damaged block fails its CRC,
a forged one its digest, a changed digest or header the root, a damaged offset table
is refused when the table is opened (:class:`solver.storage.blockarray.BlockArray`).
Dense tables keep format version 2, byte for byte.

**Layout** (format versions 2 and 3; integers little-endian):

=============  ===================================================================
bytes          content
=============  ===================================================================
0-7            magic ``b"SOLVTTT\\n"``
8-11           header length ``H``, unsigned 32-bit
12 - 12+H      header: JSON (ASCII, sorted keys), padded with spaces so that the
               first array starts on a 64-byte boundary
...            each array at its ``offset`` (64-byte aligned), C order
...            the block digests: the SHA-256 (32 bytes) of every block of every
               array, array by array, at ``digests.offset``
=============  ===================================================================

Header keys: ``format``, ``format_version``, ``kind``, ``game`` (rows, cols, k,
name), ``meta`` (kind-specific), ``encoding`` and ``score`` (the conventions in
words), ``block_bytes``, ``arrays`` (name, dtype, shape, offset, first_block),
``digests`` (offset, count) and ``root``.

**Checksums.** Every array is cut into blocks of ``block_bytes`` bytes; the file
stores each block's SHA-256. The ``root`` is the SHA-256 of the header without
its ``root`` key (canonical JSON) followed by all the digests, so it pins every
byte of the table: it is the table's checksum (``solve verify`` prints it), and
the package ships the expected root of every game of up to 16 cells
(:mod:`solver.storage.checksums`). On open, the header is checked, the root recomputed
from the header and the digests (kilobytes, not the arrays) and compared with the
expected one (the header's bytes must be exactly the canonical serialisation
the root covers, so ``"format_version": 2.0`` or an extra key is refused; which roots are
expected is the policy's, :mod:`solver.storage.trust`); a block passes the checks the header
declares (:attr:`Header.stages`, :mod:`solver.storage.integrity`: its digest, and its CRC and
decoding when compressed, and its values) the first time a look-up touches it in this process
(:class:`BlockGuard`, :class:`~solver.storage.blockarray.BlockArray`), so no answer comes from
unverified bytes and opening stays cheap; :meth:`TableFile.verified` says which blocks passed. What is not guaranteed: a file changed on disk by another
program *after* its blocks were verified in a running process.

Files are written atomically (:func:`write_table`, through
:func:`solver.storage.fsutil.atomic_file`: a private temporary file, created exclusively and
without following links, locked while it is written, then renamed over the target).
Nothing is ever unpickled: arrays are read with ``np.memmap`` and their dtypes must be
plain numbers. This module is the format only; the file-system rules are
:mod:`solver.storage.fsutil`'s.
"""

from __future__ import annotations

import errno
import hashlib
import json
import math
import os
import stat
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from ..encoding.layouts import layout
from ..errors import TableError
from ..rules.game import DENSE_MAX_CELLS, Game, parse_game
from ..words import count
from . import blockarray, trust
from .blockarray import BlockArray, EncodedBlock, Encoding, FileRegion, RegionSource
from .fsutil import atomic_file, check_space, file_kind, refuse_non_regular
from .integrity import BlockChecks, ValuesCheck, Verified, declared_stages

MAGIC = b"SOLVTTT\n"
FORMAT_VERSION = 2
"""Dense tables (and the plain compact tables of earlier releases, still read)."""
COMPRESSED_VERSION = 3
"""Compact tables: their ``scores`` compressed in blocks (:mod:`solver.storage.blockarray`)."""
KINDS = ("dense", "compact", "book")
ALIGN = 64
DIGEST_BYTES = 32
MIN_BLOCK_BYTES = 64 << 10
"""Smallest block: hashing one takes about 40 µs here, the first-touch cost of a look-up."""
MAX_BLOCKS = 1 << 16
"""Larger arrays get larger blocks, so the digests stay at most 2 MiB."""
MAX_HEADER_BYTES = 1 << 20
NOT_A_TABLE = "not a solved-tictactoe table (its first bytes are not a table's magic bytes): check the path; the file was left as it is"
"""What opening a file that is no table says: no command that would write there (it may be a user's file)."""

ENTRY = np.dtype([("best", "<u2"), ("ply", "u1"), ("score", "i1")])
"""One code's entry in a dense table: 4 bytes, so one memory access answers a look-up.

The score is the last byte, the most significant of the little-endian 32-bit word:
an unreachable code (score -128) is a word below ``-2**31 + 2**24`` as int32, so a
batch is checked with one reduction.

``score``: for the side to move (:mod:`solver.rules.score`; ``UNREACHABLE`` if no game
reaches the code); ``ply``: pieces on the board; ``best``: bit ``cell`` set for
every best move (0 for finished and unreachable boards).
"""

ENCODING = "cell = row * cols + col; digit 0 empty, 1 X, 2 O; code = sum(digit * 3**cell); X moves first"
SCORE = (
    "score: int8 for the side to move: 100-d win in d plies, 0 draw, -(100-d) loss in d plies, "
    "-128 unreachable; ply: pieces on the board; best: uint16, bit cell set for every best move"
)

ArrayParts = np.ndarray | Iterable[np.ndarray]
"""An array, or 1-D arrays of one dtype written one after the other (a compact table's
``scores`` may be an iterator: streamed, never held in memory at once)."""


def rebuild_command(game: Game, path: Path | str, *, force: bool = False) -> str:
    """The shell command that rebuilds the table file at ``path`` (``force``: it holds a table of another game,
    which ``solve build`` replaces only when told to)."""
    return f"solve build --game {game.name} --output {path}{' --force' if force else ''}"


def dense_entries(score: np.ndarray, ply: np.ndarray, best: np.ndarray) -> np.ndarray:
    """Pack a dense build's three per-code arrays into :data:`ENTRY` records."""
    entries = np.empty(score.shape, dtype=ENTRY)
    entries["score"] = score
    entries["ply"] = ply
    entries["best"] = best
    return entries


# -- the header -------------------------------------------------------------------
@dataclass(frozen=True)
class ArraySpec:
    """Where one array lies in a file, and which digests cover it."""

    name: str
    dtype: np.dtype[Any]
    shape: tuple[int, ...]
    offset: int
    first_block: int
    encoding: Encoding | None = None
    """How the array is compressed (None: stored plain, C order)."""

    @property
    def nbytes(self) -> int:
        """Size of the array in bytes (decoded)."""
        return math.prod(self.shape) * self.dtype.itemsize  # Python ints: no numpy call on the open path (asked a dozen times)

    @property
    def stored_bytes(self) -> int:
        """Bytes the array takes in the file: the plain array, or the compressed region (blocks, offsets, CRCs)."""
        return self.nbytes if self.encoding is None else self.encoding.region_bytes

    def blocks(self, block_bytes: int) -> int:
        """How many digests cover the array: blocks of ``block_bytes``, or the compressed blocks."""
        if self.encoding is not None:
            return self.encoding.blocks
        return -(-self.nbytes // block_bytes)


@dataclass(frozen=True)
class Header:
    """A table file's header, checked and typed (see the module docstring)."""

    kind: str
    game: Game
    meta: Mapping[str, Any]
    arrays: tuple[ArraySpec, ...]
    block_bytes: int
    digests_offset: int
    root: str
    format_version: int = FORMAT_VERSION

    def spec(self, name: str) -> ArraySpec:
        """The array called ``name``.

        :raises KeyError: if the file has no such array.
        """
        for spec in self.arrays:
            if spec.name == name:
                return spec
        raise KeyError(name)

    @property
    def stages(self) -> tuple[str, ...]:
        """The checks every block of the file passes (:func:`solver.storage.integrity.declared_stages`): declared by
        the format version and the kind, so no header holds a key for them and every root is what it was."""
        return declared_stages(self.format_version, self.kind)

    @property
    def digest_count(self) -> int:
        """Number of block digests in the file."""
        return sum(spec.blocks(self.block_bytes) for spec in self.arrays)

    @property
    def end(self) -> int:
        """The file's size in bytes."""
        return self.digests_offset + DIGEST_BYTES * self.digest_count


def _dtype_text(dtype: np.dtype[Any]) -> Any:
    return dtype.descr if dtype.names else dtype.str


def _array_dict(spec: ArraySpec) -> dict[str, Any]:
    found = {"name": spec.name, "dtype": _dtype_text(spec.dtype), "shape": list(spec.shape), "offset": spec.offset, "first_block": spec.first_block}
    if spec.encoding is not None:
        found["encoding"] = spec.encoding.to_json()
    return found


def _game_dict(game: Game) -> dict[str, Any]:
    """The header's ``game``: its shape and name, and its rule's suffix when the rule is not normal play
    (so that tables of normal play keep the bytes they had before rules had names)."""
    found: dict[str, Any] = {"rows": game.rows, "cols": game.cols, "k": game.k, "name": game.name}
    if game.variant:
        found["variant"] = game.variant
    return found


def _header_dict(header: Header) -> dict[str, Any]:
    game = header.game
    return {
        "format": "solved-tictactoe table",
        "format_version": header.format_version,
        "kind": header.kind,
        "game": _game_dict(game),
        "meta": dict(header.meta),
        "encoding": ENCODING,
        "score": SCORE,
        "block_bytes": header.block_bytes,
        "arrays": [_array_dict(spec) for spec in header.arrays],
        "digests": {"offset": header.digests_offset, "count": header.digest_count},
    }


def _content_dict(header: Header) -> dict[str, Any]:
    """The header as the root of a compressed file hashes it: without what depends on the compressed bytes.

    Offsets, the codec, its level and the compressed size are left out, so the root names
    the content: the same scores give the same root whichever codec wrote them (zstd, or
    zlib where zstd is not installed) and whichever version of the codec library.
    """
    data = _header_dict(header)
    for array in data["arrays"]:
        del array["offset"]
        if "encoding" in array:
            array["encoding"] = {key: array["encoding"][key] for key in ("block_bytes", "size")}
    del data["digests"]["offset"]
    return data


def _dump(data: Mapping[str, Any]) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def root_of(header: Header, digests: bytes) -> str:
    """The table checksum: SHA-256 of the canonical header (without ``root``) and the digests.

    For a compressed file (format version 3) the header is hashed without the fields that
    depend on the compressed bytes (:func:`_content_dict`); the digests are of the decoded blocks.
    """
    data = _content_dict(header) if header.format_version == COMPRESSED_VERSION else _header_dict(header)
    root = hashlib.sha256(_dump(data))
    root.update(digests)  # not concatenated: a copy of 79 MB of digests for 5x5k4 cost as much as hashing them
    return root.hexdigest()


def block_bytes_for(nbytes: int) -> int:
    """The block size for arrays of ``nbytes`` in all: a power of two, at least 64 KiB, at most 65,536 blocks."""
    size = MIN_BLOCK_BYTES
    while -(-nbytes // size) > MAX_BLOCKS:
        size *= 2
    return size


def _align(offset: int) -> int:
    return -(-offset // ALIGN) * ALIGN


def _layout(kind: str, game: Game, meta: Mapping[str, Any], shapes: Mapping[str, tuple[np.dtype[Any], tuple[int, ...]]]) -> tuple[Header, int]:
    """The header of a file holding arrays of these dtypes and shapes, and the header's padded length."""
    total = sum(int(np.prod(shape, dtype=np.int64)) * dtype.itemsize for dtype, shape in shapes.values())
    block = block_bytes_for(total)
    start = 0
    while True:
        specs, offset, first = [], _align(12 + start), 0
        for name, (dtype, shape) in shapes.items():
            spec = ArraySpec(name, dtype, shape, offset, first)
            specs.append(spec)
            offset = _align(offset + spec.nbytes)
            first += spec.blocks(block)
        header = Header(kind, game, dict(meta), tuple(specs), block, offset, "0" * 64)
        length = len(_dump({**_header_dict(header), "root": header.root}))
        if 12 + length <= _align(12 + start):
            return header, _align(12 + start) - 12
        start = length


# -- writing ----------------------------------------------------------------------
def _parts(arrays: ArrayParts) -> list[np.ndarray]:
    if isinstance(arrays, np.ndarray):
        return [arrays]
    return list(arrays)


def write_table(
    path: str | os.PathLike[str],
    *,
    kind: str,
    game: Game,
    arrays: Mapping[str, ArrayParts],
    meta: Mapping[str, Any] | None = None,
    verify: bool = False,
    built_here: bool = False,
) -> Path:
    """Write a table file atomically; the same arrays always give the same bytes.

    :param arrays: each named array, or a sequence of 1-D parts of one dtype
        written one after the other (e.g. the layers of a compact table,
        memory-mapped: they are streamed, never concatenated in memory).
    :param verify: check the new file before it replaces ``path``: its checksum must
        be the one the package expects for the game (:func:`expected_root`, where one
        ships) and it must open as a table of ``game`` (header, layout, digests read
        back from disk). A file that fails is removed and ``path`` left as it was.
    :param built_here: this user's build wrote the arrays: when no checksum ships for the
        game and kind, the table's checksum is recorded as trusted (:mod:`solver.storage.trust`).
    :raises TableError: if the target exists and is not a regular file, the
        directory cannot be written, or the disk is full (naming the path and
        the bytes needed); with ``verify``, if the new table fails its check.
    """
    path = Path(path)
    if kind == "compact":
        scores = arrays["scores"]
        return _write_compressed(path, game, [scores] if isinstance(scores, np.ndarray) else scores, meta or {}, verify=verify, built_here=built_here)
    header, length, parts = _plan(kind, game, arrays, meta)
    refuse_non_regular(path)
    check_space(path, header.end)
    with atomic_file(path, check=_reads_back(path, game) if verify else None, needed=header.end) as out:
        out.write(_head(header, length))
        digests = bytearray()
        for spec in header.arrays:
            out.seek(spec.offset)
            digests += _write_blocks(out, parts[spec.name], header.block_bytes)
        out.seek(header.digests_offset)
        out.write(digests)
        header = Header(header.kind, header.game, header.meta, header.arrays, header.block_bytes, header.digests_offset, root_of(header, bytes(digests)))
        expected = trust.build_refusal(header.root, game, kind) if verify else None
        if expected is not None:
            raise TableError(
                f"{path}: the {game.name} table just built has checksum {header.root}, not the expected {expected}; "
                f"it was not written, and {path} was left as it was"
            )
        out.seek(0)
        out.write(_head(header, length))
    if built_here:
        trust.built_here(path.parent, game, kind, header.root)
    return path


def _reads_back(path: Path, game: Game) -> Callable[[Path], None]:
    """A check of a table file just written to a temporary file, before it replaces ``path``."""

    def check(written: Path) -> None:
        try:
            open_table(written, game=game, follow_symlinks=False)
        except TableError as error:
            raise TableError(f"{path}: the {game.name} table just written does not read back ({error}); {path} was left as it was") from None

    return check


def _plan(kind: str, game: Game, arrays: Mapping[str, ArrayParts], meta: Mapping[str, Any] | None) -> tuple[Header, int, dict[str, list[np.ndarray]]]:
    """The header (root not yet known) and padded header length of a file holding ``arrays``."""
    if kind not in KINDS:
        raise ValueError(f"unknown table kind {kind!r}: expected one of {KINDS}")
    parts = {name: _parts(value) for name, value in arrays.items()}
    shapes: dict[str, tuple[np.dtype[Any], tuple[int, ...]]] = {}
    for name, pieces in parts.items():
        dtypes = {piece.dtype for piece in pieces}
        if len(dtypes) != 1:
            raise ValueError(f"array {name!r} has parts of different dtypes: {sorted(map(str, dtypes))}")
        shape = pieces[0].shape if len(pieces) == 1 else (sum(piece.size for piece in pieces),)
        shapes[name] = (dtypes.pop(), tuple(int(n) for n in shape))
    header, length = _layout(kind, game, meta or {}, shapes)
    return header, length, parts


def _compressed_header(game: Game, meta: Mapping[str, Any], encoding: Encoding, offset: int, digests_offset: int, root: str = "0" * 64) -> Header:
    spec = ArraySpec("scores", np.dtype("i1"), (encoding.size,), offset, 0, encoding)
    return Header("compact", game, dict(meta), (spec,), encoding.block_bytes, digests_offset, root, COMPRESSED_VERSION)


def _write_compressed(path: Path, game: Game, parts: Iterable[np.ndarray], meta: Mapping[str, Any], *, verify: bool, built_here: bool) -> Path:
    """Write a compact table (format version 3) from every board's stored byte: :func:`write_compressed` of
    the parts cut into blocks and compressed with the default codec."""
    codec = blockarray.codec_of(blockarray.default_codec())
    blocks = blockarray.encode_blocks(parts, codec=codec.name, level=codec.default_level)
    return write_compressed(path, game, blocks, meta, codec=codec.name, level=codec.default_level, verify=verify, built_here=built_here)


def write_compressed(
    path: str | os.PathLike[str],
    game: Game,
    blocks: Iterable[EncodedBlock],
    meta: Mapping[str, Any],
    *,
    codec: str,
    level: int,
    verify: bool = False,
    built_here: bool = False,
) -> Path:
    """Write a compact table (format version 3) atomically from its score blocks, already compressed, in order.

    The header's space is reserved for the largest numbers it could hold, the region
    (:func:`solver.storage.blockarray.write_encoded`) is streamed after it, then the digests, then
    the header with the sizes found. ``verify`` and ``built_here`` as for :func:`write_table`.

    :param blocks: every block of the scores (64 KiB decoded, the last one shorter), compressed with ``codec`` at ``level``.
    :raises ValueError: if the blocks do not hold exactly the game's boards.
    """
    path = Path(path)
    size = layout(game).size
    far = 1 << 50
    placeholder = _compressed_header(game, meta, Encoding(codec, level, blockarray.DEFAULT_BLOCK_BYTES, size, far), far, far)
    offset = _align(12 + len(_dump({**_header_dict(placeholder), "root": placeholder.root})))
    length = offset - 12
    refuse_non_regular(path)
    estimate = offset + size // 4 + DIGEST_BYTES * placeholder.digest_count  # a compressed table is far smaller
    check_space(path, estimate)
    with atomic_file(path, check=_reads_back(path, game) if verify else None, needed=estimate) as out:
        out.seek(offset)
        written = blockarray.write_encoded(out, blocks, codec=codec, level=level)
        if written.encoding.size != size:
            raise ValueError(f"compact scores of {written.encoding.size:,} boards do not fit {game.name}: expected {size:,}")
        digests_offset = _align(offset + written.encoding.region_bytes)
        out.seek(digests_offset)
        out.write(written.digests)
        header = _compressed_header(game, meta, written.encoding, offset, digests_offset)
        header = _compressed_header(game, meta, written.encoding, offset, digests_offset, root_of(header, written.digests))
        _refuse_unexpected(path, header, verify)
        out.seek(0)
        out.write(_head(header, length))
    if built_here:
        trust.built_here(path.parent, game, "compact", header.root)
    return path


def _refuse_unexpected(path: Path, header: Header, verify: bool) -> None:
    """With ``verify``, a table just built whose checksum is not the shipped one is not written."""
    expected = trust.build_refusal(header.root, header.game, header.kind) if verify else None
    if expected is not None:
        raise TableError(
            f"{path}: the {header.game.name} table just built has checksum {header.root}, not the expected {expected}; "
            f"it was not written, and {path} was left as it was"
        )


def checksums(*, kind: str, game: Game, arrays: Mapping[str, ArrayParts], meta: Mapping[str, Any] | None = None) -> tuple[Header, bytes]:
    """The header and block digests :func:`write_table` would write, without writing (for :func:`root_of`)."""
    if kind == "compact":
        scores = _parts(arrays["scores"])
        encoding = Encoding("zlib", 6, blockarray.DEFAULT_BLOCK_BYTES, layout(game).size, 0)
        return _compressed_header(game, meta or {}, encoding, 0, 0), _write_blocks(None, scores, encoding.block_bytes)
    header, _, parts = _plan(kind, game, arrays, meta)

    digests = b"".join(_write_blocks(None, parts[spec.name], header.block_bytes) for spec in header.arrays)
    return header, digests


def _head(header: Header, length: int) -> bytes:
    text = _dump({**_header_dict(header), "root": header.root})
    return MAGIC + length.to_bytes(4, "little") + text.ljust(length)


def _write_blocks(out: IO[bytes] | None, pieces: list[np.ndarray], block_bytes: int) -> bytes:
    """Write the parts of one array and return the SHA-256 of each of its blocks."""
    digests = bytearray()
    block, filled = hashlib.sha256(), 0
    step = max(block_bytes, 16 << 20)
    for piece in pieces:
        raw = np.ascontiguousarray(piece).reshape(-1).view(np.uint8)
        for start in range(0, raw.size, step):
            chunk = raw[start : start + step].data
            if out is not None:
                out.write(chunk)
            while len(chunk):
                take = min(len(chunk), block_bytes - filled)
                block.update(chunk[:take])
                chunk, filled = chunk[take:], filled + take
                if filled == block_bytes:
                    digests += block.digest()
                    block, filled = hashlib.sha256(), 0
    if filled:
        digests += block.digest()
    return bytes(digests)


# -- reading ----------------------------------------------------------------------
class BlockGuard:
    """Passes a plain array's blocks through their stage (:class:`solver.storage.integrity.BlockChecks`: the
    SHA-256 against the stored digest, then the values) the first time each is used.

    Which blocks passed is :attr:`verified` (the stage's :class:`~solver.storage.integrity.Verified`:
    ``flags[b]`` is 1 once block ``b`` passed in this process). Items of the array map to blocks by
    ``item >> shift``.
    """

    def __init__(self, table_file: TableFile, spec: ArraySpec) -> None:
        self.file = table_file
        self.spec = spec
        block = table_file.header.block_bytes
        self.count = spec.blocks(block)
        self.shift = (block // spec.dtype.itemsize).bit_length() - 1
        self._raw = table_file.array(spec.name).reshape(-1).view(np.uint8)
        self.checks = table_file.checks(spec.name)
        self.verified = self.checks.verified

    @property
    def flags(self) -> bytearray:
        """``flags[b]``: whether block ``b`` passed (:attr:`verified`'s, not a copy)."""
        return self.verified.flags

    @property
    def done(self) -> bool:
        """Whether every block passed."""
        return self.verified.done

    def ensure(self, item: int) -> None:
        """Verify the block holding ``item`` unless done already."""
        block = item >> self.shift
        if not self.verified.flags[block]:
            self.verify_block(block)

    def ensure_items(self, items: np.ndarray) -> None:
        """Verify every block that any of ``items`` (in range) falls in."""
        if self.done or not items.size:
            return
        if items.size >= self.count:
            self.ensure_all()
            return
        flags = self.verified.flags
        for block in np.unique(items >> self.shift).tolist():
            if 0 <= block < self.count and not flags[block]:
                self.verify_block(block)

    def ensure_range(self, start: int, stop: int) -> None:
        """Verify the blocks of items ``start`` to ``stop - 1``."""
        if self.done or stop <= start:
            return
        flags = self.verified.flags
        for block in range(start >> self.shift, ((stop - 1) >> self.shift) + 1):
            if not flags[block]:
                self.verify_block(block)

    def ensure_all(self) -> None:
        """Verify every block not yet verified."""
        flags = self.verified.flags
        for block in range(self.count):
            if not flags[block]:
                self.verify_block(block)

    def where(self, block: int) -> str:
        """What a message calls a block: its number, its array and its bytes in the file."""
        size = self.file.header.block_bytes
        start = self.spec.offset + block * size
        stop = self.spec.offset + min(self.spec.nbytes, (block + 1) * size)
        return f"block {block} of {self.spec.name!r} (bytes {start:,} to {stop - 1:,} of the file)"

    def verify_block(self, block: int, check: ValuesCheck | None = None) -> None:
        """Pass one block through its stage (``check``: the values check to run instead of the declared one).

        :raises TableError: naming the file, the array, the block and the rebuild command.
        """
        size = self.file.header.block_bytes
        self.checks.plain(block, self._raw[block * size : (block + 1) * size], values=check)

    def verified_array(self) -> np.ndarray:
        """The whole array in this process's own memory, each block passed through its stage in the copy (a
        server holds its tables so).

        The bytes are read with ``pread``, not through the memory map: a file truncated meanwhile gives a
        :class:`TableError`, not SIGBUS. Each block is checked after it was copied, so no later write to the
        file reaches the copy.

        :raises TableError: at the first block that cannot be read or does not pass.
        """
        region = self.file.region(self.spec.name)
        mapped = self.file.array(self.spec.name)
        out = np.empty(mapped.shape, dtype=mapped.dtype)
        raw = out.reshape(-1).view(np.uint8)
        size = self.file.header.block_bytes
        for block in range(self.count):
            start, stop = block * size, min(raw.size, (block + 1) * size)
            try:
                data = region.read(start, stop)
            except OSError as error:
                raise self.file.error(f"block {block} of {self.spec.name!r} cannot be read ({error.strerror or error})") from None
            if len(data) != stop - start:
                raise self.file.error(f"block {block} of {self.spec.name!r} is past the end of the file: it was truncated after it was opened")
            raw[start:stop] = np.frombuffer(data, dtype=np.uint8)
            self.checks.plain(block, raw[start:stop])
        return out

    def verified_copy(self, block: int) -> bytes:
        """A copy of block ``block`` in this process's own memory, passed through its stage **after** copying.

        Whatever writes the file later (a memory map shows every write) cannot change the
        copy, and no write between checking and reading can slip in. Checks every time.

        :raises TableError: if the copy does not pass.
        """
        size = self.file.header.block_bytes
        data = self._raw[block * size : (block + 1) * size].tobytes()
        self.checks.plain(block, data)
        return data

    def problems(self, *, check: ValuesCheck | None = None) -> list[str]:
        """Verify every block (``check``: as :meth:`verify_block`'s); the damaged ones, described (empty when all pass)."""
        found = []
        for block in range(self.count):
            try:
                self.verify_block(block, check)
            except TableError as error:
                found.append(str(error))
        return found


@dataclass
class TableFile:
    """An open table file: its checked header and its arrays, memory-mapped read-only.

    Get one with :func:`open_table`. Arrays are not verified by opening: each array's blocks pass
    their stage (:meth:`checks`, :mod:`solver.storage.integrity`) on first use, through :meth:`guard`
    (a plain array) or :meth:`compressed` (a compressed one), or all at once (:meth:`verify_all`).
    """

    path: Path
    header: Header
    _digests: bytes = field(repr=False)
    _arrays: Mapping[str, np.ndarray | RegionSource] = field(repr=False)
    _guards: dict[str, BlockGuard] = field(default_factory=dict, repr=False)
    _compressed: dict[str, BlockArray] = field(default_factory=dict, repr=False)
    where: str | None = None
    """What messages call the file (default: its path; a table at a URL: the URL)."""
    fix: str | None = None
    """What a message says to do about a damaged file (default: the rebuild command)."""
    _file: FileRegion | None = field(default=None, repr=False)
    """The whole file on a descriptor of its own, read with ``pread``."""
    _checks: dict[str, BlockChecks] = field(default_factory=dict, repr=False)
    _values: ValuesCheck | None = field(default=None, repr=False)

    def array(self, name: str) -> np.ndarray:
        """The plain array ``name``, memory-mapped read-only and **not yet verified**.

        :raises TableError: for a compressed array (read it with :meth:`compressed`).
        """
        found = self._arrays[name]
        if not isinstance(found, np.ndarray):
            raise self.error(f"array {name!r} is compressed")
        return found

    def region(self, name: str) -> FileRegion:
        """The stored bytes of array ``name`` in the file, read with ``pread``."""
        spec = self.header.spec(name)
        assert self._file is not None, "open_table gives every table file its region"
        return self._file.part(spec.offset, spec.stored_bytes)

    def checks(self, name: str) -> BlockChecks:
        """The stage of array ``name``'s blocks (one per array and file object): the checks the header
        declares (:attr:`Header.stages`), and which blocks passed them (``.verified``).

        :raises TableError: for a compressed array whose offset table is damaged.
        """
        found = self._checks.get(name)
        if found is None:
            spec = self.header.spec(name)
            if spec.encoding is not None:
                found = self.compressed(name).checks
            else:
                found = BlockChecks(
                    self.header.stages,
                    blocks=spec.blocks(self.header.block_bytes),
                    digest=lambda block: self.digest(spec.first_block + block),
                    error=self.error,
                    where=lambda block: self._where(spec, block),
                    dtype=spec.dtype,
                    block_items=self.header.block_bytes // spec.dtype.itemsize,
                    values=self._values,
                )
            self._checks[name] = found
        return found

    def declare_values(self, check: ValuesCheck | None) -> None:
        """The ``values`` stage's callable for every array of the file (a table class declares its rules'
        plausibility check, :mod:`solver.contents.plausible`, before any block is read; None: left out, as
        :func:`solver.storage.trust.checks_values` says for a table whose checksum ships)."""
        self._values = check
        for checks in self._checks.values():
            checks.declare_values(check)

    def _where(self, spec: ArraySpec, block: int) -> str:
        """What a message calls a plain array's block: its number, its array and its bytes in the file."""
        size = self.header.block_bytes
        start = spec.offset + block * size
        stop = spec.offset + min(spec.nbytes, (block + 1) * size)
        return f"block {block} of {spec.name!r} (bytes {start:,} to {stop - 1:,} of the file)"

    def compressed(self, name: str) -> BlockArray:
        """The compressed array ``name`` as a :class:`~solver.storage.blockarray.BlockArray` (one per array and
        file object): each block passed through its stage (CRC, bounded decode, the SHA-256 of its decoded
        bytes against the file's digest, values) whenever it is read from the file.

        :raises TableError: if the array is not compressed, or its offset table is damaged.
        """
        found = self._compressed.get(name)
        if found is None:
            spec = self.header.spec(name)
            if spec.encoding is None:
                raise self.error(f"array {name!r} is not compressed")
            first = spec.first_block
            found = self._compressed[name] = BlockArray(
                self._arrays[name],
                spec.encoding,
                lambda block: self.digest(first + block),
                name=self.where or str(self.path),
                error=self.error,
                origin=spec.offset,
                values=self._values,
            )
            self._checks[name] = found.checks
        return found

    def guard(self, name: str) -> BlockGuard:
        """The :class:`BlockGuard` of plain array ``name`` (one per array and file object)."""
        guard = self._guards.get(name)
        if guard is None:
            guard = self._guards[name] = BlockGuard(self, self.header.spec(name))
        return guard

    def verified(self, name: str) -> Verified:
        """Which blocks of array ``name`` passed their stage in this process (the one record of it)."""
        return self.checks(name).verified

    @property
    def pinned(self) -> bool:
        """Whether the package ships this table's checksum (:func:`solver.storage.trust.expected_root`).

        Opening matched the file's root against it, so a block whose SHA-256 matches its
        digest holds exactly the bytes of the build that was checked before its checksum
        shipped: the values stage is needed only when this is False (:func:`solver.storage.trust.checks_values`).
        """
        return trust.expected_root(self.header.game, self.header.kind) is not None

    def digest(self, index: int) -> bytes:
        """The stored SHA-256 of block ``index`` (counted over all arrays)."""
        return self._digests[index * DIGEST_BYTES : (index + 1) * DIGEST_BYTES]

    def verify_all(self) -> None:
        """Pass every block of every array through its stage.

        :raises TableError: at the first damaged block.
        """
        for spec in self.header.arrays:
            if spec.encoding is not None:
                problems = self.compressed(spec.name).problems()
                if problems:
                    raise TableError(problems[0])
            else:
                self.guard(spec.name).ensure_all()

    def problems(self, check: ValuesCheck | None = None) -> list[str]:
        """Every damaged block of every array, described with its place in the file (empty when the file is whole).

        Every block passes every stage, whatever a look-up would read: a compressed one's CRC, its
        decoding and its digest, a plain one's digest, then the values of each with ``check``
        (``check(first item, items)``: scores impossible where they are stored, which the layer above
        the bytes knows, :func:`solver.contents.plausible.value_check`), even where the checksum ships.
        """
        found = []
        for spec in self.header.arrays:
            if spec.encoding is None:
                found += self.guard(spec.name).problems(check=check)
                continue
            try:
                found += self.compressed(spec.name).problems(check=check)
            except TableError as error:  # the offset table
                found.append(str(error))
        return found

    def error(self, problem: str) -> TableError:
        """A :class:`TableError` naming this file, the problem and what to do (the rebuild command, unless :attr:`fix` says otherwise)."""
        fix = self.fix or f"rebuild it with: {rebuild_command(self.header.game, self.path)}"
        return TableError(f"{self.where or self.path}: {problem}; {fix}")


def expected_root(game: Game, kind: str = "dense") -> str | None:
    """The checksum the package ships for ``game``'s table of this kind, if it ships one: the policy's
    (:func:`solver.storage.trust.expected_root`), asked at every call."""
    return trust.expected_root(game, kind)


def is_shipped(root: str, game: Game, kind: str) -> bool:
    """Whether ``root`` is the checksum the package ships for ``game``'s table of ``kind`` (the policy's:
    :func:`solver.storage.trust.is_shipped`)."""
    return trust.is_shipped(root, game, kind)


def expected_book_root(game: Game, depth: int) -> str | None:
    """The checksum the package expects for ``game``'s book of ``depth`` plies, if it ships one (the policy's:
    :func:`solver.storage.trust.expected_book_root`)."""
    return trust.expected_book_root(game, depth)


def earlier_roots(game: Game, kind: str = "compact") -> tuple[str, ...]:
    """Checksums ``game``'s table had in an earlier version of the format's contents (:func:`solver.storage.trust.earlier_roots`)."""
    return trust.earlier_roots(game, kind)


Fail = Callable[..., TableError]
"""``fail(problem, found_game=None, table=True)``: the :class:`TableError` for a problem with the file being
opened, with the command that rebuilds it (none when ``table`` is False: the file is no table, and a
command that writes there would destroy it)."""


def open_table(path: str | os.PathLike[str], *, game: Game | None = None, follow_symlinks: bool = True) -> TableFile:
    """Open and check a table file: header, layout, root checksum, expected checksum.

    Only the header and the digests are read (kilobytes); the arrays are
    memory-mapped and verified block by block on first use (:class:`BlockGuard`).

    :param game: the game the file must hold.
    :param follow_symlinks: with False, a symbolic link at ``path`` is refused.
    :raises TableError: naming the file, what is wrong and the command that rebuilds it.
    """
    path = Path(path)

    def fail(problem: str, found: Game | None = None, *, table: bool = True) -> TableError:
        if not table:
            return TableError(f"{path}: {problem}")
        fix = rebuild_command(game or found or _game_from_name(path), path)
        return TableError(f"{path}: {problem}; rebuild it with: {fix}")

    fd, size = _open_regular(path, follow_symlinks, fail)
    with os.fdopen(fd, "rb") as handle:
        try:
            header, stored = _read_header(handle, size, fail)
            if game is not None and header.game != game:
                raise TableError(
                    f"{path}: holds {header.game.name}, expected {game.name}: open it as {header.game.name}, "
                    f"or replace it with: {rebuild_command(game, path, force=True)}"
                )
            digests = _read_digests(handle, header, fail)
        except OSError as error:
            raise fail(f"cannot read ({error.strerror})") from None
        _check_root(header, digests, stored, fail)
        whole = FileRegion(os.dup(handle.fileno()), 0, size)
        arrays = _map_arrays(handle, header, whole)
    return TableFile(path, header, digests, arrays, _file=whole)


def _read_digests(handle: IO[bytes], header: Header, fail: Fail) -> bytes:
    """The block digests, read with the alignment bytes before them, which must be zeros (one read)."""
    last = header.arrays[-1]
    end = last.offset + last.stored_bytes
    handle.seek(end)
    tail = handle.read(header.end - end)
    gap = header.digests_offset - end
    if len(tail) < header.end - end:
        raise fail(f"truncated while it was read ({end + len(tail):,} bytes, expected {header.end:,})", header.game)
    if tail[:gap].strip(b"\0"):
        at = end + next(i for i, byte in enumerate(tail[:gap]) if byte)
        raise fail(f"byte {at:,}, in the alignment before the block digests, is not zero: the file is damaged", header.game)
    return tail[gap:]


def _open_regular(path: Path, follow_symlinks: bool, fail: Fail) -> tuple[int, int]:
    """A read-only descriptor of ``path`` and its size, refusing anything but a regular file
    (a FIFO is refused without blocking: ``O_NONBLOCK``, then ``fstat``)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow_symlinks else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise fail("no such table file") from None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise fail("is a symbolic link; refusing to follow it") from None
        raise fail(f"cannot read ({error.strerror})") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise fail(f"is {file_kind(info.st_mode)}, not a table file", table=False)
    return fd, info.st_size


def _read_header(handle: IO[bytes], size: int, fail: Fail) -> tuple[Header, str]:
    """The magic bytes, the header (in its canonical bytes only) and the size the header promises."""
    head = handle.read(12)
    if head[:8] != MAGIC[: len(head[:8])]:
        raise fail(NOT_A_TABLE, table=False)
    if len(head) < 12:
        raise fail(f"truncated ({count(size, 'byte')})")
    length = int.from_bytes(head[8:], "little")
    if length > MAX_HEADER_BYTES:
        raise fail(f"corrupt header (length {length:,} bytes, at most {MAX_HEADER_BYTES:,} expected)")
    raw = handle.read(length)
    if len(raw) < length:
        raise fail(f"truncated ({size} bytes, the header alone needs {12 + length})")
    header, stored = _parse_header(raw, length, fail)
    _check_layout(header, length, fail)
    if raw != _head(header, length)[12:]:
        raise fail(
            "the header is not in its canonical form (an extra key, a number written otherwise, "
            "or other spacing): the checksum covers the canonical bytes only, so the file is damaged or forged",
            header.game,
        )
    if header.end > size:
        raise fail(f"truncated ({size} bytes, expected {header.end})", header.game)
    if header.end < size:
        raise fail(
            f"{size:,} bytes, but its table ends at byte {header.end - 1:,}: bytes {header.end:,} to {size - 1:,} were added, so the file is damaged",
            header.game,
        )
    return header, stored


def read_head(handle: IO[bytes], size: int, fail: Fail) -> tuple[Header, str]:
    """The checked header of a table file of ``size`` bytes read from ``handle`` at its start, and the root it states
    (what :func:`open_table` reads first; a table at a URL reads it from the server's first bytes)."""
    return _read_header(handle, size, fail)


def check_root(header: Header, digests: bytes, stored: str, fail: Fail, *, expected: str | None = None) -> None:
    """The root the header states must be the one its contents hash to, and one the policy believes
    (:func:`solver.storage.trust.refusal`: ``expected``, default the one the package ships for the game or an earlier one)."""
    if expected is None:
        _check_root(header, digests, stored, fail)
        return
    root = root_of(header, digests)
    if root != stored:
        raise fail(f"checksum mismatch: the header says {stored}, its contents hash to {root}: the file is damaged", header.game)
    problem = trust.refusal(root, header.game, header.kind, expected=expected)
    if problem is not None:
        raise fail(problem, header.game)


def placement_problem(header: Header, length: int) -> str | None:
    """What is wrong with where a header puts its arrays and digests, or None when each follows the one
    before as :func:`write_table` places them (a file's size then follows from its contents alone: the
    offsets, unlike the contents, are not under the root checksum).

    :param length: the header's length in bytes (bytes 8 to 11 of the file).
    """
    at = _align(12 + length)
    for spec in header.arrays:
        if spec.offset != at:
            return f"array {spec.name!r} starts at byte {spec.offset:,}, where a table file puts it at {at:,}"
        at = _align(spec.offset + spec.stored_bytes)
    if header.digests_offset != at:
        return f"the digests start at byte {header.digests_offset:,}, where a table file puts them at {at:,}"
    return None


def _check_root(header: Header, digests: bytes, stored: str, fail: Fail) -> None:
    """The root the header states must be the one its contents hash to, and one the policy believes (:func:`solver.storage.trust.refusal`)."""
    root = root_of(header, digests)
    if root != stored:
        first = header.arrays[0].offset
        raise fail(
            f"checksum mismatch: the header says {stored}, its contents hash to {root}: the file is damaged "
            f"in its header (bytes 0 to {first - 1:,}) or its block digests (bytes {header.digests_offset:,} to {header.end - 1:,})",
            header.game,
        )
    if header.kind == "book":  # a book of another depth than the shipped one has no shipped checksum
        problem = trust.book_refusal(root, header.game, _book_depth(header))
    else:
        problem = trust.refusal(root, header.game, header.kind)
    if problem is not None:
        raise fail(problem, header.game)


def _book_depth(header: Header) -> int:
    """The depth a book's header states (-1 when it states none: no shipped checksum is then its)."""
    depth = header.meta.get("depth")
    return depth if type(depth) is int else -1


def _map_arrays(handle: IO[bytes], header: Header, whole: FileRegion) -> dict[str, np.ndarray | RegionSource]:
    """Every array of the file: a plain one memory-mapped read-only (an empty one as an empty array), a
    compressed one as its part of ``whole`` (its blocks are read once each, with ``pread``: a file truncated
    later gives a short read, not SIGBUS)."""
    arrays: dict[str, np.ndarray | RegionSource] = {
        spec.name: np.memmap(handle, dtype=spec.dtype, mode="r", offset=spec.offset, shape=spec.shape)
        if spec.encoding is None
        else whole.part(spec.offset, spec.stored_bytes)
        for spec in header.arrays
        if spec.stored_bytes
    }
    for spec in header.arrays:
        if spec.name not in arrays:  # not setdefault: its default would be made for every array (151 GiB of zeros for 5x5k4)
            arrays[spec.name] = np.zeros(spec.shape, dtype=spec.dtype)
    return arrays


def _parse_header(raw: bytes, length: int, fail: Fail) -> tuple[Header, str]:
    """The typed header from its JSON bytes, every field checked."""
    try:
        data = json.loads(raw.decode("ascii"))
    except (ValueError, UnicodeDecodeError, RecursionError) as error:
        raise fail(f"corrupt header ({type(error).__name__}: {str(error)[:80]})") from None
    found: Game | None = None
    try:
        if not isinstance(data, dict):
            raise TypeError(f"the header is a {type(data).__name__}, expected an object")
        version = data["format_version"]
        if version not in (FORMAT_VERSION, COMPRESSED_VERSION):
            raise fail(f"format version {str(version)[:20]}, expected {FORMAT_VERSION} or {COMPRESSED_VERSION}")
        version = FORMAT_VERSION if version == FORMAT_VERSION else COMPRESSED_VERSION  # 2.0 is written "2.0": not canonical
        spec = data["game"]
        variant = spec.get("variant", "")
        if not isinstance(variant, str):
            raise TypeError(f"the game's variant is a {type(variant).__name__}, expected a string")
        found = Game(_int(spec["rows"]), _int(spec["cols"]), _int(spec["k"]), variant)
        header = _typed_header(data, found, length, version)
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, TableError):
            raise
        raise fail(f"corrupt header ({type(error).__name__}: {str(error)[:120]})", found) from None
    return header, header.root


def _typed_header(data: dict[str, Any], game: Game, length: int, version: int) -> Header:
    """The :class:`Header` of a parsed JSON object (raises ``KeyError``/``TypeError``/``ValueError``)."""
    kind = data["kind"]
    if kind not in KINDS:
        raise ValueError(f"kind {str(kind)[:20]!r}, expected one of {KINDS}")
    meta = data["meta"]
    if not isinstance(meta, dict):
        raise TypeError("meta is not an object")
    block = _int(data["block_bytes"])
    if block < MIN_BLOCK_BYTES or block & (block - 1):
        raise ValueError(f"block size {block}, expected a power of two of at least {MIN_BLOCK_BYTES}")
    specs, end = _array_specs(data["arrays"], block, 12 + length, version)
    digests = data["digests"]
    header = Header(kind, game, meta, tuple(specs), block, _int(digests["offset"]), str(data["root"]), version)
    if header.digests_offset < end or _int(digests["count"]) != header.digest_count:
        raise ValueError("the digests do not follow the arrays")
    _check_kind(header)
    return header


def _array_specs(items: Any, block: int, end: int, version: int) -> tuple[list[ArraySpec], int]:
    """The arrays of the header, each aligned, after the header and the one before it, with its
    digests following the previous array's; and where the last one ends."""
    specs, first = [], 0
    for item in items:
        shape = tuple(_int(n) for n in item["shape"])
        spec = ArraySpec(str(item["name"]), _dtype(item["dtype"]), shape, _int(item["offset"]), _int(item["first_block"]), _encoding(item, version, shape))
        if spec.offset < end or spec.offset % ALIGN:
            raise ValueError(f"array {spec.name!r} starts at byte {spec.offset}, expected an aligned offset from {end}")
        if spec.first_block != first:
            raise ValueError(f"array {spec.name!r} starts at digest {spec.first_block}, expected {first}")
        specs.append(spec)
        end, first = spec.offset + spec.stored_bytes, first + spec.blocks(block)
    return specs, end


def _encoding(item: Any, version: int, shape: tuple[int, ...]) -> Encoding | None:
    """The encoding of an array entry: required in a compressed file, refused in a plain one."""
    if version != COMPRESSED_VERSION:
        if "encoding" in item:
            raise ValueError(f"format version {version} has no compressed arrays")
        return None
    encoding = Encoding.from_json(item["encoding"])
    if shape != (encoding.size,):
        raise ValueError(f"a compressed array of shape {list(shape)} holds {encoding.size} items")
    return encoding


def _int(value: Any) -> int:
    if type(value) is not int or value < 0:
        raise TypeError(f"expected a non-negative integer, found {str(value)[:20]!r}")
    return value


_ALLOWED_DTYPES = {np.dtype(t) for t in ("i1", "u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8")} | {ENTRY}


def _dtype(text: Any) -> np.dtype[Any]:
    """A dtype from its header form; only plain little-endian integers and :data:`ENTRY`."""
    try:
        dtype = np.dtype([tuple(f) for f in text]) if isinstance(text, list) else np.dtype(str(text))
    except (TypeError, ValueError) as error:
        raise ValueError(f"bad dtype {str(text)[:40]}") from error
    if dtype not in _ALLOWED_DTYPES:
        raise ValueError(f"dtype {dtype} is not one a table uses")
    return dtype


def _check_kind(header: Header) -> None:
    """The arrays each kind must have (their sizes: :func:`_check_layout`)."""
    names = [spec.name for spec in header.arrays]
    if header.format_version == COMPRESSED_VERSION:
        encodings = [spec.encoding.block_bytes for spec in header.arrays if spec.encoding is not None]
        if header.kind != "compact" or encodings != [header.block_bytes]:
            raise ValueError(f"format version {COMPRESSED_VERSION} holds a compact table whose scores are compressed in the file's blocks")
    if header.kind == "dense":
        if names != ["entries"] or header.arrays[0].dtype != ENTRY or len(header.arrays[0].shape) != 1:
            raise ValueError(f"a dense table holds one 1-D array 'entries' of {ENTRY}, found {names}")
    elif header.kind == "book":
        dtypes = [spec.dtype for spec in header.arrays]
        if names != ["keys", "scores"] or dtypes != [np.dtype("<u8"), np.dtype("i1")] or any(len(spec.shape) != 1 for spec in header.arrays):
            raise ValueError(f"a book holds two 1-D arrays, 'keys' (uint64) and 'scores' (int8), found {names}")
    elif names != ["scores"] or header.arrays[0].dtype != np.dtype("i1") or len(header.arrays[0].shape) != 1:
        raise ValueError(f"a compact table holds one 1-D int8 array 'scores', found {names}")


def _check_layout(header: Header, length: int, fail: Fail) -> None:
    """The sizes the header declares, against what a table of its game holds (known from the game alone).

    Checked before anything the header declares is read: a forged count of items, blocks or
    compressed bytes never makes opening read or hash more than the game's table would. A
    dense table holds a game of at most :data:`solver.rules.game.DENSE_MAX_CELLS` cells (larger
    ones are compact); its blocks are :func:`block_bytes_for` its entries; a compressed array's
    blocks at most :func:`solver.storage.blockarray.compressed_bound` bytes each on average; and
    each part starts where a table file puts it (:func:`placement_problem`).
    """
    game, spec = header.game, header.arrays[0]
    if header.kind == "book":
        _check_book_layout(header, length, fail)
        return
    if header.kind == "dense" and game.cells > DENSE_MAX_CELLS:
        raise fail(
            f"holds a dense table of {game.name}, {game.cells} cells: dense tables hold games of at most {DENSE_MAX_CELLS} cells, "
            "so the file is damaged or forged",
            game,
        )
    items = game.codes if header.kind == "dense" else layout(game).size
    problem = None
    if spec.shape != (items,):
        problem = f"its {spec.name} declare {spec.shape[0]:,} items, and a {header.kind} {game.name} table holds {items:,}"
    elif spec.encoding is None and header.block_bytes != block_bytes_for(spec.nbytes):
        problem = f"it declares blocks of {header.block_bytes:,} bytes, and a {header.kind} {game.name} table's are {block_bytes_for(spec.nbytes):,}"
    elif spec.encoding is not None and spec.encoding.data_bytes > spec.encoding.blocks * blockarray.compressed_bound(spec.encoding.block_bytes):
        problem = f"it declares {spec.encoding.data_bytes:,} compressed bytes, more than its {spec.encoding.blocks:,} blocks can take"
    if problem is not None:
        raise fail(f"the header does not fit the game's layout: {problem}; the file is damaged or forged", game)
    problem = placement_problem(header, length)
    if problem is not None:
        raise fail(f"not a table file as written ({problem}): the file is damaged or forged", game)


def _check_book_layout(header: Header, length: int, fail: Fail) -> None:
    """A book's sizes: as many scores as keys, as many as the positions its ``meta["plies"]`` counts, in the
    blocks :func:`block_bytes_for` gives them, each part where a table file puts it."""
    keys, scores = header.arrays
    plies = header.meta.get("plies")
    counted = sum(plies) if isinstance(plies, list) and all(type(n) is int and n >= 0 for n in plies) else None
    problem = None
    if keys.shape != scores.shape or counted != keys.shape[0]:
        problem = f"{keys.shape[0]:,} keys, {scores.shape[0]:,} scores and {counted} positions counted by ply must be one number"
    elif header.block_bytes != block_bytes_for(keys.nbytes + scores.nbytes):
        blocks = block_bytes_for(keys.nbytes + scores.nbytes)
        problem = f"it declares blocks of {header.block_bytes:,} bytes, and a book of {keys.shape[0]:,} positions has {blocks:,}"
    else:
        problem = placement_problem(header, length)
    if problem is not None:
        raise fail(f"the header does not fit a book: {problem}; the file is damaged or forged", header.game)


def _game_from_name(path: Path) -> Game:
    """The game a table file's name suggests (``4x4k4.ttt``), else tic-tac-toe."""
    try:
        return parse_game(path.name.split(".")[0])
    except ValueError:
        return Game()


def not_replaceable(path: str | os.PathLike[str], game: Game) -> str | None:
    """Why a build of ``game``'s table should not replace ``path`` unless told to; None when it may.

    It may replace nothing, an empty file, anything but a regular file (the writer refuses
    those itself, saying what is there), and a table of ``game``, whole or damaged (a file
    that starts like a table and whose header cannot be read is a damaged table: its rebuild
    command replaces it). Not a file that does not start with the table's magic bytes (a
    user's notes, ``/etc/passwd``), nor a table of another game.
    """
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return None  # nothing there, or something the writer refuses with its own words
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):  # before os.fdopen, which raises IsADirectoryError for a directory
        os.close(fd)
        return None
    with os.fdopen(fd, "rb") as handle:
        head = handle.read(8)
        if head != MAGIC[: len(head)]:
            return f"{path}: is not a solved-tictactoe table (it does not start with a table's magic bytes)"
        handle.seek(0)
        try:
            header, _ = _read_header(handle, info.st_size, lambda problem, found=None, **_: TableError(problem))
        except (TableError, OSError):
            return None
    if header.game != game:
        return f"{path}: holds the {header.game.name} table, not {game.name}'s"
    return None


def read_header(path: str | os.PathLike[str], *, game: Game | None = None) -> Header:
    """The checked header of a table file (see :func:`open_table`)."""
    return open_table(path, game=game).header
