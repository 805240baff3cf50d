"""Moves under gravity: a column, or the ``(row, col)`` of the cell a piece dropped there lands on.

Under gravity (a move rule that writes a move as its column, :attr:`~solver.rules.parts.MoveRule.writes_columns`, and
whose column's move lands, :meth:`~solver.rules.parts.MoveRule.landing`: Connect Four's family) a move is a
column: the piece falls to the lowest empty cell of it. So where a move of an m,n,k game is
a cell (:mod:`solver.encoding.moves`), a move of a gravity game is read here, against the
board it is played on:

=========================================  =================================================
form                                       the move, on ``4x4k4-gravity``
=========================================  =================================================
a column: ``2``, ``np.int64(2)``, ``"2"``  the lowest empty cell of column 2
a ``(row, col)`` pair in any form of       that cell, when it is the lowest empty cell of its
:func:`~solver.encoding.moves.parse_move`  column (``(3, 2)`` on the empty board)
(``(3, 2)``, ``[3, 2]``, ``"3,2"``)
=========================================  =================================================

**The move string.** A whole game can also be written as Connect Four players write it (Pons'
solver, connect4.gamesolver.org): the columns played, numbered **from 1**, first move first, with no
separator: ``"4453"`` on Connect Four is column 3 (0-based) twice, then 4, then 2. It is read by
:func:`read_move_string` and :func:`move_string_code` (a board's code), for games of at most
:data:`MOVE_STRING_MAX_COLUMNS` columns (one digit a column). It is never confused with a bare
number, which is a 0-based column: a front end takes a move string only under its own name (the
``moves=`` of :func:`solver.lookup`, ``solve lookup --moves``, the HTTP API's ``?moves=``), and
in a list of moves (``solve analyze``, :func:`~solver.encoding.moves.split_moves`) only a run of
two or more digits is one, which no column of a board of at most nine columns can be.

Rows and columns are numbered from 0, as everywhere (boards are written top row first, so the
bottom row is ``rows - 1``); a bare number is a column, never a flat cell. Refused:

* what :func:`~solver.encoding.moves.parse_move` refuses, and a column off the board, as
  :class:`~solver.errors.InvalidBoardError` (:class:`~solver.errors.OffBoardMoveError`), the
  message saying what a move under gravity is;
* a full column, and a pair that is not where the piece would land (a taken cell, or a cell
  with an empty one below it), as :class:`~solver.errors.InvalidMoveError`, saying where it lands.

>>> from solver.rules.game import parse_game
>>> game = parse_game("4x4k4-gravity")
>>> read_drop("2", game), read_drop((3, 1), game)
(Drop(col=2, cell=None), Drop(col=1, cell=13))
>>> landing_cell(read_drop(2, game), game, taken=0)
14
>>> landing_cell(read_drop("0,3", game), game, taken=0)
Traceback (most recent call last):
...
solver.errors.InvalidMoveError: (0,3) is not playable: a piece dropped in column 3 lands on (3,3)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from ..errors import InvalidBoardError, InvalidMoveError, OffBoardMoveError, quote
from ..rules.game import Game
from .board import check_rules, parse_text
from .coderules import code_rules
from .moves import MOVE_STRING_MAX_COLUMNS, expected_moves, is_move_string, parse_move, read_move_string

__all__ = [
    "MOVE_STRING_MAX_COLUMNS",
    "Drop",
    "code_of_text",
    "expected_drops",
    "is_move_string",
    "landing_cell",
    "move_string_code",
    "read_drop",
    "read_move_string",
]

_COLUMN = re.compile(r"\s*-?[0-9]+\s*", re.ASCII)
_MAX_DIGITS = 9
"""Longer numbers are off every board (as in :mod:`solver.encoding.moves`)."""


class Drop(NamedTuple):
    """A move under gravity as it was written: its column, and the cell it named (None for a bare column)."""

    col: int
    cell: int | None


def expected_drops(game: Game) -> str:
    """What a move under gravity may be, for error messages."""
    return f"expected a column 0-{game.cols - 1}, or row,col (row 0-{game.rows - 1}, col 0-{game.cols - 1}) naming the lowest empty cell of its column"


def read_drop(move: Any, game: Game, *, where: str = "") -> Drop:
    """The column of a move under gravity, and the cell it names if it is a ``(row, col)`` pair (module docstring).

    Not checked against a board: :func:`landing_cell` does that.

    :param where: put before every message, e.g. ``"ply 3: "``.
    :raises InvalidBoardError: for a move that cannot be read, or off the board (:class:`~solver.errors.OffBoardMoveError`).
    """
    if isinstance(move, np.ndarray) and move.ndim == 0:
        move = move.item()
    if isinstance(move, (int, np.integer)) and not isinstance(move, (bool, np.bool_)):
        return Drop(_column(int(move), game, where, f"column {int(move)}"), None)
    if isinstance(move, str) and _COLUMN.fullmatch(move):
        digits = move.strip()
        if len(digits.lstrip("-")) > _MAX_DIGITS:
            raise OffBoardMoveError(f"{where}move {quote(move)} is off the board: {expected_drops(game)}")
        return Drop(_column(int(digits), game, where, f"column {digits}"), None)
    try:  # what is left parse_move reads only as a (row, col) pair, or refuses
        cell = parse_move(move, game, where=where)
    except InvalidBoardError as error:  # the same words, with what a move is under gravity
        raise type(error)(str(error).replace(expected_moves(game), expected_drops(game))) from None
    return Drop(cell % game.cols, cell)


def _column(col: int, game: Game, where: str, shown: str) -> int:
    if 0 <= col < game.cols:
        return col
    raise OffBoardMoveError(f"{where}{shown} is off the board: {expected_drops(game)}")


def landing_cell(drop: Drop, game: Game, taken: int, *, where: str = "", on: str = "", first: int = 0) -> int:
    """The cell ``drop`` takes on a board whose occupied cells are ``taken`` (a bit each).

    :param on: the board in words for messages, e.g. ``" on ..../X..."``.
    :param first: the number the message gives the first column: 0 as everywhere, 1 for a move of a move
        string, whose columns are numbered from 1 (``"column 4 is full"`` for the ``4`` the user wrote).
    :raises InvalidMoveError: for a full column, or a cell that is not the lowest empty one of its column,
        saying where a piece dropped in that column lands.
    """
    lands = game.rules.landing(taken, drop.col)
    if drop.cell is None:
        if lands is None:
            raise InvalidMoveError(f"{where}column {drop.col + first} is full{on}: {_open_columns(game, taken, first)}")
        return lands
    if drop.cell == lands:
        return lands
    row, col = game.coords(drop.cell)
    what = "is taken" if taken >> drop.cell & 1 else "is not playable"
    if lands is None:
        raise InvalidMoveError(f"{where}({row},{col}) {what}{on}: column {col} is full; {_open_columns(game, taken)}")
    low = game.coords(lands)[0]
    raise InvalidMoveError(f"{where}({row},{col}) {what}{on}: a piece dropped in column {col} lands on ({low},{col})")


def _open_columns(game: Game, taken: int, first: int = 0) -> str:
    """``the columns with room are 0, 1 and 3``, or that none has (numbered from ``first``)."""
    free = [col + first for col in range(game.cols) if game.rules.landing(taken, col) is not None]
    if not free:
        return "no column has room"
    listed = ", ".join(map(str, free[:-1])) + (" and " if len(free) > 1 else "") + str(free[-1])
    return f"the column{'s' if len(free) > 1 else ''} with room {'are' if len(free) > 1 else 'is'} {listed}"


def move_string_code(text: str, game: Game) -> int:
    """The code of the board a move string reaches (module docstring), every move played by the rules.

    >>> from solver.rules.game import parse_game
    >>> from solver.encoding.board import render
    >>> render(parse_game("connect4"), move_string_code("4453", parse_game("connect4"))).split("/")[-2:]
    ['...O...', '..OXX..']

    :raises InvalidBoardError: as :func:`read_move_string`; :raises InvalidMoveError: for a move into a full
        column or after a line ended the game, naming the move, its columns numbered from 1 as the move string's are:

    >>> move_string_code("4444444", parse_game("connect4"))
    Traceback (most recent call last):
    ...
    solver.errors.InvalidMoveError: move 7 of the move string '4444444': column 4 is full: the columns with room are 1, 2, 3, 5, 6 and 7
    """
    columns = read_move_string(text, game)
    code = before = taken = 0
    for ply, col in enumerate(columns, start=1):
        cell = game.rules.landing(taken, col)
        if cell is None:  # the column is full: raises, naming the move (its message made only now)
            cell = landing_cell(Drop(col, None), game, taken, where=f"move {ply} of the move string {quote(text)}: ", first=1)
        before = code
        code += (1 if ply % 2 else 2) * 3**cell
        taken |= 1 << cell
    if len(columns) > 1 and code_rules(game).judge(before)[0] != 0:  # a line stays on the board: one check finds it
        _name_the_move_after_the_end(text, game, columns)
    return code


def _name_the_move_after_the_end(text: str, game: Game, columns: Sequence[int]) -> None:
    """Raise at the first move of ``columns`` played after the game ended (a line, or a full board)."""
    code = taken = 0
    coded = code_rules(game)
    for ply, col in enumerate(columns, start=1):
        if ply > 1 and coded.judge(code)[0] != 0:
            raise InvalidMoveError(f"move {ply} of the move string {quote(text)} is played after the game ended (a line, or a full board)")
        cell = landing_cell(Drop(col, None), game, taken)
        code += (1 if ply % 2 else 2) * 3**cell
        taken |= 1 << cell


def code_of_text(text: str, game: Game, *, moves: str) -> int:
    """The code of a board typed as text, read as :func:`~solver.encoding.board.parse_text` reads it (ASCII digits
    are a code); digits that are also a move string of ``game`` (``4453`` on Connect Four) are checked at once
    to be a board some game reaches, and where they are not, the message says that a move string is given
    another way: ``moves`` and the digits (``moves="--moves "`` on the command line, ``"moves="`` over HTTP).

    >>> from solver.rules.game import parse_game
    >>> code_of_text("4453", parse_game("connect4"), moves="--moves ")
    Traceback (most recent call last):
    ...
    solver.errors.InvalidBoardError: XOOO.../... the piece at (1,0) floats: ...; 4453 was read as a board's code: a move string ... is given as --moves 4453

    :raises InvalidBoardError: as :func:`~solver.encoding.board.parse_text` and, for digits that read as a move
        string, :func:`~solver.encoding.board.check_rules`.
    """
    digits = text.strip()
    try:
        found, code = parse_text(text, game)
        if _reads_as_move_string(digits, game):
            check_rules(found, code)
        return code
    except InvalidBoardError as error:
        if not _reads_as_move_string(digits, game):
            raise
        raise type(error)(f"{error}; {digits} was read as a board's code: a move string (columns numbered from 1) is given as {moves}{digits}") from None


def _reads_as_move_string(digits: str, game: Game) -> bool:
    """Whether text is a move string of ``game``: ASCII digits, each a column from 1, no more moves than cells."""
    if not (digits.isascii() and digits.isdigit()) or len(digits) > game.cells:
        return False
    try:
        read_move_string(digits, game)
    except InvalidBoardError:  # no gravity, more than nine columns, a digit that is no column
        return False
    return True
