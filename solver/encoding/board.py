"""Boards: every accepted form turned into a code, and why a board is refused.

**Encoding.** Cell ``i = row * cols + col`` (row-major from the top-left) holds
digit 0 (empty), 1 (X) or 2 (O); the board's code is ``sum(digit_i * 3**i)``.
X moves first.

Accepted forms (``game`` defaults to tic-tac-toe):

=============================  ==============================================================
form                           example
=============================  ==============================================================
``int`` code                   ``13222`` (= X.O/.X./..O: 1 + 2*3**2 + 3**4 + 2*3**8)
``str``, one char per cell     ``"X.O.X...O"``; empty is ``.``, ``-``, ``_`` or space
``str`` with row separators    ``"X.O/.X./..O"`` or ``"x.o\\n.x.\\n..o"``
``str``, cells spaced out      ``"X O X / O X O / . . ."`` or ``"x o x\\no x o\\n. . ."`` (below)
nested rows                    ``[["X", None, "O"], ...]``, ``[['x', '-', 'o'], ...]``
flat sequence                  ``["X", " ", "O", ...]`` (one entry per cell)
numpy array                    shape ``(rows, cols)`` or ``(cells,)``; 1 = X, -1 = O, 0 = empty
=============================  ==============================================================

Cells of nested and flat sequences may be ``'X'/'x'``, ``'O'/'o'``, an empty
marker (``None``, ``''``, ``' '``, ``'-'``, ``'.'``, ``'_'``) or the numbers 1, -1, 0.
Bools (``True``, ``np.True_``) are refused everywhere, as are numpy masked arrays
with a masked cell (a masked cell is neither X, O nor empty).

**Spaced cells.** A string that does not fit the game read one character per
cell is read again with its cells spaced out, the way boards are printed:
every row must then be cells that are not spaces, each followed by one space
except the last (``"X O X"``), and a ``/`` or line break may have spaces on
either side. In that form an empty cell is ``.``, ``-`` or ``_``, never a space.
``"X O/O X/X O"`` fits tic-tac-toe one character per cell (a space is an empty
cell), so it is read that way.

**Shapes.** A board's shape must be its game's: with ``game`` omitted only a
3x3 board is accepted (tic-tac-toe), and a 4x4 board is refused with the
suggestion to pass ``game="4x4k4"`` (``--game 4x4k4``): no other game is
chosen, and no table built, that the caller did not name.

>>> parse("X.O/.X./..O")
(Game(rows=3, cols=3, k=3), 13222)
>>> parse("X O X / . X . / . . O")[1] == parse("XOX/.X./..O")[1]
True
>>> render(DEFAULT_GAME, 13222)
'X.O/.X./..O'
>>> parse([["X", None], [None, "O"]], "2x2")
(Game(rows=2, cols=2, k=2), 55)

**Text from a front end.** The command line (``solve lookup BOARD``) and the HTTP API
(``?board=``, the strings of a batch) read a board written as text with one function,
:func:`parse_text`: ASCII digits are a code, anything else a board string.

>>> parse_text("13222"), parse_text("X.O/.X./..O")[1]
((Game(rows=3, cols=3, k=3), 13222), 13222)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import InvalidBoardError
from ..errors import quote as quote  # re-exported: messages quote input the same way everywhere
from ..rules.game import DEFAULT_GAME, MAX_CELLS, Game, parse_game
from ..words import count
from .coderules import FIELD_CELLS as FIELD_CELLS  # re-exported
from .coderules import code_fields as code_fields
from .coderules import code_rules
from .coderules import digit_fields as digit_fields

Board = int | str | Sequence[Any] | np.ndarray
"""Anything :func:`parse` accepts."""

SYMBOLS = ".XO"
"""The character of each digit in rendered boards."""

_EMPTY = (None, "", " ", "-", ".", "_")
_DIGIT: dict[Any, int] = {"X": 1, "x": 1, "O": 2, "o": 2, 1: 1, -1: 2, 0: 0}
_DIGIT.update(dict.fromkeys(_EMPTY, 0))
_TO_DIGITS = str.maketrans(
    {"X": "1", "x": "1", "O": "2", "o": "2", ".": "0", "-": "0", "_": "0", " ": "0"}
    # Characters int(..., 3) would otherwise accept: digits, a sign, surrounding whitespace.
    | dict.fromkeys("0123456789+\t\n\r\v\f", "!")
)
_EXPECTED_SYMBOLS = "X, O, or empty as '.', '-', '_' or space"
_EXPECTED_CELLS = "'X'/'x', 'O'/'o', 1/-1/0, or empty as None, '', ' ', '-', '.'"
_SPACED_ROW = re.compile(r"[^ ](?: [^ ])*")
_ROW_BREAK = re.compile(r" *(?:/|\r?\n) *")
_CODE_TEXT = re.compile(r"-?[0-9]+", re.ASCII)


def parse(board: Board, game: Game | str | None = None) -> tuple[Game, int]:
    """The game and code of a board in any accepted form.

    Only the form is checked here (size, symbols); whether a legal game can
    reach the board is the table's to say, and :func:`check_rules` explains why not.

    :param game: the game the board belongs to; default tic-tac-toe. A board of
        another shape is refused (module docstring), never read as another game.
    :raises InvalidBoardError: naming what was found and what was expected.
    """
    expected = DEFAULT_GAME if game is None else parse_game(game)
    if type(board) is str:
        return _parse_string(board, expected)
    if isinstance(board, (int, np.integer)) and not isinstance(board, (bool, np.bool_)):
        code = int(board)
        if not 0 <= code < expected.codes:
            raise InvalidBoardError(f"code {quote(code)} is out of range for {expected.name}: expected 0 to {expected.codes - 1}")
        return expected, code
    if isinstance(board, str):
        return _parse_string(str(board), expected)
    if isinstance(board, np.ndarray):  # a subclass such as np.matrix read as the plain array it holds
        return _parse_array(board if isinstance(board, np.ma.MaskedArray) else np.asarray(board), expected)
    if isinstance(board, (list, tuple)):
        return _parse_sequence(board, expected)
    found = "the board is None" if board is None else f"cannot read a board from {type(board).__name__} {quote(board)}"
    raise InvalidBoardError(f"{found}: expected an int code, a string, a list of rows, a flat list of cells or a numpy array")


def parse_text(text: str, game: Game | None = None) -> tuple[Game, int]:
    """The game and code of a board or a code written as text: the one reading of a board
    typed on the command line or sent over HTTP.

    ========================================  ==============================================
    text                                      read as
    ========================================  ==============================================
    ASCII digits, maybe a ``-``: ``"13222"``  a code (spaces around it are ignored)
    leading zeros: ``"000000001"``            refused: a code has none, a board has no digits
    other digits: ``"²"``, ``"\u0663"``        refused: a code is written in ASCII digits
    anything else: ``"X.O/.X./..O"``          a board string, as :func:`parse` reads it
    ========================================  ==============================================

    :param game: the game the board belongs to; default tic-tac-toe.
    :raises InvalidBoardError: for a code out of range (without converting a number of
        thousands of digits) or with leading zeros (``"000000001"`` is more likely the cells of a
        board typed as digits than code 1), digits that are not ASCII, or a board string
        :func:`parse` refuses.

    >>> parse_text("-1")
    Traceback (most recent call last):
    ...
    solver.errors.InvalidBoardError: code -1 is out of range for 3x3k3: expected 0 to 19682
    """
    expected = DEFAULT_GAME if game is None else game
    stripped = text.strip()
    if _CODE_TEXT.fullmatch(stripped):
        digits = stripped.lstrip("-")
        if len(digits) > 1 and digits[0] == "0":  # "000000001": a board typed as digits, or code 1? Neither.
            raise InvalidBoardError(
                f"{quote(stripped)} is not a code: a code has no leading zeros; and a board is written with {_EXPECTED_SYMBOLS}, not with digits"
            )
        if len(digits) > len(str(expected.codes - 1)):  # out of range: not converted (int() refuses over 4,300 digits)
            raise InvalidBoardError(f"code {quote(stripped)} is out of range for {expected.name}: expected 0 to {expected.codes - 1}")
        return parse(int(stripped), expected)
    if stripped.isdigit():  # digits, but not ASCII ones: int() would read some ("\u0663" is 3), others not ("²")
        other = next(char for char in stripped if not char.isascii())
        raise InvalidBoardError(
            f"{quote(stripped)} is neither a code nor a board: it has the digit {other!r} (U+{ord(other):04X}), and a code is written in the ASCII digits 0-9"
        )
    return parse(text, expected)


def shape_hint(rows: int, cols: int) -> str:
    """What to pass for a board of ``rows`` x ``cols``: the game argument and option to use."""
    if 1 <= rows and 1 <= cols and rows * cols <= MAX_CELLS:
        name = f"{rows}x{cols}k{min(rows, cols)}"
        return f"for a {rows}x{cols} game pass game={name!r} (on the command line --game {name})"
    return f"a table holds boards of 1 to {MAX_CELLS} cells; a larger board is a gravity game's, answered by search (game='connect4' for 6x7)"


def _batch_hint(shape: tuple[int, ...]) -> str:
    """What to pass for a batch of boards of another game (as :func:`shape_hint` for one board): boards
    ``(..., rows, cols)`` name their game; flat ones of n cells an example (``game='4x4k4'`` for 16)."""
    if len(shape) >= 3 or (len(shape) == 2 and 1 <= shape[-2] * shape[-1] <= MAX_CELLS):
        return f": {shape_hint(shape[-2], shape[-1])}"
    cells = shape[-1]
    side = int(cells**0.5)
    if side * side == cells and 1 <= cells <= MAX_CELLS:
        return f": for flat boards of {cells} cells pass their game, e.g. game='{side}x{side}k{side}' for a {side}x{side} board"
    return f": for flat boards of {cells} cells pass their game as game='ROWSxCOLSkK'" if 1 <= cells <= MAX_CELLS else ""


def _shape_game(rows: int, cols: int, game: Game, what: str) -> Game:
    if rows == game.rows and cols == game.cols:
        return game
    raise InvalidBoardError(f"{what} is {rows}x{cols}, expected {game.rows}x{game.cols} for {game.name}: {shape_hint(rows, cols)}")


def _flat_game(cells: int, game: Game, what: str, *, hint: str = "") -> Game:
    if cells != game.cells:
        raise InvalidBoardError(
            f"{what} has {count(cells, 'cell')}, expected {game.cells} for {game.name} (pass game= or --game for another board, or give the rows){hint}"
        )
    return game


def _parse_string(text: str, game: Game) -> tuple[Game, int]:
    if "/" not in text and "\n" not in text:
        if len(text) != game.cells:
            spaced = _unspace(text)
            if spaced is not None and len(spaced) == 1 and len(spaced[0]) == game.cells:
                return game, _to_code(game, spaced[0])
            _flat_game(len(text), game, f"board string {_quote_board(text)}", hint=_typed_break(text))
        return game, _to_code(game, text)
    if "\n" in text:
        text = text.strip("\n").replace("\r", "").replace("\n", "/")
    rows = text.split("/")
    if len(rows) == game.rows:  # the common case first: rows of one character per cell
        cols = game.cols
        for row in rows:
            if len(row) != cols:
                break
        else:
            return game, _to_code(game, "".join(rows))
    return _parse_rows(text, rows, game)


def _parse_rows(text: str, rows: list[str], game: Game) -> tuple[Game, int]:
    """A board with row separators that does not fit ``game`` one character per cell: spaced out, or refused."""
    if len(rows) == 1:  # one line ended by a line break
        return _parse_string(rows[0], game)
    spaced = _unspace(text)
    if spaced is not None and len({len(row) for row in spaced}) == 1:
        rows = spaced
    else:
        width = len(rows[0])
        if any(len(row) != width for row in rows):
            lengths = ", ".join(str(len(row)) for row in rows[:12]) + (", ..." if len(rows) > 12 else "")
            raise InvalidBoardError(f"board string {_quote_board(text)} has rows of different lengths ({lengths}){_typed_break(text)}")
    _shape_game(len(rows), len(rows[0]), game, f"board string {_quote_board(text)}")
    return game, _to_code(game, "".join(rows))


def _quote_board(text: str) -> str:
    """A board string quoted for a message as it was typed: ``'X.O\\n.X.'`` shows one backslash, not
    :func:`repr`'s two (real line breaks were made ``/`` already; other control characters stay escaped)."""
    return quote(text).replace("\\\\", "\\")


