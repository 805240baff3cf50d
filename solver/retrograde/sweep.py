"""The layered build of compact tables: one score byte per legal-count board, layer by layer, backward.

Boards are numbered by :mod:`solver.encoding.index` (layer ``p`` holds the boards with ``p``
pieces, X ``ceil(p/2)`` and O ``floor(p/2)``). Layer ``p`` is solved from layer
``p + 1`` only, from the full board down to the empty one, in bounded chunks
(:mod:`solver.retrograde.chunks`), each solved by :func:`solver.retrograde.kernel.solve_chunk`.

**On disk** (a *build directory*, :mod:`solver.retrograde.builddir`): each finished layer is
a raw int8 file ``layer-PP.i8`` (a gravity build's holds the boards a game reaches alone, always written raw:
:mod:`solver.retrograde.sparse`). The layer being solved is written into
``layer-PP.i8.partial``, in which every worker writes each chunk at the chunk's own offset
(:mod:`solver.retrograde.spool`), and a journal line ``start digest bytes`` per chunk once it is written. Where the
disk has room for the whole layer beside its child (and the sealed files written before the child retires: :func:`raw_fits`),
the chunks are written **raw**: the partial file is the layer, and finishing it (:func:`finish_layer`) renames it. Else
they are **spooled** compressed, so that while layer ``p`` is solved only its child ``p + 1`` is raw on disk; then the
chunks are decoded into ``layer-PP.i8``, each checked against its digest. A build that retires its layers (a
``release`` hook, :mod:`solver.retrograde.sealing`) retires ``p + 1`` before ``p`` is finished, so a spooled build
never holds two large raw layers at once; its hook may also have each chunk sealed for the table by the worker that
solves it (:meth:`Release.solving`), so that no pass reads the layer back to seal it. The layer's digest is computed from its chunks' digests
(:func:`solver.retrograde.chunks.layer_digest`), never from a pass over its bytes. A build run again on the same
directory checks the finished layers and resumes below the last one, keeping every journaled chunk whose bytes
still hash to their digest. The bytes do not depend on the number of workers, their
order, or on which chunks were written raw. Pool workers die with the build's process
(:func:`solver.lifetime.die_with_parent`), even when it is killed with SIGKILL.

>>> import tempfile
>>> from solver.rules.game import Game
>>> with tempfile.TemporaryDirectory() as directory:
...     done = build_layers(Game(3, 3, 3), directory, jobs=1)
...     scores = np.fromfile(done.layer_path(0), dtype=np.int8)
>>> int(scores[0])          # the empty board: a draw
0
"""

from __future__ import annotations

import os
import re
import shutil
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing import get_all_start_methods, get_context
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..encoding.layouts import layout
from ..errors import BuildError
from ..lifetime import ctrl_c_blocked, die_with_parent, ignore_ctrl_c
from ..rules.game import Game
from ..words import count
from .builddir import BuildDir
from .chunks import CHUNK_COST, Chunk, ChunkDone, Progress, chunk_digest, chunks, layer_digest
from .pieces import PieceSealing
from .plan import RETIRED_AT_MOST, check_resources, plan_build
from .spool import ChunkResult, run_chunks, unspool


@dataclass(frozen=True)
class BuildResult:
    """A finished build directory and what the run did."""

    game: Game
    path: Path
    resumed_below: int | None
    """The lowest layer already finished when this run started (None: a fresh build)."""
    solved: tuple[int, ...]
    """The layers this run solved."""
    sha256: dict[int, str] = field(repr=False)
    """Every layer's SHA-256."""
    resumed: tuple[int, ...] = ()
    """The layers holding bytes from an earlier run: those finished before, and a layer
    whose journaled chunks were kept (what a consistency check of a resumed build covers)."""

    def layer_path(self, ply: int) -> Path:
        """The file of layer ``ply``."""
        return BuildDir(self.path, self.game).layer_path(ply)

    def layers(self) -> list[np.ndarray]:
        """Every layer as a read-only memory map, layer 0 first."""
        return BuildDir(self.path, self.game).layers()


