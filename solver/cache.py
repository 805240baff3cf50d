"""Where tables live: the shipped 3x3 table, and every other game built on first use.

A game's table is looked for, in order:

1. among the tables shipped with the package (3x3k3 only): a file in the
   table directory never overrides them;
2. in the table directory: ``--table-dir`` / ``table_dir=``, else the
   ``SOLVED_TICTACTOE_DIR`` environment variable, else the user's data
   directory (``click.get_app_dir("solved-tictactoe")``), as ``<game>.ttt``;
3. otherwise it is built, written atomically into the table directory,
   checksummed, and opened from there. Later runs open it without rebuilding.

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
import warnings
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from importlib import resources
from pathlib import Path

from .build import Progress
from .errors import InvalidGameError, TableError
from .game import Game, parse_game
from .table import Table, build_table, load_table
from .tablefile import remove_dead_temporaries

ENV_VAR = "SOLVED_TICTACTOE_DIR"
APP_NAME = "solved-tictactoe"
SHIPPED = ("3x3k3",)

_open: dict[tuple[Game, Path | None], Table] = {}

class TableWarning(UserWarning):
    """A table was built but could not be kept: it lives in memory for this process only."""


BuildHook = Callable[[Game, Path], AbstractContextManager["Progress | None"]]
"""Entered around a build with the game and the file to be written; yields a progress callback or None."""


def table_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The directory that holds built tables (see the module docstring)."""
    if override is not None:
        return Path(override)
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    import click

    return Path(click.get_app_dir(APP_NAME))


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
    """The file that holds (or will hold) ``game``'s table: the shipped one, else ``<table dir>/<game>.ttt``."""
    resolved = parse_game(game)
    return shipped_path(resolved) or table_dir(table_dir_) / f"{resolved.name}.ttt"


def table_for(
    game: Game | str | None = None,
    *,
    table_dir: str | os.PathLike[str] | None = None,
    build: bool = True,
    on_build: BuildHook | None = None,
) -> Table:
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


def resolve_table(game: Game | str | None = None, table: Table | None = None) -> Table:
    """``table`` if given (checked against ``game``), else :func:`table_for` of ``game``.

    :raises InvalidGameError: if both are given and disagree.
    """
    if table is None:
        return table_for(game)
    if game is not None and parse_game(game) != table.game:
        raise InvalidGameError(f"game {parse_game(game).name} does not match the table's game {table.game.name}")
    return table


def _find_or_build(game: Game, directory: str | os.PathLike[str] | None, build: bool, on_build: BuildHook | None) -> Table:
    path = table_path(game, table_dir_=directory)
    inside = path != shipped_path(game)
    if os.path.lexists(path) or not build:
        return load_table(path, game=game, follow_symlinks=not inside or _link_stays_inside(path))
    try:
        return build_file(game, path, on_build=on_build)
    except TableError as error:
        if path.exists():
            raise
        table = build_table(game=game)  # the directory cannot hold it: keep it in memory
        warnings.warn(f"{error}; the {game.name} table is used from memory for this process only", TableWarning, stacklevel=3)
        return table


def _link_stays_inside(path: Path) -> bool:
    """Whether ``path`` is no symbolic link, or one that resolves inside its own directory."""
    if not path.is_symlink():
        return True
    return path.resolve().parent == path.parent.resolve()


def build_file(game: Game | str, path: str | os.PathLike[str], *, on_build: BuildHook | None = None) -> Table:
    """Build ``game``'s table, write it atomically to ``path`` and open it from there, verified.

    The temporary files of dead builders of ``path`` are removed first. This is
    the one build path: :func:`table_for` uses it for a missing table, and so does
    ``solve build``.

    :raises TableError: if ``path`` is not a regular file, its directory cannot be
        written, or the disk is full (naming the path and the bytes needed).
    """
    resolved, path = parse_game(game), Path(path)
    remove_dead_temporaries(path.parent)
    with on_build(resolved, path) if on_build else nullcontext() as progress:
        table = build_table(game=resolved, progress=progress)
    table.save(path)
    return load_table(path, game=resolved, verify=True)


def forget() -> None:
    """Close every table opened by :func:`table_for` (for tests and long-lived processes)."""
    import solver

    _open.clear()
    solver._tictactoe = None
    solver._by_game.clear()
