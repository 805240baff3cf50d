"""The codecs a compressed block is written and read with (:mod:`solver.storage.blockarray` holds the blocks).

zstd (the ``zstandard`` package, or Python 3.14's ``compression.zstd``) writes every new file; zlib reads
the files written before zstd became a dependency. A :class:`Codec` compresses and decompresses one block,
a decompression never growing past the block's size; :data:`CODECS` names them as an
:class:`~solver.storage.blockarray.Encoding` records them; :func:`default_codec` refuses, with the
``pip install`` command, an environment without zstd before a build starts.
"""

from __future__ import annotations

import shlex
import sys
import threading
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any

from ..errors import CodecUnavailable


@dataclass(frozen=True)
class ZstdTuning:
    """The parameters of zstd's match finder a level is written with here instead of zstd's own for it (the frame is
    plain zstd: any zstd reads it, and a block's digest, of its decoded bytes, does not depend on them)."""

    window_log: int
    """The window, log2 of bytes: 16 holds a whole 64 KiB block."""
    chain_log: int
    hash_log: int
    search_log: int
    """log2 of the candidates the match finder tries at a position."""
    min_match: int
    """The shortest match it looks for, in bytes."""
    target_length: int
    strategy: int
    """zstd's strategy number: 4 is ``lazy``."""

    def as_dict(self) -> dict[str, int]:
        """The parameters by their name in both zstd packages."""
        return {name: getattr(self, name) for name in ("window_log", "chain_log", "hash_log", "search_log", "min_match", "target_length", "strategy")}


TUNED_LEVELS: Mapping[int, ZstdTuning] = {9: ZstdTuning(window_log=16, chain_log=12, hash_log=16, search_log=4, min_match=7, target_length=8, strategy=4)}
"""The zstd levels this package writes with a match finder of its own (:class:`ZstdTuning`); the others are zstd's.

Level 9, the level every table is written at, looks for matches of 7 bytes or more, lazily, among 16 candidates (zstd's
own level 9 for a 64 KiB block: matches of 4 bytes, ``lazy2``, 32 candidates): runs of one score and repeated rows of
scores are long, short matches cost more than they save. Measured 2026-12-06 on the blocks holding more than one score of
6x6k4-gravity's layers 22 to 35 (120 sampled a layer, weighted by the layer's such blocks; one core): 40 % less time
to compress (660 against 1,100 s for the estimated 5.8 M blocks), 1.2 % fewer bytes (7.42 against 7.51 GB), the same
time to decode (17 us a block); on 5x7k4-gravity's, 42 % less time and 4 % fewer bytes. Files written with zstd's own
level 9 read the same (the encoding's level names the level; the match finder is not part of the format).
"""


class _Zstandard:
    """zstd through the ``zstandard`` package (a dependency): each thread reuses its contexts.

    A decompression context made for every block cost about 15 µs of each first touch of a
    block here (``backports.zstd`` makes one per call); this one is made once per thread
    (contexts are not safe to share between threads). The frame header's declared size is
    read before decoding, so a forged header never makes it allocate more than the block.
    """

    def __init__(self, module: ModuleType) -> None:
        self._module = module
        self._local = threading.local()
        self.error: type[Exception] = module.ZstdError

    def compress(self, data: bytes | memoryview, level: int) -> bytes:
        compressors: dict[int, Any] = self._local.__dict__.setdefault("compressors", {})
        compressor = compressors.get(level)
        if compressor is None:
            tuned = TUNED_LEVELS.get(level)
            if tuned is None:
                compressor = self._module.ZstdCompressor(level=level)
            else:
                parameters = self._module.ZstdCompressionParameters(compression_level=level, **tuned.as_dict())
                compressor = self._module.ZstdCompressor(compression_params=parameters)
            compressors[level] = compressor
        return bytes(compressor.compress(data))

    def decompress(self, data: bytes | memoryview, expected: int) -> bytes:
        declared = self._module.frame_content_size(data)  # -1: not declared
        if declared not in (-1, expected):
            raise ValueError(f"the frame declares {declared:,} bytes, expected {expected:,}")
        decompressor = self._local.__dict__.get("decompressor")
        if decompressor is None:
            decompressor = self._local.decompressor = self._module.ZstdDecompressor()
        return bytes(decompressor.decompress(data, max_output_size=expected, allow_extra_data=False))


class _Stdlib:
    """zstd through Python 3.14's ``compression.zstd`` or its backport ``backports.zstd``: a new
    decompressor for every block (the module offers no reusable one-shot context)."""

    def __init__(self, module: ModuleType) -> None:
        self._module = module
        self.error: type[Exception] = module.ZstdError

    def compress(self, data: bytes | memoryview, level: int) -> bytes:
        tuned = TUNED_LEVELS.get(level)
        if tuned is None:
            return bytes(self._module.compress(data, level=level))
        parameter = self._module.CompressionParameter
        options = {parameter.compression_level: level} | {getattr(parameter, name): value for name, value in tuned.as_dict().items()}
        return bytes(self._module.compress(data, options=options))

    def decompress(self, data: bytes | memoryview, expected: int) -> bytes:
        decoder = self._module.ZstdDecompressor()
        try:
            out = decoder.decompress(data, max_length=expected)
        except EOFError as error:
            raise ValueError(str(error)) from None
        if not decoder.eof or decoder.unused_data:
            raise ValueError("not one whole frame")
        return bytes(out)


_ZstdBackend = _Zstandard | _Stdlib


