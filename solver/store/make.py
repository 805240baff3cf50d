"""Building tables: the one place that turns a game into a table of either kind and writes it.

=============  =================================================================
kind           how it is built
=============  =================================================================
``dense``      in memory in seconds (:mod:`solver.retrograde.dense`), games of up to
               16 cells; :func:`build_table` gives the table, :func:`write_table_file`
               writes it
``compact``    layer by layer in a build directory (:mod:`solver.retrograde.sweep`),
               with every core or on a Dask cluster (:mod:`solver.retrograde.cluster`),
               games of 17 to 25 cells; a killed build resumes. :func:`build_compact`
               writes the file
=============  =================================================================

The kind a game gets is chosen here and only here (:func:`kind_for`). Every file is
written atomically (:mod:`solver.storage.fsutil` through :func:`solver.storage.tablefile.write_table`).
Where tables live, and when one must be built, is :mod:`solver.store.locate`'s business.

Proving a table (:func:`prove`) re-derives it, which is a build: the tables call it
through the ``prove`` function they are given (:meth:`solver.tables.Table.verify`), so
the look-up classes import no build code.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..contents.histograms import META_KEY, LayerCounts, histograms_from_meta, layer_histograms
from ..contents.opening import fits
from ..contents.plausible import value_check
from ..encoding import board as _board
from ..encoding.layouts import layout
from ..errors import DiskFullError, ResumedLayerWrong, SolverError, TableError
from ..retrograde import sealing
from ..retrograde.builddir import BuildDir
from ..retrograde.chunks import ChunkDone
from ..retrograde.chunks import Progress as ChunkProgress
from ..retrograde.dense import Progress, build_arrays, build_steps
from ..retrograde.plan import plan_build
from ..retrograde.proof import check_layers
from ..retrograde.sweep import build_layers
from ..rules.game import DEFAULT_GAME, Game
from ..storage import spill, tablefile, trust
from ..storage.fsutil import DISK_FULL, directory_lock, disk_full, empty_private_directory, format_size, refuse_non_regular, remove_dead_temporaries
from ..tables import CompactTable, DenseTable, Kind, Table
from ..words import count
from .estimate import CONSENT_SECONDS, format_duration, proof_seconds

BuildProgress = Callable[..., None]
"""Called with the work units just done, and for a compact build the layer (pieces) being solved."""

BuildHook = Callable[[Game, Path, int], AbstractContextManager["BuildProgress | None"]]
"""Entered around a build with the game, the file to be written and the build's work units in all;
yields a :data:`BuildProgress` callback or None."""


def kind_for(game: Game) -> Kind:
    """The kind of table ``game`` gets: dense up to :data:`solver.rules.game.DENSE_MAX_CELLS` cells (gravity:
    :data:`solver.rules.game.GRAVITY_DENSE_MAX_CELLS`), compact past them (:attr:`solver.rules.game.Game.dense`)."""
    return "dense" if game.dense else "compact"


def build_table(game: Game = DEFAULT_GAME, *, progress: Progress | None = None) -> DenseTable:
    """Solve a game of up to 16 cells in memory: its dense table.

    :param progress: called with 1 after each ply of each pass (:func:`solver.retrograde.dense.build_steps` calls).
    """
    return DenseTable(game, tablefile.dense_entries(*build_arrays(game, progress=progress)), prove=prove)


def write_table_file(
    game: Game,
    path: str | os.PathLike[str],
    *,
    on_build: BuildHook | None = None,
    jobs: int | None = None,
    scheduler: Any = None,
    notify: Callable[[str], None] | None = None,
    force: bool = False,
) -> Path:
    """Build ``game``'s table of the kind :func:`kind_for` chooses and write it atomically to ``path``.

    The temporary files of dead builders in ``path``'s directory are removed first.
    Dense tables are built in memory; compact ones layer by layer in ``<path>.build``,
    which a killed build resumes from (``notify`` says so). One builder of a compact
    table at a time: a second one waits for the first (``notify`` says so) and then
    uses the table it wrote. The new file replaces ``path`` only once it has passed
    every check (the checksum the package expects, or for a game without one the
    consistency of the layers resumed from an earlier run).

    :param jobs: worker processes for a compact build (default: every core).
    :param scheduler: a Dask scheduler address or client: build a compact table on that cluster.
    :param force: replace ``path`` even when it holds something other than a table of ``game``
        (:func:`solver.storage.tablefile.not_replaceable`); without it, that is refused before anything is built.
    :returns: the path written (or written meanwhile by the builder this one waited for).
    :raises TableError: if ``path`` is not a regular file, or not a table of ``game`` (without ``force``),
        its directory cannot be written, the disk is full (naming the path and the bytes needed), the build
        directory is not the user's alone, the table could not be recorded as trusted and takes long
        to prove (:func:`_can_record`), or the new table fails its check.
    :raises solver.errors.BuildError: if a compact build cannot fit (disk or memory, with the figures).
    """
    path = Path(path)
    if not force:
        refuse_replacing(game, path)
    remove_dead_temporaries(path.parent)
    if kind_for(game) == "dense":
        with on_build(game, path, build_steps(game)) if on_build else nullcontext() as progress:
            table = build_table(game, progress=progress)
        return tablefile.write_table(path, kind=table.kind, game=game, arrays=table.file_arrays(), meta=table.file_meta(), verify=True)
    refuse_non_regular(path)  # before the build's minutes or hours, not after
    record = _can_record(game, path)
    build_dir = path.with_name(path.name + ".build")
    before = _identity(path)
    with directory_lock(build_dir, on_wait=notify):
        if _identity(path) not in (None, before):
            if notify is not None:
                notify(f"{path} was written by the build this one waited for; using it")
            return path
        work = plan_build(game, build_dir, jobs=jobs or os.cpu_count() or 1, check=False).work  # the sweep checks the hashes
        with on_build(game, path, work) if on_build else nullcontext() as progress:

            def report(done: ChunkDone) -> None:
                if progress is not None:  # the forward pass of a gravity build, then the layers solved backward
                    progress(done.work, f"reachable positions, layer {done.ply}/{game.cells}" if done.forward else done.ply)

            return _build_compact(game, path, build_dir, jobs=jobs, scheduler=scheduler, progress=report, notify=notify, record=record)


def refuse_replacing(game: Game, path: str | os.PathLike[str]) -> None:
    """Refuse to build ``game``'s table over ``path`` when it holds something else than a table of ``game``
    (:func:`solver.storage.tablefile.not_replaceable`: a file of the user's, a table of another game).

    :raises TableError: naming the file, what it holds, and the command that replaces it all the same (``--force``).
    """
    path = Path(path)
    problem = tablefile.not_replaceable(path, game, fits)
    if problem is not None:
        raise TableError(
            f"{problem}; refusing to replace it: write the table elsewhere, or replace it with: {tablefile.rebuild_command(game.name, path, force=True)}"
        )


def _can_record(game: Game, path: Path) -> bool:
    """Whether the compact table of ``game`` built into ``path`` can be recorded as trusted (:mod:`solver.storage.trust`),
    checked before anything is built or written.

    Nothing to record for a game whose checksum ships. When the registry cannot take the
    table (a directory or another user's file under its name, a directory not writable), a
    table proved in at most :data:`solver.store.estimate.CONSENT_SECONDS` is built all the same
    (said once: it is proved again when opened); a longer one would be refused at every use
    after hours of building, so the build is refused now.

    :raises TableError: for a table that could not be recorded and takes long to prove.
    """
    if tablefile.expected_root(game, "compact") is not None:
        return True
    problem = trust.cannot_record(path.parent)
    if problem is None:
        return True
    seconds = proof_seconds(game, "compact")
    if seconds > CONSENT_SECONDS:
        raise TableError(
            f"{problem}; the {game.name} table built into {path} could not be recorded as trusted, and no checksum ships "
            f"for it, so each use would have to prove it (about {format_duration(seconds)}): nothing was built"
        )
    trust.warn_unrecorded(
        path.parent, problem, f"the {game.name} table is built but not recorded as trusted: it is proved again (about {format_duration(seconds)}) when opened"
    )
    return False


def _identity(path: Path) -> tuple[int, ...] | None:
    """What tells one file at ``path`` from the next: device, inode, size, modification time (None: nothing there)."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def build_compact(
    game: Game,
    output: str | os.PathLike[str],
    *,
    build_dir: str | os.PathLike[str] | None = None,
    jobs: int | None = None,
    scheduler: Any = None,
    progress: ChunkProgress | None = None,
    notify: Callable[[str], None] | None = None,
    keep_layers: bool = False,
) -> Path:
    """Solve a game into a compact table file: the layered build (local or on a Dask cluster), then the file.

    A killed build run again with the same ``build_dir`` resumes below its last finished
    layer (``notify`` says so). The disk and memory needed are checked before anything
    is written (:class:`solver.errors.BuildError` gives the figures). The build
    directory is locked for the whole build (a second builder waits), and the file
    replaces ``output`` only once it has passed every check (see :func:`write_table_file`).

    :param output: the table file to write (atomically).
    :param build_dir: where the layers go while building (default: ``<output>.build``;
        on a cluster, a directory every worker sees at the same path).
    :param jobs: local worker processes (default: every core); ignored with ``scheduler``.
    :param scheduler: a Dask scheduler address (``tcp://host:8786``) or client: build on that cluster.
    :param progress: called after every chunk (:class:`solver.retrograde.chunks.ChunkDone`; the
        total work is :attr:`solver.retrograde.plan.BuildPlan.work` of :func:`solver.retrograde.plan.plan_build`).
    :param keep_layers: keep the build directory after the file is written.
    :returns: the path written.
    :raises TableError: if the new table fails its check (``output`` is then left as it was).
    """
    output = Path(output)
    record = _can_record(game, output)
    directory = Path(build_dir) if build_dir is not None else output.with_name(output.name + ".build")
    with directory_lock(directory, on_wait=notify):
        return _build_compact(game, output, directory, jobs=jobs, scheduler=scheduler, progress=progress, notify=notify, keep_layers=keep_layers, record=record)


def _build_compact(
    game: Game,
    output: Path,
    directory: Path,
    *,
    jobs: int | None,
    scheduler: Any,
    progress: ChunkProgress | None,
    notify: Callable[[str], None] | None,
    keep_layers: bool = False,
    record: bool = True,
) -> Path:
    """:func:`build_compact` with the build directory's lock held (``record``: as trusted, :func:`_can_record`).

    :raises DiskFullError: if the disk fills up on the way (naming the build directory, what the layers
        left need and what is free; the build directory is kept, so the same command resumes).
    """
    try:
        return _solve_and_seal(
            game, output, directory, jobs=jobs, scheduler=scheduler, progress=progress, notify=notify, keep_layers=keep_layers, record=record
        )
    except OSError as error:
        if error.errno not in DISK_FULL:
            raise
        try:
            needed: int | None = plan_build(game, directory, check=False, retiring=True).disk_bytes
        except (OSError, SolverError):
            needed = None
        raise disk_full(
            directory, error, needed=needed, doing=f"building the {game.name} table", then=f"run the same command again: it resumes from what {directory} holds"
        ) from None


def _solve_and_seal(
    game: Game,
    output: Path,
    directory: Path,
    *,
    jobs: int | None,
    scheduler: Any,
    progress: ChunkProgress | None,
    notify: Callable[[str], None] | None,
    keep_layers: bool,
    record: bool,
) -> Path:
    """The layered build into ``directory`` (local or on a cluster), then the table file sealed from it."""
    release = sealing.release(sealing.Compression.default(), check_resumed=tablefile.expected_root(game, "compact") is None)
    try:
        if scheduler is not None:
            from ..retrograde.cluster import build_on_cluster

            built = build_on_cluster(game, directory, scheduler, progress=progress, notify=notify, release=release)
        else:
            built = build_layers(game, directory, jobs=jobs, progress=progress, notify=notify, release=release)
    except ResumedLayerWrong as error:
        wrong = f"the {game.name} table just built is wrong ({error})"
        raise TableError(
            f"{output}: {wrong}; it was not written, and {output} was left as it was; "
            f"it resumed layers from {directory}, which are damaged or forged: delete {directory} and build again"
        ) from None
    resumed = f"; it resumed layers {_plies(built.resumed)} from {directory}, which are damaged or forged: delete {directory} and build again"
    try:
        written = sealing.assemble(BuildDir(directory, game), output, verify=True, built_here=record)
    except DiskFullError:
        raise  # its own words: the path, what it needed, what is free
    except TableError as error:
        raise TableError(f"{error}{resumed if built.resumed else ''}") from None
    if not keep_layers:
        empty_private_directory(directory)  # the lock and the directory go when the lock is let go
    return written


def _plies(plies: Sequence[int]) -> str:
    """``18 to 12`` for a run of layers, else the list."""
    ordered = sorted(plies, reverse=True)
    contiguous = ordered == list(range(ordered[0], ordered[-1] - 1, -1)) if ordered else False
    return f"{ordered[0]} to {ordered[-1]}" if contiguous and len(ordered) > 1 else ", ".join(map(str, ordered))


def write_compact(path: str | os.PathLike[str], game: Game, layers: Sequence[np.ndarray], *, verify: bool = False) -> Path:
    """Write a compact table file from every board's score, layer by layer (layer 0 first; memory maps are read in pieces).

    The same bytes as a build of the game (:func:`solver.retrograde.sealing.write_layers`): only
    canonical boards in play keep their score (:mod:`solver.contents.stored`), in the
    compressed blocks of format version 3, with each layer's histograms in the meta.

    :param verify: replace ``path`` only once the new file has passed its checks
        (:func:`solver.storage.tablefile.write_table`'s ``verify``).
    """
    return sealing.write_layers(path, game, layers, verify=verify)


@dataclass(frozen=True)
class Check:
    """One part of a proof (:func:`proof`): what was checked, in words, and the problems found (none: it holds)."""

    what: str
    problems: tuple[str, ...] = ()


MAX_LISTED = 5
"""Damaged blocks a check lists one by one; the others are counted."""


def proof_work(table: Table) -> int:
    """The units of work :func:`proof` reports to its ``progress``: the scores' boards (a dense table's codes,
    compared once a fresh build is done; a compact one's boards, chunk by chunk). The blocks' check is left out:
    it takes about a hundredth of the time (:data:`solver.store.estimate.PROOF_WORK_PER_SECOND`)."""
    return table.game.codes if isinstance(table, DenseTable) else sum(layout(table.game).layer_sizes)


def proof(
    table: Table, *, on_check: Callable[[Check], None] | None = None, progress: Callable[[int], None] | None = None, spill_in: Path | None = None
) -> list[Check]:
    """Prove everything a table says, part by part (``on_check`` is told each part as it is done;
    ``progress`` the boards as they are checked, :func:`proof_work` in all).

    Memory stays bounded whatever the table's size: a compact table is proved from the full board down, two layers
    at a time, each held in memory up to :data:`~solver.storage.spill.KEEP_IN_MEMORY` and on disk past it, in a
    private directory in ``spill_in`` (default: the system's temporary directory, ``$TMPDIR``) removed at the end
    (:func:`proof_spill_bytes`: 47 GB for 4x8k4-gravity, two layers and the bits of the boards reached). A proof
    whose spill the disk cannot hold is refused at once.

    1. **The file** (a table opened from one): its header, already checked against the game's
       layout and its checksum when it was opened, and **every block**, whatever a look-up would
       read: a compressed block's CRC, decoding and digest, a plain block's digest, and every
       stored value possible where it is stored (:meth:`solver.storage.tablefile.TableFile.problems`).
    2. **The scores**: a dense table compared code by code with a fresh build; a compact one has
       every layer re-derived from the stored next layer and the rules
       (:func:`solver.retrograde.proof.check_layers`: a full build's work, without a second table).
    3. **The counts** a compact file's header keeps (each layer's histograms, what ``solve stats``
       prints): recounted from the proved layers and compared.

    :returns: every part, in order; the table is exact when none has a problem.
    :raises DiskFullError: for a spill the disk cannot hold (before anything is re-derived, or when the disk fills
        on the way).
    """
    checks: list[Check] = []

    def done(check: Check) -> None:
        checks.append(check)
        if on_check is not None:
            on_check(check)

    if table.file is not None:
        done(_header_check(table))
        done(_blocks_check(table))
    if isinstance(table, DenseTable):
        done(_dense_scores_check(table))
        if progress is not None:
            progress(table.game.codes)
        return checks
    assert isinstance(table, CompactTable), f"no proof for a {type(table).__name__}"
    if any(check.problems for check in checks):
        done(Check("scores and counts: not re-derived, the blocks they are read from are damaged"))
        return checks
    for check in _scores_checks(table, progress, spill_in):
        done(check)
    return checks


def _scores_checks(table: CompactTable, progress: Callable[[int], None] | None, spill_in: Path | None) -> list[Check]:
    """The scores of a compact table re-derived layer by layer from the full board down (in a spill: :func:`proof`),
    then, if they hold, the counts its header keeps recounted from the same layers."""
    found: dict[int, np.ndarray] = {}

    def counted(ply: int, scores: np.ndarray) -> None:
        found[ply] = layer_histograms(table.game, ply, scores)

    with spill.Spill(spill_in) as spilled:
        _check_room(table, spilled)
        try:
            problems = check_layers(table.game, _layers_of(table, spilled), progress=progress, spill=spilled, on_layer=counted)
        except TableError as error:  # a table whose blocks were not checked above (no file), or changed meanwhile
            return [Check("scores: not re-derived, a block they are read from is damaged", (str(error),))]
    scores = Check(f"scores: every board of the {count(table.game.cells + 1, 'layer')} re-derived from its children and the rules", tuple(problems))
    return [scores] if problems else [scores, _counts_check(table, found)]


def _layers_of(table: CompactTable, spilled: spill.Spill) -> Callable[[int], np.ndarray]:
    """``layer(ply)`` for :func:`~solver.retrograde.proof.check_layers`: a view of a table that holds every board, else the
    layer answered into the spill (on disk when big), the layer two above it let go (the proof walks down)."""

    def layer(ply: int) -> np.ndarray:
        spilled.release(f"layer-{ply + 2}")
        if table.complete:
            return table.layer(ply)
        return table.layer(ply, out=spilled.array(f"layer-{ply}", table.layout.layer_sizes[ply], np.int8))

    return layer


def proof_spill_bytes(game: Game, *, complete: bool = False, keep_in_memory: int | None = None) -> int:
    """The most bytes a proof of ``game``'s compact table spills to disk (:class:`~solver.storage.spill.Spill`): two
    layers (a layer and its child) of a table that does not hold every board (``complete``: one that does, read where
    it lies) and the forward pass's bits of the boards reached (gravity), each counted where it is bigger than
    ``keep_in_memory`` (default :data:`~solver.storage.spill.KEEP_IN_MEMORY`)."""
    keep = spill.KEEP_IN_MEMORY if keep_in_memory is None else keep_in_memory
    sizes = [int(size) for size in layout(game).layer_sizes]
    big = [0 if complete or size <= keep else size for size in sizes]
    layers = max(a + b for a, b in zip(big, [*big[1:], 0], strict=True))
    reach = sum(bits for bits in (-(-size // 8) for size in sizes) if bits > keep) if game.build_walks_forward else 0
    return layers + reach


def proof_disk(table: Table, keep_in_memory: int | None = None) -> int:
    """The most bytes a proof of ``table`` keeps on disk (:func:`proof_spill_bytes`; a dense table's: none)."""
    return proof_spill_bytes(table.game, complete=table.complete, keep_in_memory=keep_in_memory) if isinstance(table, CompactTable) else 0


def _check_room(table: CompactTable, spilled: spill.Spill) -> None:
    """Refuse at once a proof whose spill could not fit the free disk where it goes.

    :raises DiskFullError: naming the directory, the bytes needed and those free, and how to go on.
    """
    needed = proof_disk(table, spilled.keep_in_memory)
    if not needed:
        return
    free = shutil.disk_usage(spilled.where).free
    if free < needed:
        raise DiskFullError(
            f"{spilled.where}: proving {table.game.name} keeps about {format_size(needed)} ({needed:,} bytes) on disk there "
            f"(two layers and the boards a game reaches), and it has {format_size(free)} free: free space there, or point TMPDIR at a disk with room"
        )


def prove(table: Table) -> list[str]:
    """Prove a table (:func:`proof`): the problems found, every part's (empty when the table is exact)."""
    return [problem for check in proof(table) for problem in check.problems]


def _header_check(table: Table) -> Check:
    """What opening the file checked already (it is refused otherwise), said."""
    assert table.file is not None
    header = table.file.header
    spec = header.arrays[0]
    shipped = tablefile.expected_root(header.game, header.kind)
    where = "the shipped one" if shipped is not None else f"none ships for {header.kind} {header.game.name} tables: what it holds is proved below"
    encoding = f", {spec.encoding.codec} level {spec.encoding.level} (a note: no byte read depends on it)" if spec.encoding is not None else ""
    return Check(
        f"header: {header.kind} {header.game.name}, format {header.format_version}, {count(header.digest_count, 'block')}{encoding}; "
        f"sizes and offsets as the game's layout requires, alignment zero, nothing after the end; sha256 {header.root}: {where}"
    )


def _blocks_check(table: Table) -> Check:
    """Every block of the file, listed when damaged (the first :data:`MAX_LISTED`, the others counted)."""
    assert table.file is not None
    header = table.file.header
    kinds = "CRC, decoding, digest" if header.arrays[0].encoding is not None else "digest"
    problems = table.file.problems(value_check(table.game, header.kind))
    listed = problems[:MAX_LISTED] + ([f"{count(len(problems) - MAX_LISTED, 'more damaged block')}"] if len(problems) > MAX_LISTED else [])
    return Check(f"blocks: all {header.digest_count:,} checked ({kinds}, every stored score possible where it is stored)", tuple(listed))


def _dense_scores_check(table: DenseTable) -> Check:
    """Every entry compared with a fresh build's."""
    problems = []
    fresh = build_arrays(table.game)
    stored = table.stored_entries()
    for name, computed in zip(fresh._fields, fresh, strict=True):
        mine = stored[name]
        wrong = np.flatnonzero(mine != computed)
        if wrong.size:
            code = int(wrong[0])
            problems.append(
                f"{name} differs from a fresh build at {count(int(wrong.size), 'code')}, first at code {code} "
                f"({_board.render(table.game, code)}): stored {mine[code]}, computed {computed[code]}"
            )
    return Check(f"scores: all {table.game.codes:,} codes compared with a fresh build (score, pieces, best moves)", tuple(problems))


def _counts_check(table: CompactTable, found: dict[int, np.ndarray]) -> Check:
    """The layer histograms the file's header keeps, against the proved layers' own (``found``, by ply)."""
    meta = table.file.header.meta if table.file is not None else {}
    if META_KEY not in meta:
        return Check("counts: none kept in the header (counted from the proved table when asked)")
    try:
        kept = histograms_from_meta(meta[META_KEY], layer_sizes=table.layout.layer_sizes)
    except ValueError as error:
        return Check("counts: the header's layer histograms", (f"meta {error}",))
    for ply in sorted(found):
        if not np.array_equal(found[ply], kept[ply]):
            said, true = (LayerCounts.from_histograms(table.game, ply, hist) for hist in (kept[ply], found[ply]))
            problem = f"the header's counts of layer {ply} ({_words(said)}) are not the table's ({_words(true)}): the file is damaged or forged"
            return Check("counts: the header's layer histograms recounted from the proved layers", (problem,))
    return Check(f"counts: the header's histograms of the {count(len(found), 'layer')} recounted from the proved layers")


def _words(counts: LayerCounts) -> str:
    every, unique = counts.every, counts.unique
    return (
        f"{count(every.wins, 'win')}, {count(every.draws, 'draw')}, {count(every.losses, 'loss')}; up to symmetry "
        f"{count(unique.wins, 'win')}, {count(unique.draws, 'draw')}, {count(unique.losses, 'loss')}"
    )


def cluster_scheduler(explicit: str | None = None) -> str | None:
    """The Dask scheduler a compact build goes to: ``explicit``, else ``$SOLVED_TICTACTOE_SCHEDULER``, else None
    (build locally); a malformed address is refused before anything is built (:mod:`solver.retrograde.cluster`).

    :raises BuildError: naming the address and what is wrong with it.
    """
    from ..retrograde.cluster import check_address, scheduler_address

    address = scheduler_address(explicit)
    if address is not None:
        check_address(address)
    return address
