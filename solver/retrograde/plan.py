"""Planning a layered build: the layers left, and the disk and memory it needs (refused with the figures if they are not there)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..encoding.layouts import layout
from ..errors import BuildError
from ..rules.game import Game
from .builddir import BuildDir
from .chunks import CHUNK_BOARDS, layer_work
from .sparse import bits_bytes, counts_bytes

WORKING_BYTES_PER_BOARD = 32
"""Working memory of a chunk per board: the kernel's reused arrays (measured: at most 30 bytes a board, 2x9k2) and the scores."""


@dataclass(frozen=True)
class BuildPlan:
    """What a build will do: the layers left and the resources it needs (bytes)."""

    game: Game
    todo: tuple[int, ...]
    """Layers to solve, in order (the full board first)."""
    resumed_below: int | None
    """The lowest finished layer found in the directory, if any."""
    work: int
    """Work units of the layers left (see :class:`solver.retrograde.chunks.ChunkDone`)."""
    disk_bytes: int
    """Disk still to be written at the peak: the layers left (or, retiring, see :func:`plan_build`)."""
    memory_bytes: int
    """Peak memory the build needs for itself: every worker's chunk and index tables (:func:`worker_bytes`), or
    the forward pass of a gravity build (:func:`forward_bytes`: one bit a board), if that is more.

    The layers are read and written through memory maps: file pages that the kernel
    keeps while memory is free and drops when not, so they are not counted (a build
    whose two largest layers fit in memory runs faster; 5x5k4's do not: 49 GiB)."""


RETIRED_AT_MOST = 16
"""A retired layer's files take at most ``1 / 16`` of its raw bytes (a table's compressed blocks: measured 24x to 337x)."""
SPOOLED_AT_MOST = 4
"""A spooled layer (:func:`solver.retrograde.spool.spool_bytes`) takes at most ``1 / 4`` of its raw bytes (measured: see docs/performance.md)."""


def _retiring_peak(sizes: Sequence[int], ply: int, *, resumed: bool) -> int:
    """Disk at the peak of layer ``ply`` in a retiring build: the most of (while it is solved) its raw child and the
    child's sealed files, its spool, and (while it is finished) its raw bytes, its spool and its child's sealed files;
    with, all along, its own sealed files (written as it is solved) and the retired layers above. A resumed layer is
    finished before its child retires (both raw)."""
    spool, above = sizes[ply] // SPOOLED_AT_MOST, sum(sizes[ply + 2 :]) // RETIRED_AT_MOST
    child = sizes[ply + 1] if ply + 1 < len(sizes) else 0
    if resumed:
        return child + sizes[ply] + spool + above
    sealed = (sizes[ply] + child) // RETIRED_AT_MOST
    return max(child, sizes[ply]) + spool + sealed + above


def _sparse_peak(kept: Sequence[int], sealed: Sequence[int], expanded: Sequence[int], ply: int) -> int:
    """Disk at the peak of sparse layer ``ply`` (:mod:`solver.retrograde.sparse`) in a retiring build: its file
    (always raw), its child's and the child's bits and counts (:data:`expanded`), and the sealed files of the layer
    (written as it is solved), of its child (before it retires) and of the layers above (retired)."""
    child = kept[ply + 1] + expanded[ply + 1] if ply + 1 < len(kept) else 0
    return kept[ply] + child + sum(sealed[ply:])


SPARSE_GUESS = 8
"""Until the forward pass has counted a layer's boards reached, a sparse layer is counted at an eighth of its boards
(the build checks the disk again, exactly, once the pass has counted them: :func:`solver.retrograde.sweep.sweep`).
Measured: 6x6k4-gravity reaches 11.5 % of its boards (its largest layers 7 to 16 %, Böck's counts), 5x7k4-gravity
19.5 %, 4x8k4-gravity 40.6 %."""
SEALED_SPARSE_AT_MOST = 4
"""A sparse layer's sealed files take at most a quarter of a byte a board reached, and :data:`SEALED_SLOT_SHARE`
more: the tables take 0.09 to 0.12 bytes a board reached (4x7k4-, 5x6k4- and 4x8k4-gravity), the boards not reached
being runs of the score before them (:mod:`solver.contents.stored`)."""
SEALED_SLOT_SHARE = 4096
"""A sealed layer's bytes a board of the layer beyond :data:`SEALED_SPARSE_AT_MOST`'s: ``1 / 4096``."""