Dispatch = Callable[[int, list[list[Chunk]], bool, PieceSealing | None], Iterator[list[ChunkResult]]]
"""Runs the chunk groups of a layer (somewhere), written raw or not, sealed as they are solved or not
(:func:`solver.retrograde.spool.run_chunks`), and yields each group's results as they finish."""

Mapper = Callable[[Callable[[Any], Any], Iterable[Any]], Iterator[Any]]
"""Runs a module-level function over items on the build's workers and yields the results in order (like :func:`map`)."""


class LayerSeal(Protocol):
    """A layer sealed as it is solved (:meth:`Release.solving`): the workers seal each chunk they solve as
    :attr:`sealing` says, and the sweep hands over their results."""

    @property
    def sealing(self) -> PieceSealing:
        """How the workers seal the chunks."""

    def add(self, results: Sequence[ChunkResult]) -> None:
        """Results of chunks solved, in any order."""

    def solved(self) -> None:
        """Every chunk of the layer is solved and added."""


class Release(Protocol):
    """Retires the finished layers nothing reads raw any more, and may seal a layer as it is solved."""

    def __call__(self, build: BuildDir, below: int, mapper: Mapper, resumed: Sequence[int]) -> None:
        """Called when no finished layer above ``below`` will be read raw again (after each layer, and at the start
        of a resumed build; ``below = -1`` at the end): it may :meth:`solver.retrograde.builddir.BuildDir.retire`
        them, using ``mapper`` to spread its work over the build's workers. ``resumed`` lists the layers so far that
        hold bytes of an earlier run (:attr:`BuildResult.resumed`)."""

    def solving(self, build: BuildDir, ply: int) -> LayerSeal | None:
        """Called before layer ``ply`` is solved, every chunk of it in this run: how it is sealed as it is solved
        (None: it is not)."""


def sweep(
    game: Game,
    directory: str | os.PathLike[str],
    dispatch: Dispatch,
    *,
    jobs: int,
    progress: Progress | None = None,
    notify: Callable[[str], None] | None = None,
    extra_disk: int = 0,
    check_memory: bool = True,
    release: Release | None = None,
    mapper: Mapper = map,
) -> BuildResult:
    """The layer sweep shared by the local and the cluster builds (see the module docstring).

    :param dispatch: runs a layer's chunk groups and yields each group's :data:`solver.retrograde.spool.ChunkResult` list.
    :param jobs: how many workers run chunks (for the memory estimate and the batching).
    :param release: retires the finished layers nothing reads raw any more, and seals layers as they are solved
        (:class:`Release`).
    :param mapper: given to ``release``: runs its work on the build's workers.
    :raises TableError: if the directory is not this user's alone, or a file in it is a link
        or not a regular file (nothing outside the directory is ever written).
    """
    path = Path(directory)
    build = BuildDir(path, game)
    build.prepare()
    plan = plan_build(game, path, jobs=jobs, retiring=release is not None)
    check_resources(plan, path, extra_disk=extra_disk, check_memory=check_memory)
    if notify is not None and plan.resumed_below is not None:
        left = f"solving layers {plan.todo[0]} to 0" if plan.todo else "nothing left to solve"
        notify(f"resuming the {game.name} build in {path}: layers {game.cells} to {plan.resumed_below} are done, {left}")
    resumed = [ply for ply in range(game.cells, -1, -1) if ply not in plan.todo]
    for ply in resumed:
        _drop_spool(build, ply)  # a build killed between recording a layer and deleting its spool
    if plan.todo:
        from .kernel import write_reach  # the move rule's forward pass, if it has one (gravity), before the sweep

        write_reach(build, jobs=jobs, progress=progress)
        if build.sparse:  # the layers' sizes, guessed before the pass, are counted now
            check_resources(plan_build(game, path, jobs=jobs, check=False, retiring=release is not None), path, extra_disk=extra_disk, check_memory=False)
    try:
        _sweep_layers(build, plan.todo, plan.resumed_below, resumed, dispatch, jobs=jobs, progress=progress, notify=notify, release=release, mapper=mapper)
    finally:
        build.deleted()  # the retired raw layers deleted in the background: gone once the sweep returns
    return BuildResult(game, path, plan.resumed_below, plan.todo, build.finished(check=False), tuple(resumed))


