"""The public functions: where a game name is parsed, once, and a :class:`Game` travels below.

Every function here takes ``game=`` as a name (``"4x4"``), a :class:`Game` or None
(tic-tac-toe), parses it at most once per call, and hands a :class:`Game` to the
layers below (:mod:`solver.store.locate`, :mod:`solver.store.make`, :mod:`solver.tables.analysis`).
:mod:`solver` re-exports them.

A look-up's table is remembered per ``game=`` (by name, or by the :class:`Game` object
itself), so a later look-up of the same game costs one dictionary hit; :func:`forget`
clears that memo and every table the store opened.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import numpy as np

from .encoding.board import Board, parse
from .encoding.moves import MoveSpec
from .errors import InvalidBoardError
from .rules.game import DEFAULT_GAME, Game, parse_game
from .store import locate as store
from .store import make as _builder
from .store.make import BuildHook
from .tables import DenseTable, Scores, Table, analysis
from .tables.analysis import GameAnalysis
from .tables.position import Position

__version__ = "0.1.0"

_tictactoe: Table | None = None
"""The tic-tac-toe table of ``lookup(board)`` without ``game=``."""
_by_game: dict[object, Any] = {}
"""The table of each ``game=`` a look-up was given, so later look-ups cost one dictionary
hit: a name maps to its table, a :class:`Game` by ``id`` to ``(game, table)`` (hashing a
Game costs more than the look-up). Cleared by :func:`forget`."""


def _default() -> Table:
    global _tictactoe
    if _tictactoe is None:
        _tictactoe = store.table_for(DEFAULT_GAME)
    return _tictactoe


def _table_of(game: Game | str) -> Table:
    """The table of ``game`` (the name parsed here, the table opened or built once), remembered for the next look-up."""
    table = store.table_for(parse_game(game))  # raises for a malformed game
    if len(_by_game) < 256:
        if type(game) is str:
            _by_game[game] = table
        elif type(game) is Game:
            _by_game[id(game)] = (game, table)  # the game is kept alive, so its id is not reused
    return table


def _table(game: Game | str | None) -> Table:
    """The table of ``game=`` (tic-tac-toe for None), from the memo when it was asked for before."""
    if game is None:
        return _tictactoe or _default()
    if type(game) is str:
        return _by_game.get(game) or _table_of(game)
    entry = _by_game.get(id(game))
    return entry[1] if entry is not None and entry[0] is game else _table_of(game)


def lookup(board: Board, *, game: Game | str | None = None) -> Position:
    """Solve a position: value, result, plies to the end, best moves, every move's outcome.

    :param board: an int code, a string, nested rows, a flat list or a numpy array
        (:mod:`solver.encoding.board`).
    :param game: e.g. ``"4x4"``; default tic-tac-toe. A board of another shape is
        refused, naming its shape and the ``game=`` to pass (:mod:`solver.encoding.board`).
    :raises InvalidBoardError: saying what is wrong with the board and where.
    :raises InvalidGameError: for a malformed or unsupported ``game``.
    :raises BuildNeedsConsent: if the game's table is missing and building it takes more than a
        minute or a GiB of disk: build it first with ``table_for(game, build=True)`` or ``solve build``.
    :raises TableError: if the table file is broken.
    """
    # _table() written out: this is the look-up hot path.
    if game is None:
        table = _tictactoe or _default()
    elif type(game) is str:
        table = _by_game.get(game) or _table_of(game)
    else:
        entry = _by_game.get(id(game))
        table = entry[1] if entry is not None and entry[0] is game else _table_of(game)
    if type(board) is int:
        return table.at(board)
    return table.at(parse(board, table.game)[1])


def get(board: Board, default: Any = None, *, game: Game | str | None = None) -> Position | Any:
    """Like :func:`lookup`, but returns ``default`` for an invalid board."""
    try:
        return lookup(board, game=game)
    except InvalidBoardError:
        return default


def best_move(board: Board, *, game: Game | str | None = None) -> tuple[int, int] | int:
    """One best move as ``(row, col)``: the first best move in cell order. Under gravity (``-gravity``
    games, Connect Four's family) a move is a column: the lowest-numbered best column, an ``int``.

    >>> best_move("XX./OO./...")
    (0, 2)
    >>> best_move("..../..../OOO./XXX.", game="4x4k4-gravity")  # X completes the bottom row
    3

    :raises InvalidBoardError: for an invalid board, or when the game is over.
    """
    position = lookup(board, game=game)
    return position.table.best_move(position.code)


def encode(board: Board, *, game: Game | str | None = None) -> int:
    """The base-3 code of a board (form checked only, not reachability)."""
    return parse(board, None if game is None else parse_game(game))[1]


def lookup_codes(codes: np.ndarray | Iterable[int], *, game: Game | str | None = None, check: bool = True) -> Scores:
    """Vectorised :func:`lookup` over an array of codes (see :meth:`solver.tables.Table.lookup_codes`).

    The answer is a :class:`solver.tables.Scores` for either kind of table (a compact
    table's ``ply`` and ``best`` are computed when first read).
    """
    return _table(game).lookup_codes(codes, check=check)


def analyze(moves: Iterable[MoveSpec], *, game: Game | str | None = None, table: Table | None = None) -> GameAnalysis:
    """Replay a game from the empty board and judge every ply (:func:`solver.tables.analysis.analyze`).

    :param moves: the game so far, one move per ply, in any form of :mod:`solver.encoding.moves`:
        flat cell indices (``[4, 0, 8]``), ``(row, col)`` pairs (``[(1, 1), (0, 0), (2, 2)]``)
        or text (``["1,1", "(0,0)"]``).
    :param game: e.g. ``"4x4"``; default tic-tac-toe.
    :param table: the table to use (default :func:`table_for` of ``game``).
    :raises InvalidBoardError: for ``moves`` that is not a sequence, or an illegal move,
        naming the ply and the cell.
    :raises InvalidGameError: if ``game`` and ``table`` disagree.
    """
    if table is None:
        table = _table(game)
    else:
        table = store.resolve_table(None if game is None else parse_game(game), table)
    return analysis.analyze(moves, table=table)


def table_for(
    game: Game | str | None = None,
    *,
    table_dir: str | os.PathLike[str] | None = None,
    build: bool | None = None,
    on_build: BuildHook | None = None,
    url: str | None = None,
    checksum: str | None = None,
) -> Table:
    """The table of ``game`` (default tic-tac-toe), opened once per process (:func:`solver.store.locate.table_for`).

    ``table_for("5x5k4", url="https://host/tables/")`` reads the table where a server keeps it:
    the header and digests once, then each block by an HTTP Range request on first touch,
    checked as a local block is, kept in a bounded on-disk cache (:mod:`solver.store.urltable`).

    :param table_dir: where built tables are kept (see :mod:`solver.store.locate`).
    :param build: for a missing table: None (default) builds it only when that takes at most
        a minute and a GiB of disk (:mod:`solver.store.estimate`); True builds it whatever it costs;
        False never builds (a missing table is a :class:`TableError`).
    :param on_build: called around a build (the CLI shows a notice and a progress bar).
    :param url: the URL of the table file, or of a directory of ``<game>.ttt`` files (``http`` or ``https``).
    :param checksum: with ``url``, the table's checksum (SHA-256 in hex) for a game without a shipped one.
    :raises BuildNeedsConsent: for a missing table whose build needs ``build=True`` (the message
        gives the estimate and the ``solve build`` command; nothing is written).
    :raises TableError: if the table file is broken (its message names the rebuild command).
    """
    return store.table_for(parse_game(game), table_dir=table_dir, build=build, on_build=on_build, url=url, checksum=checksum)


def load_table(path: str | os.PathLike[str], *, game: Game | str | None = None, verify: bool | None = None, follow_symlinks: bool = True) -> DenseTable:
    """Open a dense table file, every block verified before it answers (:func:`solver.store.locate.load_table`)."""
    return store.load_table(path, game=None if game is None else parse_game(game), verify=verify, follow_symlinks=follow_symlinks)


def build_table(rows: int = 3, cols: int = 3, k: int = 3, *, game: Game | str | None = None, progress: Any = None) -> DenseTable:
    """Solve a game of up to 16 cells in memory: ``build_table()`` is tic-tac-toe, ``build_table(game="4x4")`` four in a row.

    :param progress: called with 1 after each ply of each pass (:func:`solver.retrograde.dense.build_steps` calls).
    """
    resolved = parse_game(game) if game is not None else Game(rows, cols, k)
    return _builder.build_table(resolved, progress=progress)


def _forget_memo() -> None:
    global _tictactoe
    _tictactoe = None
    _by_game.clear()


store.on_forget(_forget_memo)  # the store's forget() clears the memo too: no table outlives it

forget = store.forget
"""Forget every table: those the store opened and this module's memo (:func:`solver.store.locate.forget`)."""
