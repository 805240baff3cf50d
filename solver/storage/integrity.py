"""Integrity as one stage: every check a table's block passes, and the one record of which blocks passed.

A table file's blocks carry checks, and the file's header declares which: the stages are
implied by its ``format_version`` and ``kind`` (:func:`declared_stages`), so no header gained a key
and every file, and every shipped checksum, is byte for byte what it was.

=====================  ====================  ================================================
format version, kind   stages, in order      what each refuses
=====================  ====================  ================================================
2, ``dense``           ``sha256``,           a block whose SHA-256 is not its stored digest;
                       ``values``            a value no position where it is stored can hold
2, ``compact``         the same              (a plain compact table of earlier releases)
3, ``compact``         ``crc32``, ``decode``, a compressed block whose CRC-32 does not match
                       ``sha256``,           (damage, before any decoder reads it); one that
                       ``values``            does not decode to exactly its size; then as above,
                                             on the *decoded* bytes
=====================  ====================  ================================================

``sha256`` is against the digests the root checksum covers (:func:`solver.storage.tablefile.root_of`),
and that root against the checksum the package ships or the table is trusted by
(:mod:`solver.storage.trust`, the policy): a block that passes ``sha256`` is the byte for byte
block of the table the root names. ``values`` is the plausibility stage: storage knows bytes,
not rules, so it takes a callable (:data:`ValuesCheck`) from the layer that knows the rules
(:mod:`solver.contents.plausible`'s checks, which the table classes declare with
:meth:`solver.storage.tablefile.TableFile.declare_values`); the policy leaves it out where the
table's checksum ships (its bytes are then those of a proved build).

**One notion of verified.** :class:`BlockChecks` runs the stages of one array's blocks and marks
each block that passed them all in that array's :class:`Verified`, the one record of which blocks
passed in this process. A plain array is memory-mapped, so a block is checked once and then read
as it is while its flag is set; a compressed block is checked every time it is decoded (its
decoded copy is then what is read), and marked too. The table classes read the same
:class:`Verified` (a dense table's look-up tests its flag), never a copy of it.

**A source that keeps copies** (the block cache of a table at a URL) keeps a block only after it
passed every stage: the block array tells it so (:meth:`solver.storage.blockarray.RegionSource.passed`,
after :meth:`BlockChecks.packed`). A reader holding a block's bytes outside a block array asks
:meth:`BlockChecks.passes` of the region's stage (:func:`solver.storage.blockarray.region_checks`, made
from the bytes a server's head gives: its encoding, offset table and CRCs, and digests).
"""

from __future__ import annotations

import hashlib
import threading
import zlib
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..errors import TableError

CRC32 = "crc32"
"""The CRC-32 of a compressed block's stored bytes (``zlib.crc32``): damage, found before any decoder runs."""
DECODE = "decode"
"""The bounded decode of a compressed block: exactly its decoded size, never more."""
SHA256 = "sha256"
"""The SHA-256 of a block's (decoded) bytes against its stored digest, which the root checksum covers."""
VALUES = "values"
"""The plausibility of a block's values (:data:`ValuesCheck`: a score no position where it is stored can hold)."""

PLAIN: tuple[str, ...] = (SHA256, VALUES)
"""The stages of a block stored plain."""
COMPRESSED: tuple[str, ...] = (CRC32, DECODE, SHA256, VALUES)
"""The stages of a compressed block."""

DECLARED: Mapping[tuple[int, str], tuple[str, ...]] = {(2, "dense"): PLAIN, (2, "compact"): PLAIN, (2, "book"): PLAIN, (3, "compact"): COMPRESSED}
"""The stages a file's blocks carry, by its header's ``(format_version, kind)``."""

INT8: np.dtype[Any] = np.dtype(np.int8)
"""The items of a compressed array."""

ValuesCheck = Callable[[int, Any], "str | None"]
"""``check(first_item, items)``: a problem with a block's values, or None. ``items`` are the block's
items (a numpy array of the array's dtype, or the decoded bytes of an int8 block)."""
Digest = Callable[[int], bytes]
"""``digest(block)``: the stored SHA-256 of a block's (decoded) bytes."""
Decode = Callable[[Any, int], bytes]
"""``decode(packed, size)``: a compressed block decoded to exactly ``size`` bytes (raises ``ValueError`` otherwise)."""


def declared_stages(format_version: int, kind: str) -> tuple[str, ...]:
    """The stages the blocks of a file of this format version and kind carry (:data:`DECLARED`).

    >>> declared_stages(3, "compact")
    ('crc32', 'decode', 'sha256', 'values')
    >>> declared_stages(2, "dense")
    ('sha256', 'values')

    :raises ValueError: for a format version that holds no table of this kind.
    """
    try:
        return DECLARED[(format_version, kind)]
    except KeyError:
        raise ValueError(f"format version {format_version} holds no {kind} table") from None


