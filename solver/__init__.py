"""solved-tictactoe: exact, instant answers for tic-tac-toe and m,n,k games up to 16 cells.

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
than 3x3 are built on first use and cached (:mod:`solver.cache`). Boards and
action ids of OpenSpiel and PettingZoo: ``from solver import interop``
(:mod:`solver.interop`, not imported here).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .analysis import GameAnalysis, PlayerSummary, PlyAnalysis, Verdict, analyze
from .board import Board, encode_boards, parse
from .cache import table_for
from .errors import InvalidBoardError, InvalidGameError, PlayerError, SolverError, TableError
from .game import DEFAULT_GAME, Game, parse_game
from .grading import GradedMove, GradeReport, PlayerFailure, grade, load_player
from .position import Move, Position
from .table import Scores, Table, build_table, load_table

__all__ = [
    "Board", "Game", "GameAnalysis", "GradeReport", "GradedMove", "InvalidBoardError", "InvalidGameError",
    "Move", "PlayerError", "PlayerFailure", "PlayerSummary", "PlyAnalysis", "Position", "Scores", "SolverError",
    "Table", "TableError", "Verdict", "analyze", "best_move", "build_table", "encode", "encode_boards", "get", "grade",
    "load_player", "load_table", "lookup", "lookup_codes", "parse_game", "table_for",
]

__version__ = "0.1.0"

_tictactoe: Table | None = None


def _default() -> Table:
    global _tictactoe
    if _tictactoe is None:
        _tictactoe = table_for()
    return _tictactoe


def lookup(board: Board, *, game: Game | str | None = None) -> Position:
    """Solve a position: value, result, plies to the end, best moves, every move's outcome.

    :param board: an int code, a string, nested rows, a flat list or a numpy array
        (:mod:`solver.board`).
    :param game: e.g. ``"4x4"``; nested boards and 2-D arrays set it, otherwise tic-tac-toe.
    :raises InvalidBoardError: saying what is wrong with the board and where.
    :raises TableError: if the table file is broken.
    """
    if game is None:
        if type(board) is int:
            return (_tictactoe or _default()).at(board)
        found, code = parse(board)
    else:
        found, code = parse(board, game)
    if found is DEFAULT_GAME:
        return (_tictactoe or _default()).at(code)
    return table_for(found).at(code)


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


def lookup_codes(codes: np.ndarray, *, game: Game | str | None = None, check: bool = True) -> Scores:
    """Vectorised :func:`lookup` over an array of codes (see :meth:`Table.lookup_codes`)."""
    return table_for(game).lookup_codes(codes, check=check)
