"""Moves: every accepted form of one move turned into a cell, and why a move is refused.

One parser serves the command line (``solve play``, ``solve analyze``), :func:`solver.analyze`,
:meth:`solver.Position.play`, the grader and the OpenSpiel/PettingZoo adapters, so a move
means the same everywhere and is refused with the same words.

===========================  ======================================  =========================
form                         examples                                cell on 3x3 (``row * 3 + col``)
===========================  ======================================  =========================
cell index                   ``5``, ``np.int64(5)``, ``"5"``         5
``(row, col)`` pair          ``(1, 2)``, ``[1, 2]``, ``np.array([1, 2])``  5
``row,col`` text             ``"1,2"``, ``"1 2"``, ``"(1,2)"``, ``"[1, 2]"``  5
===========================  ======================================  =========================

Numbers in text are ASCII digits (an optional ``-`` sign). Refused, as
:class:`~solver.InvalidBoardError` (a ``ValueError``):

* a move that cannot be read: ``True``/``np.True_`` (bools are not numbers here),
  floats such as ``4.0``, ``None``, ``"1,1,1"``, ``"²"``, a pair of non-integers;
* a move off the board: a cell outside ``0`` to ``cells - 1``, a row or column outside the board
  (:class:`~solver.errors.OffBoardMoveError`, a subclass).

Whether the cell is empty is the position's to say (:meth:`solver.Position.play`).

**A list of moves as one text** (the HTTP API's ``moves=``, :func:`parse_moves`): the
moves are separated by spaces or ``;``, and each one is read by :func:`parse_move`, as
if it were one argument of ``solve analyze``. So ``4 0 8`` and ``4;0;8`` are three cells,
``1,1 0,0`` and ``(1,1);(0,0)`` two row,col moves, and ``1,1`` alone is row 1, col 1
(cell 4), as everywhere else. A move with a space inside is bracketed: ``(1, 1) (0, 0)``.
Commas never separate moves: ``4,0,8`` is refused, saying how to write it.
Under gravity (:mod:`solver.encoding.drops`) the same list is split the same way
(:func:`split_moves`) and each move is read as a move under gravity: ``2 2`` is column 2
twice, ``2,0;1,0`` two ``(row, col)`` landing cells.

>>> parse_move("(2,2)"), parse_move([0, 1]), parse_move(4)
(8, 1, 4)
>>> parse_moves("1,1 (0, 0);2,2"), parse_moves("4 0 8")
([4, 0, 8], [4, 0, 8])
>>> parse_move("1.5")
Traceback (most recent call last):
...
solver.errors.InvalidBoardError: cannot read move '1.5': expected a cell 0-8 or row,col with row 0-2 and col 0-2
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ..errors import InvalidBoardError, OffBoardMoveError
from ..rules.game import DEFAULT_GAME, Game, parse_game
from .board import quote

MOVE_STRING_MAX_COLUMNS = 9
"""The most columns a gravity game may have for its moves to be written as a move string (one digit a column, 1 to 9:
:mod:`solver.encoding.drops`)."""

__all__ = ["MoveSpec", "expected_moves", "parse_move", "parse_moves", "split_moves"]

MoveSpec = int | tuple[int, int] | Sequence[int] | str
"""A move: a cell index ``row * cols + col``, a ``(row, col)`` pair, or either written as text."""

_NUMBER = re.compile(r"-?[0-9]+", re.ASCII)
_SEPARATOR = re.compile(r"\s*,\s*|\s+")
_LIST_ITEM = re.compile(r"(?:\([^()]*\)|\[[^\[\]]*\]|[^\s;])+")
"""One move of a list: a run of characters other than spaces and ``;``, where a bracketed part may hold spaces."""
_CELL_LIST = re.compile(r"[0-9]+(?:,[0-9]+){2,}", re.ASCII)
_PAIR = re.compile(r"[0-9]+,[0-9]+", re.ASCII)
_MAX_DIGITS = 9
"""Longer numbers are off every board; they are not converted (Python limits int() of huge strings)."""


def expected_moves(game: Game) -> str:
    """What a move on ``game`` may be, for error messages."""
    return f"expected a cell 0-{game.cells - 1} or row,col with row 0-{game.rows - 1} and col 0-{game.cols - 1}"


def parse_move(move: Any, game: Game | str | None = None, *, where: str = "") -> int:
    """The cell of one move in any accepted form (module docstring).

    :param move: a cell index, a ``(row, col)`` pair, or text such as ``"4"``, ``"1,1"`` or ``"(1,1)"``.
    :param game: the game the move is on; default tic-tac-toe.
    :param where: put before every message, e.g. ``"ply 3: "``.
    :returns: the flat cell ``row * cols + col``; not checked to be empty.
    :raises InvalidBoardError: saying what was found and what was expected: a move
        that cannot be read, or one off the board.
    """
    if type(move) is int and game is None:  # the common case, kept short
        if 0 <= move < DEFAULT_GAME.cells:
            return move
        return _off_board(f"cell {move}", DEFAULT_GAME, where)
    board = parse_game(game)
    if isinstance(move, np.ndarray) and move.ndim == 0:
        move = move.item()
    if isinstance(move, (bool, np.bool_)):
        return _unreadable(move, board, where)
    if isinstance(move, (int, np.integer)):
        cell = int(move)
        if 0 <= cell < board.cells:
            return cell
        return _off_board(f"cell {cell}", board, where)
    if isinstance(move, str):
        return _parse_text(move, board, where)
    if isinstance(move, (list, tuple, np.ndarray)) and len(move) == 2:
        if isinstance(move, np.ndarray) and move.ndim != 1:
            return _unreadable(move, board, where)
        row, col = move
        if isinstance(row, (bool, np.bool_)) or isinstance(col, (bool, np.bool_)):
            return _unreadable(move, board, where)
        if not (isinstance(row, (int, np.integer)) and isinstance(col, (int, np.integer))):
            return _unreadable(move, board, where)
        return _row_col(int(row), int(col), board, where, f"({row}, {col})")
    return _unreadable(move, board, where)


def _parse_text(text: str, game: Game, where: str) -> int:
    inner = text.strip()
    bracketed = inner[:1] + inner[-1:] in ("()", "[]")
    if bracketed:
        inner = inner[1:-1].strip()
    parts = _SEPARATOR.split(inner) if inner else []
    if not 1 + bracketed <= len(parts) <= 2 or not all(_NUMBER.fullmatch(part) for part in parts):
        return _unreadable(text, game, where)
    if any(len(part.lstrip("-")) > _MAX_DIGITS for part in parts):
        return _off_board(f"move {quote(text)}", game, where)
    numbers = [int(part) for part in parts]
    if len(numbers) == 1:
        if 0 <= numbers[0] < game.cells:
            return numbers[0]
        return _off_board(f"move {quote(text)}", game, where)
    return _row_col(numbers[0], numbers[1], game, where, f"move {quote(text)}")


def _row_col(row: int, col: int, game: Game, where: str, shown: str) -> int:
    if 0 <= row < game.rows and 0 <= col < game.cols:
        return row * game.cols + col
    return _off_board(shown, game, where)


def _unreadable(move: Any, game: Game, where: str) -> int:
    several = ""
    if isinstance(move, str):
        parts = _SEPARATOR.split(move.strip().strip("()[]").strip())
        if len(parts) >= 3 and all(_NUMBER.fullmatch(part) for part in parts):  # "4 0 8", "4,0,8": a list, not one move
            listed = ", ".join(repr(part) for part in parts)
            several = f" ({quote(move)} is {len(parts)} moves: give each on its own, as in solve analyze {' '.join(parts)} or [{listed}])"
    raise InvalidBoardError(f"{where}cannot read move {quote(move)}: {expected_moves(game)}{several}")


def _off_board(shown: str, game: Game, where: str) -> int:
    raise OffBoardMoveError(f"{where}{shown} is off the board: {expected_moves(game)}")


def split_moves(text: str, game: Game | str | None = None) -> list[str]:
    """The moves of a list written as one text (module docstring), each as it was written: one
    argument of ``solve analyze``, for :func:`parse_move` or, under gravity,
    :func:`solver.encoding.drops.read_drop` (through :func:`solver.tables.analysis.analyze`) to read.

    >>> split_moves("2 2;(1, 0)")
    ['2', '2', '(1, 0)']

    A move string (:mod:`solver.encoding.drops`) is kept whole, its characters checked: the analysis reads its
    moves and names them in its numbering, columns from 1.

    >>> split_moves("4453 2", "connect4")
    ['4453', '2']

    :param game: the game the moves are on; default tic-tac-toe.
    :raises InvalidBoardError: for a move that is numbers joined by commas (``4,0,8``: moves are
        separated by spaces or ``;``), naming its ply, or for more moves than cells (the list is
        not read further).
    """
    return list(_each_move(text, parse_game(game)))


def _each_move(text: str, game: Game) -> Iterator[str]:
    """The moves of ``text`` one by one (:func:`split_moves`), so a reader refuses a bad one before the rest is split."""
    ply = 0
    for item in _LIST_ITEM.finditer(text):
        move = item[0]
        # "4453": columns 1 to 9, one a digit (solver.encoding.drops), read (and checked) here and kept whole, so
        # that what reads the moves speaks of them in the move string's numbering
        ply += len(read_move_string(move, game)) if is_move_string(move, game) else 1
        if ply > game.cells:
            raise InvalidBoardError(f"more than {game.cells} moves given: a {game.name} game has at most {game.cells} plies")
        if _CELL_LIST.fullmatch(move):
            raise InvalidBoardError(
                f"ply {ply}: cannot read move {quote(move)}: moves are separated by spaces or ';' "
                f"({move.replace(',', ' ')} or {move.replace(',', ';')}), and a,b is one move, row a, col b"
            )
        yield move


def is_move_string(text: str, game: Game) -> bool:
    """Whether an item of a list of moves is a move string (:mod:`solver.encoding.drops`): a gravity game of at most
    :data:`MOVE_STRING_MAX_COLUMNS` columns and two or more digits, no separator (a bare number is a column).

    >>> from solver.rules.game import parse_game
    >>> is_move_string("4453", parse_game("connect4")), is_move_string("4", parse_game("connect4"))
    (True, False)
    """
    text = text.strip()
    return game.rules.move.writes_columns and game.cols <= MOVE_STRING_MAX_COLUMNS and len(text) >= 2 and text.isascii() and text.isdigit()


def read_move_string(text: str, game: Game) -> list[int]:
    """The columns of a move string, 0-based (:mod:`solver.encoding.drops`): ``"4453"`` -> ``[3, 3, 4, 2]``; ``""`` is the empty board.

    Not played: :func:`move_string_code` checks each move against the board.

    :raises InvalidBoardError: for a game without gravity or of more than nine columns, anything but text (``4453``,
        ``b"4453"``, ``[4, 4, 5, 3]``), or a character that is not a column from 1 to ``cols`` (an ASCII digit: not
        ``"²"``, Arabic-Indic or fullwidth digits), naming it and its place.
    """
    if not isinstance(text, str):
        raise InvalidBoardError(f"a move string is text such as '4453' (columns 1 to {game.cols}, first move first), not {type(text).__name__} {quote(text)}")
    if not game.rules.move.writes_columns:
        raise InvalidBoardError(f"a move string is a list of columns, for gravity games (Connect Four): {game.name} has no gravity")
    if game.cols > MOVE_STRING_MAX_COLUMNS:
        raise InvalidBoardError(f"{game.name} has {game.cols} columns: a move string writes one digit a column, 1 to {MOVE_STRING_MAX_COLUMNS}")
    digits = text.strip()
    if digits.isascii() and digits.isdigit() and "0" not in digits and max(digits, default="1") <= str(game.cols):
        return [ord(char) - 49 for char in digits]  # every character a column from 1 to cols: "1" is column 0
    columns = []
    for place, char in enumerate(digits, start=1):
        if not ("1" <= char <= "9" and int(char) <= game.cols):
            raise InvalidBoardError(f"move {place} of the move string {quote(text)} is {quote(char)}: a move is a column from 1 to {game.cols}")
        columns.append(int(char) - 1)
    return columns


def parse_moves(text: str, game: Game | str | None = None) -> list[int]:
    """The cells of a list of moves written as one text (module docstring): ``"4 0 8"``,
    ``"1,1;0,0;2,2"``, ``"(1, 1) (0, 0)"``. Not for gravity games, where a bare number is a
    column: their moves are :func:`split_moves` read one by one against the board.

    Whether the moves can be played in turn is the game's to say (:func:`solver.analyze`).

    :param game: the game the moves are on; default tic-tac-toe.
    :returns: one flat cell per ply, in order.
    :raises InvalidBoardError: naming the ply (``"ply 2: "``) of the first move that cannot
        be read or is off the board, or saying that there are more moves than cells
        (the list is not read further).
    """
    board = parse_game(game)
    cells = []
    for ply, move in enumerate(_each_move(text, board), start=1):
        try:
            cells.append(parse_move(move, board, where=f"ply {ply}: "))
        except InvalidBoardError as error:
            if _PAIR.fullmatch(move):  # off the board as row,col: perhaps two cells joined by a comma
                raise InvalidBoardError(f"{error} (two cells are written {move.replace(',', ' ')} or {move.replace(',', ';')})") from None
            raise
    return cells