@cache
def _zstd() -> _ZstdBackend | None:
    """The zstd implementation: the ``zstandard`` package (a dependency of the package, contexts
    reused), else Python 3.14's ``compression.zstd`` or its backport ``backports.zstd``, else None
    (an environment that lost ``zstandard``).

    Both write the same bytes for the same block and level (the same libzstd; tested), so a
    table's file does not depend on which one built it. Looked up once per process: a failed
    import is not cached by Python, and searching the path for ``compression`` on every
    block cost about 100 µs of each first touch.
    """
    try:
        import zstandard  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        pass
    else:
        return _Zstandard(zstandard)
    try:
        from compression import zstd  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        try:
            from backports import zstd  # type: ignore[import-not-found, no-redef, unused-ignore]
        except ImportError:
            return None
    return _Stdlib(zstd)


@dataclass(frozen=True)
class Codec:
    """A block compressor: ``compress`` and a bounded ``decompress``."""

    name: str
    default_level: int
    levels: range
    package: str
    """The package this Python needs for it (empty: the standard library)."""
    requirement: str
    """What ``pip install`` installs to bring :attr:`package` (a dependency of this package: only an environment
    installed without its dependencies lacks it)."""

    def available(self) -> bool:
        """Whether this Python can encode and decode it."""
        return self.name == "zlib" or _zstd() is not None

    def require(self) -> None:
        """Raise :class:`CodecUnavailable`, naming what to install, unless :meth:`available`."""
        if not self.available():
            command = f"{shlex.quote(sys.executable)} -m pip install {shlex.quote(self.requirement)}"
            raise CodecUnavailable(f"the {self.name} codec needs {self.package}, a dependency of solved-tictactoe that is not installed here: {command}")

    def compress(self, data: bytes | memoryview, level: int) -> bytes:
        """One block, compressed (deterministic for a given codec version)."""
        if self.name == "zlib":
            return zlib.compress(data, level)
        return self._backend().compress(data, level)

    def decompress(self, data: bytes | memoryview, expected: int) -> bytes:
        """One block, decoded to exactly ``expected`` bytes; never more.

        :raises ValueError: if the data is not one whole frame of exactly ``expected`` bytes.
        """
        if self.name == "zlib":
            inflater = zlib.decompressobj()
            try:
                out = inflater.decompress(data, expected)
            except zlib.error as error:
                raise ValueError(f"zlib: {error}") from None
            if not inflater.eof or inflater.unconsumed_tail or inflater.unused_data:
                raise ValueError(f"decodes to {len(out):,} bytes or more, expected {expected:,} in one stream")
        else:
            backend = self._backend()
            try:
                out = backend.decompress(data, expected)
            except (backend.error, ValueError) as error:
                raise ValueError(f"zstd: {error}") from None
        if len(out) != expected:
            raise ValueError(f"decodes to {len(out):,} bytes, expected {expected:,}")
        return out

    def _backend(self) -> _ZstdBackend:
        backend = _zstd()
        if backend is None:
            self.require()
        assert backend is not None
        return backend


CODECS: Mapping[str, Codec] = {
    "zstd": Codec("zstd", 9, range(1, 23), "zstandard (or Python 3.14's compression.zstd)", "zstandard>=0.23"),
    "zlib": Codec("zlib", 6, range(1, 10), "", ""),
}
"""The codecs a region can be written with, by the name its :class:`Encoding` records.

Chosen by ``scripts/measure_codecs.py`` on the 4x5k4 scores with don't-care boards, 64 KiB
blocks, one core: zstd level 9 stores 0.32 bits per board (25x) at about 115 MB/s and
decodes a block in 30 to 70 µs; level 19 reaches 0.26 bits (31x) but compresses at
4 MB/s, too slow for a 150 GiB build. zlib at level 6 stores 0.36 to 0.40 bits at 65 MB/s and
decodes a block in about 140 µs: it is kept to read the files written before zstd became a
dependency (an install without the ``big`` extra wrote them), never to write new ones. Level 9 is written with a match
finder of this package's since 2026-12-06 (:data:`TUNED_LEVELS`): smaller and faster on scores.
"""


def compressed_bound(block_bytes: int) -> int:
    """The most bytes a block of ``block_bytes`` compresses to with any codec of :data:`CODECS`.

    zstd's bound (``ZSTD_COMPRESSBOUND``) is the size plus 1/256 of it plus at most 64 bytes for
    a block under 128 KiB; zlib's (``deflateBound``) less. A compressed block longer than this is
    refused before its CRC is computed, so a forged offset table cannot make one block's check
    read more than this.
    """
    return block_bytes + (block_bytes >> 7) + 1024


def default_codec() -> str:
    """The codec every new file is written with: ``"zstd"`` (``zstandard`` is a dependency), so
    every install writes the same, smaller files; zlib only reads older ones.

    :raises CodecUnavailable: in an environment without any zstd (installed without the package's
        dependencies), with the ``pip install`` command; before a build starts, not after its hours.
    """
    CODECS["zstd"].require()
    return "zstd"


@cache
def new_file_codec() -> Codec:
    """The :class:`Codec` new files are written with (:func:`default_codec`), found once per process: a build's
    spooled chunks and its bits of the boards reached, which only that build reads."""
    return codec_of(default_codec())


def codec_of(name: str) -> Codec:
    """The :class:`Codec` called ``name``.

    :raises ValueError: for a codec this module does not know.
    """
    try:
        return CODECS[name]
    except KeyError:
        raise ValueError(f"unknown codec {name!r}: expected one of {sorted(CODECS)}") from None
