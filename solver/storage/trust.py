"""Trust and proof: the one policy that decides whether a table's bytes are believed.

A table file's blocks each pass their stage (:mod:`solver.storage.integrity`: CRC, digest, values),
and its root checksum covers every digest (:func:`solver.storage.tablefile.root_of`): a file whose
root is right holds exactly the table the root names. This module says which roots are right:

1. **shipped**: the package ships the checksum of every dense table and of the compact tables
   built and checked so far (:mod:`solver.storage.checksums`): :func:`expected_root`, and the roots
   of earlier versions of a format's contents that still open (:func:`earlier_roots`). A file of
   such a game with another root is refused when it is opened (:func:`refusal`), and its blocks
   skip the values stage (:func:`checks_values`: they are the bytes of a proved build);
2. **given**: a table at a URL with a checksum its publisher gives (:func:`refusal` with ``expected``);
3. **built or proved here**: any other table is believed only when this user built it here (the
   builder records its ``(game, kind, checksum)`` in ``trusted.json`` beside it, :func:`record`)
   or when the full consistency pass proved it (every score equals the best child's, by the rules;
   :func:`solver.store.make.prove`), which :func:`trust_or_prove` runs before its first answer and then
   records too. The registry records the checksum, so a table replaced by another of the same game
   and kind (another root) is not believed: it is proved again, or refused.

The registry is believed
only when it is a regular file owned by this user that no one else can write (mode 0600 when
written here, by :func:`solver.storage.fsutil.write_atomic`) and at most :data:`MAX_BYTES`; anything
else is read as empty (nothing trusted), never followed through a symbolic link, and said
once per process with a :class:`RegistryWarning`: a registry planted by someone else (a
directory, another user's file in a shared directory) is never an error, it only makes
tables be proved again. Recording never fails either (:func:`record` warns); a build checks
first that it will be able to record (:func:`cannot_record`), before anything is written.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from ..errors import InvalidArgumentError, RegistryWarning, TableError, quote
from .checksums import EARLIER_BOOK_ROOTS, EARLIER_COMPACT_ROOTS, EXPECTED_BOOK_ROOTS, EXPECTED_COMPACT_ROOTS, EXPECTED_ROOTS
from .fsutil import file_kind, write_atomic


class TableGame(Protocol):
    """What storage reads of a game: its name (file names, messages, the shipped checksums and the registry are keyed
    by it). Storage is bytes: the game itself (:class:`solver.rules.game.Game`) is the layers above's, passed down."""

    @property
    def name(self) -> str: ...


REGISTRY = "trusted.json"
MAX_BYTES = 1 << 20
"""A larger registry is not read (about 7,000 tables)."""
_VERSION = 1


_warned: set[Path] = set()
"""The registries whose problem was said in this process: one warning each (what follows from the
problem, the table proved again and not recorded, is said in that one warning)."""


def _uid() -> int:
    """The user a registry must belong to (a function, so tests can pose as another)."""
    return os.geteuid()


def forget_warnings() -> None:
    """Let every registry's problem be said again (:meth:`solver.store.tablebase.Tablebase.clear`)."""
    _warned.clear()


def registry_path(directory: str | os.PathLike[str]) -> Path:
    """The registry of the tables in ``directory``."""
    return Path(directory) / REGISTRY


def _warn(path: Path, problem: str, consequence: str) -> None:
    """Say ``problem`` with the registry at ``path``, unless a problem with it was said in this process (:class:`RegistryWarning`)."""
    if path in _warned:
        return
    _warned.add(path)
    warnings.warn(f"{path}: {problem}; {consequence}", RegistryWarning, stacklevel=4)


def _not_mine(info: os.stat_result) -> str | None:
    """Why a registry with this status is not believed, or None."""
    if not stat.S_ISREG(info.st_mode):
        return f"is {file_kind(info.st_mode)}, not a regular file"
    if info.st_uid != _uid():
        return f"is owned by user {info.st_uid}, not by you (user {_uid()})"
    if info.st_mode & 0o022:
        return f"is writable by other users (mode {stat.S_IMODE(info.st_mode):04o})"
    if info.st_size > MAX_BYTES:
        return f"holds {info.st_size:,} bytes, more than a registry's {MAX_BYTES:,}"
    return None


_IGNORED = "ignored: no table is trusted from it, so tables of games without a shipped checksum are proved again when opened; remove it to fix this"