def _typed_break(text: str) -> str:
    """For a board with a typed ``\\n`` (a backslash and an n, as ``"X.O\\n.X."`` in a shell passes it): how to separate rows."""
    return "; a typed \\n is a backslash and an n, not a line break: separate the rows with '/'" if "\\n" in text else ""


def _unspace(text: str) -> list[str] | None:
    """The rows of a board written with its cells spaced out (module docstring), or None if it is not."""
    rows = _ROW_BREAK.split(text.strip(" \r\n"))
    if not all(_SPACED_ROW.fullmatch(row) for row in rows):
        return None
    return [row[::2] for row in rows]


def _to_code(game: Game, flat: str) -> int:
    """The code of one character per cell, or :class:`InvalidBoardError` for the first bad one."""
    if flat.isascii():
        try:
            return int(flat.translate(_TO_DIGITS)[::-1], 3)
        except ValueError:
            pass
    return _bad_symbol(game, flat)


def _bad_symbol(game: Game, flat: str) -> int:
    """Raise for the first character that is not a cell symbol."""
    for cell, char in enumerate(flat):
        if char not in "XxOo.-_ ":
            row, col = game.coords(cell)
            raise InvalidBoardError(f"unknown symbol {_quote_board(char)} at row {row}, col {col}: expected {_EXPECTED_SYMBOLS}")
    raise InvalidBoardError(f"cannot read board string {quote(flat)}")  # pragma: no cover - every failure has a bad symbol


