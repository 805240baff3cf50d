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
else is read as empty (nothing trusted), never followed through a symbolic link.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from ..errors import TableError
from .fsutil import write_atomic

REGISTRY = "trusted.json"
MAX_BYTES = 1 << 20
"""A larger registry is not read (about 7,000 tables)."""
_VERSION = 1


def registry_path(directory: str | os.PathLike[str]) -> Path:
    """The registry of the tables in ``directory``."""
    return Path(directory) / REGISTRY


def _entries(directory: Path) -> list[dict[str, str]]:
    """The registry's entries, or none if it is missing, not this user's alone, too large or malformed."""
    try:
        fd = os.open(registry_path(directory), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return []
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022 or info.st_size > MAX_BYTES:
            return []
        raw = handle.read(MAX_BYTES + 1)
    try:
        data: Any = json.loads(raw)
    except (ValueError, RecursionError):
        return []
    if not isinstance(data, dict) or data.get("version") != _VERSION or not isinstance(data.get("tables"), list):
        return []
    keys = ("game", "kind", "root")
    return [{key: entry[key] for key in keys} for entry in data["tables"] if isinstance(entry, dict) and all(isinstance(entry.get(key), str) for key in keys)]


def is_trusted(directory: str | os.PathLike[str], game: str, kind: str, root: str) -> bool:
    """Whether the registry of ``directory`` records this table (game name, kind, checksum)."""
    wanted = {"game": game, "kind": kind, "root": root}
    return wanted in _entries(Path(directory))


def record(directory: str | os.PathLike[str], game: str, kind: str, root: str) -> None:
    """Record a table this user built or proved in the registry of ``directory`` (atomically, mode 0600).

    A registry that is not this user's alone is replaced (its entries are not kept).

    :raises TableError: if the directory cannot be written.
    """
    directory = Path(directory)
    entries = _entries(directory)
    entry = {"game": game, "kind": kind, "root": root}
    if entry in entries:
        return
    entries = [e for e in entries if (e["game"], e["kind"]) != (game, kind)] + [entry]  # one table per game and kind
    data = json.dumps({"version": _VERSION, "tables": entries}, indent=1, sort_keys=True).encode("ascii")
    write_atomic(registry_path(directory), data + b"\n", mode=0o600)


def try_record(directory: str | os.PathLike[str], game: str, kind: str, root: str) -> bool:
    """:func:`record`, or False when the directory cannot be written (the table is then proved again next time)."""
    try:
        record(directory, game, kind, root)
    except TableError:
        return False
    return True
