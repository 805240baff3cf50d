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
* **Private directories** (:func:`private_directory`, :func:`open_private`,
  :func:`create_private`, :func:`directory_lock`): a compact build's directory is
  the builder's alone: created 0700, refused unless it is a real directory owned by
  this user and writable by nobody else; every file in it is opened with
  ``O_NOFOLLOW`` (``O_EXCL`` where new) and refused unless it is a regular file of
  this user with one link, so a link planted in it never leads a write outside; and
  one builder at a time holds its lock.

Errors are :class:`solver.errors.TableError`, naming the path and what to do. What is
not written here: the layers of a compact build, which its workers fill in place
through memory maps of descriptors opened by :func:`open_private` and which are
renamed into place once hashed (:mod:`solver.retrograde.sweep`), and the build's
journal, an append-only log whose torn or unreadable lines are skipped on resume.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import secrets
import shutil
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from ..errors import TableError


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
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def check_space(path: Path, needed: int) -> None:
    """Refuse a write of ``needed`` bytes to ``path`` that cannot fit in its directory, which is
    created here if missing (the write would create it next): a directory that cannot be
    created is said as such, not as the free space of the nearest one that exists (``/proc``: 0 bytes).

    :raises TableError: naming the directory that cannot be created, or the bytes needed and free.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise TableError(_cannot_write(path.parent, error)) from None
    try:
        free = shutil.disk_usage(path.parent).free
    except OSError:
        return
    if free < needed:
        raise TableError(f"{path}: not enough disk space: the table needs {format_size(needed)} ({needed:,} bytes), {path.parent} has {format_size(free)} free")


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
def atomic_file(path: Path, *, mode: int = 0o644, check: Callable[[Path], None] | None = None) -> Iterator[IO[bytes]]:
    """A new file that replaces ``path`` when the block ends without error.

    The temporary file is created with ``O_EXCL | O_NOFOLLOW`` (a link planted
    under its name is never followed), locked with ``flock`` while it is written
    (so :func:`remove_dead_temporaries` knows its builder is alive), given ``mode``
    (0644 unless told) through its descriptor, synced, and renamed into place.

    :param check: called with the temporary file's path once it is written and synced,
        before the rename; whatever it raises leaves ``path`` as it was (and the
        temporary file removed).
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
        if check is not None:
            check(tmp)
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
    _sync_directory(directory)


def _sync_directory(directory: Path) -> None:
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass  # the rename is done; a directory that cannot be synced is still consistent


def _cannot_write(directory: Path, error: OSError) -> str:
    """``cannot create the table directory D (why)`` when it is missing, else ``cannot write tables into D (why)``, and what to do."""
    what = f"cannot write tables into {directory}" if directory.is_dir() else f"cannot create the table directory {directory}"
    return f"{what} ({error.strerror or error}): make it a writable directory, or choose another table directory"


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


# -- private directories (a compact build's) ---------------------------------------
def _my_uid() -> int:
    """The user a private directory and its files must belong to (a function, so tests can pose as another)."""
    return os.geteuid()


def _check_private(path: Path, info: os.stat_result) -> None:
    """Refuse a directory that is not this user's alone."""
    if not stat.S_ISDIR(info.st_mode):
        raise TableError(f"{path}: is {file_kind(info.st_mode)}, not a directory; refusing to build in it: remove it")
    if info.st_uid != _my_uid():
        raise TableError(
            f"{path}: owned by user {info.st_uid}, not by you (user {_my_uid()}); refusing to build in a directory "
            "another user controls: remove it or choose another table directory"
        )
    if info.st_mode & 0o022:
        raise TableError(
            f"{path}: writable by other users (mode {stat.S_IMODE(info.st_mode):04o}); refusing to build in it: "
            "remove it (a build starts again) or make it private with chmod 700"
        )