def _parse_array(array: np.ndarray, game: Game) -> tuple[Game, int]:
    if array.ndim == 2:
        _shape_game(array.shape[0], array.shape[1], game, "array")
    elif array.ndim == 1:
        _flat_game(array.shape[0], game, "array")
    else:
        raise InvalidBoardError(f"array has shape {array.shape}, expected (rows, cols) or (cells,)")
    if isinstance(array, np.ma.MaskedArray):
        masked = np.flatnonzero(np.ma.getmaskarray(array))
        if masked.size:
            row, col = game.coords(int(masked[0]))
            raise InvalidBoardError(
                f"masked array with a masked cell at row {row}, col {col}: a masked cell is neither X, O nor empty; "
                "fill it (array.filled(0) makes it empty) or pass a plain array"
            )
        array = np.ma.getdata(array)
    if array.dtype.kind not in "iuf":
        return _parse_sequence(array.reshape(-1).tolist(), game)
    flat = array.reshape(-1)
    bad = np.flatnonzero((flat != 0) & (flat != 1) & (flat != -1))
    if bad.size:
        row, col = game.coords(int(bad[0]))
        raise InvalidBoardError(f"unknown value {flat[bad[0]].item()!r} at row {row}, col {col}: expected 1 (X), -1 (O) or 0 (empty)")
    digits = np.where(flat == -1, 2, flat).astype(np.int64)
    return game, int(encode_digits(digits, game.cells))


