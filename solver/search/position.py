"""Positions for the engine: a board's code or a move string turned into bitboards, checked, and keyed.

A board comes in as anything :func:`solver.encoding.board.parse` reads (its base-3 code:
cell ``row * cols + col`` from the top-left, 1 X, 2 O), or as the move string Connect Four
players write: the columns played, 1 to ``cols``, first move first (``"4453"``). Either becomes
a :class:`Position`: the side to move's pieces and every piece as column bitboards
(:mod:`solver.search.bitboard`), the pieces on the board, and the base-3 code.

A board the engine is given must be a position of a game that goes on; otherwise
:class:`~solver.errors.InvalidBoardError` says what is wrong and where: piece counts that no
alternating game gives, a piece above an empty cell, a line already made or a full board (the
game is over: nothing to search), or columns that no order of moves stacks.

>>> game = engine_game("connect4")
>>> p = from_moves(game, "4453")
>>> p.pieces, render(game, p.code).split("/")[-2:]
(4, ['...O...', '..OXX..'])
>>> from_moves(game, "4453").code == position_of(game, p.code).code
True
>>> key_of_code(game, p.code) == key_of_code(game, from_moves(game, "4435").code)  # its mirror image: one key
True
>>> code_of_key(game, key_of_code(game, p.code)) in (p.code, from_moves(game, "4435").code)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

import numpy as np

from ..encoding.board import Board, masks, parse, render
from ..encoding.moves import MOVE_STRING_MAX_COLUMNS, read_move_string
from ..errors import InvalidBoardError, quote
from ..rules.game import Game
from ..rules.gravity import stacking_order
from .bitboard import G_BOTTOM, NOT_PLAIN, canonical, geometry, has_line, mirror_key, play_string
from .games import engine_game as engine_game  # re-exported: decided without loading numba (solver.search.games)

Moves = str | Sequence[int]
"""A move string: ``"4453"`` (columns 1 to ``cols``, for boards of at most 9 columns) or a sequence of those numbers."""


class Position(NamedTuple):
    """A position of a game that goes on, as the engine reads it (a named tuple: one is made a look-up, where a frozen
    dataclass's fields cost half a microsecond more).

    :param pos: the side to move's pieces (column bitboard, :mod:`solver.search.bitboard`).
    :param mask: every piece.
    :param pieces: the pieces on the board (the ply: 0 is the empty board).
    :param code: the board's base-3 code (:mod:`solver.encoding.board`).
    """

    pos: int
    mask: int
    pieces: int
    code: int


@cache
def geometry_of(game: Game) -> np.ndarray:
    """The kernels' geometry array of a game (:func:`solver.search.bitboard.geometry`), made once; not to be written.
    The lines' directions are the grid's (:attr:`solver.rules.grid.Grid.directions`): constants of the game that the
    kernels read from the array, as they read its size."""
    return geometry(game.rows, game.cols, game.k, game.parts.grid.directions)


def bit_of(game: Game, cell: int) -> int:
    """The bitboard bit of a cell (project numbering: row 0 is the top)."""
    row, col = game.coords(cell)
    return col * (game.rows + 1) + (game.rows - 1 - row)


def cell_of(game: Game, bit: int) -> int:
    """The cell (project numbering) of a bitboard bit: the inverse of :func:`bit_of`."""
    col, height = divmod(bit, game.rows + 1)
    return game.cell(game.rows - 1 - height, col)


def _to_bits(game: Game, cells: int) -> int:
    return sum(1 << bit_of(game, cell) for cell in range(game.cells) if cells >> cell & 1)


def _cells_of(game: Game, bits: int) -> list[tuple[int, int]]:
    return [game.coords(cell_of(game, b)) for b in range(bits.bit_length()) if bits >> b & 1]


def position_of(game: Game, board: Board) -> Position:
    """The position of a board (anything :func:`solver.encoding.board.parse` reads), checked (module docstring).

    :raises InvalidBoardError: saying what is wrong and where.
    """
    code = parse(board, game)[1]
    x, o = masks(game, code)
    nx, no = x.bit_count(), o.bit_count()
    shown = render(game, code)
    if nx - no not in (0, 1):
        raise InvalidBoardError(f"{shown} has {nx} X and {no} O: X moves first, so X has as many pieces as O or one more")
    xb, ob = _to_bits(game, x), _to_bits(game, o)
    _check_stacked(game, shown, xb | ob)
    _check_goes_on(game, code, xb, ob)
    if stacking_order(game.rows, game.cols, x, o) is None:
        raise InvalidBoardError(f"{shown} is not a reachable position: no order of moves stacks these columns, X first and in turn")
    mover = xb if nx == no else ob
    return Position(mover, xb | ob, nx + no, code)


def _check_stacked(game: Game, shown: str, mask: int) -> None:
    geo = geometry_of(game)
    floating = mask & ~((mask << 1) | int(geo[G_BOTTOM])) & ((1 << 64) - 1)
    if floating:
        (row, col), *_ = _cells_of(game, floating)
        raise InvalidBoardError(
            f"{shown}: the piece at (row {row}, col {col}) floats: the cell below it is empty (a piece falls to the lowest empty cell of its column)"
        )


def _check_goes_on(game: Game, code: int, xb: int, ob: int) -> None:
    geo = geometry_of(game)
    for who, bits in (("X", xb), ("O", ob)):
        if has_line(np.uint64(bits), geo):
            raise InvalidBoardError(f"{render(game, code)}: the game is over, {who} has a line of {game.k}: nothing is left to search")
    if (xb | ob).bit_count() == game.cells:
        raise InvalidBoardError(f"{render(game, code)}: the board is full, the game is over (a draw): nothing is left to search")


_POWERS_OF_THREE = tuple(3**exponent for exponent in range(33))
"""``3 ** n`` by ``n`` (a board word holds at most 64 cells): a code's high part weighs ``3 ** (cells // 2)``
(:func:`~solver.search.bitboard.code_parts`)."""


def from_moves(game: Game, moves: Moves, geo: np.ndarray | None = None) -> Position:
    """The position after a move string: ``"4453"`` (columns 1 to ``cols``, first move first) or ``[4, 4, 5, 3]``.

    The moves are played on the bitboards, so the position is reachable by construction: a string of columns that
    plays plainly by one compiled call (:func:`~solver.search.bitboard.play_string`), anything else move by move,
    which names what is wrong.

    :param geo: the game's geometry when the caller holds it (:func:`geometry_of`, an engine's).
    :raises InvalidBoardError: for a column that is not a number from 1 to ``cols``, a full column, a move
        played after the game ended, or a string whose last move ends the game; each names the move (its number
        in the string) and the column.
    """
    if type(moves) is str and moves.isascii():  # the plain case, played by one compiled call
        mine, every, count, low, high = play_string(moves.encode(), geometry_of(game) if geo is None else geo)
        if count != NOT_PLAIN:
            return Position(int(mine), int(every), int(count), int(low) + int(high) * _POWERS_OF_THREE[game.cells // 2])
    columns = _columns(game, moves)
    pos, mask = _play(game, moves, columns)
    geo = geometry_of(game)
    if len(columns) > 1 and (has_line(np.uint64(pos), geo) or has_line(np.uint64(mask ^ pos), geo)):
        _play(game, moves, columns, check=True)  # names a move played after the game ended
    where = Position(pos, mask, len(columns), _code(game, pos, mask, len(columns)))
    x, o = (pos, mask ^ pos) if len(columns) % 2 == 0 else (mask ^ pos, pos)
    _check_goes_on(game, where.code, x, o)
    return where


def _play(game: Game, moves: Moves, columns: list[int], *, check: bool = False) -> tuple[int, int]:
    """``(pos, mask)`` after the columns; ``check``: raise at a move that follows a line (a line stays on the board)."""
    bottoms, fields = _column_bits(game)
    pos = mask = 0
    if not check:  # the usual reading: a move a few operations
        for col in columns:
            move = (mask + bottoms[col]) & fields[col]
            if not move:
                return _play(game, moves, columns, check=True)  # names the full column
            pos, mask = pos ^ mask, mask | move
        return pos, mask
    geo = geometry_of(game)
    for number, col in enumerate(columns, start=1):
        move = (mask + bottoms[col]) & fields[col]
        if not move:
            raise InvalidBoardError(f"move {number} of {quote(moves)} is in column {col + 1}, which is full")
        pos, mask = pos ^ mask, mask | move
        if number < len(columns) and has_line(np.uint64(mask ^ pos), geo):
            raise InvalidBoardError(f"move {number} of {quote(moves)} completes a line: the game is over, and {len(columns) - number} more moves follow it")
    return pos, mask


@cache
def _column_bits(game: Game) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Each column's bottom bit and its field's bits (its ``rows`` cells) on the bitboards."""
    stride = game.rows + 1
    return tuple(1 << col * stride for col in range(game.cols)), tuple(((1 << game.rows) - 1) << col * stride for col in range(game.cols))


