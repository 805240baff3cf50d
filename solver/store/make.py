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
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import numpy as np

from ..encoding import board as _board
from ..errors import ResumedLayerWrong, TableError
from ..retrograde import sealing
from ..retrograde.builddir import BuildDir
from ..retrograde.chunks import ChunkDone
from ..retrograde.chunks import Progress as ChunkProgress
from ..retrograde.dense import Progress, build_arrays, build_steps
from ..retrograde.plan import plan_build
from ..retrograde.proof import check_layers
from ..retrograde.sweep import build_layers
from ..rules.game import DEFAULT_GAME, DENSE_MAX_CELLS, Game
from ..storage import tablefile
from ..storage.fsutil import directory_lock, empty_private_directory, refuse_non_regular, remove_dead_temporaries
from ..tables import CompactTable, DenseTable, Kind, Table
from ..words import count

BuildProgress = Callable[..., None]
"""Called with the work units just done, and for a compact build the layer (pieces) being solved."""

BuildHook = Callable[[Game, Path, int], AbstractContextManager["BuildProgress | None"]]
"""Entered around a build with the game, the file to be written and the build's work units in all;
yields a :data:`BuildProgress` callback or None."""


def kind_for(game: Game) -> Kind:
    """The kind of table ``game`` gets: dense up to :data:`solver.rules.game.DENSE_MAX_CELLS` cells, compact past them."""
    return "dense" if game.cells <= DENSE_MAX_CELLS else "compact"


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
    :returns: the path written (or written meanwhile by the builder this one waited for).
    :raises TableError: if ``path`` is not a regular file, its directory cannot be
        written, the disk is full (naming the path and the bytes needed), the build
        directory is not the user's alone, or the new table fails its check.
    :raises solver.errors.BuildError: if a compact build cannot fit (disk or memory, with the figures).
    """
    path = Path(path)
    remove_dead_temporaries(path.parent)
    if kind_for(game) == "dense":
        with on_build(game, path, build_steps(game)) if on_build else nullcontext() as progress:
            table = build_table(game, progress=progress)
        return tablefile.write_table(path, kind=table.kind, game=game, arrays=table.file_arrays(), meta=table.file_meta(), verify=True)
    refuse_non_regular(path)  # before the build's minutes or hours, not after
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
                if progress is not None:
                    progress(done.work, done.ply)

            return _build_compact(game, path, build_dir, jobs=jobs, scheduler=scheduler, progress=report, notify=notify)


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
    directory = Path(build_dir) if build_dir is not None else output.with_name(output.name + ".build")
    with directory_lock(directory, on_wait=notify):
        return _build_compact(game, output, directory, jobs=jobs, scheduler=scheduler, progress=progress, notify=notify, keep_layers=keep_layers)


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
) -> Path:
    """:func:`build_compact` with the build directory's lock held."""
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
        written = sealing.assemble(BuildDir(directory, game), output, verify=True)
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
    canonical boards in play keep their score (:mod:`solver.storage.stored`), in the
    compressed blocks of format version 3, with each layer's histograms in the meta.

    :param verify: replace ``path`` only once the new file has passed its checks
        (:func:`solver.storage.tablefile.write_table`'s ``verify``).
    """
    return sealing.write_layers(path, game, layers, verify=verify)


def prove(table: Table) -> list[str]:
    """Prove a table: its stored blocks checked, then every score re-derived from the rules and compared.

    A dense table is compared code by code with a fresh build (every damaged block is
    reported too); a compact one has every layer re-derived from the stored next layer
    (:func:`solver.retrograde.proof.check_layers`: a full build's work, without a second table).

    :returns: the problems found (empty when the table is exact).
    """
    if isinstance(table, DenseTable):
        return _prove_dense(table)
    assert isinstance(table, CompactTable), f"no proof for a {type(table).__name__}"
    try:
        layers = [table.layer(ply) for ply in range(table.game.cells + 1)]
    except TableError as error:
        return [str(error)]
    return check_layers(table.game, layers)


def _prove_dense(table: DenseTable) -> list[str]:
    problems = [] if table.file is None else table.file.problems()
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
    return problems
