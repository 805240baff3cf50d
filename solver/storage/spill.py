"""Arrays a long pass keeps on disk when they would not fit memory (the proof of a big table: two layers at a time).

A :class:`Spill` hands out zeroed arrays by name: up to :data:`KEEP_IN_MEMORY` bytes in memory, a larger one a
disk-backed array (:class:`numpy.memmap`) in a private temporary directory (mode 0700), its blocks reserved
before it is mapped, so that a full disk is an error at once (:class:`~solver.errors.DiskFullError`, naming the
directory, the bytes and what is free) and never a signal at the first write past the end. The directory and
everything in it go when the spill closes, however the pass ends; an array released before goes at once (its
blocks freed once the last view of it is gone: a view kept never reads freed memory).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from types import TracebackType

import numpy as np

from ..errors import InvalidValueError
from .fsutil import DISK_FULL, disk_full

KEEP_IN_MEMORY = 1 << 30
"""Bytes up to which an array is held in memory (1 GiB); a larger one is spilled to disk."""

PREFIX = "solve-spill-"
"""The start of a spill directory's name."""


class Spill:
    """Named arrays, in memory or on disk by their size, for the time of a ``with`` block.

    :param where: the directory the spill's own directory goes in (default: the system's temporary directory,
        ``$TMPDIR``); made only when a first array is spilled.
    :param keep_in_memory: bytes up to which an array stays in memory (0: every array on disk; default
        :data:`KEEP_IN_MEMORY`).
    """

    def __init__(self, where: Path | None = None, *, keep_in_memory: int | None = None) -> None:
        keep_in_memory = KEEP_IN_MEMORY if keep_in_memory is None else keep_in_memory
        if keep_in_memory < 0:
            raise InvalidValueError(f"keep_in_memory must be at least 0 bytes, not {keep_in_memory}")
        self.where = Path(where) if where is not None else Path(tempfile.gettempdir())
        self.keep_in_memory = keep_in_memory
        self.directory: Path | None = None
        self._arrays: dict[str, np.ndarray] = {}
        self._on_disk = 0
        self.peak_disk = 0
        """The most bytes the spill's files held at once."""

    def __enter__(self) -> Spill:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        self.close()

    def array(self, name: str, size: int, dtype: np.dtype[np.generic] | type[np.generic]) -> np.ndarray:
        """A zeroed array of ``size`` items named ``name`` (one held under the name before is released first).

        :raises DiskFullError: if the disk has no room for it (nothing is left behind).
        """
        self.release(name)
        nbytes = size * np.dtype(dtype).itemsize
        if nbytes <= self.keep_in_memory or size == 0:
            found: np.ndarray = np.zeros(size, dtype=dtype)
        else:
            found = self._mapped(name, nbytes, size, dtype)
        self._arrays[name] = found
        return found

    def _mapped(self, name: str, nbytes: int, size: int, dtype: np.dtype[np.generic] | type[np.generic]) -> np.ndarray:
        """A disk-backed array of ``nbytes``, its blocks reserved first."""
        if self.directory is None:
            self.directory = Path(tempfile.mkdtemp(prefix=PREFIX, dir=self.where))
        path = self.directory / f"{name}.bin"
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.posix_fallocate(fd, 0, nbytes)
        except OSError as error:
            os.close(fd)
            path.unlink(missing_ok=True)
            if error.errno in DISK_FULL:
                raise disk_full(self.directory, error, needed=nbytes, doing=f"setting aside {name} on disk", then="run it again") from None
            raise
        os.close(fd)
        self._on_disk += nbytes
        self.peak_disk = max(self.peak_disk, self._on_disk)
        return np.memmap(path, dtype=dtype, mode="r+", shape=(size,))

    def release(self, name: str) -> None:
        """Forget the array named ``name`` (its file removed; nothing if there is none)."""
        found = self._arrays.pop(name, None)
        if isinstance(found, np.memmap):
            self._on_disk -= found.nbytes
            Path(str(found.filename)).unlink(missing_ok=True)  # its blocks are freed once no view maps them

    def close(self) -> None:
        """Release every array and remove the spill's directory."""
        for name in list(self._arrays):
            self.release(name)
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None