def _code(game: Game, pos: int, mask: int, pieces: int) -> int:
    """The base-3 code of bitboards (``pos`` the side to move's pieces): each column's share read from
    :func:`_column_codes` by its two fields (a column's field of ``mask`` is its height's bits, of ``pos`` the
    mover's pieces in it)."""
    stride, field = game.rows + 1, (1 << game.rows) - 1
    if game.rows > SHARED_ROWS:
        mover, other = (1, 2) if pieces % 2 == 0 else (2, 1)
        return sum((mover if pos >> bit & 1 else other) * power for bit, power in _powers(game) if mask >> bit & 1)
    shares = _column_codes(game)[pieces % 2]
    return sum(share[mask >> col * stride & field][pos >> col * stride & field] for col, share in enumerate(shares))


SHARED_ROWS = 8
"""The tallest board whose columns' code shares are tabled (:func:`_column_codes`: ``2 ** (rows + 1)`` entries a
column); a taller one's code is summed cell by cell."""


@cache
def _powers(game: Game) -> tuple[tuple[int, int], ...]:
    """Each bitboard bit with ``3 ** cell`` of its cell (a board taller than :data:`SHARED_ROWS`)."""
    return tuple((bit_of(game, cell), 3**cell) for cell in range(game.cells))


@cache
def _column_codes(game: Game) -> tuple[tuple[dict[int, dict[int, int]], ...], ...]:
    """By the parity of the pieces (0: X to move), then by column, then by the column's ``mask`` field (its lowest
    bits set, one a piece), the code's share of each ``pos`` field in it: ``3 ** cell`` times 1 for an X, 2 for an O."""
    stride = game.rows + 1
    tables = []
    for parity in (0, 1):
        mover, other = (1, 2) if parity == 0 else (2, 1)
        columns = []
        for col in range(game.cols):
            by_mask: dict[int, dict[int, int]] = {}
            for height in range(game.rows + 1):
                bits = [(1 << low, 3 ** cell_of(game, col * stride + low)) for low in range(height)]
                by_mask[(1 << height) - 1] = {mine: sum((mover if mine & bit else other) * power for bit, power in bits) for mine in range(1 << height)}
            columns.append(by_mask)
        tables.append(tuple(columns))
    return tuple(tables)