def _parse_sequence(board: Sequence[Any], game: Game) -> tuple[Game, int]:
    if len(board) > 1 and all(isinstance(row, str) and len(row) > 1 for row in board):
        return _parse_string("/".join(board), game)  # rows written as strings: ["X.O", ".X.", "..O"]
    if len(board) and all(isinstance(row, (list, tuple, np.ndarray)) for row in board):
        widths = {len(row) for row in board}
        if len(widths) != 1:
            lengths = ", ".join(str(len(row)) for row in board[:12]) + (", ..." if len(board) > 12 else "")
            raise InvalidBoardError(f"board has rows of different lengths ({lengths})")
        _shape_game(len(board), widths.pop(), game, "board")
        flat = [cell for row in board for cell in row]
    else:
        flat = list(board)
        _flat_game(len(flat), game, "board")
    digits = []
    for cell, symbol in enumerate(flat):
        try:
            digit = None if isinstance(symbol, (bool, np.bool_)) else _DIGIT[symbol]
        except (KeyError, TypeError):
            digit = None
        if digit is None:
            row, col = game.coords(cell)
            raise InvalidBoardError(f"unknown symbol {quote(symbol)} at row {row}, col {col}: expected {_EXPECTED_CELLS}")
        digits.append(digit)
    return game, sum(digit * 3**cell for cell, digit in enumerate(digits))


