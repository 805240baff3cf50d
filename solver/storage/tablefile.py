"""Every on-disk table format in one place: magic, a typed header, arrays, block checksums; save, open, verify.

This module writes a table file (:func:`write_table`, :func:`write_compressed`, :func:`checksums`); its
header is :mod:`solver.storage.header`'s, opening and reading one :mod:`solver.storage.openfile`'s, whose
names it re-exports (``tablefile.TableFile``, ``tablefile.open_table``, ``tablefile.root_of``, ...).

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

import hashlib
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import IO, Any

import numpy as np

from ..errors import TableError
from . import blockarray, trust
from .blockarray import EncodedBlock, EncodedRun, Encoding
from .fsutil import atomic_file, check_space, refuse_non_regular
from .header import COMPRESSED_VERSION as COMPRESSED_VERSION
from .header import DIGEST_BYTES as DIGEST_BYTES
from .header import ENTRY as ENTRY
from .header import FORMAT_VERSION as FORMAT_VERSION
from .header import KINDS, GameShape, aligned, canonical_json, head_bytes, header_dict, header_layout
from .header import MAGIC as MAGIC
from .header import MAX_HEADER_BYTES as MAX_HEADER_BYTES
from .header import ArraySpec as ArraySpec
from .header import Fail as Fail
from .header import Fits as Fits
from .header import Header as Header
from .header import StoredGame as StoredGame
from .header import placement_problem as placement_problem
from .header import root_of as root_of
from .openfile import BlockGuard as BlockGuard
from .openfile import TableFile as TableFile
from .openfile import check_root as check_root
from .openfile import expected_root as expected_root
from .openfile import is_shipped as is_shipped
from .openfile import not_replaceable as not_replaceable
from .openfile import open_table as open_table
from .openfile import read_head as read_head
from .openfile import read_header as read_header
from .openfile import rebuild_command as rebuild_command

ArrayParts = np.ndarray | Iterable[np.ndarray]
"""An array, or 1-D arrays of one dtype written one after the other (a compact table's
``scores`` may be an iterator: streamed, never held in memory at once)."""


def dense_entries(score: np.ndarray, ply: np.ndarray, best: np.ndarray) -> np.ndarray:
    """Pack a dense build's three per-code arrays into :data:`ENTRY` records."""
    entries = np.empty(score.shape, dtype=ENTRY)
    entries["score"] = score
    entries["ply"] = ply
    entries["best"] = best
    return entries


# -- writing ----------------------------------------------------------------------
def _parts(arrays: ArrayParts) -> list[np.ndarray]:
    if isinstance(arrays, np.ndarray):
        return [arrays]
    return list(arrays)


