"""solved-tictactoe: exact, instant answers for tic-tac-toe, m,n,k games up to 25 cells and gravity games (tables up to
39 cells, 6x6 and 5x7 where built; Connect Four by search).

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
than 3x3 are built on first use and kept open by the default :class:`Tablebase` (:func:`table_for`,
:func:`default_tablebase`, :mod:`solver.store.tablebase`), the one owner of the sources of answers. The
functions live in :mod:`solver.api`, which parses a ``game=`` name once per call. Boards and
action ids of OpenSpiel and PettingZoo: ``from solver import interop``
(:mod:`solver.interop`, not imported here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .api import (
    LocalTables,
    Source,
    TableAt,
    Tablebase,
    __version__,
    analyze,
    best_move,
    build_table,
    default_tablebase,
    encode,
    forget,
    get,
    load_table,
    lookup,
    lookup_boards,
    lookup_codes,
    table_for,
)
from .encoding.board import Board, encode_boards, parse
from .errors import (
    BuildNeedsConsent,
    InvalidBoardError,
    InvalidGameError,
    InvalidMoveError,
    InvalidValueError,
    PlayerError,
    SearchInterrupted,
    SearchTimeout,
    SolverError,
    TableError,
)
from .lazy import lazy_names

if TYPE_CHECKING:  # here, in the order the reference lists them; imported when first used (__getattr__ below)
    from .grading.grader import GradedMove, GradeReport, GradingInterrupted, PlayerFailure, grade, load_player

from .present import notebook as _notebook  # noqa: F401  (registers the notebook pictures; they import their modules when drawn)
from .rules.game import Game, parse_game
from .tables import CompactTable, DenseTable, Scores, Table

if TYPE_CHECKING:
    from .tables.analysis import GameAnalysis, PlayerSummary, PlyAnalysis, UnjudgedPly, Verdict

from .tables.position import Move, Position

_LAZY = {
    **dict.fromkeys(["GradedMove", "GradeReport", "GradingInterrupted", "PlayerFailure", "grade", "load_player"], "solver.grading.grader"),
    **dict.fromkeys(["GameAnalysis", "PlayerSummary", "PlyAnalysis", "UnjudgedPly", "Verdict"], "solver.tables.analysis"),
}
"""The names of the grader and of a game's analysis, by the module that holds each: imported on first use
(:func:`__getattr__`, PEP 562), so that ``import solver`` and a look-up load neither."""


__getattr__, __dir__ = lazy_names(globals(), _LAZY)


__all__ = [
    "Board",
    "BuildNeedsConsent",
    "CompactTable",
    "DenseTable",
    "Game",
    "GameAnalysis",
    "GradeReport",
    "GradedMove",
    "GradingInterrupted",
    "InvalidBoardError",
    "InvalidGameError",
    "InvalidMoveError",
    "InvalidValueError",
    "LocalTables",
    "Move",
    "PlayerError",
    "PlayerFailure",
    "PlayerSummary",
    "PlyAnalysis",
    "Position",
    "Scores",
    "SearchInterrupted",
    "SearchTimeout",
    "SolverError",
    "Source",
    "Table",
    "TableAt",
    "TableError",
    "Tablebase",
    "UnjudgedPly",
    "Verdict",
    "__version__",
    "analyze",
    "best_move",
    "build_table",
    "default_tablebase",
    "encode",
    "encode_boards",
    "forget",
    "get",
    "grade",
    "load_player",
    "load_table",
    "lookup",
    "lookup_boards",
    "lookup_codes",
    "parse",
    "parse_game",
    "table_for",
]
