"""What building a table costs, before it starts: time, disk and memory, from measured throughput.

A look-up, a ``solve`` command or a server never starts a build that needs consent
(:attr:`BuildEstimate.needs_consent`: more than :data:`CONSENT_SECONDS` or
:data:`CONSENT_DISK_BYTES`) without asking; ``solve build`` is consent. The time is the
work of the layers left (:func:`solver.retrograde.plan.plan_build`) over the throughput
measured on this project's build machine, per core; disk and memory are the build
plan's figures (the layers and the table file; two adjacent layers and the workers' chunks).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..encoding.columns import index_fits, layer_slots
from ..encoding.layouts import layout
from ..errors import GameTooLargeError
from ..rules.game import CONNECT_FOUR, TABLE_CELLS, WORD_CELLS, Game
from ..storage.fsutil import format_size

WORK_PER_SECOND_PER_CORE = 90.0e6
"""Compact-build work units (:class:`solver.retrograde.chunks.ChunkDone`) solved per second by one core.

Measured 2026-11-23 on the project's 2-core, 24 GiB build VM (load average about 6 from other
jobs), ``solver.store.make.build_compact(game, path, jobs=1)`` with the vectorised sweep kernel:
3x6k3 94.3 M units in 2.9 s (32.6 M/s), 2x9k4 94.3 M units in 2.4 s (39.8 M/s). Since then the sweep
became faster: 5x5k4, whose plan is 307 G units with its sealing and spool, took 35.9 min (2026-12-04) and 39.9 min
(2026-12-05) on 2 quiet cores, 64 to 71 M a second a core, against the 80 min that 32 M said; 4x5k4 13 to 16 s
against 22. Since each layer is sealed as it is solved (2026-12-05, night), 5x5k4 took 19 min 42 s: 130 M a second a
core, against the 57 minutes 45 M said. Now 90 M, so that an estimate errs long by about 1.4 on quiet cores and is
near the truth on a loaded machine, as the gravity figure below."""
GRAVITY_WORK_PER_SECOND_PER_CORE = 80.0e6
"""The same for gravity games (:mod:`solver.retrograde.gravity`: a forward pass, then chunks of a gather a column, and
every canonical board's byte sealed). Measured 2026-11-27 on the same machine, 5x6k4-gravity's 28.9 G work units
(forward pass, sweep and sealing): 206 s on 2 cores with nothing else running (70 M a second a core), 857 s at load
average 8 to 10 (17 M). Since the compiled sealing pass, 2026-12-04: 4x8k4-gravity's 388 G work units in 1,993 s on 2
cores (97 M a second a core; load average at most 2.9, the build's own and light work beside it), against the 92
minutes this figure's 35 M said; 2026-12-05, with each layer sealed as it is solved and the bits of the boards
reached compressed, 1,687 s (115 M a second a core; light load), against the 54 minutes 60 M said. Now 80 M, so an
estimate errs long by about 1.4 on quiet cores."""
DENSE_CODES_PER_SECOND = 11.0e6
"""Base-3 codes a dense build solves per second (one process): 4x4k4's 43.0 M codes in 3.9 s,
same machine and day."""
DENSE_BYTES_PER_CODE = 10
"""Peak memory of a dense build per code: 4x4k4 peaked at 403 MB resident (``/usr/bin/time -v``)."""

SEAL_WORK_PER_BOARD = 0.6
"""Sealing a finished layer (its stored bytes and zstd blocks, :mod:`solver.retrograde.sealing`) costs about 0.6 work
units a board: measured 19 ns a board on one core, against 31 ns a work unit of the sweep."""
SPOOL_WORK_PER_BOARD = 0.3
"""Spooling the layer being solved (:func:`solver.retrograde.spool.spool_bytes`) and decoding it once solved costs
about 0.3 work units a board: measured on 4x6k4's layer 16 (zstd level 1, 8.6x) under load 3.8, 2.6 ns a board
to compress in the workers and 2.8 ns to decode in the build's process on one core (so twice its share with
two jobs), against 31 ns a work unit."""
COMPRESSION_AT_LEAST = 16
"""A compact table file is at most ``1 / 16`` of its boards in bytes: measured 24.4x for 4x5k4
(30.3 MB for 741 M boards) and 337x for 3x7k3 (6.4 MB for 2.17 G boards), on 2026-11-23."""

CONSENT_SECONDS = 60.0
"""A build estimated to take longer than this is not started unasked."""
CONSENT_DISK_BYTES = 1 << 30
"""A build needing more disk than this (layers and table file) is not started unasked."""
LONG_BUILD_SECONDS = 600.0
"""``solve build`` of a game estimated to take longer than this shows the estimate and asks first
(off a terminal it needs ``--yes``): ten minutes, past which a build started by mistake costs real time."""


@dataclass(frozen=True)
class BuildEstimate:
    """What building ``game``'s table would cost here (seconds wall, bytes)."""

    game: Game
    seconds: float
    """Wall-clock time on ``jobs`` cores at the measured throughput."""
    disk_bytes: int
    """Peak disk: the layers left and the table file (dense: the file)."""
    memory_bytes: int
    """Peak memory of the build."""
    jobs: int

    @property
    def needs_consent(self) -> bool:
        """Whether the build is too long or too large to start without asking."""
        return self.seconds > CONSENT_SECONDS or self.disk_bytes > CONSENT_DISK_BYTES

    @property
    def is_long(self) -> bool:
        """Whether even an explicit ``solve build`` asks first: more than :data:`LONG_BUILD_SECONDS`."""
        return self.seconds > LONG_BUILD_SECONDS

    def beyond(self, directory: str | os.PathLike[str]) -> list[str]:
        """What this machine lacks for the build, in words (none: it fits): its memory, where the build needs more; the
        size of ``directory``'s file system, where the build needs more disk than it holds in all; codes that fit int64,
        for a board past :data:`solver.rules.game.TABLE_CELLS` cells."""
        total_memory = _total_memory()
        disk = _disk_size(directory)
        why = []
        if total_memory is not None and self.memory_bytes > total_memory:
            why.append(f"{format_size(total_memory)} of memory")
        if disk is not None and self.disk_bytes > disk:
            why.append(f"a file system of {format_size(disk)} at {directory}")
        if self.game.cells > TABLE_CELLS:
            why.append(f"tables of boards of at most {TABLE_CELLS} cells, whose codes fit 64 bits (this one has {self.game.cells})")
        return why

    def describe(self) -> str:
        """``about 2 h 5 min on 2 cores, 301.7 GiB of disk and 49.1 GiB of memory``."""
        cores = f"{self.jobs} core{'s' * (self.jobs != 1)}"
        return f"about {format_duration(self.seconds)} on {cores}, {format_size(self.disk_bytes)} of disk and {format_size(self.memory_bytes)} of memory"


def format_duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``3 h 20 min``, ``4 days 2 h``."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    minutes = round(seconds / 60)
    if minutes < 90:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    days, hours = divmod(hours, 24)
    return f"{days} days {hours} h" if hours else f"{days} days"


def estimate(game: Game, path: str | os.PathLike[str], *, jobs: int | None = None) -> BuildEstimate:
    """The cost of building ``game``'s table into ``path`` (a compact build resumes what
    ``<path>.build`` holds: only the layers left count). Nothing is created or written.

    :param jobs: worker processes (default: every core).
    """
    if game.cells > TABLE_CELLS or (game.cells > WORD_CELLS and not index_fits(game)):
        return paper_estimate(game, jobs=jobs)
    if game.dense:
        codes = game.codes
        return BuildEstimate(game, codes / DENSE_CODES_PER_SECOND, codes * 4, codes * DENSE_BYTES_PER_CODE, 1)
    from ..retrograde.plan import plan_build  # here, as the build's other modules: a look-up estimates no build

    jobs = jobs or os.cpu_count() or 1
    target = Path(path)
    plan = plan_build(game, target.with_name(target.name + ".build"), jobs=jobs, check=False, retiring=True)
    sealing = (SEAL_WORK_PER_BOARD + SPOOL_WORK_PER_BOARD) * sum(layout(game).layer_sizes[ply] for ply in plan.todo)
    return BuildEstimate(game, (plan.work + sealing) / (_rate(game) * jobs), plan.disk_bytes, plan.memory_bytes, jobs)


def _rate(game: Game) -> float:
    """Work units a core solves per second for this game's kind of build."""
    return GRAVITY_WORK_PER_SECOND_PER_CORE if game.build_walks_forward else WORK_PER_SECOND_PER_CORE  # two passes


def paper_estimate(game: Game, *, jobs: int | None = None) -> BuildEstimate:
    """What building a gravity game too large for this machine's index would cost here (Connect Four), from the
    sizes of its layers counted (:func:`solver.encoding.columns.layer_slots`) and the figures measured on the
    boards that fit: both passes at :data:`GRAVITY_WORK_PER_SECOND_PER_CORE`, the disk of a retiring build
    (two raw layers, the spool, the reach files and the table), the memory of the forward pass
    (:func:`solver.retrograde.plan.forward_bytes`: its bits and chunks)."""
    from ..retrograde.plan import SPOOLED_AT_MOST, forward_bytes, reach_file_bytes  # here: a look-up estimates no build

    jobs = jobs or os.cpu_count() or 1
    sizes = layer_slots(game.rows, game.cols)
    total, largest = sum(sizes), max(sizes)
    work = total * (2 + SEAL_WORK_PER_BOARD + SPOOL_WORK_PER_BOARD)
    disk = 2 * largest + largest // SPOOLED_AT_MOST + sum(map(reach_file_bytes, sizes)) + 2 * total // COMPRESSION_AT_LEAST
    memory = forward_bytes(sizes, jobs=jobs, tables=0)  # no index here for such a board: its tables are not counted
    return BuildEstimate(game, work / (_rate(game) * jobs), disk, memory, jobs)


def beyond_machine(game: Game, cost: BuildEstimate, directory: str | os.PathLike[str]) -> str | None:
    """Why this machine cannot build ``game``'s table at all, in words with the estimate and the cluster command,
    or None when it can: a board past :data:`solver.rules.game.TABLE_CELLS` cells, or more memory than the machine
    has, or more disk than ``directory``'s file system holds in all (:meth:`BuildEstimate.beyond`)."""
    why = cost.beyond(directory)
    if not why:
        return None
    known = f" ({KNOWN_POSITIONS[game]:,} positions)" if game in KNOWN_POSITIONS else ""
    return (
        f"{game.name}{known} does not fit this machine: building its table would take {cost.describe()}, "
        f"and this machine has {' and '.join(why)}. On a Dask cluster: solve build --game {game.name} --scheduler tcp://HOST:8786 "
        f"(the manual's 'Connect Four on a cluster' in docs/big-games.md says what that needs first and what it would cost)"
    )


KNOWN_POSITIONS = {CONNECT_FOUR: 4_531_985_219_092}
"""Published reachable positions of games too large to build here: Connect Four's (John Tromp; Edelkamp and
Kissmann; OEIS A212693)."""


def _total_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return None


def _disk_size(directory: str | os.PathLike[str]) -> int | None:
    path = Path(directory)
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        total = shutil.disk_usage(path).total
    except OSError:
        return None
    return total or None  # /proc and the like: no disk to speak of, so nothing to compare (the writer says why it fails)


PROOF_WORK_PER_SECOND = 7.5e6
"""Compact work units (:func:`solver.retrograde.chunks.layer_work`) a proof re-derives per second, one process
(:func:`solver.retrograde.proof.check_layers`, a quarter of a build's rate: it solves each chunk in one process and
compares). Measured 2026-11-28 on the 2-core build VM at load average 10: 3x6k3's 94.3 M units in 12.3 s of CPU
(42 s wall); its blocks' check took 0.1 s of CPU."""
SAMPLE_BOARDS_PER_SECOND = 23e3
"""Sampled boards ``solve verify --sample`` checks against their children per second, most of it decoding the blocks
the children fall in: 4x5k4's 158,323 boards in 6.8 s (docs/big-games.md, "Checking a big table in minutes", under
load). Errs long for small tables (3x6k3: 10,000 boards of a layer in 0.025 to 0.05 s of CPU, 2026-11-28, load
average 10) and short for 5x5k4-sized ones, where nearly every child read decodes a block of its own."""
REFERENCE_SECONDS = 0.07
"""Seconds the reference minimax takes a board with :data:`REFERENCE_EMPTY` empty cells (4x5k4's layer with 10 empty
cells: 200 boards in 14 s, same page; 3x6k3's: 200 in 2.4 s of CPU), and :data:`REFERENCE_GROWTH` times more for
each more empty cell (3x6k3: 2.4, 0.75 and 0.35 s at 10, 9 and 8 empty cells)."""
REFERENCE_EMPTY = 10
REFERENCE_GROWTH = 3.0


def proof_seconds(game: Game, kind: str) -> float:
    """The time the full consistency pass over ``game``'s table of this kind takes
    (:func:`solver.store.make.prove`, one process): a fresh dense build, or every compact
    layer re-derived from the next."""
    if kind == "dense":
        return game.codes / DENSE_CODES_PER_SECOND
    from ..retrograde.chunks import layer_work  # here: the build's modules load when a proof is estimated

    return sum(layer_work(game, ply) for ply in range(game.cells + 1)) / PROOF_WORK_PER_SECOND


def sample_seconds(game: Game, *, boards: int, reference: int, max_empty: int) -> float:
    """The time ``solve verify --sample`` takes (:func:`solver.store.samplecheck.check_sample`): ``boards`` boards
    of every layer (all of a smaller one), and ``reference`` of each in the layers with at most ``max_empty``
    empty cells solved again by the reference minimax (by far the larger part near :data:`REFERENCE_EMPTY`)."""
    seconds = 0.0
    for ply, size in enumerate(layout(game).layer_sizes):
        sampled = min(boards, size)
        empty = game.cells - ply
        solved = min(reference, sampled) if empty <= max_empty else 0
        seconds += sampled / SAMPLE_BOARDS_PER_SECOND + solved * REFERENCE_SECONDS * REFERENCE_GROWTH ** (empty - REFERENCE_EMPTY)
    return seconds


def refuse_beyond_machine(game: Game, path: str | os.PathLike[str]) -> BuildEstimate:
    """The estimate of building ``game``'s table into ``path``, unless this machine cannot build it at all.

    :raises GameTooLargeError: for a game past this machine (Connect Four), with the estimate and the cluster command.
    """
    cost = estimate(game, path)
    problem = beyond_machine(game, cost, Path(path).parent)
    if problem is not None:
        raise GameTooLargeError(problem)
    return cost