class Verified:
    """Which blocks of one array passed every stage in this process: the one record of "verified".

    ``flags[b]`` is 1 once block ``b`` passed (a bytearray a look-up may test directly); :attr:`done`
    once every block did. Marks are never taken back: a file changed on disk after its blocks
    passed is not seen (:mod:`solver.storage.tablefile`'s module docstring).

    >>> verified = Verified(3)
    >>> verified.mark(2); verified.mark(2); (2 in verified, 0 in verified, verified.passed, verified.done)
    (True, False, 1, False)
    """

    __slots__ = ("_lock", "flags", "passed")

    def __init__(self, blocks: int) -> None:
        self.flags = bytearray(blocks)
        self.passed = 0
        """How many blocks passed."""
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.flags)

    def __contains__(self, block: object) -> bool:
        return isinstance(block, int) and bool(self.flags[block])

    def __repr__(self) -> str:
        return f"<Verified {self.passed:,} of {len(self.flags):,} blocks>"

    @property
    def done(self) -> bool:
        """Whether every block passed."""
        return self.passed == len(self.flags)

    def mark(self, block: int) -> None:
        """Block ``block`` passed every stage."""
        if not self.flags[block]:
            with self._lock:  # blocks are checked on several threads: the count must not lose one
                if not self.flags[block]:
                    self.flags[block] = 1
                    self.passed += 1


class BlockChecks:
    """The stages of one array's blocks (:func:`declared_stages`), run in order; each block that passes them
    all is marked in :attr:`verified`.

    :param stages: :data:`PLAIN` or :data:`COMPRESSED` (what the header declares).
    :param blocks: how many blocks the array has.
    :param digest: the stored SHA-256 of block ``b`` of this array.
    :param error: makes the :class:`TableError` of a problem (a table file's names the file and the rebuild command).
    :param where: what a message calls block ``b`` (its place in the file).
    :param dtype: the array's items (a plain block's values are read as this dtype).
    :param block_items: items per block (block ``b`` starts at item ``b * block_items``).
    :param crcs: with ``crc32``: the CRC-32 of each block's compressed bytes.
    :param decode: with ``decode``: the bounded decoder (:data:`Decode`).
    :param size: with ``decode``: the decoded size of block ``b``.
    :param values: the ``values`` stage's callable (None: the stage is left out, :meth:`declare_values`).
    """

    def __init__(
        self,
        stages: tuple[str, ...],
        *,
        blocks: int,
        digest: Digest,
        error: Callable[[str], TableError],
        where: Callable[[int], str],
        dtype: np.dtype[Any] = INT8,
        block_items: int,
        crcs: np.ndarray | None = None,
        decode: Decode | None = None,
        size: Callable[[int], int] | None = None,
        values: ValuesCheck | None = None,
    ) -> None:
        if CRC32 in stages and crcs is None or DECODE in stages and (decode is None or size is None):
            raise ValueError(f"the stages {stages} need the CRCs, the decoder and the block sizes")
        self.stages = stages
        self.verified = Verified(blocks)
        self.values = values
        """The ``values`` stage's callable (None: left out)."""
        self._digest = digest
        self._error = error
        self.where = where
        self._dtype = dtype
        self._items = block_items
        self._crcs = crcs
        self._decode = decode
        self._size = size

    def __repr__(self) -> str:
        return f"<BlockChecks {'+'.join(self.stages)}: {self.verified!r}>"

    def declare_values(self, check: ValuesCheck | None) -> None:
        """The ``values`` stage's callable from now on (None: left out, as for a table whose checksum ships)."""
        self.values = check

    # -- a plain block ------------------------------------------------------------------------
    def plain(self, block: int, data: Any, *, values: ValuesCheck | None = None, mark: bool = True) -> None:
        """Pass block ``block``'s stored bytes ``data`` (bytes-like) through ``sha256`` and ``values``
        (``values``: this callable instead of :attr:`values`); mark it verified (unless ``mark`` is False).

        :raises TableError: naming the block (its bytes in the file) and what it failed.
        """
        if hashlib.sha256(data).digest() != self._digest(block):
            raise self._error(f"{self.where(block)} does not match its checksum: the file is damaged")
        self._values(block, np.frombuffer(data, dtype=self._dtype), values)
        if mark:
            self.verified.mark(block)

    # -- a compressed block ------------------------------------------------------------------
    def packed(self, block: int, packed: Any, *, values: ValuesCheck | None = None) -> bytes:
        """Pass block ``block``'s compressed bytes through every stage (``crc32``, ``decode``, ``sha256``,
        ``values``); mark it verified, and return its decoded bytes.

        :raises TableError: naming the block and the first stage it failed.
        """
        assert self._crcs is not None and self._decode is not None and self._size is not None
        if zlib.crc32(packed) != int(self._crcs[block]):
            raise self._error(f"{self.where(block)} does not match its CRC: the file is damaged")
        try:
            decoded = self._decode(packed, self._size(block))
        except ValueError as problem:
            raise self._error(f"{self.where(block)} cannot be decoded ({problem}): the file is damaged") from None
        if hashlib.sha256(decoded).digest() != self._digest(block):
            raise self._error(f"{self.where(block)} does not match its checksum: the file is damaged or forged")
        self._values(block, decoded, values)
        self.verified.mark(block)
        return decoded

    def passes(self, block: int, packed: Any) -> bool:
        """Whether block ``block``'s compressed bytes pass every stage (what a cache asks before it keeps them)."""
        try:
            self.packed(block, packed)
        except TableError:
            return False
        return True

    def _values(self, block: int, items: Any, values: ValuesCheck | None) -> None:
        check = values or self.values
        if check is not None:
            problem = check(block * self._items, items)
            if problem is not None:
                raise self._error(f"{problem}, in {self.where(block)}: the file is damaged or forged")
