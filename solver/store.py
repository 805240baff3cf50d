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

Building is :mod:`solver.builder`'s: games of up to 16 cells get a dense table
(:class:`solver.tables.DenseTable`, built in memory in seconds); larger ones, up to 25
cells, a compact one (:class:`solver.tables.CompactTable`, built layer by layer in
``<table dir>/<game>.ttt.build``, with all cores or on a Dask cluster; a killed build
resumes). Both answer the same questions (:class:`solver.tables.Table`). This module
only finds and opens tables, and asks the builder for a missing one.

Every table file is checked against the checksum the package expects for its
game (:mod:`solver.tablefile`). In the table directory, only regular files are
opened (a FIFO or a device named like a table is refused before it is opened),
and a symbolic link is followed only when it stays inside the directory
(:func:`solver.fsutil.link_stays_inside`).

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
from importlib import resources
from pathlib import Path
from typing import Any

from . import builder
from .builder import BuildHook
from .errors import InvalidGameError, TableError
from .fsutil import link_stays_inside
from .game import DEFAULT_GAME, Game
from .tablefile import open_table
from .tables import DenseTable, Table, from_file

ENV_VAR = "SOLVED_TICTACTOE_DIR"
APP_NAME = "solved-tictactoe"
SHIPPED = ("3x3k3",)

_open: dict[tuple[Game, Path | None], Table] = {}


class TableWarning(UserWarning):
    """A table was built but could not be kept: it lives in memory for this process only."""


class OldTableDirWarning(UserWarning):
    """A table was found in the directory earlier versions used: it is used from there, and
    the message says where new tables go and the command that moves the old ones."""


_explained: set[Path] = set()
"""The old table directories whose move was explained in this process (once each)."""


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


def table_path(game: Game = DEFAULT_GAME, *, table_dir_: str | os.PathLike[str] | None = None) -> Path:
    """The file that holds (or will hold) ``game``'s table: the shipped one, else ``<table dir>/<game>.ttt``
    (or the one in the old table directory, when only that one exists: see the module docstring)."""
    shipped = shipped_path(game)
    if shipped is not None:
        return shipped
    new, *old = table_dirs(table_dir_)
    path = new / f"{game.name}.ttt"
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
    game: Game = DEFAULT_GAME,
    *,
    table_dir: str | os.PathLike[str] | None = None,
    build: bool = True,
    on_build: BuildHook | None = None,
    notify: Callable[[str], None] | None = None,
) -> Table:
    """The table of ``game`` (default tic-tac-toe), opened once per process.

    :param table_dir: where built tables are kept (see the module docstring).
    :param build: build a missing table; with False a missing table is a :class:`TableError`.
    :param on_build: called before a build (the CLI shows a notice and a progress bar).
    :param notify: told what a build finds (another process building the same game: this one waits).
    :raises TableError: if the table file is broken (its message names the rebuild command).
    """
    key = (game, None if table_dir is None else Path(table_dir))
    table = _open.get(key)
    if table is None:
        table = _open[key] = _find_or_build(game, table_dir, build, on_build, notify)
    return table


def resolve_table(game: Game | None = None, table: Table | None = None) -> Table:
    """``table`` if given (checked against ``game``), else :func:`table_for` of ``game`` (default tic-tac-toe).

    :raises InvalidGameError: if both are given and disagree.
    """
    if table is None:
        return table_for(game or DEFAULT_GAME)
    if game is not None and game != table.game:
        raise InvalidGameError(f"game {game.name} does not match the table's game {table.game.name}")
    return table


def open_file(
    path: str | os.PathLike[str], *, game: Game | None = None, follow_symlinks: bool = True, verify: bool | None = None
) -> Table:
    """Open a table file of either kind, dense or compact (the header says which).

    :param verify: for a dense table, as :func:`load_table`'s (compact tables are
        always verified block by block on first use).
    :raises TableError: for a missing, broken, forged or mismatched file (see :func:`solver.tablefile.open_table`).
    """
    opened = open_table(path, game=game, follow_symlinks=follow_symlinks)
    return from_file(opened, verify=verify, prove=builder.prove)


def load_table(
    path: str | os.PathLike[str], *, game: Game | None = None, verify: bool | None = None, follow_symlinks: bool = True
) -> DenseTable:
    """Open a dense table file (memory-mapped; nothing is unpickled).

    The header, the layout and the table's checksum (against the one the package
    expects for the game) are checked at once; the entries block by block on first
    use, so every answer comes from verified bytes.

    :param game: the game the file must hold (checked against the header).
    :param verify: hash every block now; ``None`` (default) does so for tables of
        up to 8 MiB, such as 3x3, and leaves larger ones to first use.
    :param follow_symlinks: with False, a symbolic link at ``path`` is refused.
    :raises TableError: for a missing, truncated, corrupt, forged or mismatched file,
        or one holding a compact table.
    """
    opened = open_table(path, game=game, follow_symlinks=follow_symlinks)
    return DenseTable.from_file(opened, verify=verify, prove=builder.prove)


def open_compact(path: str | os.PathLike[str], *, game: Game | None = None) -> Table:
    """Open a compact table file: header and layout checked now, score blocks verified on first use.

    :raises TableError: for a missing, damaged or mismatched file, one holding a dense
        table, or one written with another index.
    """
    opened = open_table(path, game=game)
    if opened.header.kind != "compact":
        raise opened.error(f"holds a {opened.header.kind} table, expected a compact one")
    return from_file(opened, prove=builder.prove)


def build_file(game: Game, path: str | os.PathLike[str], **options: Any) -> Table:
    """Build ``game``'s table into ``path`` (:func:`solver.builder.build_file`, same options) and open it
    from there, verified against the checksum the package expects.

    This is the one build path: :func:`table_for` uses it for a missing table, and so does ``solve build``.
    """
    written = builder.build_file(game, path, **options)
    return open_file(written, game=game)


def _find_or_build(
    game: Game, directory: str | os.PathLike[str] | None, build: bool, on_build: BuildHook | None, notify: Callable[[str], None] | None = None
) -> Table:
    path = table_path(game, table_dir_=directory)
    inside = path != shipped_path(game)
    if os.path.lexists(path) or not build:
        return open_file(path, game=game, follow_symlinks=not inside or link_stays_inside(path))
    try:
        return build_file(game, path, on_build=on_build, notify=notify)
    except TableError as error:
        if path.exists() or builder.kind_for(game) != "dense":
            raise
        table = builder.build_table(game)  # the directory cannot hold it: keep it in memory
        warnings.warn(f"{error}; the {game.name} table is used from memory for this process only", TableWarning, stacklevel=3)
        return table


_on_forget: list[Callable[[], None]] = []
"""Called at every :func:`forget`: the public API's memo of tables registers itself here."""


def on_forget(hook: Callable[[], None]) -> None:
    """Call ``hook`` whenever :func:`forget` runs (a layer above that keeps tables of its own)."""
    _on_forget.append(hook)


def forget() -> None:
    """Close every table opened by :func:`table_for`, and every table a layer above kept
    (:func:`on_forget`): the next look-up opens its table afresh (for tests, long-lived
    processes, and after a table file may have changed)."""
    _open.clear()
    _explained.clear()
    for hook in _on_forget:
        hook()