def _sweep_layers(
    build: BuildDir,
    todo: Sequence[int],
    resumed_below: int | None,
    resumed: list[int],
    dispatch: Dispatch,
    *,
    jobs: int,
    progress: Progress | None,
    notify: Callable[[str], None] | None,
    release: Release | None,
    mapper: Mapper,
) -> None:
    """Solve the layers ``todo`` in order, finishing, sealing and retiring them as :func:`sweep` says; ``resumed``
    gets the layers that keep chunks of an earlier run."""
    if release is not None and resumed_below is not None:
        release(build, resumed_below, mapper, resumed)  # a build killed while it retired a layer
    for ply in todo:
        kept = _solve_layer(build, ply, dispatch, jobs=jobs, progress=progress, notify=notify, release=release)
        if kept:
            resumed.append(ply)
        # a layer holding an earlier run's chunks is finished while its raw child is still there to check it against
        early = release is None or kept
        if early:
            finish_layer(build, ply, threads=jobs)
        if release is not None:
            release(build, ply, mapper, resumed)
            if not early:
                finish_layer(build, ply, threads=jobs)
    if release is not None:
        release(build, -1, mapper, resumed)


def _solve_layer(
    build: BuildDir,
    ply: int,
    dispatch: Dispatch,
    *,
    jobs: int,
    progress: Progress | None,
    notify: Callable[[str], None] | None,
    release: Release | None = None,
) -> bool:
    """Solve layer ``ply`` into its partial file, chunk by chunk, resuming its journaled chunks. Returns whether
    chunks of an earlier run were kept. The layer is finished (made raw) by :func:`finish_layer`. A layer none of
    whose chunks an earlier run kept is sealed as it is solved where ``release`` says how (:meth:`Release.solving`).

    :raises BuildError: if chunks are left to solve but the layer above, which they read, is retired.
    """
    layer_chunks = chunks(build.game, ply)
    fd, finished = _open_partial(build, ply, layer_chunks, notify)
    try:
        todo = [chunk for chunk in layer_chunks if chunk.start not in finished]
        if todo and ply < build.game.cells and ply + 1 in build.retired():
            raise BuildError(
                f"layer {ply} of the {build.game.name} build in {build.path} is missing or damaged, and cannot be solved again: "
                f"layer {ply + 1}, which it reads, is retired (its raw scores are gone); delete {build.path} and build again"
            )
        if progress is not None:
            for chunk in layer_chunks:
                if chunk.start in finished:
                    progress(ChunkDone(ply, chunk.boards, chunk.boards + CHUNK_COST))
        raw = _written_raw(build, ply, finished)
        seal = release.solving(build, ply) if release is not None and not finished else None
        if todo and build.sparse and ply < build.game.cells:
            # the child read dense by the workers: its bits of the boards reached and their counts (the workers wait)
            build.expand(ply + 1, threads=min(jobs, os.cpu_count() or 1))
        with os.fdopen(build.open(build.journal_path(ply), os.O_WRONLY | os.O_APPEND), "ab") as log:
            for done in dispatch(ply, _groups(todo, jobs), raw, None if seal is None else seal.sealing):
                # after the worker wrote them: a killed build keeps these chunks (their digest is checked on resume)
                log.write("".join(f"{start} {digest} {stored}\n" for start, _, digest, stored, _ in done).encode())
                log.flush()
                if seal is not None:
                    seal.add(done)
                if progress is not None:
                    for _, boards, _, _, _ in done:
                        progress(ChunkDone(ply, boards, boards + CHUNK_COST))
        os.fsync(fd)
        if seal is not None:
            seal.solved()
    finally:
        os.close(fd)
        build.forget_expanded(ply + 1)
    return bool(finished)