def encode_boards(boards: np.ndarray | Sequence[Any], game: Game | str | None = None) -> np.ndarray:
    """The codes of many boards at once (vectorised), for :meth:`Table.lookup_codes`.

    :param boards: numbers with 1 = X, -1 = O, 0 = empty, of shape
        ``(..., rows, cols)`` or ``(..., cells)``: a batch of boards in any leading shape. Row 0 is the **top**
        row (as a board string's first row, and as an RL batch of Connect Four boards, ``(N, 6, 7)`` ``int8``,
        usually holds it: under gravity the pieces rest on the last row); a flat board lists the cells row by row.
    :param game: default tic-tac-toe.
    :returns: the codes, of shape ``(...)``: ``int64`` for a game of up to :data:`INT64_CELLS` cells; past it
        (Connect Four: 3**42 does not fit 64 bits) exact Python ints in an array of ``dtype=object``, never a
        wrapped-around integer. Only the form is checked here; ``lookup_codes`` refuses codes that no game reaches.
    :raises InvalidBoardError: for a shape that fits no board of the game, or a value
        other than 1, -1 or 0 (naming the first such board and cell).

    >>> encode_boards(np.array([[[1, 0, -1], [0, 1, 0], [0, 0, -1]], [[0, 0, 0], [0, 1, 0], [0, 0, 0]]]))
    array([13222,    81])
    """
    game = parse_game(game)
    if isinstance(boards, np.ma.MaskedArray) and np.ma.is_masked(boards):
        first = [int(i) for i in np.argwhere(np.ma.getmaskarray(boards))[0]]
        raise InvalidBoardError(
            f"boards is a masked array with a masked entry at {first}: a masked cell is neither X, O nor empty; "
            "fill it (boards.filled(0) makes it empty) or pass a plain array"
        )
    try:
        array = np.asarray(boards)
    except (ValueError, TypeError, RecursionError) as error:
        raise InvalidBoardError(f"cannot make an array of boards from {quote(boards)}: {str(error)[:120]}") from None
    if array.dtype.kind not in "iuf" or array.ndim == 0:
        raise InvalidBoardError(f"boards must be an array of numbers 1 (X), -1 (O), 0 (empty), found {array.dtype} of shape {array.shape}")
    if array.shape[-2:] == (game.rows, game.cols) and array.ndim >= 2:
        flat = array.reshape(*array.shape[:-2], game.cells)
    elif array.shape[-1] == game.cells:
        flat = array
    else:
        fits = f"({game.rows}, {game.cols}) or ({game.cells},) for {game.name}"
        if array.ndim >= 2 and array.shape[-2:] == (game.cols, game.rows):
            hint = (
                f": are they its boards transposed? Each is {game.rows} rows of {game.cols} (row 0 the top one): "
                "swap the last two axes (boards.swapaxes(-1, -2))"
            )
        else:
            hint = _batch_hint(array.shape)
        raise InvalidBoardError(f"boards of shape {array.shape} do not end in {fits}{hint}")
    bad = (flat != 0) & (flat != 1) & (flat != -1)
    if bad.any():
        where = np.unravel_index(int(np.argmax(bad)), bad.shape)
        board, cell = [int(i) for i in where[:-1]], int(where[-1])
        row, col = game.coords(cell)
        raise InvalidBoardError(f"boards{board} has {flat[where].item()!r} at row {row}, col {col}: expected 1 (X), -1 (O) or 0 (empty)")
    digits = np.where(flat == -1, 2, flat).astype(np.int64)
    return encode_digits(digits, game.cells)


