"""Where tables live: the shipped 3x3 table, and every other game built on first use.

A game's table is looked for, in order:

1. in the table directory: ``--table-dir`` / ``table_dir=``, else the
   ``SOLVED_TICTACTOE_DIR`` environment variable, else the user's data
   directory (``click.get_app_dir("solved-tictactoe")``), as ``<game>.ttt``;
2. among the tables shipped with the package (3x3k3 only);
3. otherwise it is built, written atomically into the table directory,
   checksummed, and opened from there. Later runs open it without rebuilding.

Concurrent builders each write a private temporary file and rename it into
place, so the table directory never holds a torn file.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from importlib import resources
from pathlib import Path

from .build import Progress
from .errors import InvalidGameError
from .game import Game, parse_game
from .table import Table, build_table, load_table

ENV_VAR = "SOLVED_TICTACTOE_DIR"
APP_NAME = "solved-tictactoe"
SHIPPED = ("3x3k3",)

_open: dict[tuple[Game, Path | None], Table] = {}

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
    """The file that holds (or will hold) ``game``'s table."""
    resolved = parse_game(game)
    cached = table_dir(table_dir_) / f"{resolved.name}.ttt"
    if cached.exists():
        return cached
    return shipped_path(resolved) or cached


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


STALE_SECONDS = 3600
"""A temporary file this old is left from a build that was killed: it is removed."""


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
    if path.exists() or not build:
        return load_table(path, game=game)
    _remove_stale(path)
    with on_build(game, path) if on_build else nullcontext() as progress:
        table = build_table(game=game, progress=progress)
    table.save(path)
    return load_table(path, game=game, verify=True)


def _remove_stale(path: Path) -> None:
    """Remove temporary files of killed builds of ``path`` (a running build's file is fresh)."""
    cutoff = time.time() - STALE_SECONDS
    for stale in path.parent.glob(f".{path.name}.*.tmp"):
        try:
            if stale.stat().st_mtime < cutoff:
                stale.unlink()
        except OSError:
            pass  # another process removed or renamed it first


def forget() -> None:
    """Close every table opened by :func:`table_for` (for tests and long-lived processes)."""
    import solver

    _open.clear()
    solver._tictactoe = None
