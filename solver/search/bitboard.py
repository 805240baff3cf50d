"""The engine's board: a gravity position as two 64-bit column bitboards, its moves and its lines.

Pons' layout (``Position.hpp``): column ``c`` of a board with ``H`` rows owns the bits
``c * (H + 1)`` to ``c * (H + 1) + H``; bit ``c * (H + 1) + h`` is the cell at height ``h``
(0 = the bottom row, the project's row ``H - 1 - h``), and the top bit of each column is a
sentinel that is never set, so no line runs from one column into the next. A board fits when
``cols * (rows + 1) <= 64`` (Connect Four: 7 x 7 = 49 bits).

A position is ``(pos, mask)``: ``pos`` the pieces of the **side to move**, ``mask`` every piece.
Playing a move is ``pos ^= mask; mask |= move``. Its **key** is ``pos + mask + bottom``: in each
column's field one bit above the top piece marks the height, and below it the side to move's
pieces are 1s, so a key names one position (side to move included: the parity of the pieces).
The **canonical key** is the smaller of the key and its mirror's (the columns reversed): a position
and its mirror image share it (:func:`canonical`). These keys are what a book stores.

The geometry of a game is one small ``uint64`` array (:func:`geometry`), read by every kernel:

>>> geo = geometry(6, 7, 4)
>>> int(geo[G_COLS]), int(geo[G_ROWS]), int(geo[G_K]), hex(int(geo[G_BOTTOM]))
(7, 6, 4, '0x40810204081')
>>> pos, mask = np.uint64(0), np.uint64(0)
>>> int(possible(mask, geo)) == int(geo[G_BOTTOM])
True
"""

from __future__ import annotations

import numpy as np

from .games import BITS as BITS  # re-exported: the bitboard's size
from .games import fits as fits  # re-exported
from .kernel import kernel

G_COLS, G_ROWS, G_K, G_BOTTOM, G_BOARD, G_CELLS, G_DIRS, G_EVEN = 0, 1, 2, 3, 4, 5, 6, 7
"""Slots of a geometry array: columns, rows, line length, the bottom cells, every cell, cells, direction flags, and
the even cells (the 2nd, 4th... row from the bottom: the cells the second player takes by *claimeven*), 0 when the
number of rows is odd (claimeven needs every column to hold an even number of cells)."""
G_ORDER = 8
"""First slot of the columns in search order (centre first), ``cols`` of them."""
G_COLMASK = G_ORDER + 32
"""First slot of each column's cells as a mask, ``cols`` of them."""
G_BELOW = G_COLMASK + 32
"""First slot of the cells strictly below each bit's cell in its column (:func:`cells_below`), ``BITS`` of them."""
G_MIRROR = G_BELOW + 64
"""First slot of each bit's mirror image (the same height in the mirrored column: :func:`mirror_cell`), ``BITS`` of them."""
GEOMETRY_SLOTS = G_MIRROR + 64


ONE = np.uint64(1)
ZERO = np.uint64(0)
NO_BOUND = 1 << 20
"""What a bound returns when it proves nothing (larger than any score)."""


def centre_first(cols: int) -> list[int]:
    """The columns from the centre outwards, the left one first on a tie: ``[3, 2, 4, 1, 5, 0, 6]`` for 7."""
    return sorted(range(cols), key=lambda c: (abs(2 * c - (cols - 1)), c))


DIRECTION_FLAGS: dict[tuple[int, int], int] = {(1, 0): 0, (0, 1): 1, (1, 1): 2, (1, -1): 3}
"""The direction flag (a bit of ``geo[G_DIRS]``) of each direction a line may run in, ``(rows, cols)`` from one cell
to the next with row 0 the top (:attr:`solver.rules.grid.Grid.directions`): bit 0 vertical (bitboard shift 1),
1 horizontal (``rows + 1``), 2 the diagonal down and right (``rows``), 3 down and left (``rows + 2``)."""


