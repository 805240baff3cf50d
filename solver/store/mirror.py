"""Fetching a table file from a mirror: download, resume, check every block, install where look-ups find it.

``solve fetch --game G [--from URL]`` (:func:`fetch_table`). The URL and the checksum
are :mod:`solver.store.urltable`'s (a file or a directory of ``<game>.ttt`` files;
``$SOLVED_TICTACTOE_MIRROR``; the shipped checksum, or ``--checksum``). In order:

1. the table directory's file is checked first: one with the expected checksum whose every
   block passes its check is already the table (nothing is fetched); one with the expected
   checksum that fails the check is damaged, and is **repaired**: downloaded afresh and
   replaced once the new file has passed (step 4); another table is replaced only when asked
   (``replace``), never silently, and also only after the new file has passed;
2. the header is fetched and checked (:func:`solver.storage.remote.read_remote_header`):
   the game, an expected checksum, sizes that a table of the game has; then, from a
   server that answers Range requests, the digests, whose root must be the expected
   checksum, all before the body is fetched;
3. the body is written into a private partial file beside the table
   (:func:`solver.storage.fsutil.partial_name`, ``.<game>.ttt.part``, 0600, locked): a
   download that is cut or interrupted keeps what it got, and the same command resumes
   from there with a Range request (a partial whose header is not the server's starts over;
   a partial that is already whole, say after a Ctrl-C during its check, goes straight to
   the check). A disk that fills up says the path, what was needed and what is free;
4. the downloaded file is opened as a table file and **every block** is checked against
   its digest (:meth:`solver.storage.blockarray.BlockArray.verify`: CRC, bounded decode,
   SHA-256): a mirror that sent wrong bytes is refused naming the block, the partial file
   is removed and nothing is installed;
5. the file is moved into the table directory atomically
   (:func:`solver.storage.fsutil.install_file`), where :meth:`solver.store.tablebase.Tablebase.table`
   finds it. A table of a game without a shipped checksum is recorded as trusted
   (:mod:`solver.storage.trust`): the user vouched for its checksum.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from ..errors import DiskFullError, InvalidArgumentError, TableError, quote
from ..rules.game import Game, parse_game
from ..storage import trust
from ..storage.fsutil import DISK_FULL, check_space, disk_full, format_size, install_file, open_partial, partial_name
from ..storage.remote import HttpRange, RemoteHeader, check_digests, read_remote_header
from ..storage.tablefile import TableFile, open_table
from .book import book_game
from .locate import shipped_path, table_path
from .make import kind_for
from .tablebase import forget
from .urltable import table_url

Meter = Callable[[str, int], AbstractContextManager[Callable[[int], None]]]
"""``meter(label, total)``: a context whose value is told each step done (bytes downloaded, blocks checked)."""
Ask = Callable[[Path, str], bool]
"""``ask(path, checksum)``: whether to replace the table file at ``path``, whose checksum is given ("" if unreadable)."""


@dataclass(frozen=True)
class Fetched:
    """What :func:`fetch_table` did."""

    game: Game
    path: Path
    """Where the table now is."""
    checksum: str
    size: int
    """Bytes of the table file."""
    downloaded: int
    """Bytes fetched by this call (0: the table was there already)."""
    resumed_from: int
    """Bytes an earlier, interrupted download had kept (0: a fresh download)."""
    url: str
    repaired: str | None = None
    """What was wrong with the table file that was there with the expected checksum (None: nothing was)."""

    @property
    def installed(self) -> bool:
        """Whether this call installed the file (False: the table was there already)."""
        return self.downloaded > 0 or self.resumed_from > 0


@contextlib.contextmanager
def _no_meter(label: str, total: int) -> Iterator[Callable[[int], None]]:
    yield lambda done: None


def fetch_table(
    game: Game | str,
    *,
    url: str | None = None,
    table_dir: str | os.PathLike[str] | None = None,
    checksum: str | None = None,
    replace: bool | Ask = False,
    meter: Meter | None = None,
) -> Fetched:
    """Download ``game``'s table (a :class:`Game` or its name) from a mirror into the table directory (see the module docstring).

    :param url: the table file's URL, or a directory's (default: ``$SOLVED_TICTACTOE_MIRROR``).
    :param checksum: the table's checksum, for a game without a shipped one.
    :param replace: whether a different table file already in place may be replaced (a callable is asked).
    :param meter: shows the download's and the check's progress (the CLI's progress bars).
    :raises InvalidArgumentError: for an argument of the wrong type (naming it).
    :raises TableError: for no URL, no checksum, an unreachable, too slow or wrong mirror (nothing installed), a
        file in place not to be replaced, or a cut download (what was fetched is kept for the next try);
        :class:`~solver.errors.DiskFullError` for a disk that fills up (the path, what was needed, what is free).
    """
    if isinstance(game, str):
        game = parse_game(game)
    elif not isinstance(game, Game):
        raise InvalidArgumentError(f"game must be a Game or a game's name such as '5x5k4', not {type(game).__name__} {quote(game)}")
    if table_dir is not None and not isinstance(table_dir, (str, os.PathLike)):
        raise InvalidArgumentError(f"table_dir must be a directory's path (a str or os.PathLike), not {type(table_dir).__name__} {quote(table_dir)}")
    trust.check_checksum_type(checksum)
    if shipped_path(game) is not None:
        raise TableError(f"the {game.name} table ships with the package: there is nothing to fetch")
    kind = "book" if book_game(game) else kind_for(game)  # Connect Four's table file is its opening book
    expected = trust.required_root(game, kind, checksum)
    source = table_url(game, url)
    target = table_path(game, table_dir_=table_dir)
    found = _installed_checksum(target, game)
    in_place = trust.is_required(found, game, kind, checksum)  # the table a fetch would install is there already
    damage = _damage(target, game, meter or _no_meter) if in_place else None
    if in_place and damage is None:
        return Fetched(game, target, expected, target.stat().st_size, 0, 0, source)
    if found is not None and damage is None and not (replace(target, found) if callable(replace) else replace):
        shown = f"checksum {found}" if found else "not a readable table"
        raise TableError(f"{target}: a {game.name} table file is there already ({shown}); it is not replaced unless asked (--replace)")
    http = HttpRange(source)
    header = read_remote_header(http, game=game, expected=trust.expects(game, checksum))
    if http.ranges:
        check_digests(http, header)  # a wrong table is refused before its body is fetched
    fetched = _download(http, header, target, found is not None, meter or _no_meter)
    trust.fetched_here(target.parent, game, kind, expected)
    forget()
    return dataclasses.replace(fetched, repaired=damage)


def _damage(target: Path, game: Game, meter: Meter) -> str | None:
    """What is wrong with the table file at ``target``, whose header has the expected checksum: every block is
    checked as ``solve verify`` does (None: nothing; it is the table)."""
    try:
        opened = open_table(target, game=game, follow_symlinks=False)
        _verify(opened, meter)
    except TableError as error:
        return str(error)
    return None


def _installed_checksum(target: Path, game: Game) -> str | None:
    """The checksum of the table file at ``target``; ``""`` for a file there that is no readable table; None for none."""
    if not os.path.lexists(target):
        return None
    try:
        return open_table(target, game=game, follow_symlinks=False).header.root
    except TableError:
        return ""


def _download(http: HttpRange, found: RemoteHeader, target: Path, replace: bool, meter: Meter) -> Fetched:
    """Download into the partial file (resuming it), check every block, install."""
    partial = partial_name(target)
    size = found.header.end
    fd = open_partial(partial)
    try:
        kept = _resume_point(fd, found.head, size) if http.ranges else 0
        os.ftruncate(fd, kept)
        with meter(f"fetching {found.header.game.name}", size) as advance:
            advance(kept)
            if kept < size:  # a partial already whole (a check interrupted) goes straight to its check
                check_space(partial, size - kept)
                _write_body(http, fd, kept, size, partial, advance)
        _synced(fd, partial, size)
        _check_every_block(partial, found, http.url, meter)
        os.fchmod(fd, 0o644)
        install_file(partial, target, replace=replace)
    finally:
        os.close(fd)
    return Fetched(found.header.game, target, found.expected, size, size - kept, kept, http.url)


def _synced(fd: int, partial: Path, size: int) -> None:
    """The partial file synced to disk (a disk that fills up on the way says so, with the figures)."""
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno in DISK_FULL:
            raise _disk_full(partial, error, size) from None
        raise


def _disk_full(partial: Path, error: OSError, needed: int) -> TableError:
    return disk_full(partial, error, needed=needed, doing="downloading the table", then="run the same command again to resume (what came is kept)")


def _resume_point(fd: int, head: bytes, size: int) -> int:
    """How many bytes of an earlier download to keep: all it has when it begins with the server's header, else none."""
    have = os.fstat(fd).st_size
    if have > size or have < len(head) or os.pread(fd, len(head), 0) != head:
        return 0
    return have


def _write_body(http: HttpRange, fd: int, start: int, size: int, partial: Path, advance: Callable[[int], None]) -> None:
    """Bytes ``start`` to the end, appended to the partial file; a cut connection keeps what came."""
    at = start
    try:
        for chunk in http.stream(start, size):
            try:
                os.pwrite(fd, chunk, at)
            except OSError as error:
                if error.errno in DISK_FULL:
                    raise _disk_full(partial, error, size - at) from None
                raise
            at += len(chunk)
            advance(len(chunk))
    except DiskFullError:
        raise
    except TableError as error:
        raise TableError(f"{error}; {format_size(at)} of {format_size(size)} are kept in {partial}: run the same command again to resume") from None


def _check_every_block(partial: Path, found: RemoteHeader, url: str, meter: Meter) -> None:
    """Open the downloaded file and check its root and every block; on any failure remove it and say nothing was installed."""
    fix = "nothing was installed, and the download was removed: try another mirror"
    try:
        try:
            opened = open_table(partial, game=found.header.game, follow_symlinks=False)
        except TableError as error:
            raise TableError(f"{url}: the file downloaded is not the table ({error}); {fix}") from None
        opened.where, opened.fix = url, f"the mirror sent bytes that are not the table's: {fix}"
        if opened.header.root != found.expected:
            raise opened.error(f"checksum {opened.header.root} is not the expected {found.expected}")
        _verify(opened, meter)
    except TableError:  # not on an interrupt: the download may be whole, and is checked again next time
        partial.unlink(missing_ok=True)
        raise


def _verify(opened: TableFile, meter: Meter) -> None:
    for spec in opened.header.arrays:
        if spec.encoding is None:
            opened.guard(spec.name).ensure_all()
            continue
        array = opened.compressed(spec.name)
        with meter(f"checking {opened.header.game.name}", array.blocks) as advance:
            array.verify(advance=advance)
