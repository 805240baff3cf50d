"""A table file's header (:mod:`solver.storage.tablefile` describes the whole format): what it states, as bytes.

The game as numbers and a name (:class:`StoredGame`), the kind, each array's name, type, shape, place and
encoding (:class:`ArraySpec`), the block size and the digests' place (:class:`Header`); the canonical JSON
written after the magic bytes and its length (:func:`head_bytes`), the layout of a new file
(:func:`header_layout`), the root checksum over the header and the digests (:func:`root_of`); and the
reading of a header back, every field typed and checked against the file's length before any array is
mapped (:func:`parse_header`, :func:`check_layout`, :func:`placement_problem`).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..errors import TableError
from . import blockarray
from .blockarray import Encoding
from .integrity import declared_stages

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


class GameShape(Protocol):
    """What a table file writes of its game (a :class:`solver.rules.game.Game` is one): the numbers of its shape and
    its rule's suffix. Storage is bytes: the game itself is the layers above's (:mod:`solver.contents.opening`)."""

    @property
    def rows(self) -> int: ...
    @property
    def cols(self) -> int: ...
    @property
    def k(self) -> int: ...
    @property
    def variant(self) -> str: ...


@dataclass(frozen=True)
class StoredGame:
    """A table file's game as its header states it: plain numbers and the rule's suffix, and the name they spell
    (``4x4k4-misere``: the header's ``name``, written from them). Whether they are a game, and the sizes a table of
    it has, the layers above say (:data:`Fits`)."""

    rows: int
    cols: int
    k: int
    variant: str = ""

    @property
    def name(self) -> str:
        """The name the header writes: ``{rows}x{cols}k{k}``, then ``-{variant}`` when there is one."""
        return f"{self.rows}x{self.cols}k{self.k}" + (f"-{self.variant}" if self.variant else "")

    @property
    def cells(self) -> int:
        """Number of cells."""
        return self.rows * self.cols

    @classmethod
    def of(cls, game: GameShape) -> StoredGame:
        """The stored game of ``game``."""
        return cls(game.rows, game.cols, game.k, game.variant)


Fits = Callable[[StoredGame, str], int | str]
"""``fits(game, kind)``, given by the layers above (:func:`solver.contents.opening.fits`): the number of items a table
of ``kind`` of the header's game holds (a book: any, unused), or the problem (a string) when no table of that kind
holds that game; raises ``ValueError`` when the header's numbers name no game. Called as soon as the header is
parsed, before anything it declares is read."""


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
    game: StoredGame
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


def _game_dict(game: StoredGame) -> dict[str, Any]:
    """The header's ``game``: its shape and name, and its rule's suffix when the rule is not normal play
    (so that tables of normal play keep the bytes they had before rules had names)."""
    found: dict[str, Any] = {"rows": game.rows, "cols": game.cols, "k": game.k, "name": game.name}
    if game.variant:
        found["variant"] = game.variant
    return found


def header_dict(header: Header) -> dict[str, Any]:
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
    data = header_dict(header)
    for array in data["arrays"]:
        del array["offset"]
        if "encoding" in array:
            array["encoding"] = {key: array["encoding"][key] for key in ("block_bytes", "size")}
    del data["digests"]["offset"]
    return data


def canonical_json(data: Mapping[str, Any]) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def root_of(header: Header, digests: bytes) -> str:
    """The table checksum: SHA-256 of the canonical header (without ``root``) and the digests.

    For a compressed file (format version 3) the header is hashed without the fields that
    depend on the compressed bytes (:func:`_content_dict`); the digests are of the decoded blocks.
    """
    data = _content_dict(header) if header.format_version == COMPRESSED_VERSION else header_dict(header)
    root = hashlib.sha256(canonical_json(data))
    root.update(digests)  # not concatenated: a copy of 79 MB of digests for 5x5k4 cost as much as hashing them
    return root.hexdigest()


def block_bytes_for(nbytes: int) -> int:
    """The block size for arrays of ``nbytes`` in all: a power of two, at least 64 KiB, at most 65,536 blocks."""
    size = MIN_BLOCK_BYTES
    while -(-nbytes // size) > MAX_BLOCKS:
        size *= 2
    return size


def aligned(offset: int) -> int:
    return -(-offset // ALIGN) * ALIGN


def header_layout(kind: str, game: StoredGame, meta: Mapping[str, Any], shapes: Mapping[str, tuple[np.dtype[Any], tuple[int, ...]]]) -> tuple[Header, int]:
    """The header of a file holding arrays of these dtypes and shapes, and the header's padded length."""
    total = sum(int(np.prod(shape, dtype=np.int64)) * dtype.itemsize for dtype, shape in shapes.values())
    block = block_bytes_for(total)
    start = 0
    while True:
        specs, offset, first = [], aligned(12 + start), 0
        for name, (dtype, shape) in shapes.items():
            spec = ArraySpec(name, dtype, shape, offset, first)
            specs.append(spec)
            offset = aligned(offset + spec.nbytes)
            first += spec.blocks(block)
        header = Header(kind, game, dict(meta), tuple(specs), block, offset, "0" * 64)
        length = len(canonical_json({**header_dict(header), "root": header.root}))
        if 12 + length <= aligned(12 + start):
            return header, aligned(12 + start) - 12
        start = length


def head_bytes(header: Header, length: int) -> bytes:
    text = canonical_json({**header_dict(header), "root": header.root})
    return MAGIC + length.to_bytes(4, "little") + text.ljust(length)


Fail = Callable[..., TableError]
"""``fail(problem, found_game=None, table=True)``: the :class:`TableError` for a problem with the file being
opened, with the command that rebuilds it (none when ``table`` is False: the file is no table, and a
command that writes there would destroy it)."""


def placement_problem(header: Header, length: int) -> str | None:
    """What is wrong with where a header puts its arrays and digests, or None when each follows the one
    before as :func:`write_table` places them (a file's size then follows from its contents alone: the
    offsets, unlike the contents, are not under the root checksum).

    :param length: the header's length in bytes (bytes 8 to 11 of the file).
    """
    at = aligned(12 + length)
    for spec in header.arrays:
        if spec.offset != at:
            return f"array {spec.name!r} starts at byte {spec.offset:,}, where a table file puts it at {at:,}"
        at = aligned(spec.offset + spec.stored_bytes)
    if header.digests_offset != at:
        return f"the digests start at byte {header.digests_offset:,}, where a table file puts them at {at:,}"
    return None


def parse_header(raw: bytes, length: int, fail: Fail) -> tuple[Header, str]:
    """The typed header from its JSON bytes, every field checked."""
    try:
        data = json.loads(raw.decode("ascii"))
    except (ValueError, UnicodeDecodeError, RecursionError) as error:
        raise fail(f"corrupt header ({type(error).__name__}: {str(error)[:80]})") from None
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
        found = StoredGame(_int(spec["rows"]), _int(spec["cols"]), _int(spec["k"]), variant)
        header = _typed_header(data, found, length, version)
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, TableError):
            raise
        raise fail(f"corrupt header ({type(error).__name__}: {str(error)[:120]})") from None
    return header, header.root


def _typed_header(data: dict[str, Any], game: StoredGame, length: int, version: int) -> Header:
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
    """The arrays each kind must have (their sizes: :func:`check_layout`)."""
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


def check_layout(header: Header, length: int, fail: Fail, items: int) -> None:
    """The sizes the header declares, against what a table of its game holds (known from the game alone).

    Checked before anything the header declares is read: a forged count of items, blocks or
    compressed bytes never makes opening read or hash more than the game's table would. A
    table holds the ``items`` its game's table of its kind has (:data:`Fits`: a dense table, a game of at most
    :data:`solver.rules.game.DENSE_MAX_CELLS` cells); its blocks are :func:`block_bytes_for` its entries; a compressed array's
    blocks at most :func:`solver.storage.blockarray.compressed_bound` bytes each on average; and
    each part starts where a table file puts it (:func:`placement_problem`).
    """
    game, spec = header.game, header.arrays[0]
    if header.kind == "book":
        _check_book_layout(header, length, fail)
        return
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