RAW_MARGIN = 2 << 30
"""Disk left free beyond what a layer written raw and its child's sealed files take (:func:`raw_fits`)."""


def raw_fits(build: BuildDir, ply: int) -> bool:
    """Whether layer ``ply`` is written raw as it is solved: the free disk holds the whole layer, the sealed files of
    the layer and of its child (written before the child retires, the layer's as it is solved: each at most
    :data:`solver.retrograde.plan.RETIRED_AT_MOST`-th of its layer) and :data:`RAW_MARGIN`. Otherwise it is spooled
    compressed (the disk the plan counted: :mod:`solver.retrograde.plan`).

    Raw, the chunks are neither compressed nor decoded, and finishing the layer writes nothing (5x5k4's layers took
    354 s of 1,736 to be decoded and written, 2026-12-05); spooled, a build never holds two large raw layers at once.
    """
    sizes = layout(build.game).layer_sizes
    child = sizes[ply + 1] if ply < build.game.cells else 0
    return _free_disk(build.path) + build.deleting() >= sizes[ply] + (sizes[ply] + child) // RETIRED_AT_MOST + RAW_MARGIN


def _written_raw(build: BuildDir, ply: int, finished: dict[int, int]) -> bool:
    """Whether the chunks left of layer ``ply`` are written raw: always for a sparse layer (it takes a byte a board
    reached: :mod:`solver.retrograde.sparse`); else as an earlier run wrote the chunks it finished (raw if every one
    is raw), or, in a fresh layer, where the disk has room (:func:`raw_fits`). So a resumed layer is not written partly
    raw and partly spooled, which would have to be decoded beside its raw chunks: a layer more of disk.

    :param finished: the bytes each chunk an earlier run finished takes in the partial file, by its first index.
    """
    if build.sparse:
        return True
    if not finished:
        return raw_fits(build, ply)
    spans = build.spans(ply)
    return all(length == spans[start][1] for start, length in finished.items())


def _free_disk(path: Path) -> int:
    """Bytes free on the disk of ``path``."""
    return shutil.disk_usage(path).free


def finish_layer(build: BuildDir, ply: int, *, threads: int = 1) -> None:
    """Make the solved layer ``ply`` raw in ``layer-PP.i8`` and record it in the manifest with its digest (from its
    chunks' journaled digests); then its partial file (if it was decoded) and journal go.

    A layer whose every chunk was written raw is its partial file: synced, renamed, then recorded (a build killed
    between the two renames it back and finishes it again: :func:`_open_partial`). Otherwise its chunks are decoded in
    order into a new file (each checked against its digest): ``threads`` decode ahead of the one being written, at
    most :data:`FINISH_AHEAD` chunks a thread ahead (decoded alone, 5x5k4's layer 19, 16 GB, took 60 s of one core,
    2026-12-05). The bytes are the same for any number.

    A build killed here resumes here: the partial file and the journal are kept until the layer is recorded.

    :raises BuildError: if a chunk is not journaled, or cannot be read back (the partial file was damaged after it
        was journaled).
    """
    layer_chunks = chunks(build.game, ply)
    spans = build.spans(ply)
    stored = _journal(build, ply, spans)[0]

    def damaged(chunk: Chunk) -> BuildError:
        return BuildError(
            f"{build.partial_path(ply)}: the chunk at {chunk.start:,} does not read back as it was written; "
            f"delete the build directory {build.path} and build again"
        )

    missing = [chunk for chunk in layer_chunks if chunk.start not in stored]
    if missing:
        raise damaged(missing[0])
    digest = layer_digest(stored[chunk.start][0] for chunk in layer_chunks)
    spool = build.open(build.partial_path(ply), os.O_RDONLY)
    try:
        if all(stored[chunk.start][1] == spans[chunk.start][1] for chunk in layer_chunks):
            os.fsync(spool)
            os.replace(build.partial_path(ply), build.layer_path(ply))  # killed before the record: see _open_partial
            build.record(ply, digest)
            build.journal_path(ply).unlink(missing_ok=True)
            return

        def decoded(chunk: Chunk) -> bytes:
            wanted, length = stored[chunk.start]
            scores = unspool(os.pread(spool, length, chunk.start), chunk.boards)
            if scores is None or chunk_digest(scores) != wanted:
                raise damaged(chunk)
            return scores

        build.deleted()  # the child's raw file, retired just before, is gone before this layer is decoded raw
        expanding = build.path / f"{build.layer_path(ply).name}.expanding"
        threads = max(1, min(threads, os.cpu_count() or 1))  # a cluster's workers are not this machine's cores
        with os.fdopen(build.create(expanding, os.O_WRONLY), "wb") as out, ThreadPoolExecutor(threads) as pool:
            for scores in _in_order(pool, decoded, layer_chunks, FINISH_AHEAD * threads):
                out.write(scores)  # hashlib, zstd, zlib and the write let go of the GIL: the decoding goes on
            out.flush()
            os.fsync(out.fileno())
        os.replace(expanding, build.layer_path(ply))
    finally:
        os.close(spool)
    build.record(ply, digest)
    _drop_spool(build, ply)