def write_table(
    path: str | os.PathLike[str],
    *,
    kind: str,
    game: GameShape,
    arrays: Mapping[str, ArrayParts],
    meta: Mapping[str, Any] | None = None,
    boards: int | None = None,
    verify: bool = False,
    built_here: bool = False,
) -> Path:
    """Write a table file atomically; the same arrays always give the same bytes.

    :param arrays: each named array, or a sequence of 1-D parts of one dtype
        written one after the other (e.g. the layers of a compact table,
        memory-mapped: they are streamed, never concatenated in memory).
    :param boards: a compact table: the number of boards its scores must hold (:func:`write_compressed`).
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
    path, game = Path(path), StoredGame.of(game)
    if kind == "compact":
        scores = arrays["scores"]
        if boards is None:
            raise ValueError("a compact table is written with the number of boards it holds (boards=)")
        pieces = [scores] if isinstance(scores, np.ndarray) else scores
        return _write_compressed(path, game, pieces, meta or {}, boards=boards, verify=verify, built_here=built_here)
    header, length, parts = _plan(kind, game, arrays, meta)
    refuse_non_regular(path)
    check_space(path, header.end)
    with atomic_file(path, check=_reads_back(path, header) if verify else None, needed=header.end) as out:
        out.write(head_bytes(header, length))
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
        out.write(head_bytes(header, length))
    if built_here:
        trust.built_here(path.parent, game, kind, header.root)
    return path


def _reads_back(path: Path, planned: Header) -> Callable[[Path], None]:
    """A check of a table file just written to a temporary file, before it replaces ``path``: it opens as a table of
    the planned game, its first array of the planned number of items (the sizes its writer was given)."""
    game, items = planned.game, planned.arrays[0].shape[0]

    def check(written: Path) -> None:
        try:
            open_table(written, lambda found, kind: items, game=game, follow_symlinks=False)
        except TableError as error:
            raise TableError(f"{path}: the {game.name} table just written does not read back ({error}); {path} was left as it was") from None

    return check


def _plan(kind: str, game: StoredGame, arrays: Mapping[str, ArrayParts], meta: Mapping[str, Any] | None) -> tuple[Header, int, dict[str, list[np.ndarray]]]:
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
    header, length = header_layout(kind, game, meta or {}, shapes)
    return header, length, parts


def _compressed_header(game: StoredGame, meta: Mapping[str, Any], encoding: Encoding, offset: int, digests_offset: int, root: str = "0" * 64) -> Header:
    spec = ArraySpec("scores", np.dtype("i1"), (encoding.size,), offset, 0, encoding)
    return Header("compact", game, dict(meta), (spec,), encoding.block_bytes, digests_offset, root, COMPRESSED_VERSION)


def _write_compressed(
    path: Path, game: StoredGame, parts: Iterable[np.ndarray], meta: Mapping[str, Any], *, boards: int, verify: bool, built_here: bool
) -> Path:
    """Write a compact table (format version 3) from every board's stored byte: :func:`write_compressed` of
    the parts cut into blocks and compressed with the default codec."""
    codec = blockarray.codec_of(blockarray.default_codec())
    blocks = blockarray.encode_blocks(parts, codec=codec.name, level=codec.default_level)
    return write_compressed(path, game, blocks, meta, boards=boards, codec=codec.name, level=codec.default_level, verify=verify, built_here=built_here)


def write_compressed(
    path: str | os.PathLike[str],
    game: GameShape,
    blocks: Iterable[EncodedBlock | EncodedRun],
    meta: Mapping[str, Any],
    *,
    boards: int,
    codec: str,
    level: int,
    verify: bool = False,
    built_here: bool = False,
    packed_bytes: int | None = None,
) -> Path:
    """Write a compact table (format version 3) atomically from its score blocks, already compressed, in order.

    The header's space is reserved for the largest numbers it could hold, the region
    (:func:`solver.storage.blockarray.write_encoded`) is streamed after it, then the digests, then
    the header with the sizes found. ``verify`` and ``built_here`` as for :func:`write_table`.

    :param blocks: every block of the scores (64 KiB decoded, the last one shorter), compressed with ``codec`` at ``level``,
        one at a time or in runs.
    :param boards: the number of boards of the game's compact table (:attr:`solver.encoding.layouts.Layout.size`).
    :param packed_bytes: the blocks' compressed bytes in all, when known (a sealed build's): the free disk asked for
        before writing is then what the file takes, not a quarter of a byte a board (33 GB for 4x8k4-gravity, whose
        blocks take a few).
    :raises ValueError: if the blocks do not hold exactly ``boards`` boards.
    """
    path, game, size = Path(path), StoredGame.of(game), boards
    far = 1 << 50
    placeholder = _compressed_header(game, meta, Encoding(codec, level, blockarray.DEFAULT_BLOCK_BYTES, size, far), far, far)
    offset = aligned(12 + len(canonical_json({**header_dict(placeholder), "root": placeholder.root})))
    length = offset - 12
    refuse_non_regular(path)
    # a compressed table is far smaller than a quarter of a byte a board; its region: the blocks, an offset and a CRC each
    region = size // 4 if packed_bytes is None else packed_bytes + 16 * (placeholder.digest_count + 1)
    estimate = offset + region + DIGEST_BYTES * placeholder.digest_count
    check_space(path, estimate)
    with atomic_file(path, check=_reads_back(path, placeholder) if verify else None, needed=estimate) as out:
        out.seek(offset)
        written = blockarray.write_encoded(out, blocks, codec=codec, level=level)
        if written.encoding.size != size:
            raise ValueError(f"compact scores of {written.encoding.size:,} boards do not fit {game.name}: expected {size:,}")
        digests_offset = aligned(offset + written.encoding.region_bytes)
        out.seek(digests_offset)
        out.write(written.digests)
        header = _compressed_header(game, meta, written.encoding, offset, digests_offset)
        header = _compressed_header(game, meta, written.encoding, offset, digests_offset, root_of(header, written.digests))
        _refuse_unexpected(path, header, verify)
        out.seek(0)
        out.write(head_bytes(header, length))
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


def checksums(
    *, kind: str, game: GameShape, arrays: Mapping[str, ArrayParts], meta: Mapping[str, Any] | None = None, boards: int | None = None
) -> tuple[Header, bytes]:
    """The header and block digests :func:`write_table` would write, without writing (for :func:`root_of`; ``boards``
    as for :func:`write_table`)."""
    game = StoredGame.of(game)
    if kind == "compact":
        if boards is None:
            raise ValueError("a compact table's checksums are computed with the number of boards it holds (boards=)")
        scores = _parts(arrays["scores"])
        encoding = Encoding("zlib", 6, blockarray.DEFAULT_BLOCK_BYTES, boards, 0)
        return _compressed_header(game, meta or {}, encoding, 0, 0), _write_blocks(None, scores, encoding.block_bytes)
    header, _, parts = _plan(kind, game, arrays, meta)

    digests = b"".join(_write_blocks(None, parts[spec.name], header.block_bytes) for spec in header.arrays)
    return header, digests


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