def _entries(directory: Path) -> list[dict[str, str]]:
    """The registry's entries, or none if it is missing, not this user's alone, too large or malformed (said once)."""
    path = registry_path(directory)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return []
    except OSError as error:
        _warn(path, "is a symbolic link" if error.errno == errno.ELOOP else f"cannot be read ({error.strerror})", _IGNORED)
        return []
    problem = _not_mine(os.fstat(fd))  # before os.fdopen, which raises IsADirectoryError for a directory
    if problem is not None:
        os.close(fd)
        _warn(path, problem, _IGNORED)
        return []
    with os.fdopen(fd, "rb") as handle:
        raw = handle.read(MAX_BYTES + 1)
    try:
        data: Any = json.loads(raw)
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict) or data.get("version") != _VERSION or not isinstance(data.get("tables"), list):
        _warn(path, "is not a registry this version reads", _IGNORED)
        return []
    keys = ("game", "kind", "root")
    return [{key: entry[key] for key in keys} for entry in data["tables"] if isinstance(entry, dict) and all(isinstance(entry.get(key), str) for key in keys)]


# -- the roots believed -------------------------------------------------------------------------
def expected_root(game: TableGame, kind: str = "dense") -> str | None:
    """The checksum the package ships for ``game``'s table of this kind, if it ships one.

    Dense: every game of up to 16 cells; compact: the games past 16 cells built and
    checked so far (:mod:`solver.storage.checksums`).
    """
    if kind == "book":  # the book that ships (one depth a game: expected_book_root checks the depth)
        shipped = EXPECTED_BOOK_ROOTS.get(game.name)
        return None if shipped is None else shipped[1]
    return (EXPECTED_ROOTS if kind == "dense" else EXPECTED_COMPACT_ROOTS).get(game.name)


def expected_book_root(game: TableGame, depth: int) -> str | None:
    """The checksum the package knows for ``game``'s book of ``depth`` plies, if it knows one: the shipped book's
    (one depth a game: the book ``solve build`` makes and ``solve fetch`` fetches,
    :data:`solver.storage.checksums.EXPECTED_BOOK_ROOTS`), or a book's that shipped before it
    (:data:`~solver.storage.checksums.EARLIER_BOOK_ROOTS`: such a file, fetched or built then, is still believed); a
    book of another depth is believed as any table without a shipped checksum is."""
    shipped = EXPECTED_BOOK_ROOTS.get(game.name)
    if shipped is not None and shipped[0] == depth:
        return shipped[1]
    return dict(EARLIER_BOOK_ROOTS.get(game.name, ())).get(depth)


def earlier_roots(game: TableGame, kind: str = "compact") -> tuple[str, ...]:
    """Checksums ``game``'s table had in an earlier version of the format's contents: such a file still opens
    (:data:`solver.storage.checksums.EARLIER_COMPACT_ROOTS`); a build must give :func:`expected_root`."""
    return EARLIER_COMPACT_ROOTS.get(game.name, ()) if kind == "compact" else ()


def refusal(root: str, game: TableGame, kind: str, *, expected: str | None = None) -> str | None:
    """Why a table file of ``game`` and ``kind`` whose contents hash to ``root`` is refused, or None.

    :param expected: the checksum it must have (a table at a URL: the shipped or the given one); default:
        the shipped one (:func:`expected_root`) or an earlier one, and any root when none ships
        (such a table is then believed by :func:`trust_or_prove`, not here).
    """
    if expected is None:
        expected = expected_root(game, kind)
        if expected is None or root in earlier_roots(game, kind):
            return None
    if root != expected:
        return f"checksum {root} is not the expected {expected} for {game.name}: the file is damaged or forged"
    return None


def book_refusal(root: str, game: TableGame, depth: int) -> str | None:
    """Why a book of ``depth`` plies of ``game`` whose contents hash to ``root`` is refused, or None: only a book of
    the depth whose checksum ships is held to it (:func:`expected_book_root`); another is believed as any table
    without a shipped checksum is (:func:`trust_or_prove`)."""
    expected = expected_book_root(game, depth)
    return None if expected is None else refusal(root, game, "book", expected=expected)


def is_shipped(root: str, game: TableGame, kind: str) -> bool:
    """Whether ``root`` is the checksum the package ships for ``game``'s table of ``kind``."""
    return expected_root(game, kind) == root


def build_refusal(root: str, game: TableGame, kind: str) -> str | None:
    """The shipped checksum a table just built here should have had, when one ships and ``root`` is not it (the
    build is wrong: it is not written), or None."""
    shipped = expected_root(game, kind)
    return shipped if shipped is not None and root != shipped else None


