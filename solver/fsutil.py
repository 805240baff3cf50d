"""File-system safety for every file the project writes or opens from a shared directory.

Tables, table files' temporaries, a compact build's manifest and journal: they all go
through this module, so the same rules hold everywhere.

* **Atomic writes** (:func:`atomic_file`, :func:`write_atomic`): a private temporary
  file beside the target, ``.<name>.<pid>.<random>.tmp``, created with
  ``O_EXCL | O_NOFOLLOW`` (a link planted under its name is never followed), locked
  with ``flock`` while it is written, given mode 0644 through its descriptor, synced,
  and renamed over the target; the directory is synced after the rename. A reader
  sees the old file or the new one, never a torn one.
* **Dead builders' temporaries** (:func:`remove_dead_temporaries`): removed only when
  the PID in the name is not running *and* the file's lock can be taken.
* **What may be replaced or opened** (:func:`refuse_non_regular`, :func:`file_kind`,
  :func:`link_stays_inside`): only regular files are replaced; a symbolic link is
  followed only when it stays inside its own directory.
* **Space** (:func:`check_space`): a write that cannot fit is refused before it
  starts, with the figures.

Errors are :class:`solver.errors.TableError`, naming the path and what to do. What is
not written here: the layers of a compact build, which its workers fill in place
through memory maps and which are renamed into place once hashed
(:mod:`solver.build.layered`), and the build's journal, an append-only log whose torn
last line is skipped on resume (it is created empty through :func:`write_atomic`).
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import secrets
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from .errors import TableError


def refuse_non_regular(path: Path) -> None:
    """Refuse to replace anything at ``path`` that is not a regular file (a device, a FIFO, a link...).

    :raises TableError: naming the path and what is there.
    """
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return  # nothing there (the directory's own problems are said when it is written)
    except OSError as error:
        raise TableError(f"{path}: cannot check the target ({error.strerror})") from None
    if not stat.S_ISREG(mode):
        raise TableError(f"{path}: exists and is {file_kind(mode)}, not a regular file; refusing to replace it: remove it or write elsewhere")


def file_kind(mode: int) -> str:
    kinds = (
        (stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def check_space(path: Path, needed: int) -> None:
    try:
        free = shutil.disk_usage(_existing_parent(path)).free
    except OSError:
        return
    if free < needed:
        raise TableError(f"{path}: not enough disk space: the table needs {format_size(needed)} ({needed:,} bytes), {path.parent} has {format_size(free)} free")


def _existing_parent(path: Path) -> Path:
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    return parent


def format_size(nbytes: int) -> str:
    """``1000 bytes``, ``1.5 MiB``, ``2.0 GiB``."""
    if nbytes < 1024:
        return f"{nbytes} {'byte' if nbytes == 1 else 'bytes'}"
    exponent = min(4, (nbytes.bit_length() - 1) // 10)
    return f"{nbytes / 1024**exponent:.1f} {('KiB', 'MiB', 'GiB', 'TiB')[exponent - 1]}"


TEMP_SUFFIX = ".tmp"


def temp_name(path: Path) -> Path:
    """A private temporary name beside ``path``: ``.<name>.<pid>.<random>.tmp``."""
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}")


@contextmanager
def atomic_file(path: Path, *, mode: int = 0o644) -> Iterator[IO[bytes]]:
    """A new file that replaces ``path`` when the block ends without error.

    The temporary file is created with ``O_EXCL | O_NOFOLLOW`` (a link planted
    under its name is never followed), locked with ``flock`` while it is written
    (so :func:`remove_dead_temporaries` knows its builder is alive), given ``mode``
    (0644 unless told) through its descriptor, synced, and renamed into place.

    :raises TableError: if the directory cannot be written or the disk fills up.
    """
    directory = path.parent
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tmp = temp_name(path)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as error:
        raise TableError(_cannot_write(directory, error)) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb", closefd=False) as out:
            yield out
            out.flush()
            os.fsync(fd)
        refuse_non_regular(path)
        os.replace(tmp, path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        if error.errno in (errno.ENOSPC, errno.EDQUOT):
            raise TableError(f"{path}: the disk filled up while writing ({error.strerror}); free space in {directory} and build again") from None
        raise TableError(_cannot_write(directory, error)) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        os.close(fd)
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass  # the rename is done; a directory that cannot be synced is still consistent


def _cannot_write(directory: Path, error: OSError) -> str:
    return f"cannot write tables into {directory} ({error.strerror or error}): make it a writable directory, or choose another table directory"


_TEMP_NAME = re.compile(r"\.(?P<name>.+)\.(?P<pid>[0-9]{1,9})\.[0-9a-f]{8}\.tmp")


def remove_dead_temporaries(directory: Path) -> list[Path]:
    """Remove the temporary files in ``directory`` whose builder is dead.

    A builder holds an exclusive ``flock`` on its temporary file until the rename,
    and its PID is in the name (:func:`temp_name`): a file is removed only when
    that PID is not running *and* its lock can be taken, so a live builder's file
    is never touched.

    :returns: the files removed.
    """
    removed: list[Path] = []
    try:
        names = [entry.name for entry in os.scandir(directory)]
    except OSError:
        return removed
    for name in sorted(names):
        match = _TEMP_NAME.fullmatch(name)
        if match is None or _alive(int(match["pid"])):
            continue
        tmp = directory / name
        try:
            fd = os.open(tmp, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                continue
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            tmp.unlink()
            removed.append(tmp)
        except OSError:
            pass  # locked: its builder lives; or another process removed it first
        finally:
            os.close(fd)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True




def write_atomic(path: Path, data: bytes, *, mode: int = 0o644) -> None:
    """Replace ``path`` with ``data`` atomically (:func:`atomic_file`, file ``mode``), refusing a target that is not a regular file.

    :raises TableError: if the directory cannot be written or the disk is full.
    """
    refuse_non_regular(path)
    with atomic_file(path, mode=mode) as out:
        out.write(data)


def link_stays_inside(path: Path) -> bool:
    """Whether ``path`` is no symbolic link, or one that resolves inside its own directory."""
    if not path.is_symlink():
        return True
    try:
        return path.resolve().parent == path.parent.resolve()
    except (OSError, RuntimeError):  # a loop of links (RuntimeError before Python 3.13)
        return False