def direction_flags(rows: int, cols: int, k: int, directions: tuple[tuple[int, int], ...]) -> int:
    """The direction flags of a grid's ``directions``, each set only where a line of ``k`` fits, so that no shift
    reaches past 64 bits.

    >>> direction_flags(6, 7, 4, ((0, 1), (1, 0), (1, 1), (1, -1))), direction_flags(6, 7, 4, ((0, 1), (1, 0)))
    (15, 3)

    :raises ValueError: for a direction the bitboard has no shift for.
    """
    fit = {0: k <= rows, 1: k <= cols, 2: k <= min(rows, cols), 3: k <= min(rows, cols)}
    flags = 0
    for direction in directions:
        if direction not in DIRECTION_FLAGS:
            raise ValueError(f"the bitboard has no shift for lines in direction {direction}: it knows {sorted(DIRECTION_FLAGS)}")
        flags |= fit[DIRECTION_FLAGS[direction]] << DIRECTION_FLAGS[direction]
    return flags


def geometry(rows: int, cols: int, k: int, directions: tuple[tuple[int, int], ...] = tuple(DIRECTION_FLAGS)) -> np.ndarray:
    """The constants of a ``rows`` x ``cols`` board with lines of ``k`` as the kernels read them (module docstring).

    :param directions: the directions a line runs in, the grid's (:attr:`solver.rules.grid.Grid.directions`),
        as :func:`direction_flags` (the search reads them from ``geo[G_DIRS]``, a constant of the game).
    """
    assert fits(rows, cols), "the caller checks fits()"
    geo = np.zeros(GEOMETRY_SLOTS, dtype=np.uint64)
    stride = rows + 1
    column = (1 << rows) - 1
    geo[G_COLS], geo[G_ROWS], geo[G_K], geo[G_CELLS] = cols, rows, k, rows * cols
    geo[G_BOTTOM] = sum(1 << (c * stride) for c in range(cols))
    geo[G_BOARD] = sum(column << (c * stride) for c in range(cols))
    geo[G_DIRS] = direction_flags(rows, cols, k, directions)
    if rows % 2 == 0:
        geo[G_EVEN] = sum(1 << (c * stride + h) for c in range(cols) for h in range(1, rows, 2))
    for slot, c in enumerate(centre_first(cols)):
        geo[G_ORDER + slot] = c
    for c in range(cols):
        geo[G_COLMASK + c] = column << (c * stride)
        for h in range(rows):
            geo[G_BELOW + c * stride + h] = ((1 << h) - 1) << (c * stride)
            geo[G_MIRROR + c * stride + h] = 1 << ((cols - 1 - c) * stride + h)
    return geo


# -- kernels ---------------------------------------------------------------------------------


@kernel
def popcount(x: np.uint64) -> np.uint64:
    """The number of set bits (SWAR)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@kernel
def possible(mask: np.uint64, geo: np.ndarray) -> np.uint64:
    """The cell each column's next piece lands on (a bit a column that is not full)."""
    return np.uint64((mask + geo[G_BOTTOM]) & geo[G_BOARD])


@kernel
def _shifts(geo: np.ndarray) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    rows = geo[G_ROWS]
    return np.uint64(1), rows + np.uint64(1), rows, rows + np.uint64(2)


@kernel
def _open_ends4(p: np.uint64, s: np.uint64) -> np.uint64:
    """Cells that complete a line of 4 along shift ``s`` (Pons' ``compute_winning_position``, one direction)."""
    s2, s3 = s + s, s + s + s
    pair = (p << s) & (p << s2)
    r = pair & (p << s3)
    r |= pair & (p >> s)
    pair = (p >> s) & (p >> s2)
    r |= pair & (p << s)
    r |= pair & (p >> s3)
    return r