def check_checksum_type(checksum: object) -> None:
    """Refuse a given checksum that is not a str (or None).

    :raises InvalidArgumentError: naming the argument.
    """
    if checksum is not None and not isinstance(checksum, str):
        raise InvalidArgumentError(f"checksum must be a SHA-256 in hexadecimal (a str), not {type(checksum).__name__} {quote(checksum)}")


def required_root(game: TableGame, kind: str, checksum: str | None) -> str:
    """The checksum ``game``'s table of ``kind`` from a server (a mirror, a URL) must have: the shipped one, else the
    one its publisher gives (``checksum``): nothing else proves that the bytes a server sends are a table.

    :raises InvalidArgumentError: for a checksum that is not a str.
    :raises TableError: when neither exists, or ``checksum`` is not a SHA-256 in hex or differs from the shipped one.
    """
    check_checksum_type(checksum)
    shipped = expected_root(game, kind)
    given = checksum.strip().lower() if checksum else None
    if given is not None and (len(given) != 64 or any(c not in "0123456789abcdef" for c in given)):
        raise TableError(f"--checksum {checksum[:80] if checksum else ''!r} is not a SHA-256 (64 hexadecimal digits)")
    if shipped is not None and given is not None and given != shipped:
        raise TableError(f"the checksum given for {game.name}, {given}, is not the one the package ships ({shipped}); the shipped one is used: drop --checksum")
    found = shipped or given
    if found is None:
        raise TableError(
            f"no checksum ships for {kind} {game.name} tables, and none was given: a table from a server is used only when its "
            "checksum is known: give the one its publisher gives (--checksum SHA256, checksum=)"
        )
    return found


def expects(game: TableGame | None, checksum: str | None) -> Callable[[_Header], str | None]:
    """What a table's header read from a server is checked against (:func:`solver.storage.remote.read_remote_header`):
    the checksum its table must have (:func:`required_root`), or None for a header of another game than ``game``."""

    def expected(header: _Header) -> str | None:
        if game is not None and header.game.name != game.name:
            return None
        return required_root(header.game, header.kind, checksum)

    return expected


def is_required(root: str | None, game: TableGame, kind: str, checksum: str | None) -> bool:
    """Whether a table file already in place, whose root is ``root`` (None: no readable table), is the one a fetch of
    ``game``'s table would install (:func:`required_root`)."""
    return root is not None and refusal(root, game, kind, expected=required_root(game, kind, checksum)) is None


def checks_values(game: TableGame, kind: str) -> bool:
    """Whether a table's blocks pass the values stage on first use: only where no checksum ships
    (a shipped one proves the bytes are those of a checked build; a forged file may lie anywhere else)."""
    return expected_root(game, kind) is None


class _Header(Protocol):
    @property
    def game(self) -> TableGame: ...
    @property
    def kind(self) -> str: ...
    @property
    def root(self) -> str: ...


class Opened(Protocol):
    """What :func:`trust_or_prove` reads of an open table file (:class:`solver.storage.tablefile.TableFile`)."""

    @property
    def path(self) -> Path: ...
    @property
    def header(self) -> _Header: ...
    def error(self, problem: str) -> TableError: ...


def trust_or_prove(file: Opened, *, prove: Callable[[], Sequence[str]], too_long: Callable[[], str | None]) -> None:
    """Believe a table opened from ``file`` before its first answer, or refuse it.

    Nothing to do for a table whose game and kind have a shipped checksum (opening checked the
    file against it, :func:`refusal`) or that this user built or proved here (the registry records
    its game, kind **and checksum**: a table replaced by another is not the one recorded). Any other
    is proved by ``prove`` (the full consistency pass, :meth:`solver.tables.Table.verify`: the problems
    found), unless ``too_long()`` says how long that would take (a duration in words, when it is
    too long to run before an answer), and then recorded.

    :raises TableError: naming the file and the rebuild command (:meth:`~solver.storage.tablefile.TableFile.error`),
        if the proof refutes the table, or if proving it would take too long (then with ``solve verify`` too).
    """
    header = file.header
    game, kind, root, directory = header.game, header.kind, header.root, file.path.parent
    if expected_root(game, kind) is not None or is_trusted(directory, game.name, kind, root):
        return
    unknown = f"no checksum ships for {kind} {game.name} tables and this user did not build this one"
    duration = too_long()
    if duration is not None:
        raise file.error(f"{unknown}; proving it takes about {duration}: prove it with: solve verify --table {file.path} (it is trusted after that)")
    problems = prove()
    if problems:
        raise file.error(f"{unknown}, and it is wrong: {problems[0]}")
    record(directory, game.name, kind, root)