def _open_directory(path: Path) -> int:
    """A descriptor of the directory ``path`` itself (a link to one is refused), checked to be this user's alone."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            kind = file_kind(os.lstat(path).st_mode) if os.path.lexists(path) else "not a directory"
            raise TableError(f"{path}: is {kind}, not a directory; refusing to build in it: remove it") from None
        raise TableError(f"{path}: cannot open the build directory ({error.strerror})") from None
    try:
        _check_private(path, os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise
    return fd


def private_directory(path: Path) -> None:
    """Create ``path`` as a directory only this user can enter (mode 0700), or check an existing one.

    An existing directory must be a real directory (not a link to one), owned by this
    user and writable by nobody else; its mode is then tightened to 0700. Every entry
    in it must be a regular file (a planted link, FIFO or subdirectory is refused).

    :raises TableError: naming the directory, what was found and what to do.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError as error:
        raise TableError(_cannot_write(path.parent, error)) from None
    fd = _open_directory(path)
    try:
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, 0o700)
        with os.scandir(fd) as entries:
            strange = sorted((entry.name, entry.stat(follow_symlinks=False).st_mode) for entry in entries if not entry.is_file(follow_symlinks=False))
    finally:
        os.close(fd)
    if strange:
        name, mode = strange[0]
        raise TableError(
            f"{path / name}: is {file_kind(mode)}; a build directory holds only the build's own regular files, refusing to build: remove {path / name}"
        )


def open_private(directory: Path, name: str, flags: int) -> int:
    """Open the file ``name`` of a private directory without following a link: a descriptor.

    The directory is checked to be this user's alone (:func:`private_directory`), the
    file is opened with ``O_NOFOLLOW`` (and the given flags: ``O_CREAT | O_EXCL`` for a
    new file, created 0600), and refused unless it is a regular file of this user; a
    file opened for writing must also have a single link (a hard link to a file
    elsewhere is never written through).

    :raises FileNotFoundError: if the file is missing and ``O_CREAT`` is not given, or the directory is.
    :raises FileExistsError: if it exists and ``O_CREAT | O_EXCL`` is given.
    :raises TableError: for a link, anything but a regular file, or a directory not the user's alone.
    """
    path = directory / name
    dir_fd = _open_directory(directory)
    try:
        fd = os.open(name, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o600, dir_fd=dir_fd)
    except (FileNotFoundError, FileExistsError):
        raise
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise TableError(f"{path}: is a symbolic link; refusing to follow it out of the build directory: remove it") from None
        raise TableError(f"{path}: cannot open ({error.strerror})") from None
    finally:
        os.close(dir_fd)
    info = os.fstat(fd)
    writing = flags & (os.O_WRONLY | os.O_RDWR)
    problem = (
        f"is {file_kind(info.st_mode)}"
        if not stat.S_ISREG(info.st_mode)
        else f"is owned by user {info.st_uid}, not by you"
        if info.st_uid != _my_uid()
        else f"has {info.st_nlink} hard links (a link to a file elsewhere?)"
        if writing and info.st_nlink != 1
        else None
    )
    if problem is not None:
        os.close(fd)
        raise TableError(f"{path}: {problem}; refusing to use it in the build directory: remove it")
    return fd


