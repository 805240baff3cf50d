"""The positions a book answers whole: every move of a position with fewer pieces than the book's depth valued by
reading the book, with no compiled kernel loaded.

Each child of such a position is in the book, or its game ended with the move (a line: a win at once; the last cell:
a draw), so a move's score byte for the player making it is :func:`~solver.rules.score.parent_score` of the child's,
and the position's own is the best of them: what the engine's search finds (:meth:`~solver.search.engine.Engine.move_scores`)
without a search. A new process answering the opening (``solve lookup --game connect4 --moves 4453``) so pays neither
numba's import nor the load of its compiled kernels nor the engine's transposition table (docs/performance.md has the
figures).

The bitboard is the engine's (:mod:`solver.search.bitboard`), in Python ints: bit ``c * (rows + 1) + h`` is column
``c``'s cell at height ``h`` (0 the bottom), the bit above a column's cells is never set, ``pos`` is the side to move's
pieces and ``mask`` every piece; a key is ``pos + mask + bottom``, canonical when it is the smaller of its own and its
mirror image's (the columns in reverse order).

>>> from solver.rules.game import parse_game
>>> game = parse_game("connect4")
>>> bits = play(game, "4453")
>>> bits.pieces, code_of(game, bits) == code_of(game, bits_of_code(game, code_of(game, bits)))
(4, True)
>>> play(game, "8") is None, play(game, "1111111") is None  # not a column; a full column: read by the rules instead
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import NamedTuple

from ..encoding.board import masks
from ..rules.game import Game
from ..rules.score import WIN, parent_score
from .book import Book

MOVE_STRING_COLUMNS = 9
"""The most columns a move string writes (one digit a column, ``"1"`` to ``"9"``)."""

_SHIFTS = {(1, 0): 0, (0, 1): 1, (1, 1): 2, (1, -1): 3}
"""Which of :attr:`Columns.shifts` a direction of the grid (:attr:`solver.rules.grid.Grid.directions`: rows, then
columns, row 0 the top) takes: vertical, horizontal, down and right, down and left."""


class Bits(NamedTuple):
    """A position in play on the column bitboard (module docstring): the side to move's pieces, every piece, and how
    many there are (the ply)."""

    pos: int
    mask: int
    pieces: int


class Columns(NamedTuple):
    """A game's column bitboard in Python ints (module docstring)."""

    rows: int
    cols: int
    stride: int
    """Bits a column takes: its cells and the bit above them."""
    bottom: int
    """Each column's bottom cell."""
    fields: tuple[int, ...]
    """Each column's cells."""
    shifts: tuple[int, ...]
    """The shift from one cell of a line to the next, for each direction a line of the game runs in."""


@cache
def columns_of(game: Game) -> Columns:
    """The game's :class:`Columns` (made once a game)."""
    rows, cols, stride = game.rows, game.cols, game.rows + 1
    by_direction = (1, stride, rows, rows + 2)
    shifts = tuple(by_direction[_SHIFTS[direction]] for direction in game.parts.grid.directions)
    cells = (1 << rows) - 1
    return Columns(rows, cols, stride, sum(1 << c * stride for c in range(cols)), tuple(cells << c * stride for c in range(cols)), shifts)


def has_line(game: Game, bits: int) -> bool:
    """Whether ``bits`` (one player's pieces) hold a line of ``k``."""
    shifts, k = columns_of(game).shifts, game.k
    for shift in shifts:
        run = bits
        for step in range(1, k):
            run &= bits >> step * shift
        if run:
            return True
    return False


def play(game: Game, moves: str) -> Bits | None:
    """The position a move string reaches (columns ``"1"`` to ``"9"``), when it is played plainly: None for anything
    else (a character that is not a column, a full column, a line on the board, a full board), which the rules read and
    name (:meth:`solver.tables.base.Table.at_moves`)."""
    columns = columns_of(game)
    if columns.cols > MOVE_STRING_COLUMNS:
        return None
    pos = mask = 0
    for character in moves:
        column = ord(character) - 49
        if not 0 <= column < columns.cols:
            return None
        move = (mask + (1 << column * columns.stride)) & columns.fields[column]
        if not move:
            return None
        pos, mask = pos ^ mask, mask | move
    if has_line(game, pos) or has_line(game, pos ^ mask) or len(moves) == game.cells:
        return None
    return Bits(pos, mask, len(moves))


def code_of(game: Game, bits: Bits) -> int:
    """The base-3 code of a position (:mod:`solver.encoding.board`: X 1, O 2, cell ``row * cols + col``, row 0 the top)."""
    columns = columns_of(game)
    mover, other = (1, 2) if bits.pieces % 2 == 0 else (2, 1)
    code = 0
    for column in range(columns.cols):
        for height in range(columns.rows):
            bit = 1 << column * columns.stride + height
            if bits.mask & bit:
                cell = (columns.rows - 1 - height) * columns.cols + column
                code += (mover if bits.pos & bit else other) * 3**cell
    return code


def bits_of_code(game: Game, code: int) -> Bits:
    """The bitboards of a board the rules have checked (reachable, in play)."""
    columns = columns_of(game)
    x, o = masks(game, code)
    mover, pieces, pos, mask = (x if x.bit_count() == o.bit_count() else o), x.bit_count() + o.bit_count(), 0, 0
    for cell in range(game.cells):
        if (x | o) >> cell & 1:
            row, column = divmod(cell, columns.cols)
            bit = 1 << column * columns.stride + columns.rows - 1 - row
            mask |= bit
            pos |= bit if mover >> cell & 1 else 0
    return Bits(pos, mask, pieces)


def canonical_key(game: Game, pos: int, mask: int) -> int:
    """The canonical key of a position: ``pos + mask + bottom`` or its mirror image's, the smaller."""
    columns = columns_of(game)
    key = pos + mask + columns.bottom
    field = (1 << columns.stride) - 1
    mirrored = 0
    for column in range(columns.cols):
        mirrored |= (key >> column * columns.stride & field) << (columns.cols - 1 - column) * columns.stride
    return min(key, mirrored)


def drops(game: Game, mask: int) -> Iterator[tuple[int, int]]:
    """Each legal move of a position whose pieces are ``mask``, column by column: the cell its piece lands on
    (``row * cols + col``, row 0 the top) and its bit."""
    columns = columns_of(game)
    for column in range(columns.cols):
        move = (mask + (1 << column * columns.stride)) & columns.fields[column]
        if move:
            yield (columns.rows - (move >> column * columns.stride).bit_length()) * columns.cols + column, move


def answer(game: Game, book: Book, pos: int, mask: int, pieces: int) -> tuple[int, tuple[tuple[int, int], ...]] | None:
    """What :meth:`~solver.search.engine.Engine.move_scores` answers, read from the book: the position's score byte for
    the side to move and each legal move's ``(cell, score byte)`` for the player making it, by cell (the cell its piece
    lands on), of the position ``pos``, ``mask`` with ``pieces`` pieces (:class:`Bits`); None when the book does not
    answer every move (the position has as many pieces as its depth or more, or the book lacks a child)."""
    if pieces >= book.depth:
        return None
    scored = []
    for cell, move in drops(game, mask):
        if has_line(game, pos | move):
            byte = WIN - 1
        elif pieces + 1 == game.cells:
            byte = 0
        else:
            child = book.probe(canonical_key(game, pos ^ mask, mask | move))
            if child is None:
                return None
            byte = parent_score(child)
        scored.append((cell, byte))
    scored.sort()
    return max(byte for _, byte in scored), tuple(scored)