def _columns(game: Game, moves: Moves) -> list[int]:
    """The 0-based columns of a move string, read as :func:`solver.lookup`, the command line and HTTP read one
    (:func:`~solver.encoding.moves.read_move_string`: ASCII digits 1 to ``cols``), or of a sequence of column numbers."""
    if isinstance(moves, str):
        if game.cols > MOVE_STRING_MAX_COLUMNS:
            raise InvalidBoardError(f"{game.name} has {game.cols} columns: write its moves as a list of numbers, not a string")
        return read_move_string(moves, game)
    if isinstance(moves, (bytes, bytearray, memoryview)) or not isinstance(moves, Sequence):
        found = f"{type(moves).__name__} {quote(moves)}"
        raise InvalidBoardError(f"moves must be a move string such as '4453' (columns 1 to {game.cols}) or a list of column numbers, not {found}")
    items = list(moves)
    columns = []
    for number, item in enumerate(items, start=1):
        if isinstance(item, bool) or not isinstance(item, (int, np.integer)) or not 1 <= int(item) <= game.cols:
            raise InvalidBoardError(f"move {number} of {quote(moves)} is {quote(item)}: a move is a column from 1 to {game.cols}")
        columns.append(int(item) - 1)
    return columns


def key_of(game: Game, position: Position) -> int:
    """The canonical key of a position (:mod:`solver.search.bitboard`): ``pos + mask + bottom``, or its mirror's if smaller."""
    geo = geometry_of(game)
    return int(canonical(np.uint64(position.pos + position.mask + int(geo[G_BOTTOM])), geo))


def key_of_code(game: Game, board: Board) -> int:
    """The canonical key of a board (checked as :func:`position_of` checks it)."""
    return key_of(game, position_of(game, board))


def code_of_key(game: Game, key: int) -> int:
    """The base-3 code of the position a key names (the key's own orientation, not its mirror's)."""
    stride = game.rows + 1
    pieces = sum(_height(key >> (c * stride) & ((1 << stride) - 1)) for c in range(game.cols))
    code = 0
    for c in range(game.cols):
        field = key >> (c * stride) & ((1 << stride) - 1)
        for h in range(_height(field)):
            mover = field >> h & 1
            digit = (1 if mover else 2) if pieces % 2 == 0 else (2 if mover else 1)
            code += digit * 3 ** game.cell(game.rows - 1 - h, c)
    return code


def position_of_key(game: Game, key: int) -> Position:
    """The position a key names (a key from :func:`solver.search.plies.positions`: trusted, not checked again).

    >>> game = engine_game("connect4")
    >>> position_of_key(game, key_of(game, from_moves(game, "44"))) == from_moves(game, "44")
    True
    """
    stride = game.rows + 1
    mask = 0
    for c in range(game.cols):
        mask |= ((1 << _height(key >> (c * stride) & ((1 << stride) - 1))) - 1) << (c * stride)
    pos = key - mask - int(geometry_of(game)[G_BOTTOM])
    pieces = mask.bit_count()
    return Position(pos, mask, pieces, _code(game, pos, mask, pieces))


def _height(field: int) -> int:
    return field.bit_length() - 1


def mirrored(game: Game, key: int) -> int:
    """The key of the mirror image of the position a key names."""
    return int(mirror_key(np.uint64(key), geometry_of(game)))