@kernel
def _open_ends(p: np.uint64, s: np.uint64, k: np.uint64) -> np.uint64:
    """Cells that complete a line of ``k`` along shift ``s``: the cell is the ``j``-th of the line, the others are ``p``'s."""
    r = ZERO
    for j in range(k):
        acc = ~ZERO
        for i in range(k):
            if i > j:
                acc &= p >> (np.uint64(i - j) * s)
            elif i < j:
                acc &= p << (np.uint64(j - i) * s)
        r |= acc
    return r


@kernel
def winning_cells(p: np.uint64, mask: np.uint64, geo: np.ndarray) -> np.uint64:
    """The empty cells that would complete a line of ``p``'s pieces (playable now or not)."""
    k, dirs = geo[G_K], geo[G_DIRS]
    shifts = _shifts(geo)
    r = ZERO
    for d in range(4):
        if dirs >> np.uint64(d) & ONE:
            r |= _open_ends4(p, shifts[d]) if k == np.uint64(4) else _open_ends(p, shifts[d], k)
    return np.uint64(r & (geo[G_BOARD] ^ mask))


@kernel
def _line_starts(p: np.uint64, s: np.uint64, k: np.uint64) -> np.uint64:
    """The cells of ``p`` that start a line of ``k`` of ``p``'s pieces along shift ``s`` (each line's cell of the lowest bit)."""
    run = p
    for i in range(1, k):
        run &= p >> (np.uint64(i) * s)
    return run


@kernel
def has_line(p: np.uint64, geo: np.ndarray) -> bool:
    """Whether ``p``'s pieces hold a line of ``k``."""
    k, dirs = geo[G_K], geo[G_DIRS]
    shifts = _shifts(geo)
    for d in range(4):
        if dirs >> np.uint64(d) & ONE and _line_starts(p, shifts[d], k):
            return True
    return False


@kernel
def line_cells(p: np.uint64, geo: np.ndarray) -> np.uint64:
    """The cells of every line of ``k`` that ``p``'s cells hold (0 when they hold none)."""
    k, dirs = geo[G_K], geo[G_DIRS]
    shifts = _shifts(geo)
    cells = ZERO
    for d in range(4):
        if dirs >> np.uint64(d) & ONE:
            run = _line_starts(p, shifts[d], k)
            for i in range(k):
                cells |= run << (np.uint64(i) * shifts[d])
    return cells


@kernel
def cells_above(cells: np.uint64, geo: np.ndarray) -> np.uint64:
    """The cells strictly above the lowest of ``cells`` in each column (the sentinel bit stops each column's climb)."""
    board = geo[G_BOARD]
    above = (cells << ONE) & board
    for _ in range(np.int64(geo[G_ROWS]) - 2):
        above |= (above << ONE) & board
    return np.uint64(above)


@kernel
def key_of(pos: np.uint64, mask: np.uint64, geo: np.ndarray) -> np.uint64:
    """The position's key: ``pos + mask + bottom`` (module docstring)."""
    return np.uint64(pos + mask + geo[G_BOTTOM])


@kernel
def mirror_key(key: np.uint64, geo: np.ndarray) -> np.uint64:
    """The key of the mirror image: the columns' fields in reverse order."""
    cols, stride = geo[G_COLS], geo[G_ROWS] + ONE
    field = (ONE << stride) - ONE
    out = ZERO
    for c in range(cols):
        out |= ((key >> (np.uint64(c) * stride)) & field) << ((cols - ONE - np.uint64(c)) * stride)
    return out


@kernel
def mirror_cell(cell: np.uint64, geo: np.ndarray) -> np.uint64:
    """The mirror image of one cell (a bit): the same height in the mirrored column."""
    return np.uint64(geo[G_MIRROR + np.int64(popcount(cell - ONE))])


@kernel
def canonical_of(pos: np.uint64, mask: np.uint64, mirrored_pos: np.uint64, mirrored_mask: np.uint64, geo: np.ndarray) -> np.uint64:
    """The canonical key of a position given with its mirror image (:func:`canonical` without the columns' loop)."""
    key = key_of(pos, mask, geo)
    mirrored = key_of(mirrored_pos, mirrored_mask, geo)
    return mirrored if mirrored < key else key