FINISH_AHEAD = 4
"""Chunks a thread of :func:`finish_layer` decodes ahead of the one written: about 16 MiB each at most."""


def _in_order(pool: Executor, function: Callable[[Chunk], bytes], items: Sequence[Chunk], ahead: int) -> Iterator[bytes]:
    """``function`` of each item, in order, run on ``pool`` at most ``ahead`` items ahead of the one yielded (so at
    most that many results are held). An exception is raised where its item's result is due."""
    pending: deque[Future[bytes]] = deque()
    try:
        for item in items:
            pending.append(pool.submit(function, item))
            if len(pending) >= ahead:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for future in pending:
            future.cancel()


def _drop_spool(build: BuildDir, ply: int) -> None:
    for path in (build.partial_path(ply), build.journal_path(ply)):
        path.unlink(missing_ok=True)


def _open_partial(build: BuildDir, ply: int, layer_chunks: list[Chunk], notify: Callable[[str], None] | None) -> tuple[int, dict[int, int]]:
    """The partial file of layer ``ply`` (a descriptor) and the chunks an earlier run finished in it (by first index,
    with the bytes each takes). A layer file that a killed build renamed from its partial file (written raw:
    :func:`finish_layer`) but did not record is its partial file again, with its journal.

    With none, the partial file and the journal are created afresh (``O_EXCL``), the
    partial file at the layer's size: a sparse file in which every chunk is written at
    its own offset (raw, or spooled: :func:`solver.retrograde.spool.spool_bytes`), so only what is written takes disk.
    """
    size = build.layer_bytes(ply)
    if build.journal_path(ply).exists() and build.layer_path(ply).exists() and not build.partial_path(ply).exists():
        os.replace(build.layer_path(ply), build.partial_path(ply))  # renamed from its partial file, never recorded
    fd, finished, skipped = _journaled_chunks(build, ply, size)
    if fd is not None and finished:
        if notify is not None:
            unread = f"; {count(skipped, 'unreadable journal line')} {'was' if skipped == 1 else 'were'} skipped" if skipped else ""
            were = "was" if len(finished) == 1 else "were"
            notify(f"layer {ply}: {len(finished)} of its {len(layer_chunks)} chunks {were} finished before (checked by their digests){unread}")
        return fd, finished
    if fd is not None:
        os.close(fd)
    fd = build.create(build.partial_path(ply))
    try:
        os.ftruncate(fd, size)
        os.close(build.create(build.journal_path(ply), os.O_WRONLY))
    except BaseException:
        os.close(fd)
        raise
    return fd, {}


