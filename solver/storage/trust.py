"""Which tables of games without a shipped checksum this user built: a registry only the user can write.

The package ships the checksum of every dense table and of the compact tables built and
checked so far (:mod:`solver.storage.checksums`). Any other table file is believed only when

* this user built it here: the builder records its ``(game, kind, checksum)`` in
  ``trusted.json`` beside it (:func:`record`), or
* the full consistency pass proved it (every score equals the best child's, by the rules;
  :func:`solver.store.make.prove`), which :mod:`solver.store.locate` runs before its first answer and
  then records too.

The checksum (the root of :mod:`solver.storage.tablefile`) pins every byte of a table, so a table
whose checksum is recorded is the one that was built or proved. The registry is believed
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
from pathlib import Path
from typing import Any

from ..errors import RegistryWarning, TableError
from .fsutil import file_kind, write_atomic

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


def warn_unrecorded(directory: str | os.PathLike[str], problem: str, consequence: str) -> None:
    """Say once that a table will not be recorded in the registry of ``directory``, why (:func:`cannot_record`) and what follows."""
    path = registry_path(directory)
    _warn(path, problem.removeprefix(f"{path}: "), consequence)


def try_record(directory: str | os.PathLike[str], game: str, kind: str, root: str) -> bool:
    """:func:`record` (kept for callers of earlier releases: recording never raises now)."""
    return record(directory, game, kind, root)