def layer_file_bytes(build: BuildDir) -> list[int]:
    """Bytes of each layer's file: its boards (dense), or its boards reached (sparse: counted by its reach file where
    the forward pass kept it, else :data:`SPARSE_GUESS`)."""
    sizes = layout(build.game).layer_sizes
    if not build.sparse:
        return list(sizes)
    counted = build.path.is_dir() and build.has_reach(check=False)
    kept = []
    for ply, size in enumerate(sizes):
        try:
            kept.append(build.layer_bytes(ply) if counted else size // SPARSE_GUESS)
        except (OSError, BuildError):  # a retired layer's reach file is gone: nothing of it is written again
            kept.append(size // SPARSE_GUESS)
    return kept


def plan_build(game: Game, directory: str | os.PathLike[str], *, jobs: int = 1, check: bool = True, retiring: bool = False) -> BuildPlan:
    """The :class:`BuildPlan` of a build directory (finished layers are checked by size and hash).

    :param retiring: the build retires each finished layer once nothing reads it raw (a
        ``release`` hook of :func:`solver.retrograde.sweep.sweep`): the disk needed is then about the largest raw
        layer left, its spool and the retired files, not every layer (:func:`_retiring_peak`; sparse layers:
        :func:`_sparse_peak`).
    """
    build = BuildDir(Path(directory), game)
    done = build.finished(check=check) if build.path.is_dir() else {}
    todo = tuple(p for p in range(game.cells, -1, -1) if p not in done)
    sizes = layout(game).layer_sizes

    # a gravity build's reach files, of every layer not retired yet (each layer's deleted once it is)
    reach = [reach_file_bytes(size) if game.build_walks_forward else 0 for size in sizes]
    kept = layer_file_bytes(build)
    disk = sum(kept[p] + reach[p] for p in todo)
    if retiring and build.sparse:
        sealed = [count // SEALED_SPARSE_AT_MOST + size // SEALED_SLOT_SHARE for count, size in zip(kept, sizes, strict=True)]
        expanded = [bits_bytes(size) + counts_bytes(size) for size in sizes]
        peaks = (_sparse_peak(kept, sealed, expanded, p) + sum(reach[: p + 2]) for p in todo)
        disk = max(max(peaks, default=0), 2 * sum(sealed))
    elif retiring:
        peaks = (_retiring_peak(sizes, p, resumed=p == todo[0] and bool(done)) for p in todo)
        disk = max(max(peaks, default=0), 2 * sum(sizes) // RETIRED_AT_MOST)
    work = sum(layer_work(game, p) for p in todo)
    memory = jobs * worker_bytes(game)
    if game.build_walks_forward and todo:  # a forward pass first (gravity), unless a killed build kept it
        walked = build.path.is_dir() and build.has_reach(check=False)
        work += 0 if walked else sum(layer_work(game, p) for p in range(game.cells + 1))
        disk = disk if walked else max(disk, forward_disk(sizes))
        memory = max(memory, forward_bytes(sizes, jobs=jobs, tables=table_bytes(game)))
    return BuildPlan(game, todo, min(done) if done else None, work, disk, memory)


REACH_AT_MOST = 4
"""A layer's reach file (:mod:`solver.retrograde.reachfile`) takes at most ``1 / 4`` of its bits, and
:data:`REACH_FILE_SLACK` more. Measured 2026-12-05 (every layer of more than 1 MiB of bits): 4x7k4-gravity's 10.8 to
more than 20 times smaller than their bits (15.7 in all), 5x6k4-gravity's 9.0 to 20 (10.0 in all), 6x6k4-gravity's
layers 22 to 30 about 14; a layer of a few thousand boards about 2."""
REACH_FILE_SLACK = 1 << 16
"""Bytes a reach file may take beyond :data:`REACH_AT_MOST` of its bits: its index and a small layer's poor ratio."""


def reach_file_bytes(boards: int) -> int:
    """The most disk a layer's reach file takes (:data:`REACH_AT_MOST`), for a layer of ``boards`` boards."""
    return -(-boards // 8) // REACH_AT_MOST + REACH_FILE_SLACK


def reach_bytes(sizes: Sequence[int]) -> int:
    """The bits the forward pass of a gravity build reads at random (:func:`solver.retrograde.gravity.write_reach`), in
    bytes: one bit a board of the layer before the one it finds (its boards in play, mapped from their file:
    :class:`solver.retrograde.gravity.PlayingFiles`; the layer found goes to files as chunks find it), at the largest
    layer (4x8k4-gravity: 2.15 GB; 6x6k4-gravity: 9.47 GB, where holding two layers in memory peaked at 18.9 GB)."""
    return max((-(-size // 8) for size in sizes), default=0)


def forward_disk(sizes: Sequence[int]) -> int:
    """Disk of the forward pass at its peak: the reach files of the layers found so far
    (:func:`reach_file_bytes`) and the bits of the boards in play of the layer found and of the one before."""
    packed = [-(-size // 8) for size in sizes]
    return max((sum(map(reach_file_bytes, sizes[: ply + 1])) + size + (packed[ply - 1] if ply else 0) for ply, size in enumerate(packed)), default=0)


def forward_bytes(sizes: Sequence[int], *, jobs: int, tables: int) -> int:
    """Peak memory of the forward pass (one process, ``jobs`` threads): its bits (:func:`reach_bytes`), each
    thread's chunk (:data:`WORKING_BYTES_PER_BOARD` a board of :data:`~solver.retrograde.chunks.CHUNK_BOARDS`) and the
    index and move tables (``tables`` bytes: :func:`worker_bytes`'s share, :data:`TABLE_BYTES_PER_HIGH_BOARD`).

    Measured 2026-12-02 on the 2-core, 24 GiB build machine (load average 5 to 6 from other work), 4x7k4-gravity
    (0.62 G boards in its largest layer; this figure: 1.27 GiB), ``/usr/bin/time -v``'s maximum resident set size:
    the build's forward pass alone (:func:`solver.retrograde.gravity.write_reach`, 2 threads) 542 MB, against 2,264 MB
    for the pass that held a byte a board (the same reach bits); a whole ``solve build -j 2`` 672 MB in its
    largest process (a worker of the sweep; the build's own process, which ran the forward pass: 529 MB, sampled).
    The pass that held bytes was counted at 4 bytes a board of the largest layer (5x6k4-gravity's build process:
    4.4 GiB at its peak, 1.31 G boards): 64 GiB for 4x8k4-gravity, now 5.0 GiB.
    """
    return reach_bytes(sizes) + jobs * CHUNK_BOARDS * WORKING_BYTES_PER_BOARD + tables


TABLE_BYTES_PER_HIGH_BOARD = 1024
"""A worker's index and move tables per half-board of the high half (all ``3 ** high cells``; under gravity its
column states, :mod:`solver.encoding.columns`): measured
1.77 GB at the peak of a 5x5k4 worker (13 high cells, 1.6 M half-boards), with its chunk."""


TABLE_BYTES_PER_COLUMN_STATE = 256
"""The same under gravity, per column state of the high half (:mod:`solver.encoding.columns`: its index and the
drop and lift targets of every group, :func:`solver.retrograde.gravity.drop_targets`). Measured 2026-12-06 (one
process building the index and every high group's targets, maximum resident set, the interpreter included):
5x7k4-gravity 2.58 GB for 15.8 M states (164 bytes a state), 6x6k4-gravity 387 MB for 2.0 M (189), 4x8k4-gravity
228 MB for 0.9 M. At :data:`TABLE_BYTES_PER_HIGH_BOARD` 5x7's workers were counted at 15 GiB each, and its build
refused on a 24 GiB machine."""


def worker_bytes(game: Game) -> int:
    """Peak memory of one build worker: its chunk's working arrays and the game's index and move tables."""
    return CHUNK_BOARDS * WORKING_BYTES_PER_BOARD + table_bytes(game)


def table_bytes(game: Game) -> int:
    """The game's index and move tables in a process (:data:`TABLE_BYTES_PER_HIGH_BOARD`; under gravity
    :data:`TABLE_BYTES_PER_COLUMN_STATE`)."""
    high_boards = int(layout(game).high.packed.size)  # every half-board of the high half: 3**cells, or its column states
    return (TABLE_BYTES_PER_COLUMN_STATE if game.build_walks_forward else TABLE_BYTES_PER_HIGH_BOARD) * high_boards


def check_resources(plan: BuildPlan, directory: Path, *, extra_disk: int = 0, check_memory: bool = True) -> None:
    """Refuse a build that cannot fit, with the figures.

    :param extra_disk: more bytes the caller will write afterwards (the table file).
    :param check_memory: compare the memory needed with this machine's (not for a cluster's client).
    :raises BuildError: if the free disk or the available memory is too small.
    """
    free = shutil.disk_usage(directory).free
    present = _allocated(directory)  # a resumed build's files count towards its peak already
    need = max(0, plan.disk_bytes + extra_disk - present)
    if need > free:
        raise BuildError(
            f"building {plan.game.name} needs {need / 2**30:.2f} GiB of disk in {directory} beyond what it holds "
            f"({plan.disk_bytes / 2**30:.2f} GiB of layers + {extra_disk / 2**30:.2f} GiB for the table file, "
            f"{present / 2**30:.2f} GiB there already), "
            f"but only {free / 2**30:.2f} GiB is free"
        )
    available = _available_memory() if check_memory else None
    if available is not None and plan.memory_bytes > available:
        raise BuildError(
            f"building {plan.game.name} needs about {plan.memory_bytes / 2**30:.2f} GiB of memory "
            f"({_memory_share(plan)}), "
            f"but only {available / 2**30:.2f} GiB is available; use fewer --jobs or a bigger machine"
        )


def _memory_share(plan: BuildPlan) -> str:
    """What the memory of a plan is for, in words: the workers' and (gravity) the forward pass's bits."""
    workers = f"{worker_bytes(plan.game) / 2**30:.2f} GiB for each worker's chunk and tables"
    if not plan.game.build_walks_forward:
        return workers
    return f"{reach_bytes(layout(plan.game).layer_sizes) / 2**30:.2f} GiB for the bits of the forward pass, {workers}"


def _allocated(directory: Path) -> int:
    """Bytes the files of a build directory hold on disk (a partial layer only what was written)."""
    try:
        return sum(entry.stat(follow_symlinks=False).st_blocks * 512 for entry in os.scandir(directory) if entry.is_file(follow_symlinks=False))
    except OSError:
        return 0


def _available_memory() -> int | None:
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None
