"""Where tables live: the shipped 3x3 table, and every other game built on first use.

A game's table is looked for, in order:

1. among the tables shipped with the package (3x3k3 only): a file in the
   table directory never overrides them;
2. in the table directory: ``--table-dir`` / ``table_dir=``, else the
   ``SOLVED_TICTACTOE_DIR`` environment variable, else the platform's user data
   directory (:func:`default_table_dir`: ``~/.local/share/solved-tictactoe`` on
   Linux, ``~/Library/Application Support/solved-tictactoe`` on macOS,
   ``%LOCALAPPDATA%\\solved-tictactoe`` on Windows), as ``<game>.ttt``. In that
   default case a table found only in the directory earlier versions used
   (:func:`old_table_dir`, ``~/.config/solved-tictactoe`` on Linux) is used from
   there, with one :class:`OldTableDirWarning` per process giving the command that
   moves the tables;
3. otherwise it is built, written atomically into the table directory,
   checksummed, and opened from there. Later runs open it without rebuilding.

Games of up to 16 cells get a dense table (:class:`solver.table.Table`, built in
memory in seconds); larger ones, up to 25 cells, a compact one
(:class:`solver.compact.CompactTable`, built layer by layer in
``<table dir>/<game>.ttt.build`` by :func:`solver.compact.build_compact`, with all
cores or on a Dask cluster; a killed build resumes). Both answer the same questions.

Every table file is checked against the checksum the package expects for its
game (:mod:`solver.tablefile`). In the table directory, only regular files are
opened (a FIFO or a device named like a table is refused before it is opened),
and a symbolic link is followed only when it stays inside the directory.

Concurrent builders each write a private, locked temporary file and rename it
into place, so the table directory never holds a torn file; the temporary files
of builders that died are removed at every build and ``solve verify``. When the
table directory cannot be written (read-only, or the environment variable names
a file), the table is built in memory for this process with one
:class:`TableWarning` saying which directory and what to do.
"""

from __future__ import annotations

import os
import shlex
import warnings
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from .build import build_steps
from .errors import InvalidGameError, TableError
from .game import DENSE_MAX_CELLS, Game, parse_game
from .table import Table, build_table, table_from_file
from .tablefile import open_table, refuse_non_regular, remove_dead_temporaries

if TYPE_CHECKING:
    from .compact import CompactTable

AnyTable: TypeAlias = "Table | CompactTable"
"""A solved game, dense or compact: both answer ``at``, ``lookup``, ``get``, ``best_move``, ``lookup_codes``, ``stats``, ``verify``."""

ENV_VAR = "SOLVED_TICTACTOE_DIR"
APP_NAME = "solved-tictactoe"
SHIPPED = ("3x3k3",)

_open: dict[tuple[Game, Path | None], AnyTable] = {}

class TableWarning(UserWarning):
    """A table was built but could not be kept: it lives in memory for this process only."""


class OldTableDirWarning(UserWarning):
    """A table was found in the directory earlier versions used: it is used from there, and
    the message says where new tables go and the command that moves the old ones."""


_explained: set[Path] = set()
"""The old table directories whose move was explained in this process (once each)."""


BuildProgress = Callable[..., None]
"""Called with the work units just done, and for a compact build the layer (pieces) being solved."""

BuildHook = Callable[[Game, Path, int], AbstractContextManager["BuildProgress | None"]]
"""Entered around a build with the game, the file to be written and the build's work units in all;
yields a :data:`BuildProgress` callback or None."""


