"""Opening a table file as a table of a game: the storage layer reads bytes and names, this layer says what they are.

A table file's header states its game as plain numbers and the name they spell
(:class:`solver.storage.tablefile.StoredGame`). Opening one here makes a
:class:`~solver.rules.game.Game` of them and tells storage, as soon as the header is parsed and before
anything it declares is read, the sizes a table of that game has (:func:`fits`): a dense table holds
``3 ** cells`` entries of a game of at most :data:`~solver.rules.game.DENSE_MAX_CELLS` cells, a compact
one its layout's boards (:mod:`solver.encoding.layouts`). A header whose numbers name no game, or whose
sizes are not its game's, is refused by storage with a :class:`~solver.errors.TableError` naming the file
and the command that rebuilds it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path

from ..encoding.layouts import layout
from ..rules.game import DENSE_MAX_CELLS, Game, parse_game
from ..storage import tablefile
from ..storage.tablefile import StoredGame, TableFile

__all__ = ["OpenTable", "fits", "game_of", "open_table", "rebuild_name", "with_game"]


def game_of(stored: StoredGame) -> Game:
    """The game a header's numbers name.

    :raises InvalidGameError: (a ``ValueError``) when they name none.
    """
    return Game(stored.rows, stored.cols, stored.k, stored.variant)


def fits(stored: StoredGame, kind: str) -> int | str:
    """The number of items a table of ``kind`` of the header's game holds (:data:`solver.storage.tablefile.Fits`):
    a dense table's entries (``3 ** cells``), a compact table's boards (its layout's size), a book's none (0: a book's
    sizes are its own); or why no table of ``kind`` holds that game (a dense table of too many cells).

    :raises InvalidGameError: (a ``ValueError``) when the numbers name no game.
    """
    game = game_of(stored)
    if kind == "book":
        return 0
    if kind == "dense" and game.cells > DENSE_MAX_CELLS:
        return (
            f"holds a dense table of {game.name}, {game.cells} cells: dense tables hold games of at most {DENSE_MAX_CELLS} cells, "
            "so the file is damaged or forged"
        )
    return game.codes if kind == "dense" else layout(game).size


def rebuild_name(path: Path) -> str:
    """The game a table file's name names (``4x4k4.ttt``: ``4x4k4``; ``connect4.book``: ``6x7k4-gravity``), else
    tic-tac-toe's: the game its rebuild command names when its header names none."""
    try:
        return parse_game(path.name.split(".")[0]).name
    except ValueError:
        return Game().name


@dataclass
class OpenTable(TableFile):
    """An open table file (:class:`solver.storage.tablefile.TableFile`) and the game it holds."""

    game: Game = field(kw_only=True)


def open_table(path: str | os.PathLike[str], *, game: Game | None = None, follow_symlinks: bool = True) -> OpenTable:
    """Open and check a table file of ``game`` (None: whichever its header names) and make the game it holds
    (:func:`solver.storage.tablefile.open_table` with :func:`fits`).

    :raises TableError: naming the file, what is wrong and the command that rebuilds it.
    """
    rebuild_as = game.name if game is not None else rebuild_name(Path(path))  # a wanted game's name is not parsed again
    opened = tablefile.open_table(path, fits, game=game, follow_symlinks=follow_symlinks, rebuild_as=rebuild_as)
    return with_game(opened)


def with_game(opened: TableFile) -> OpenTable:
    """``opened`` with the game its header names (a header :func:`fits` accepted)."""
    return OpenTable(**{part.name: getattr(opened, part.name) for part in fields(opened)}, game=game_of(opened.header.game))