def encode_digits(digits: np.ndarray, cells: int) -> np.ndarray:
    """The codes of boards given as digits (0 empty, 1 X, 2 O; shape ``(..., cells)``, ``int64``): ``int64`` codes up to
    :data:`INT64_CELLS` cells, exact Python ints in an array of ``dtype=object`` past it (never wrapped around)."""
    if cells <= INT64_CELLS:
        return np.asarray(digits @ (3 ** np.arange(cells, dtype=np.int64)))
    codes = np.zeros(digits.shape[:-1], dtype=object)
    for start in range(0, cells, INT64_CELLS):  # each slice's code fits int64; joined as Python ints, exactly
        part = digits[..., start : start + INT64_CELLS]
        codes = codes + np.asarray(part @ (3 ** np.arange(part.shape[-1], dtype=np.int64))).astype(object) * 3**start  # Python ints
    return np.asarray(codes, dtype=object)  # a single board's too: a 0-d array, as int64's ``shape == ()``


INT64_CELLS = 39
"""The most cells whose every code fits ``int64`` (``3**39 - 1 < 2**63 <= 3**40 - 1``): :func:`encode_boards` gives
``int64`` codes up to it and exact Python ints past it."""


def draw(game: Game, code: int, *, marks: Mapping[int, str] | None = None, width: int = 1) -> list[str]:
    """The board as rows of text, cells separated by spaces: ``X``, ``O``, ``.`` for empty.

    Every picture of a board (``solve lookup``, ``play``, ``analyze``, ``grade``) is drawn here.

    :param marks: text to show instead of some cells, by cell (a move's outcome, ``!``, ``*``).
    :param width: each cell right-aligned to this width.

    >>> draw(DEFAULT_GAME, 13222)
    ['X . O', '. X .', '. . O']
    >>> draw(DEFAULT_GAME, 13222, marks={5: "*"})
    ['X . O', '. X *', '. . O']
    """
    shown = [SYMBOLS[d] for d in digits(game, code)]
    for cell, mark in (marks or {}).items():
        shown[cell] = mark
    cols = game.cols
    return [" ".join(s.rjust(width) for s in shown[r * cols : (r + 1) * cols]) for r in range(game.rows)]


def digits(game: Game, code: int) -> list[int]:
    """The digit of every cell (0 empty, 1 X, 2 O), in cell order."""
    out = []
    for _ in range(game.cells):
        code, digit = divmod(code, 3)
        out.append(digit)
    return out


def masks(game: Game, code: int) -> tuple[int, int]:
    """The X and O pieces of a code as bit masks."""
    x = o = 0
    for cell, digit in enumerate(digits(game, code)):
        if digit == 1:
            x |= 1 << cell
        elif digit == 2:
            o |= 1 << cell
    return x, o


def render(game: Game, code: int, *, sep: str = "/") -> str:
    """The board as text, one character per cell (``.XO``), rows joined by ``sep``."""
    chars = "".join(SYMBOLS[d] for d in digits(game, code))
    return sep.join(chars[r * game.cols : (r + 1) * game.cols] for r in range(game.rows))


def rule_violation(game: Game, code: int) -> str | None:
    """Why no legal game reaches this board, or None when one does: the game's rule says (:meth:`solver.rules.base.Rules.violation_of_word`).

    >>> rule_violation(DEFAULT_GAME, parse("XXX/OO./...")[1]) is None
    True
    """
    return code_rules(game).violation(code)


def check_rules(game: Game, code: int) -> None:
    """Raise :class:`InvalidBoardError` with the reason if no legal game reaches the board."""
    reason = rule_violation(game, code)
    if reason is not None:
        raise InvalidBoardError(f"{render(game, code)} is not a reachable position: {reason}")