@kernel
def canonical(key: np.uint64, geo: np.ndarray) -> np.uint64:
    """The canonical key: the smaller of the key and its mirror's."""
    m = mirror_key(key, geo)
    return m if m < key else key


@kernel
def can_win_next(pos: np.uint64, mask: np.uint64, geo: np.ndarray) -> bool:
    """Whether the side to move completes a line with its next piece."""
    return bool((winning_cells(pos, mask, geo) & possible(mask, geo)) != ZERO)


@kernel
def non_losing_moves(pos: np.uint64, mask: np.uint64, geo: np.ndarray) -> np.uint64:
    """The moves after which the opponent cannot win at once (Pons' ``possibleNonLosingMoves``); the side to move
    must not have a winning move itself. No move: the opponent wins on the next ply whatever is played."""
    return moves_against(mask, winning_cells(pos ^ mask, mask, geo), geo)


@kernel
def moves_against(mask: np.uint64, threats: np.uint64, geo: np.ndarray) -> np.uint64:
    """:func:`non_losing_moves` given the opponent's ``threats`` (:func:`winning_cells` of its pieces)."""
    moves = possible(mask, geo)
    forced = moves & threats
    if forced:
        if forced & (forced - ONE):
            return ZERO
        moves = forced
    return moves & ~(threats >> ONE)


@kernel
def cells_below(cell: np.uint64, geo: np.ndarray) -> np.uint64:
    """The cells strictly below a cell (one bit) in its column."""
    return np.uint64(geo[G_BELOW + np.int64(popcount(cell - ONE))])


@kernel
def _each_line_comes_after_one_of_theirs(mine: np.uint64, theirs: np.uint64, mask: np.uint64, geo: np.ndarray) -> bool:
    """Whether every line of ``mine`` has a line of ``theirs`` whose empty cells all lie below its cells: the opponent
    then completes that line before the side to move can complete its own (a cell is played only on the ones below)."""
    k, dirs = geo[G_K], geo[G_DIRS]
    shifts = _shifts(geo)
    for d in range(4):
        if dirs >> np.uint64(d) & ONE:
            starts = _line_starts(mine, shifts[d], k)
            while starts:
                start = starts & (~starts + ONE)
                starts ^= start
                below = ZERO
                for i in range(k):
                    below |= cells_below(start << (np.uint64(i) * shifts[d]), geo)
                if not has_line(theirs & (mask | below), geo):
                    return False
    return True