def table_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The directory that holds built tables (see the module docstring)."""
    if override is not None:
        return Path(override)
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    return default_table_dir()


def default_table_dir() -> Path:
    """The platform's user data directory for the package (``platformdirs.user_data_dir``).

    A data directory, not a cache one: a table can be rebuilt, but big ones take hours
    (games past 20 cells), and cache directories are emptied by cleaning tools and by
    some systems on their own.
    """
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def old_table_dir() -> Path:
    """Where earlier versions kept tables: ``click.get_app_dir`` (``~/.config/solved-tictactoe`` on Linux)."""
    import click

    return Path(click.get_app_dir(APP_NAME))


def table_dirs(override: str | os.PathLike[str] | None = None) -> tuple[Path, ...]:
    """The directories :func:`table_path` looks in: the table directory, then, for the
    default one only, the directory earlier versions used (when it is another)."""
    new = table_dir(override)
    if override is not None or os.environ.get(ENV_VAR):
        return (new,)
    old = old_table_dir()
    return (new,) if old == new else (new, old)


def shipped_path(game: Game) -> Path | None:
    """The table shipped with the package for ``game``, if there is one."""
    if game.name not in SHIPPED:
        return None
    name = f"{game.name}.ttt"
    installed = resources.files("solver") / "data" / name
    if installed.is_file():
        return Path(str(installed))
    checkout = Path(__file__).resolve().parent.parent / "data" / name
    return checkout if checkout.is_file() else None


def table_path(game: Game | str | None = None, *, table_dir_: str | os.PathLike[str] | None = None) -> Path:
    """The file that holds (or will hold) ``game``'s table: the shipped one, else ``<table dir>/<game>.ttt``
    (or the one in the old table directory, when only that one exists: see the module docstring)."""
    resolved = parse_game(game)
    shipped = shipped_path(resolved)
    if shipped is not None:
        return shipped
    new, *old = table_dirs(table_dir_)
    path = new / f"{resolved.name}.ttt"
    if old and not os.path.lexists(path) and os.path.lexists(old[0] / path.name):
        _explain_move(old[0], new)
        return old[0] / path.name
    return path


def _explain_move(old: Path, new: Path) -> None:
    """One warning per process and old directory: where the tables are, where new ones go, how to move them."""
    if old in _explained:
        return
    _explained.add(old)
    if os.name == "nt":
        move = f'move "{old}\\*.ttt" "{new}"'
    else:
        move = f"mkdir -p {shlex.quote(str(new))} && mv {shlex.quote(str(old))}/*.ttt {shlex.quote(str(new))}/"
    warnings.warn(
        f"using tables from {old}, where earlier versions kept them; new tables go in {new}; move them there with: {move}",
        OldTableDirWarning,
        stacklevel=3,
    )


def table_for(
    game: Game | str | None = None,
    *,
    table_dir: str | os.PathLike[str] | None = None,
    build: bool = True,
    on_build: BuildHook | None = None,
) -> AnyTable:
    """The table of ``game`` (default tic-tac-toe), opened once per process.

    :param table_dir: where built tables are kept (see the module docstring).
    :param build: build a missing table; with False a missing table is a :class:`TableError`.
    :param on_build: called before a build (the CLI shows a notice and a progress bar).
    :raises TableError: if the table file is broken (its message names the rebuild command).
    """
    resolved = parse_game(game)
    key = (resolved, None if table_dir is None else Path(table_dir))
    table = _open.get(key)
    if table is None:
        table = _open[key] = _find_or_build(resolved, table_dir, build, on_build)
    return table


def resolve_table(game: Game | str | None = None, table: AnyTable | None = None) -> AnyTable:
    """``table`` if given (checked against ``game``), else :func:`table_for` of ``game``.

    :raises InvalidGameError: if both are given and disagree.
    """
    if table is None:
        return table_for(game)
    if game is not None and parse_game(game) != table.game:
        raise InvalidGameError(f"game {parse_game(game).name} does not match the table's game {table.game.name}")
    return table


def open_file(
    path: str | os.PathLike[str], *, game: Game | None = None, follow_symlinks: bool = True, verify: bool | None = None
) -> AnyTable:
    """Open a table file of either kind, dense or compact (the header says which).

    :param verify: for a dense table, as :func:`solver.table.load_table`'s (compact tables
        are always verified block by block on first use).
    :raises TableError: for a missing, broken, forged or mismatched file (see :func:`solver.tablefile.open_table`).
    """
    opened = open_table(path, game=game, follow_symlinks=follow_symlinks)
    if opened.header.kind == "dense":
        return table_from_file(opened, verify=verify)
    from .compact import compact_from_file

    return compact_from_file(opened)


def _find_or_build(game: Game, directory: str | os.PathLike[str] | None, build: bool, on_build: BuildHook | None) -> AnyTable:
    path = table_path(game, table_dir_=directory)
    inside = path != shipped_path(game)
    if os.path.lexists(path) or not build:
        return open_file(path, game=game, follow_symlinks=not inside or _link_stays_inside(path))
    try:
        return build_file(game, path, on_build=on_build)
    except TableError as error:
        if path.exists() or game.cells > DENSE_MAX_CELLS:
            raise
        table = build_table(game=game)  # the directory cannot hold it: keep it in memory
        warnings.warn(f"{error}; the {game.name} table is used from memory for this process only", TableWarning, stacklevel=3)
        return table


def _link_stays_inside(path: Path) -> bool:
    """Whether ``path`` is no symbolic link, or one that resolves inside its own directory."""
    if not path.is_symlink():
        return True
    return path.resolve().parent == path.parent.resolve()


def build_file(
    game: Game | str,
    path: str | os.PathLike[str],
    *,
    on_build: BuildHook | None = None,
    jobs: int | None = None,
    scheduler: Any = None,
    notify: Callable[[str], None] | None = None,
) -> AnyTable:
    """Build ``game``'s table, write it atomically to ``path`` and open it from there, verified.

    The temporary files of dead builders in ``path``'s directory are removed first.
    This is the one build path: :func:`table_for` uses it for a missing table, and
    so does ``solve build``. Games of up to 16 cells are built in memory (dense);
    larger ones layer by layer in ``<path>.build`` (compact), which a killed build
    resumes from (``notify`` says so).

    :param jobs: worker processes for a compact build (default: every core).
    :param scheduler: a Dask scheduler address or client: build a compact table on that cluster.
    :raises TableError: if ``path`` is not a regular file, its directory cannot be
        written, or the disk is full (naming the path and the bytes needed).
    :raises solver.layered.BuildError: if a compact build cannot fit (disk or memory, with the figures).
    """
    resolved, path = parse_game(game), Path(path)
    remove_dead_temporaries(path.parent)
    if resolved.cells <= DENSE_MAX_CELLS:
        with on_build(resolved, path, build_steps(resolved)) if on_build else nullcontext() as progress:
            table = build_table(game=resolved, progress=progress)
        table.save(path)
        return open_file(path, game=resolved)
    return _build_compact(resolved, path, on_build, jobs, scheduler, notify)


def _build_compact(
    game: Game, path: Path, on_build: BuildHook | None, jobs: int | None, scheduler: Any, notify: Callable[[str], None] | None
) -> AnyTable:
    from .compact import build_compact
    from .layered import ChunkDone, plan_build

    refuse_non_regular(path)  # before the build's minutes or hours, not after
    build_dir = path.with_name(path.name + ".build")
    work = plan_build(game, build_dir, jobs=jobs or os.cpu_count() or 1).work
    with on_build(game, path, work) if on_build else nullcontext() as progress:

        def report(done: ChunkDone) -> None:
            if progress is not None:
                progress(done.work, done.ply)

        build_compact(game, path, build_dir=build_dir, jobs=jobs, scheduler=scheduler, progress=report, notify=notify)
    return open_file(path, game=game)


def forget() -> None:
    """Close every table opened by :func:`table_for` (for tests and long-lived processes)."""
    import solver

    _open.clear()
    _explained.clear()
    solver._tictactoe = None
    solver._by_game.clear()