_JOURNAL_LINE = re.compile(rb"([0-9]{1,15}) ([0-9a-f]{64}) ([0-9]{1,15})")
"""A journal line: a chunk's first index in its layer (decimal), its digest (:func:`solver.retrograde.chunks.chunk_digest`,
hex) and the bytes it takes in the partial file (decimal), in ASCII."""
JOURNAL_BYTES_PER_CHUNK = 128
"""Journal bytes read per chunk of the layer (a line takes at most 97), beyond :data:`JOURNAL_SLACK_BYTES`."""
JOURNAL_SLACK_BYTES = 1 << 20
"""Journal bytes read beyond the chunks' share: room for lines repeated by several resumed runs, or damage."""


def _journal(build: BuildDir, ply: int, spans: dict[int, tuple[int, int]]) -> tuple[dict[int, tuple[str, int]], int]:
    """The journal of layer ``ply``: per chunk (by first index) its digest and the bytes it takes in the partial file,
    and how many lines could not be read.

    A journal is read up to :data:`JOURNAL_BYTES_PER_CHUNK` bytes per chunk plus
    :data:`JOURNAL_SLACK_BYTES` (what lies beyond is solved again); a line that is not
    a number, a digest and a number (a torn last line, random bytes), or names no chunk, or other
    bytes than the chunk's span (or, spooled, fewer), is skipped, and its chunk solved again.

    :param spans: each chunk's first byte and bytes in the layer's file, by its first index (:meth:`BuildDir.spans`).
    """
    with os.fdopen(build.open(build.journal_path(ply), os.O_RDONLY), "rb") as handle:
        lines = handle.read(JOURNAL_BYTES_PER_CHUNK * len(spans) + JOURNAL_SLACK_BYTES).split(b"\n")
    recorded = {}
    skipped = 0
    for number, line in enumerate(lines):
        match = _JOURNAL_LINE.fullmatch(line)
        span = spans.get(int(match[1])) if match else None
        if match and span is not None and (int(match[3]) == span[1] or (not build.sparse and 0 < int(match[3]) < span[1])):
            recorded[int(match[1])] = (match[2].decode(), int(match[3]))
        elif line and number < len(lines) - 1:  # the last line: torn by a kill
            skipped += 1
    return recorded, skipped


def _journaled_chunks(build: BuildDir, ply: int, size: int) -> tuple[int | None, dict[int, int], int]:
    """The partial file of a layer a killed build left (a descriptor, or None), the chunks (by first index, with the
    bytes each takes) in its journal whose bytes still decode to the digest recorded, and how many journal lines could
    not be read (:func:`_journal`)."""
    try:
        fd = build.open(build.partial_path(ply), os.O_RDWR)
    except FileNotFoundError:
        return None, {}, 0
    try:
        if os.fstat(fd).st_size != size:
            return fd, {}, 0
        spans = build.spans(ply)
        recorded, skipped = _journal(build, ply, spans)
    except FileNotFoundError:
        return fd, {}, 0
    except BaseException:
        os.close(fd)
        raise
    good = {}
    for start, (wanted, length) in recorded.items():
        scores = unspool(os.pread(fd, length, spans[start][0]), spans[start][1])
        if scores is not None and chunk_digest(scores) == wanted:
            good[start] = length
    return fd, good, skipped


TASKS_PER_WORKER = 32
"""Tasks a layer's chunks are batched into, per worker: the last task of a layer runs while the other workers have
none, so smaller tasks waste less at each layer's end (a task of 5x5k4's largest layers: about 6 s of a core at 32, 25 s at 8)."""