def create_private(directory: Path, name: str, flags: int = os.O_RDWR) -> int:
    """Create the file ``name`` afresh in a private directory (``O_CREAT | O_EXCL | O_NOFOLLOW``): a descriptor.

    A regular file left there by an earlier run is removed first; a link or anything
    else under the name is refused (:func:`open_private`'s errors).
    """
    try:
        return open_private(directory, name, flags | os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        pass
    fd = open_private(directory, name, flags)  # refuses a link, a FIFO, a hard link...: only a stale file of ours is removed
    os.close(fd)
    (directory / name).unlink()
    return open_private(directory, name, flags | os.O_CREAT | os.O_EXCL)


LOCK_NAME = "lock"
"""The lock file of a private directory (:func:`directory_lock`)."""
LOCK_ATTEMPTS = 100
"""How many times :func:`directory_lock` starts again on a directory removed under it before it gives up."""


@contextmanager
def directory_lock(directory: Path, *, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the lock of a private directory (created 0700 if missing, :func:`private_directory`).

    Another holder is waited for (``on_wait`` is told once). When the block ends with
    the directory holding nothing but its lock (a finished build emptied it with
    :func:`empty_private_directory`, or a refused one wrote nothing), the lock file and
    the directory are removed; a waiter then finds the lock file it holds unlinked and
    starts again on a fresh directory, so two holders never overlap.
    """
    for _ in range(LOCK_ATTEMPTS):
        try:
            private_directory(directory)
            fd = open_private(directory, LOCK_NAME, os.O_RDWR | os.O_CREAT)
        except FileNotFoundError:
            continue  # removed by the holder just now: make it again
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if on_wait is not None:
                    on_wait(f"another process is building in {directory}; waiting for it to finish")
                    on_wait = None
                fcntl.flock(fd, fcntl.LOCK_EX)
            if _still_linked(directory / LOCK_NAME, fd):
                break
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # the holder removed the directory: lock the new one
    else:
        raise TableError(f"{directory}: removed {LOCK_ATTEMPTS} times while its lock was being taken; is another program deleting it?")
    try:
        yield
    finally:
        try:
            _remove_if_only_lock(directory)
        finally:
            os.close(fd)


def _still_linked(path: Path, fd: int) -> bool:
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (found.st_dev, found.st_ino) == (mine.st_dev, mine.st_ino)


def empty_private_directory(directory: Path) -> None:
    """Remove every file of a private directory but its lock, whose holder is the caller (:func:`directory_lock`).

    The lock goes last, when the lock's block ends: a builder that arrives meanwhile
    waits on it and then starts afresh, and never has its own files removed.
    """
    with os.scandir(directory) as entries:
        for entry in entries:
            if entry.name == LOCK_NAME:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                Path(entry.path).unlink(missing_ok=True)


def _remove_if_only_lock(directory: Path) -> None:
    try:
        if os.listdir(directory) == [LOCK_NAME]:
            (directory / LOCK_NAME).unlink()
            directory.rmdir()
    except OSError:
        pass  # gone already, or not empty after all: left for the next build


# -- downloads ---------------------------------------------------------------------
PARTIAL_SUFFIX = ".part"


def partial_name(path: Path) -> Path:
    """Where a download of ``path`` is written until it is checked: ``.<name>.part`` beside it."""
    return path.with_name(f".{path.name}{PARTIAL_SUFFIX}")


def open_partial(path: Path) -> int:
    """A download's partial file, for reading and writing: created 0600 if missing, never through a link,
    refused unless it is a regular file of this user with one link, and locked (one download at a time).

    :raises TableError: naming the file and what is wrong (another download holds it, a link, ...).
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o600)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise TableError(f"{path}: is a symbolic link; refusing to download through it: remove it") from None
        raise TableError(_cannot_write(path.parent, error)) from None
    info = os.fstat(fd)
    problem = (
        f"is {file_kind(info.st_mode)}"
        if not stat.S_ISREG(info.st_mode)
        else f"is owned by user {info.st_uid}, not by you"
        if info.st_uid != _my_uid()
        else f"has {info.st_nlink} hard links"
        if info.st_nlink != 1
        else None
    )
    try:
        if problem is not None:
            raise TableError(f"{path}: {problem}; refusing to download into it: remove it")
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise TableError(f"{path}: another download of this table is running; wait for it to finish") from None
    except BaseException:
        os.close(fd)
        raise
    return fd


def install_file(source: Path, target: Path, *, replace: bool) -> None:
    """Move a checked file into place atomically: never over an existing file unless ``replace`` (and then only a regular file).

    :raises TableError: if ``target`` exists and ``replace`` is False, or the move fails.
    """
    try:
        if replace:
            refuse_non_regular(target)
            os.replace(source, target)
        else:
            _link_new(source, target)
    except FileExistsError:
        raise TableError(f"{target}: exists; it was not replaced") from None
    except OSError as error:
        raise TableError(_cannot_write(target.parent, error)) from None
    _sync_directory(target.parent)


def _link_new(source: Path, target: Path) -> None:
    """Rename ``source`` to ``target``, failing if ``target`` exists (a hard link then an unlink: no window in which it is overwritten)."""
    try:
        os.link(source, target, follow_symlinks=False)
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links: the check and the rename are not one step there
        if os.path.lexists(target):
            raise FileExistsError(target) from None
        os.rename(source, target)
        return
    source.unlink()