@kernel
def claimeven_bound(pos: np.uint64, mask: np.uint64, geo: np.ndarray) -> np.int64:
    """An upper bound on the score of the side to move when the opponent plays *claimeven* (Allis), or :data:`NO_BOUND`.

    With an even number of pieces on a board of an even number of rows, the opponent can answer every move in an
    odd cell with the even cell above it (and a move in an even cell with the even cell on top of another column
    of odd height: there is one, by parity), so it takes at least every even cell not playable now. If the side to
    move could then make no line with all the other cells, or only lines each of which comes after one of the
    opponent's (every empty cell of that line of the opponent's lies below a cell of its own, so it is played first:
    :func:`_each_line_comes_after_one_of_theirs`), it can at best draw (0) or, if those even cells hold a
    line of the opponent's, it loses, and no later than when the highest empty cell of the line whose highest empty
    cell is lowest is filled: the cells above it in its column are still empty then (Steininger's
    ``upper_bound_from_evens_strategy``, his distance taken from every direction's lines alike).
    """
    even = geo[G_EVEN]
    if even == ZERO or popcount(mask) & ONE:
        return np.int64(NO_BOUND)
    theirs = (pos ^ mask) | (even & ~mask & ~possible(mask, geo))
    mine = geo[G_BOARD] & ~theirs
    lines = has_line(theirs, geo)
    if has_line(mine, geo):  # each line of mine must have one of theirs below it, first a cell above one of theirs
        if not lines or has_line(mine & ~cells_above(line_cells(theirs, geo) & ~mask, geo), geo):
            return np.int64(NO_BOUND)
        if not _each_line_comes_after_one_of_theirs(mine, theirs, mask, geo):
            return np.int64(NO_BOUND)
    if not lines:
        return np.int64(0)
    rows = np.int64(geo[G_ROWS])
    below = ZERO
    for height in range(rows):
        below |= geo[G_BOTTOM] << np.uint64(height)
        if has_line(theirs & (mask | below), geo):
            return -((rows - 1 - height) // 2 + 1)
    return np.int64(0)


NOT_PLAIN = np.int64(-1)
"""The piece count :func:`play_string` gives a move string it does not play plainly (the rules' reading says why)."""


@kernel
def code_parts(pos: np.uint64, mask: np.uint64, geo: np.ndarray) -> tuple[np.int64, np.int64]:
    """The board's base-3 code (:mod:`solver.encoding.board`: ``3 ** cell`` times 1 for an X, 2 for an O, cell
    ``row * cols + col`` from the top-left) in two parts, each of which fits 64 bits where the whole does not
    (Connect Four's reaches ``3 ** 42``): ``code = low + high * 3 ** (cells // 2)``, ``low`` the cells below
    ``cells // 2``. ``pos`` is the side to move's pieces: X's when the board holds an even number."""
    cols, rows = np.int64(geo[G_COLS]), np.int64(geo[G_ROWS])
    half, stride = np.int64(geo[G_CELLS]) // 2, rows + 1
    mover = np.int64(1) if popcount(mask) & ONE == ZERO else np.int64(2)
    low, part = np.int64(0), np.int64(0)  # the part being summed: the low one, then the high one
    cell, power = np.int64(0), np.int64(1)
    for row in range(rows):
        for col in range(cols):
            if cell == half:
                low, part, power = part, np.int64(0), np.int64(1)
            bit = ONE << np.uint64(col * stride + rows - 1 - row)
            if mask & bit:
                part += (mover if pos & bit else 3 - mover) * power
            cell += 1
            power *= 3
    return low, part


@kernel
def play_string(text: bytes, geo: np.ndarray) -> tuple[np.uint64, np.uint64, np.int64, np.int64, np.int64]:
    """``(pos, mask, pieces, low, high)`` after a move string given as its ASCII bytes (``b"4453"``: byte ``"1"`` is
    column 0), for a position of a game that goes on: its bitboards, its pieces and its code's parts
    (:func:`code_parts`).

    Only the plain case is played: pieces :data:`NOT_PLAIN` for anything else (a board of more than 9 columns; a
    byte that is not a column 1 to ``cols``, a space included; a full column; a line on the board, whenever it was
    made; a full board), which the caller reads by the rules (:func:`solver.search.position.from_moves` says what is
    wrong, or answers the end).
    """
    columns = np.int64(geo[G_COLS])
    if columns > 9:  # a move string writes one digit a column: a wider board's moves are a list of numbers
        return ZERO, ZERO, NOT_PLAIN, np.int64(0), np.int64(0)
    pos, mask = ZERO, ZERO
    for index in range(len(text)):
        column = np.int64(text[index]) - 49
        if column < 0 or column >= columns:
            return ZERO, ZERO, NOT_PLAIN, np.int64(0), np.int64(0)
        move = possible(mask, geo) & geo[G_COLMASK + column]
        if move == ZERO:
            return ZERO, ZERO, NOT_PLAIN, np.int64(0), np.int64(0)
        pos, mask = pos ^ mask, mask | move
    pieces = np.int64(popcount(mask))
    if has_line(pos, geo) or has_line(pos ^ mask, geo) or pieces == np.int64(geo[G_CELLS]):
        return ZERO, ZERO, NOT_PLAIN, np.int64(0), np.int64(0)
    low, high = code_parts(pos, mask, geo)
    return pos, mask, pieces, low, high