def _groups(todo: list[Chunk], jobs: int) -> list[list[Chunk]]:
    """Chunks batched into about :data:`TASKS_PER_WORKER` tasks a worker (load balance), none empty."""
    per_task = max(1, len(todo) // (TASKS_PER_WORKER * jobs))
    return [todo[i : i + per_task] for i in range(0, len(todo), per_task)]


def build_layers(
    game: Game,
    directory: str | os.PathLike[str],
    *,
    jobs: int | None = None,
    progress: Progress | None = None,
    notify: Callable[[str], None] | None = None,
    extra_disk: int = 0,
    release: Release | None = None,
) -> BuildResult:
    """Solve a game into a build directory with ``jobs`` local worker processes; resume if it is half done.

    :param jobs: worker processes (default: every core; 1 solves in this process).
    :param progress: called after every chunk (:class:`solver.retrograde.chunks.ChunkDone`).
    :param notify: called with a line of text when the build resumes (what was found).
    :param extra_disk: bytes the caller will write after the build (the table file), counted in the disk check.
    :param release: retires finished layers once nothing reads them raw, and seals layers as they are solved
        (:class:`Release`; run with the pool's workers).
    :raises BuildError: if the disk or the memory is too small (checked before anything is written).
    """
    jobs = jobs or os.cpu_count() or 1
    options: dict[str, Any] = {"progress": progress, "notify": notify, "extra_disk": extra_disk, "release": release}
    if jobs == 1:
        return sweep(game, directory, _in_process(game, Path(directory)), jobs=1, **options)
    # fork: workers inherit the index tables and need no `if __name__ == "__main__"` guard in the caller.
    method = "fork" if "fork" in get_all_start_methods() else "spawn"
    with _worker_pool(jobs, method) as pool:
        dispatch = _on_executor(pool, game, Path(directory))
        return sweep(game, directory, dispatch, jobs=jobs, mapper=pool.map, **options)


def _start_worker(parent: int) -> None:
    """A pool worker's start: it dies with the build's process and leaves Ctrl-C to it."""
    ignore_ctrl_c()
    die_with_parent(parent)


MANAGER_JOIN_SECONDS = 5.0
"""How long a stopped build waits for its pool's manager thread to notice the ended workers and end."""


@contextmanager
def _worker_pool(jobs: int, method: str) -> Iterator[ProcessPoolExecutor]:
    """``jobs`` worker processes that ignore Ctrl-C, stopped at once when the block ends in an exception.

    A terminal's Ctrl-C reaches every process of the build; the workers ignore it (SIGINT is held
    back while they are forked, so none takes it before ignoring it), and the build's process, which
    gets ``KeyboardInterrupt``, drops the queued chunks and ends the workers (a killed chunk is redone on
    resume), then says how to resume: no worker prints a traceback, and the build does not wait for the layer.
    """
    pool = ProcessPoolExecutor(jobs, mp_context=get_context(method), initializer=_start_worker, initargs=(os.getpid(),))
    try:
        with ctrl_c_blocked():
            pool.submit(int)  # forks every worker now (the fork start method starts them all at the first task)
        yield pool
    except BaseException:
        workers = list((pool._processes or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.join()
        manager = getattr(pool, "_executor_manager_thread", None)  # it closes its wake-up pipe as it ends: let it end
        if isinstance(manager, threading.Thread):  # before Python's exit wakes it (3.11 races the two: an EBADF traceback)
            manager.join(timeout=MANAGER_JOIN_SECONDS)
        raise
    pool.shutdown()


def _in_process(game: Game, path: Path) -> Dispatch:
    def dispatch(ply: int, groups: list[list[Chunk]], raw: bool, sealing: PieceSealing | None) -> Iterator[list[ChunkResult]]:
        for group in groups:
            yield run_chunks(str(path), game.name, ply, group, raw=raw, sealing=sealing)

    return dispatch


def _on_executor(pool: Executor, game: Game, path: Path) -> Dispatch:
    def dispatch(ply: int, groups: list[list[Chunk]], raw: bool, sealing: PieceSealing | None) -> Iterator[list[ChunkResult]]:
        from concurrent.futures import as_completed

        futures = [pool.submit(run_chunks, str(path), game.name, ply, group, raw=raw, sealing=sealing) for group in groups]
        for future in as_completed(futures):
            yield future.result()

    return dispatch


def iter_layers(result: BuildResult) -> Iterable[np.ndarray]:
    """The layers of a finished build, layer 0 first, as read-only memory maps."""
    return result.layers()
