"""The build directory of a layered build: its files, and the manifest of its finished and retired layers.

Each finished layer is a raw int8 file ``layer-PP.i8`` (in layer-local index order) with
its size and digest (the SHA-256 of its chunks' SHA-256, :func:`solver.retrograde.chunks.layer_digest`) in
``manifest.json``; a gravity build keeps which boards a game reaches,
compressed a chunk at a time, a file a layer, in ``reach-PP.zbits`` (:mod:`solver.retrograde.reachfile`; their
SHA-256 in the manifest's ``reach``: :mod:`solver.retrograde.gravity`), each deleted once its layer retires, and its
layers **sparse**, a byte a board reached (:attr:`BuildDir.sparse`, :mod:`solver.retrograde.sparse`: where each
chunk's scores lie is :meth:`BuildDir.spans`), read dense through the bits and counts ``reached-PP.bits`` and
``reached-PP.counts`` made from the reach file while the layer is read (:meth:`BuildDir.expand`); the
layer being solved is written (raw, or spooled compressed) into ``layer-PP.i8.partial`` with its journal ``layer-PP.journal`` (:mod:`solver.retrograde.sweep`).
The manifest is replaced atomically by :func:`solver.storage.fsutil.write_atomic`, the one
atomic writer.

The directory is the builder's alone: created 0700 and refused unless it is this
user's and writable by nobody else; every file in it is opened with ``O_NOFOLLOW``
(``O_EXCL`` where new) and must be a regular file of this user, so a link planted as
a layer, a partial layer or a journal is refused and nothing outside the directory is
ever written (:func:`solver.storage.fsutil.open_private`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..encoding.layouts import layout
from ..errors import BuildError, quote
from ..rules.game import Game
from ..storage.blockarray import new_file_codec
from ..storage.fsutil import create_private, open_private, private_directory, remove_dead_temporaries, write_atomic
from . import sparse
from .chunks import chunk_digest, chunks, layer_digest
from .reachfile import ReachIndex, read_index, read_range
from .sparse import SparseLayer, bits_bytes, counts_bytes

MANIFEST = "manifest.json"


# -- the build directory -----------------------------------------------------------
MAX_MANIFEST_BYTES = 1 << 20
"""A manifest larger than this is no build's (a real one holds at most 26 short entries and their retired files)."""
_LAYER_KEY = re.compile(r"[0-9]{1,2}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_RETIRED_FILE = re.compile(r"layer-[0-9]{2}\.[a-z]{1,12}")


@dataclass(frozen=True)
class BuildDir:
    """A build directory: finished layers, their checksums, and the layer being solved.

    The directory is the builder's alone (:func:`solver.storage.fsutil.private_directory`:
    0700, owned by this user); every file in it is opened through :meth:`open`
    (``O_NOFOLLOW``, regular files of this user only), so a link planted in it is
    refused, never followed.
    """

    path: Path
    game: Game
    _deleting: list[tuple[threading.Thread, int]] = field(default_factory=list, compare=False, repr=False)
    """Raw layers being deleted in the background (:meth:`retire`), with their sizes."""

    def layer_path(self, ply: int) -> Path:
        """The finished file of layer ``ply``."""
        return self.path / f"layer-{ply:02d}.i8"

    def partial_path(self, ply: int) -> Path:
        """The file of layer ``ply`` while it is being solved."""
        return self.path / f"layer-{ply:02d}.i8.partial"

    def journal_path(self, ply: int) -> Path:
        """The journal of layer ``ply`` while it is being solved: one ``start digest bytes`` line per finished chunk."""
        return self.path / f"layer-{ply:02d}.journal"

    def reach_path(self, ply: int) -> Path:
        """Which boards of layer ``ply`` a game reaches (gravity builds: :mod:`solver.retrograde.gravity`), a compressed
        frame a chunk (:mod:`solver.retrograde.reachfile`); deleted once the layer is solved (:meth:`record`)."""
        return self.path / f"reach-{ply:02d}.zbits"

    def reached_bits_path(self, ply: int) -> Path:
        """Layer ``ply``'s bits of the boards reached, a bit a board, while a sparse layer is read dense (made from its
        reach file: :meth:`expand`)."""
        return self.path / f"reached-{ply:02d}.bits"

    def reached_counts_path(self, ply: int) -> Path:
        """The counts of layer ``ply``'s boards reached beside :meth:`reached_bits_path` (:func:`solver.retrograde.sparse.block_counts`)."""
        return self.path / f"reached-{ply:02d}.counts"

    @property
    def sparse(self) -> bool:
        """Whether the layers are kept sparse, a byte a board reached (:mod:`solver.retrograde.sparse`): a build whose
        forward pass finds the boards a game reaches (gravity's) keeps them so."""
        return self.game.build_walks_forward

    def layer_bytes(self, ply: int) -> int:
        """Bytes of layer ``ply``'s file: a byte a board, or a byte a board reached (:attr:`sparse`: its reach file counts them)."""
        return self.reach_index(ply).reached if self.sparse else layout(self.game).layer_sizes[ply]

    def spans(self, ply: int) -> dict[int, tuple[int, int]]:
        """Where each chunk of layer ``ply`` lies in the layer's file, by its first board (in chunk order): its first
        byte and its bytes (dense: its boards; sparse: its boards reached, counted by the reach file's frames, which
        are the chunks).

        :raises BuildError: if the reach file's frames are not the layer's chunks (a file of another version).
        """
        layer_chunks = chunks(self.game, ply)
        if not self.sparse:
            return {chunk.start: (chunk.start, chunk.boards) for chunk in layer_chunks}
        index = self.reach_index(ply)
        if index.starts.size != len(layer_chunks) + 1 or any(int(index.starts[n]) != chunk.start for n, chunk in enumerate(layer_chunks)):
            raise BuildError(f"{self.reach_path(ply)}: its frames are not the layer's chunks; delete the build directory {self.path} to start again")
        before = index.before
        return {chunk.start: (int(before[n]), int(before[n + 1] - before[n])) for n, chunk in enumerate(layer_chunks)}

    def expand(self, ply: int, *, threads: int = 1) -> None:
        """Make layer ``ply``'s bits of the boards reached and their counts (:meth:`reached_bits_path`,
        :meth:`reached_counts_path`) afresh from its reach file, each written whole before it is moved into place, on
        ``threads`` threads (:func:`solver.retrograde.sparse.expand`).

        :raises BuildError: naming the reach file, if it does not decode or counts other boards than its frames hold.
        """
        boards = layout(self.game).layer_sizes[ply]
        bits_path, counts_path = self.reached_bits_path(ply), self.reached_counts_path(ply)
        index = self.reach_index(ply)
        bits_partial = bits_path.with_name(bits_path.name + ".partial")
        fd = self.create(bits_partial)
        try:
            os.ftruncate(fd, bits_bytes(boards))
        finally:
            os.close(fd)
        mapped = self.map(bits_partial, bits_bytes(boards), writable=True)
        bits = mapped.view(np.uint8)
        reach = self.open(self.reach_path(ply), os.O_RDONLY)
        try:
            sparse.expand(reach, index, new_file_codec(), bits, threads=threads)
        except ValueError as error:
            raise BuildError(f"{self.reach_path(ply)}: {error}; delete the build directory {self.path} to start again") from None
        finally:
            os.close(reach)
        counts = sparse.block_counts(bits, boards, threads=threads)
        if isinstance(mapped, np.memmap):
            mapped.flush()
        del bits, mapped
        if int(counts[-1]) != index.reached:
            raise BuildError(
                f"{self.reach_path(ply)}: its frames reach {int(counts[-1]):,} boards, its index {index.reached:,}; "
                f"delete the build directory {self.path} to start again"
            )
        counts_partial = counts_path.with_name(counts_path.name + ".partial")
        fd = self.create(counts_partial, os.O_WRONLY)
        try:
            sparse.write_counts(fd, counts)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(bits_partial, bits_path)
        os.replace(counts_partial, counts_path)

    def forget_expanded(self, ply: int) -> None:
        """Delete layer ``ply``'s bits of the boards reached and their counts (:meth:`expand`), if there."""
        for path in (self.reached_bits_path(ply), self.reached_counts_path(ply)):
            path.unlink(missing_ok=True)
            path.with_name(path.name + ".partial").unlink(missing_ok=True)

    def scores(self, ply: int, *, expand: bool = False) -> np.ndarray | SparseLayer:
        """Finished layer ``ply`` to be read: its file mapped read-only (dense), or as a :class:`solver.retrograde.sparse.SparseLayer`
        (sparse), which reads the layer's bits and counts (:meth:`expand`: made here with ``expand`` where missing;
        a build's workers read those the build made).

        :raises BuildError: naming a file that is missing or short.
        """
        boards = layout(self.game).layer_sizes[ply]
        if not self.sparse:
            return self.map(self.layer_path(ply), boards)
        if expand and not (self.reached_bits_path(ply).exists() and self.reached_counts_path(ply).exists()):
            self.expand(ply)
        try:
            bits = self.map(self.reached_bits_path(ply), bits_bytes(boards)).view(np.uint8)
            counts = self.map(self.reached_counts_path(ply), counts_bytes(boards)).view("<i8")
            scores = self.map(self.layer_path(ply), self.layer_bytes(ply))
        except FileNotFoundError as error:
            raise BuildError(f"{error.filename}: missing; delete the build directory {self.path} to start again") from None
        return SparseLayer(scores, bits, counts, boards)

    def playing_path(self, ply: int) -> Path:
        """The bits of layer ``ply``'s boards in play while the forward pass finds the next layer from them (a bit a
        board: :class:`solver.retrograde.gravity.PlayingFiles`); deleted once it has."""
        return self.path / f"playing-{ply:02d}.bits"

    def forget_reach(self) -> None:
        """Delete every layer's reach file and bits in play (a forward pass cut short), and the reach files of earlier
        versions (``reach-PP.bits``, a bit a board), before a forward pass writes them again."""
        for ply in range(self.game.cells + 1):
            for path in (self.reach_path(ply), self.playing_path(ply), self.path / f"reach-{ply:02d}.bits"):
                path.unlink(missing_ok=True)
            self.forget_expanded(ply)

    def has_reach(self, *, check: bool = True) -> bool:
        """Whether the forward pass is recorded and the bits of every layer not finished yet are there, of their size
        and (with ``check``) hashing as recorded (a finished layer's were deleted: nothing reads them again)."""
        digests = self.manifest().get("reach")
        if not isinstance(digests, dict):
            return False
        finished = self.finished(check=False)
        sizes = layout(self.game).layer_sizes
        return all(ply in finished or self._holds(self.reach_path(ply).name, digests[str(ply)], check) for ply in range(len(sizes)))

    def record_reach(self, digests: Sequence[str]) -> None:
        """Record the SHA-256 of every layer's complete :meth:`reach_path` (layer 0 first) in the manifest (atomically)."""
        data = self.manifest()
        data["reach"] = {str(ply): digest for ply, digest in enumerate(digests)}
        write_atomic(self.path / MANIFEST, json.dumps(data, sort_keys=True, indent=1).encode())

    def reached(self, ply: int, start: int, stop: int) -> np.ndarray:
        """Which boards ``start .. stop - 1`` of layer ``ply`` a game reaches (bool), read from :meth:`reach_path`.

        :raises BuildError: naming the file, what is wrong with it and the way out, if it does not decode.
        """
        path = self.reach_path(ply)
        fd = self.open(path, os.O_RDONLY)
        try:
            return read_range(fd, self._index_of(path, fd), new_file_codec(), start, stop)
        except ValueError as error:
            raise BuildError(f"{path}: {error}; delete the build directory {self.path} to start again") from None
        finally:
            os.close(fd)

    def reach_index(self, ply: int) -> ReachIndex:
        """The index of layer ``ply``'s reach file (:mod:`solver.retrograde.reachfile`), read once per process.

        :raises BuildError: naming the file, if its index does not decode.
        """
        path = self.reach_path(ply)
        fd = self.open(path, os.O_RDONLY)
        try:
            return self._index_of(path, fd)
        finally:
            os.close(fd)

    def _index_of(self, path: Path, fd: int) -> ReachIndex:
        try:
            found = os.fstat(fd)
            return _reach_index(self.path, path.name, (found.st_ino, found.st_size, found.st_mtime_ns))
        except ValueError as error:
            raise BuildError(f"{path}: {error}; delete the build directory {self.path} to start again") from None

    def prepare(self) -> None:
        """Create the directory (0700), or check that an existing one is this user's alone and holds only regular files.

        :raises TableError: naming what was found (another owner, a link, a FIFO...).
        """
        private_directory(self.path)
        remove_dead_temporaries(self.path)  # a manifest's temporary file left by a killed build

    def open(self, path: Path, flags: int) -> int:
        """A descriptor of the file ``path`` of this directory (:func:`solver.storage.fsutil.open_private`: no link followed)."""
        return open_private(self.path, path.name, flags)

    def create(self, path: Path, flags: int = os.O_RDWR) -> int:
        """A new, empty file ``path`` in this directory (``O_EXCL``; a stale regular file is replaced, a link refused)."""
        return create_private(self.path, path.name, flags)

    def map(self, path: Path, size: int, *, writable: bool = False) -> np.ndarray:
        """The ``size`` int8 scores of the file ``path``, memory-mapped from a descriptor opened by :meth:`open`."""
        if size == 0:
            return np.zeros(0, dtype=np.int8)
        fd = self.open(path, os.O_RDWR if writable else os.O_RDONLY)
        with os.fdopen(fd, "r+b" if writable else "rb") as handle:
            found = os.fstat(fd).st_size
            if found < size:
                raise BuildError(f"{path}: {found:,} bytes, expected {size:,}; delete the build directory {self.path} to start again")
            return np.memmap(handle, dtype=np.int8, mode="r+" if writable else "r", shape=(size,))

    def manifest(self) -> dict[str, Any]:
        """The manifest (an empty one for a new directory).

        :raises BuildError: if it is not a build manifest, or belongs to another game or index scheme.
        """
        path = self.path / MANIFEST
        try:
            fd = self.open(path, os.O_RDONLY)
        except FileNotFoundError:
            return {"game": self.game.name, "scheme": layout(self.game).scheme, "scheme_version": layout(self.game).scheme_version, "layers": {}}
        with os.fdopen(fd, "rb") as handle:
            raw = handle.read(MAX_MANIFEST_BYTES + 1)
        return _parse_manifest(path, raw, self.game)

    def finished(self, *, check: bool = True) -> dict[int, str]:
        """The finished layers and their SHA-256, after checking each file's size (and hash, with ``check``).

        A layer is finished when its raw file is there, or when it was retired (:meth:`retire`)
        and every file it was retired into is there (with ``check``, with its recorded
        SHA-256). A layer whose files are missing or wrong is dropped, with every layer above
        it kept only if contiguous from the full board down.
        """
        manifest = self.manifest()
        recorded = {int(ply): entry["sha256"] for ply, entry in manifest["layers"].items()}
        retired = {int(ply): entry for ply, entry in manifest.get("retired", {}).items()}
        good: dict[int, str] = {}
        for ply in range(self.game.cells, -1, -1):
            if ply not in recorded:
                break
            if ply in retired:
                if not all(self._holds(name, digest, check) for name, digest in retired[ply]["files"].items()):
                    break
            elif not self._holds_layer(ply, recorded[ply], check):
                break
            good[ply] = recorded[ply]
        return good

    def _holds(self, name: str, digest: str, check: bool, size: int | None = None) -> bool:
        """Whether the file ``name`` of this directory is there (of ``size`` bytes) and, with ``check``, hashes to ``digest``."""
        try:
            fd = self.open(self.path / name, os.O_RDONLY)
        except FileNotFoundError:
            return False
        with os.fdopen(fd, "rb") as handle:
            if size is not None and os.fstat(fd).st_size != size:
                return False
            return not check or hashlib.file_digest(handle, "sha256").hexdigest() == digest

    def _holds_layer(self, ply: int, digest: str, check: bool) -> bool:
        """Whether the raw file of layer ``ply`` is there, of the layer's size (:meth:`layer_bytes`), and (with
        ``check``) its chunks hash to ``digest`` (:func:`solver.retrograde.chunks.layer_digest`)."""
        try:
            spans = self.spans(ply)
            size = self.layer_bytes(ply)
            fd = self.open(self.layer_path(ply), os.O_RDONLY)
        except (FileNotFoundError, BuildError):
            return False  # a sparse layer whose reach file is gone is solved again
        try:
            if os.fstat(fd).st_size != size:
                return False
            return not check or layer_digest(chunk_digest(os.pread(fd, length, at)) for at, length in spans.values()) == digest
        finally:
            os.close(fd)

    def record(self, ply: int, digest: str) -> None:
        """Add a finished layer and its digest (:func:`solver.retrograde.chunks.layer_digest`) to the manifest
        (atomically). A sparse layer's reach file stays while its file does: it tells where each board's score lies
        (:meth:`retire` deletes it)."""
        data = self.manifest()
        data["layers"][str(ply)] = {"size": layout(self.game).layer_sizes[ply], "sha256": digest}
        write_atomic(self.path / MANIFEST, json.dumps(data, sort_keys=True, indent=1).encode())

    def retired(self) -> dict[int, dict[str, Any]]:
        """The retired layers: for each, ``files`` (name: SHA-256) and the caller's ``info``."""
        return {int(ply): entry for ply, entry in self.manifest().get("retired", {}).items()}

    def retire(self, ply: int, files: dict[str, str], info: dict[str, Any]) -> None:
        """Record that finished layer ``ply`` now lives in ``files`` of this directory (name: SHA-256), then delete its raw file.

        What the files hold is the caller's business (a table's compressed blocks); the
        layer stays finished for :meth:`finished` as long as they are there and match.

        The raw file is deleted by a thread of its own (:meth:`deleting`, :meth:`deleted`): the kernel takes seconds to
        free a large file (5x5k4's layers of 9 to 26 GB: 2 to 6 s, waiting on the disk) while the build goes on. A
        build killed before it is gone deletes it when it resumes (the layer is recorded as retired).

        :param info: a small JSON object recorded with the files (at most a few KiB).
        """
        for name in files:
            if not _RETIRED_FILE.fullmatch(name):
                raise ValueError(f"a retired layer's file is named layer-PP.<suffix>, found {name!r}")
        data = self.manifest()
        data.setdefault("retired", {})[str(ply)] = {"files": dict(files), "info": info}
        write_atomic(self.path / MANIFEST, json.dumps(data, sort_keys=True, indent=1).encode())
        if self.sparse:  # its reach file and bits: read no more
            self.reach_path(ply).unlink(missing_ok=True)
            self.forget_expanded(ply)
        path = self.layer_path(ply)
        try:
            size = os.stat(path, follow_symlinks=False).st_size
        except FileNotFoundError:
            return
        thread = threading.Thread(target=path.unlink, kwargs={"missing_ok": True}, name=f"delete {path.name}")
        thread.start()
        self._deleting.append((thread, size))

    def deleting(self) -> int:
        """Bytes of retired raw layers still being deleted (:meth:`retire`): disk about to be free."""
        self._deleting[:] = [(thread, size) for thread, size in self._deleting if thread.is_alive()]
        return sum(size for _, size in self._deleting)

    def deleted(self) -> None:
        """Wait until every retired raw layer is deleted."""
        for thread, _ in self._deleting:
            thread.join()
        self._deleting.clear()

    def raw_layers(self) -> list[int]:
        """The finished layers whose raw file is still here, not retired (full board first)."""
        retired = self.retired()
        return [ply for ply in self.finished(check=False) if ply not in retired]

    def layers(self) -> list[np.ndarray]:
        """Every finished layer, a byte a board, layer 0 first (for a table file written from them): read-only memory
        maps, or (sparse layers) arrays made dense in memory, for the games small enough to be held so."""
        if not self.sparse:
            return [self.map(self.layer_path(ply), layout(self.game).layer_sizes[ply]) for ply in range(self.game.cells + 1)]
        dense = []
        for ply in range(self.game.cells + 1):
            layer = self.scores(ply, expand=True)
            dense.append(layer[0 : len(layer)])
            self.forget_expanded(ply)
        return dense


@lru_cache(maxsize=8)
def _reach_index(directory: Path, name: str, identity: tuple[int, int, int]) -> ReachIndex:
    """The index of a reach file (:func:`solver.retrograde.reachfile.read_index`), read once per process while the
    file is the same (``identity``: its inode, size and modification time): every chunk of a layer reads it."""
    fd = open_private(directory, name, os.O_RDONLY)
    try:
        return read_index(fd)
    finally:
        os.close(fd)


def _plain(value: object) -> str:
    """A short name or number as it is, anything else quoted and cut short (:func:`solver.errors.quote`)."""
    text = str(value)
    return text if isinstance(value, (str, int)) and len(text) <= 40 and text.isprintable() else quote(value)


def _parse_manifest(path: Path, raw: bytes, game: Game) -> dict[str, Any]:
    """The manifest's JSON, every field checked.

    :raises BuildError: naming the file, what is wrong and the way out (delete the build directory).
    """

    def bad(problem: str) -> BuildError:
        return BuildError(f"{path}: {problem}; delete the build directory {path.parent} to start again")

    if len(raw) > MAX_MANIFEST_BYTES:
        raise bad(f"larger than {MAX_MANIFEST_BYTES:,} bytes, not a build manifest")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as error:
        raise bad(f"unreadable ({type(error).__name__}: {str(error)[:80]})") from None
    if not isinstance(data, dict):
        raise bad(f"holds a JSON {type(data).__name__}, expected an object")
    found = (data.get("game"), data.get("scheme"), data.get("scheme_version"))
    index = layout(game)
    if found != (game.name, index.scheme, index.scheme_version):
        raise BuildError(
            f"{path.parent} holds a build of {_plain(found[0])} ({_plain(found[1])} v{_plain(found[2])}), "
            f"expected {game.name} ({index.scheme} v{index.scheme_version}); use another directory"
        )
    layers = data.get("layers")
    if not isinstance(layers, dict):
        raise bad(f'"layers" is {quote(layers)}, expected an object of finished layers')
    sizes = layout(game).layer_sizes
    for key, entry in layers.items():
        ply = int(key) if _LAYER_KEY.fullmatch(key) else None
        if ply is None or ply > game.cells:
            raise bad(f"names layer {quote(key)}, expected a number from 0 to {game.cells}")
        if not isinstance(entry, dict) or entry.get("size") != sizes[ply] or not _SHA256.fullmatch(str(entry.get("sha256"))):
            raise bad(f"layer {ply} is recorded as {quote(entry)}, expected its size {sizes[ply]} and a SHA-256")
    _check_retired(data.get("retired", {}), layers, bad)
    _check_reach(data.get("reach", {}), game, bad)
    return data


def _check_reach(reach: Any, game: Game, bad: Callable[[str], BuildError]) -> None:
    """The forward pass's record: nothing yet, or a SHA-256 for every layer's reach bits by its number."""
    if isinstance(reach, str):
        raise bad("its forward pass is kept in one reach.bits, as an earlier version kept it (now a file a layer)")
    layers = sorted(map(str, range(game.cells + 1))) if reach else []
    if not isinstance(reach, dict) or sorted(reach) != layers or not all(_SHA256.fullmatch(str(digest)) for digest in reach.values()):
        raise bad(f'"reach" is {quote(reach)}, expected the SHA-256 of every layer\'s reach-PP.zbits by its number')


def _check_retired(retired: Any, layers: dict[str, Any], bad: Callable[[str], BuildError]) -> None:
    """Every retired layer is a finished one, with files named ``layer-PP.<suffix>`` and a SHA-256 each."""
    if not isinstance(retired, dict):
        raise bad(f'"retired" is {quote(retired)}, expected an object of retired layers')
    for key, entry in retired.items():
        if key not in layers:
            raise bad(f"retires layer {quote(key)}, which is not a finished layer")
        files = entry.get("files") if isinstance(entry, dict) else None
        if (
            not isinstance(files, dict)
            or not isinstance(entry.get("info"), dict)
            or not all(isinstance(name, str) and _RETIRED_FILE.fullmatch(name) and _SHA256.fullmatch(str(digest)) for name, digest in files.items())
        ):
            raise bad(f"retired layer {key} is recorded as {quote(entry)}, expected its files (layer-PP.<suffix>: SHA-256) and info")
