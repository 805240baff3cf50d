"""An open table file (:mod:`solver.storage.tablefile` describes the format): opened, checked, its blocks guarded.

:func:`open_table` opens a file without following a link unasked, reads and checks its header
(:mod:`solver.storage.header`) and its digests, checks the root checksum against the expected one (the
trust policy's, :mod:`solver.storage.trust`) and maps the arrays: a :class:`TableFile`, whose blocks a
:class:`BlockGuard` verifies the first time a look-up touches them. Also the header of a file read alone
(:func:`read_head`, :func:`read_header`), the root check a remote table shares (:func:`check_root`), and
whether a file may be replaced by a build (:func:`not_replaceable`).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import numpy as np

from ..errors import TableError
from ..words import count
from . import trust
from .blockarray import BlockArray, FileRegion, RegionSource
from .fsutil import file_kind
from .header import (
    DIGEST_BYTES,
    MAGIC,
    MAX_HEADER_BYTES,
    NOT_A_TABLE,
    ArraySpec,
    Fail,
    Fits,
    Header,
    StoredGame,
    check_layout,
    head_bytes,
    parse_header,
    root_of,
)
from .integrity import BlockChecks, ValuesCheck, Verified


def rebuild_command(name: str, path: Path | str, *, force: bool = False) -> str:
    """The shell command that rebuilds the table file at ``path`` of the game called ``name`` (``force``: it holds a
    table of another game, which ``solve build`` replaces only when told to)."""
    return f"solve build --game {name} --output {path}{' --force' if force else ''}"


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
        fix = self.fix or f"rebuild it with: {rebuild_command(self.header.game.name, self.path)}"
        return TableError(f"{self.where or self.path}: {problem}; {fix}")


def expected_root(game: trust.TableGame, kind: str = "dense") -> str | None:
    """The checksum the package ships for ``game``'s table of this kind, if it ships one: the policy's
    (:func:`solver.storage.trust.expected_root`), asked at every call."""
    return trust.expected_root(game, kind)


def is_shipped(root: str, game: trust.TableGame, kind: str) -> bool:
    """Whether ``root`` is the checksum the package ships for ``game``'s table of ``kind`` (the policy's:
    :func:`solver.storage.trust.is_shipped`)."""
    return trust.is_shipped(root, game, kind)


def expected_book_root(game: trust.TableGame, depth: int) -> str | None:
    """The checksum the package expects for ``game``'s book of ``depth`` plies, if it ships one (the policy's:
    :func:`solver.storage.trust.expected_book_root`)."""
    return trust.expected_book_root(game, depth)


def earlier_roots(game: trust.TableGame, kind: str = "compact") -> tuple[str, ...]:
    """Checksums ``game``'s table had in an earlier version of the format's contents (:func:`solver.storage.trust.earlier_roots`)."""
    return trust.earlier_roots(game, kind)


def open_table(
    path: str | os.PathLike[str], fits: Fits, *, game: trust.TableGame | None = None, follow_symlinks: bool = True, rebuild_as: str = "3x3k3"
) -> TableFile:
    """Open and check a table file: header, layout, root checksum, expected checksum (the layers above open tables
    with :func:`solver.contents.opening.open_table`, which gives ``fits`` and the file's game).

    Only the header and the digests are read (kilobytes); the arrays are
    memory-mapped and verified block by block on first use (:class:`BlockGuard`).

    :param fits: the sizes a table of the header's game has (:data:`Fits`), asked before the digests are read.
    :param game: the game the file must hold (its name is compared).
    :param rebuild_as: the game a rebuild command names when neither ``game`` nor a readable header names one (the
        layers above give the one the file's name names: ``4x4k4.ttt``).
    :param follow_symlinks: with False, a symbolic link at ``path`` is refused.
    :raises TableError: naming the file, what is wrong and the command that rebuilds it.
    """
    path = Path(path)

    def fail(problem: str, found: StoredGame | None = None, *, table: bool = True, missing: bool = False) -> TableError:
        if not table:
            return TableError(f"{path}: {problem}")
        fix = rebuild_command(game.name if game is not None else found.name if found is not None else rebuild_as, path)
        if missing:  # a mistyped path, as likely as a table not built yet
            return TableError(f"{path}: {problem} (check the path); to build the table there: {fix}")
        return TableError(f"{path}: {problem}; rebuild it with: {fix}")

    fd, size = _open_regular(path, follow_symlinks, fail)
    with os.fdopen(fd, "rb") as handle:
        try:
            header, stored = _read_header(handle, size, fail, fits)
            if game is not None and header.game.name != game.name:
                raise TableError(
                    f"{path}: holds {header.game.name}, expected {game.name}: open it as {header.game.name}, "
                    f"or replace it with: {rebuild_command(game.name, path, force=True)}"
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
        raise fail("no such table file", missing=True) from None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise fail("is a symbolic link; refusing to follow it") from None
        raise fail(f"cannot read ({error.strerror})") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise fail(f"is {file_kind(info.st_mode)}, not a table file", table=False)
    return fd, info.st_size


def _read_header(handle: IO[bytes], size: int, fail: Fail, fits: Fits) -> tuple[Header, str]:
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
    header, stored = parse_header(raw, length, fail)
    check_layout(header, length, fail, _items(header, fits, fail))
    if raw != head_bytes(header, length)[12:]:
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


def read_head(handle: IO[bytes], size: int, fail: Fail, fits: Fits) -> tuple[Header, str]:
    """The checked header of a table file of ``size`` bytes read from ``handle`` at its start, and the root it states
    (what :func:`open_table` reads first; a table at a URL reads it from the server's first bytes)."""
    return _read_header(handle, size, fail, fits)


def _items(header: Header, fits: Fits, fail: Fail) -> int:
    """The number of items a table of the header's kind and game holds (:data:`Fits`), or the refusal of a header
    whose numbers name no game or a game no table of its kind holds."""
    try:
        items = fits(header.game, header.kind)
    except (TypeError, ValueError) as error:
        raise fail(f"corrupt header ({type(error).__name__}: {str(error)[:120]})") from None
    if isinstance(items, str):
        raise fail(items, header.game)
    return items


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


def not_replaceable(path: str | os.PathLike[str], game: trust.TableGame, fits: Fits) -> str | None:
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
            header, _ = _read_header(handle, info.st_size, lambda problem, found=None, **_: TableError(problem), fits)
        except (TableError, OSError):
            return None
    if header.game.name != game.name:
        return f"{path}: holds the {header.game.name} table, not {game.name}'s"
    return None


def read_header(path: str | os.PathLike[str], fits: Fits, *, game: trust.TableGame | None = None) -> Header:
    """The checked header of a table file (see :func:`open_table`)."""
    return open_table(path, fits, game=game).header