# -- the registry of tables built or proved here ------------------------------------------------
def is_trusted(directory: str | os.PathLike[str], game: str, kind: str, root: str) -> bool:
    """Whether the registry of ``directory`` records this table (game name, kind, checksum)."""
    wanted = {"game": game, "kind": kind, "root": root}
    return wanted in _entries(Path(directory))


def cannot_record(directory: str | os.PathLike[str]) -> str | None:
    """Why a table could not be recorded in the registry of ``directory`` (None: it can, or the directory
    is not there yet: whatever writes the table makes it, or says why it cannot).

    The directory must be one this user can write, and an existing registry a regular file
    that this user can replace: one of this user's, or any in a directory without the sticky
    bit. What is said names the registry and what to do.
    """
    path = registry_path(directory)
    try:
        info: os.stat_result | None = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        info = None
    except OSError as error:
        return f"{path}: cannot be checked ({error.strerror})"
    if info is not None and not stat.S_ISREG(info.st_mode):
        return f"{path}: is {file_kind(info.st_mode)}, not a regular file; remove it, or keep tables in another directory"
    parent = Path(directory)
    if not parent.is_dir():
        return None
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"{path}: cannot be written, {parent} is not writable by you; keep tables in a directory of your own"
    if info is not None and info.st_uid != _uid() != 0 and os.stat(parent).st_mode & stat.S_ISVTX:
        return (
            f"{path}: owned by user {info.st_uid} in a shared directory (sticky), so you cannot replace it; "
            "ask its owner to remove it, or keep tables in a directory of your own"
        )
    return None


def record(directory: str | os.PathLike[str], game: str, kind: str, root: str) -> bool:
    """Record a table this user built or proved in the registry of ``directory`` (atomically, mode 0600).

    A registry that is not this user's alone is replaced (its entries are not kept). Never
    raises: a registry that cannot be written is said once (:class:`RegistryWarning`), and the
    table is then proved again when next opened.

    :returns: whether the table is recorded.
    """
    directory = Path(directory)
    entries = _entries(directory)
    entry = {"game": game, "kind": kind, "root": root}
    if entry in entries:
        return True
    problem = cannot_record(directory)
    if problem is None:
        entries = [e for e in entries if (e["game"], e["kind"]) != (game, kind)] + [entry]  # one table per game and kind
        data = json.dumps({"version": _VERSION, "tables": entries}, indent=1, sort_keys=True).encode("ascii")
        try:
            write_atomic(registry_path(directory), data + b"\n", mode=0o600)
        except TableError as error:
            problem = str(error)
        else:
            return True
    path = registry_path(directory)
    _warn(path, f"the {kind} {game} table was not recorded as trusted ({problem.removeprefix(f'{path}: ')})", "it is proved again when next opened")
    return False


def built_here(directory: str | os.PathLike[str], game: TableGame, kind: str, root: str) -> bool:
    """This user's build wrote the table ``root`` of ``game`` and ``kind`` into ``directory``: recorded when no
    checksum ships for it (:func:`record`; a shipped one needs no record).

    :returns: whether the table is believed from now on (shipped, or recorded).
    """
    return expected_root(game, kind) is not None or record(directory, game.name, kind, root)


def fetched_here(directory: str | os.PathLike[str], game: TableGame, kind: str, root: str) -> bool:
    """A fetch installed the table ``root`` into ``directory`` after every block passed against the root it had to
    have (:func:`required_root`): recorded as :func:`built_here` records a build, when no checksum ships for it."""
    return built_here(directory, game, kind, root)


def proved_here(directory: str | os.PathLike[str], game: TableGame, kind: str, root: str) -> bool:
    """The table ``root`` in ``directory`` was just proved whole (``solve verify``): recorded as :func:`built_here`
    records a build, when no checksum ships for it."""
    return built_here(directory, game, kind, root)


def warn_unrecorded(directory: str | os.PathLike[str], problem: str, consequence: str) -> None:
    """Say once that a table will not be recorded in the registry of ``directory``, why (:func:`cannot_record`) and what follows."""
    path = registry_path(directory)
    _warn(path, problem.removeprefix(f"{path}: "), consequence)


def try_record(directory: str | os.PathLike[str], game: str, kind: str, root: str) -> bool:
    """:func:`record` (kept for callers of earlier releases: recording never raises now)."""
    return record(directory, game, kind, root)
