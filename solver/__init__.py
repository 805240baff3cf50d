"""solved-tictactoe: exact, instant answers for tic-tac-toe and m,n,k games up to 25 cells.

>>> import solver
>>> p = solver.lookup("X.O/.X./..O")
>>> p.to_move, p.result, p.plies, p.best_moves
('X', 'draw', 5, ((1, 2),))
>>> solver.best_move([["X", None, None], [None, "O", None], [None, None, None]])
(0, 1)
>>> solver.lookup(0).value          # the empty board: a draw for X
0

``lookup`` raises :class:`InvalidBoardError` (a ``ValueError``) for a board that
is malformed or cannot occur; ``get`` returns a default instead. Tables other
than 3x3 are built on first use and cached (:func:`table_for`). Boards and
action ids of OpenSpiel and PettingZoo: ``from solver import interop``
(:mod:`solver.interop`, not imported here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .analysis import GameAnalysis, PlayerSummary, PlyAnalysis, Verdict, analyze
from .board import Board, encode_boards, parse
from .cache import AnyTable, table_for
from .errors import InvalidBoardError, InvalidGameError, PlayerError, SolverError, TableError
from .game import Game, parse_game
from .grading import GradedMove, GradeReport, GradingInterrupted, PlayerFailure, grade, load_player
from .position import Move, Position
from .table import Scores, Table, build_table, load_table

if TYPE_CHECKING:
    from .compact import CompactScores

__all__ = [
    "Board", "Game", "GameAnalysis", "GradeReport", "GradedMove", "GradingInterrupted", "InvalidBoardError", "InvalidGameError",
    "Move", "PlayerError", "PlayerFailure", "PlayerSummary", "PlyAnalysis", "Position", "Scores", "SolverError",
    "Table", "TableError", "Verdict", "analyze", "best_move", "build_table", "encode", "encode_boards", "get", "grade",
    "load_player", "load_table", "lookup", "lookup_codes", "parse_game", "table_for",
]

__version__ = "0.1.0"

_tictactoe: AnyTable | None = None
_by_game: dict[object, Any] = {}
"""The table of each ``game=`` a look-up was given, so later look-ups cost one dictionary
hit: a name maps to its table, a :class:`Game` by ``id`` to ``(game, table)`` (hashing a
Game costs more than the look-up). Cleared by :func:`solver.cache.forget`."""


def _default() -> AnyTable:
    global _tictactoe
    if _tictactoe is None:
        _tictactoe = table_for()
    return _tictactoe


def _table_of(game: Game | str) -> AnyTable:
    """The table of ``game`` (opened or built once), remembered for the next look-up."""
    table = table_for(game)  # raises for a malformed game
    if len(_by_game) < 256:
        if type(game) is str:
            _by_game[game] = table
        elif type(game) is Game:
            _by_game[id(game)] = (game, table)  # the game is kept alive, so its id is not reused
    return table


def lookup(board: Board, *, game: Game | str | None = None) -> Position:
    """Solve a position: value, result, plies to the end, best moves, every move's outcome.

    :param board: an int code, a string, nested rows, a flat list or a numpy array
        (:mod:`solver.board`).
    :param game: e.g. ``"4x4"``; default tic-tac-toe. A board of another shape is
        refused, naming its shape and the ``game=`` to pass (:mod:`solver.board`).
    :raises InvalidBoardError: saying what is wrong with the board and where.
    :raises InvalidGameError: for a malformed or unsupported ``game``.
    :raises TableError: if the table file is broken.
    """
    if game is None:
        table = _tictactoe or _default()
    else:
        if type(game) is str:
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


def best_move(board: Board, *, game: Game | str | None = None) -> tuple[int, int]:
    """One best move as ``(row, col)``: the first best move in cell order.

    :raises InvalidBoardError: for an invalid board, or when the game is over.
    """
    position = lookup(board, game=game)
    return position.table.best_move(position.code)


def encode(board: Board, *, game: Game | str | None = None) -> int:
    """The base-3 code of a board (form checked only, not reachability)."""
    return parse(board, game)[1]


def lookup_codes(codes: np.ndarray, *, game: Game | str | None = None, check: bool = True) -> Scores | CompactScores:
    """Vectorised :func:`lookup` over an array of codes (see :meth:`Table.lookup_codes`).

    For games of more than 16 cells the answer is a :class:`solver.compact.CompactScores`,
    with the same attributes (its ``ply`` and ``best`` computed when first read).
    """
    return table_for(game).lookup_codes(codes, check=check)
