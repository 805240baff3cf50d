"""The build's kernels compiled (numba): every board of a chunk scored from its children's scores in one pass,
(gravity's forward pass) which boards of a chunk a game reaches, read from the packed bits of the layer before, and
(sealing) the bytes a table stores of a range of a layer with their histograms.

The move rules' hooks (:mod:`solver.retrograde.placement`, :mod:`solver.retrograde.gravity`) find, for a chunk, where
its boards' children lie in the next layer (whole rows or whole columns of the child tiles) and what the rules say of
each board (:mod:`solver.retrograde.chunkrules`); :func:`best_of_children` does the rest, board by board: the
smallest child score, the score ``sign(m) - m`` of the board for the side to move (:mod:`solver.rules.score`), the
rule's score where a rule decides, and ``UNREACHABLE`` where no game reaches the board. The hooks' numpy passes
(``plain_chunk``) compute the same bytes and stay as the kernel's plain twin, checked against it by the tests.

Compiled as every kernel of the package is (:mod:`solver.compiling`: cached, keyed on every source file the build
imports, no GIL, no runtime: the caller passes every array).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from ..compiling import kernel
from ..rules.score import UNREACHABLE
from ..scratch import scratch_array
from .halves import RULES_FOLLOW

if TYPE_CHECKING:
    from ..contents.stored import CanonicalPiece

NO_CHILD = np.int8(127)
"""What a missing move reads as: above every score, so never the smallest child (a board with no move is ruled)."""


BLOCK = 64
"""Rows of a chunk whose moves in the low half are taken together (:func:`best_of_children`), at most: an index read
once for 64 boards. Measured on 4x5k4 (2026-12-02): 16 rows 0.34, 32 rows 0.28, 64 rows 0.27 ns a board for four
moves."""

TURNED_BYTES = 1 << 20
"""The bytes a block's turned panel and minima may take (:func:`score_chunk` takes fewer rows a block for wide tiles):
they are read at random, so they stay within a core's second-level cache (1 MiB here of its 2)."""

MIN_LANES = 16
"""The fewest rows a block (:data:`TURNED_BYTES`): a vector of 16 bytes."""


Children = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""Where a chunk's children lie (:func:`best_of_children`'s first four arguments): ``across, columns, below, rows``."""

NOT_MARKED = np.empty(0, dtype=bool)
"""``reached`` where the rules tell which boards no game reaches (placement): no mark."""


def score_chunk(children: Children, rules: np.ndarray, reached: np.ndarray | None, live: np.ndarray | None = None) -> np.ndarray:
    """The scores of a chunk's boards (int8, flat, index order) by :func:`best_of_children`, from where its children
    lie, what the rules say of its boards (int8, chunk rows x tile columns) and which a game reaches (bool, flat;
    None where the rules tell); ``live`` (bool, a row each; None: every row) the rows some board of which a game
    reaches, the others ``UNREACHABLE`` whole without a child read."""
    across = children[0]
    scores = np.empty(rules.shape, dtype=np.int8)
    wide = across.shape[1] + rules.shape[1]
    fit = TURNED_BYTES // max(wide, 1)
    lanes = max(MIN_LANES, min(BLOCK, 1 << max(fit.bit_length() - 1, 0)))
    scratch = scratch_array("compiled kernel", (wide, lanes), np.int8)
    marks = NOT_MARKED if reached is None else np.ascontiguousarray(reached, dtype=bool)
    rows = NOT_MARKED if live is None else np.ascontiguousarray(live, dtype=bool)
    best_of_children(*children, rules, marks, rows, scratch, scores)
    return scores.reshape(-1)


@kernel
def best_of_children(
    across: np.ndarray,
    columns: np.ndarray,
    below: np.ndarray,
    rows: np.ndarray,
    rules: np.ndarray,
    reached: np.ndarray,
    live: np.ndarray,
    scratch: np.ndarray,
    out: np.ndarray,
) -> None:
    """Score every board of a chunk (``out``: int8, chunk rows x tile columns, for the side to move).

    :param across: the children by a move in the low half, which keeps the board's row: row ``i`` of the chunk's
        child panel (int8, chunk rows x child columns).
    :param columns: per such move (``(moves, tile columns)`` intp), the child's column for each of the tile's
        columns, or -1 where the move cannot be made.
    :param below: the children by a move in the high half, which keeps the board's column: the child tile
        (int8, child rows x tile columns).
    :param rows: per such move (``(moves, chunk rows)`` intp), the child's row for each row of the chunk, or -1.
    :param rules: what the rules say of each board (int8, as ``out``): a score, or ``RULES_FOLLOW``.
    :param reached: which boards a game reaches (bool, flat, ``out.size``), or empty when the rules tell.
    :param live: the rows some board of which a game reaches (bool, a row each), or empty: every row. A row not live
        is ``UNREACHABLE`` whole, no child read (a block of such rows is skipped whole: 27 to 37 % of the boards of
        6x6k4-gravity's layers 26 and 30 lie in rows no game reaches, sampled from 300 chunks each).
    :param scratch: working bytes (int8, ``(child columns + tile columns, rows a block)``, at most :data:`BLOCK` rows a block; its contents are left over).

    A block of rows at a time (:data:`BLOCK`, fewer on wide tiles: :data:`TURNED_BYTES`): with :data:`TURN_FROM`
    moves in the low half or more, they read the block's child panel turned on its side, so that
    each move and column is one vector minimum over the block's rows; then row by row the moves in the high half,
    each a vector minimum with a whole row of ``below``, and the scores. The vector loops run to a bound read from
    an array's shape: with a constant bound numba's LLVM unrolls them into bytes one at a time (it cannot tell that
    the arrays do not overlap), 1.8 against 0.27 ns a board for four moves.
    """
    height, width = out.shape
    panel = scratch[: across.shape[1]]
    smallest = scratch[across.shape[1] : across.shape[1] + width]
    turned = columns.shape[0] >= TURN_FROM
    lanes = scratch.shape[1]
    for first in range(0, height, lanes):
        count = min(lanes, height - first)
        if live.size and not _any_live(live, first, count):
            for i in range(first, first + count):
                _unreached_row(i, out)
            continue
        if turned:
            _low_moves_turned(across, columns, first, count, panel, smallest)
            _turn_back(smallest, first, count, out)
        for i in range(first, first + count):
            if live.size and not live[i]:
                _unreached_row(i, out)
                continue
            if not turned:
                _low_moves_along(across, columns, i, out)
            _high_moves(below, rows, i, out)
            _score_row(rules, reached, i, out)


@kernel
def _any_live(live: np.ndarray, first: int, count: int) -> bool:
    """Whether any of rows ``first .. first + count - 1`` is live."""
    for i in range(first, first + count):
        if live[i]:
            return True
    return False


@kernel
def _unreached_row(i: int, out: np.ndarray) -> None:
    """Row ``i`` of ``out``: every board ``UNREACHABLE``."""
    for j in range(out.shape[1]):
        out[i, j] = UNREACHABLE


TURN_FROM = 3
"""Moves in the low half from which a block's child panel is turned on its side (:func:`_low_moves_turned`); with
fewer, each move is a gather along the row (:func:`_low_moves_along`): turning costs about two gathers a board."""


@kernel
def _low_moves_turned(across: np.ndarray, columns: np.ndarray, first: int, count: int, panel: np.ndarray, smallest: np.ndarray) -> None:
    """The smallest child by a move in the low half of rows ``first .. first + count - 1`` (:func:`best_of_children`),
    into ``smallest`` (tile columns x rows a block): the rows' child panel turned on its side into ``panel``, then one
    vector minimum per move and column (lanes past ``count`` hold left-over bytes, never read)."""
    lanes = smallest.shape[1]
    for i in range(count):
        for column in range(across.shape[1]):
            panel[column, i] = across[first + i, column]
    for j in range(smallest.shape[0]):
        for lane in range(lanes):
            smallest[j, lane] = NO_CHILD
    for move in range(columns.shape[0]):
        for j in range(smallest.shape[0]):
            at = columns[move, j]
            if at >= 0:
                for lane in range(lanes):
                    known, child = smallest[j, lane], panel[at, lane]
                    smallest[j, lane] = child if child < known else known


@kernel
def _turn_back(smallest: np.ndarray, first: int, count: int, out: np.ndarray) -> None:
    """Rows ``first .. first + count - 1`` of ``out`` set from ``smallest`` (:func:`_low_moves_turned`), turned back."""
    for i in range(count):
        for j in range(out.shape[1]):
            out[first + i, j] = smallest[j, i]


@kernel
def _low_moves_along(across: np.ndarray, columns: np.ndarray, i: int, out: np.ndarray) -> None:
    """Row ``i`` of ``out`` set to the smallest child by a move in the low half, a gather along row ``i`` of the
    panel per move (:data:`TURN_FROM`)."""
    for j in range(out.shape[1]):
        out[i, j] = NO_CHILD
    for move in range(columns.shape[0]):
        for j in range(out.shape[1]):
            at = columns[move, j]
            if at >= 0:
                known, child = out[i, j], across[i, at]
                out[i, j] = child if child < known else known


@kernel
def _high_moves(below: np.ndarray, rows: np.ndarray, i: int, out: np.ndarray) -> None:
    """Row ``i`` of ``out`` lowered to the smallest child by a move in the high half (:func:`best_of_children`)."""
    for move in range(rows.shape[0]):
        at = rows[move, i]
        if at >= 0:
            for j in range(out.shape[1]):
                known, child = out[i, j], below[at, j]
                out[i, j] = child if child < known else known


@kernel
def _score_row(rules: np.ndarray, reached: np.ndarray, i: int, out: np.ndarray) -> None:
    """Row ``i`` of ``out`` from its smallest child scores to its boards' scores for the side to move: ``sign(m) - m``
    (a win in ``d`` plies for the child's side to move is a loss in ``d + 1`` for this one), the rule's score where a
    rule decides, ``UNREACHABLE`` where no game reaches the board."""
    width = out.shape[1]
    for j in range(width):
        smallest, rule = np.int32(out[i, j]), np.int32(rules[i, j])
        score = np.int32(smallest > 0) - np.int32(smallest < 0) - smallest
        out[i, j] = np.int8(rule if rule != RULES_FOLLOW else score)
    if reached.size:
        for j in range(width):
            if not reached[i * width + j]:
                out[i, j] = UNREACHABLE


@kernel
def lifted_bits(
    bits: np.ndarray, low_first: int, low_width: int, columns: np.ndarray, high_first: int, rows: np.ndarray, scratch: np.ndarray, out: np.ndarray
) -> None:
    """Which boards of a chunk a lift reaches from a board of the layer before that is set in ``bits`` (gravity's
    forward pass, :func:`solver.retrograde.gravity.reach_chunk`): ``out`` (uint8 0 or 1, chunk rows x tile columns).

    :param bits: the layer before, one bit a board in layer-local order (``np.packbits``: big-endian within a byte).
    :param low_first: the bit of the chunk's first row in the parent panel of the lifts in the low half, which keep
        the board's row; ``low_width``: that panel's columns (bit ``low_first + i * low_width + c``: row ``i``, column ``c``).
    :param columns: per lift in the low half (``(lifts, tile columns)`` intp), the parent's column, or ``low_width``
        where the column's top cannot be lifted (a column past the panel's, which reads 0: no branch a board).
    :param high_first: the first bit of the parent tile of the lifts in the high half, which keep the board's column
        (its rows are as wide as the chunk's tile).
    :param rows: per lift in the high half (``(lifts, chunk rows)`` intp), the parent's row, or -1.
    :param scratch: working bytes (uint8, ``(2, at least UNPACKED_SLACK + max(low_width, tile columns))``; its
        contents are left over).

    Row by row: the row's parent panel row is unpacked a byte a bit (:func:`_unpack`) and each lift in the low half
    is a gather of bytes from it; each parent row of a lift in the high half is unpacked and ORed in whole (a vector
    loop). Measured 2026-12-04 on all chunks of 4x7k4-gravity's layers 14, 15 and 16 (one thread, best of 7): 0.10,
    0.21 and 0.31 s, against 0.13, 0.25 to 0.38 and 0.37 to 0.39 s with a bit taken out of ``bits`` per lift and board.
    """
    height, width = out.shape
    across = scratch[0]
    along = scratch[1]
    for i in range(height):
        for j in range(width):
            out[i, j] = 0
        if columns.shape[0] and _any_bit(bits, low_first + i * low_width, low_width):
            skip = _unpack(bits, low_first + i * low_width, low_width, across)
            across[skip + low_width] = 0  # where a column that cannot be lifted reads
            for move in range(columns.shape[0]):
                for j in range(width):
                    out[i, j] |= across[skip + columns[move, j]]
        for move in range(rows.shape[0]):
            at = rows[move, i]
            if at >= 0 and _any_bit(bits, high_first + at * width, width):
                skip = _unpack(bits, high_first + at * width, width, along)
                for j in range(width):
                    out[i, j] |= along[skip + j]


@kernel
def _any_bit(bits: np.ndarray, first: int, count: int) -> bool:
    """Whether a byte holding bits ``first .. first + count - 1`` of ``bits`` has a bit set (those of its first and last
    bytes outside them included: a row whose bytes are all 0 is not unpacked, whose lifts reach nothing)."""
    found = 0
    for at in range(first >> 3, (first + count + 7) >> 3):
        found |= int(bits[at])
    return found != 0


UNPACKED_SLACK = 16
"""Bytes a row unpacked by :func:`_unpack` takes beyond its bits: those of its first and last bytes outside it."""


@kernel
def _unpack(bits: np.ndarray, first: int, count: int, row: np.ndarray) -> int:
    """Bits ``first .. first + count - 1`` of ``bits`` (``np.packbits`` order) unpacked a byte each (0 or 1) into
    ``row`` from ``row[first % 8]`` on, which is returned (the bits of their first byte before them come first)."""
    start = first >> 3
    stop = (first + count + 7) >> 3
    for at in range(stop - start):
        value = bits[start + at]
        for bit in range(8):
            row[8 * at + bit] = (value >> (7 - bit)) & 1
    return first & 7


def spread_rules(table: np.ndarray, row_of: np.ndarray, column_of: np.ndarray) -> np.ndarray:
    """What the rules say of every board of a chunk (int8, rows x columns, a working array of this thread), from
    :func:`solver.retrograde.chunkrules.rule_parts` (board ``(i, j)``: ``table[row_of[i], column_of[j]]``) by
    :func:`spread_table`: the bytes of :func:`solver.retrograde.chunkrules.rule_scores`, its numpy twin."""
    out = scratch_array("spread rules", (row_of.size, column_of.size), np.int8)
    spread_table(table, row_of, column_of, out)
    return out


@kernel
def spread_table(table: np.ndarray, row_of: np.ndarray, column_of: np.ndarray, out: np.ndarray) -> None:
    """``out[i, j] = table[row_of[i], column_of[j]]``: a gather along a row of the table a row of ``out`` (measured
    2026-12-04 against numpy's row copy and column gather in the figures of docs/performance.md)."""
    for i in range(out.shape[0]):
        row = table[row_of[i]]
        for j in range(out.shape[1]):
            out[i, j] = row[column_of[j]]


@kernel
def line_rules(
    mover_high: np.ndarray,
    to_move_high: np.ndarray,
    row_class: np.ndarray,
    mover_low: np.ndarray,
    to_move_low: np.ndarray,
    line_score: np.int8,
    out: np.ndarray,
) -> None:
    """What the rules say of every board of a chunk whose build finds the boards reached forward (gravity:
    :func:`solver.retrograde.gravity.drop_rule_scores`), into ``out`` (int8, chunk rows x tile columns):
    ``UNREACHABLE`` where the side to move has a line, else ``line_score`` where the last mover has one, else
    ``RULES_FOLLOW``: the bytes of :func:`solver.retrograde.halves.grid_scores` without its check of lines that
    share no cell.

    :param mover_high: the last mover's line sets of the high half's classes (uint32, ``(words, classes)``);
        ``to_move_high``: the side to move's.
    :param row_class: each row's class (intp, a row of the chunk each).
    :param mover_low: the last mover's line sets of each column's low half-board (uint32, ``(words, tile
        columns)``); ``to_move_low``: the side to move's.

    Row by row and word by word, a vector select over the row (a board has a line where its halves' sets share a
    bit); a row whose high half holds no line of a player in a word skips that word.
    """
    height, width = out.shape
    for i in range(height):
        row = row_class[i]
        for j in range(width):
            out[i, j] = RULES_FOLLOW
        for word in range(mover_high.shape[0]):
            lines = mover_high[word, row]
            if lines:
                for j in range(width):
                    out[i, j] = line_score if lines & mover_low[word, j] else out[i, j]
        for word in range(to_move_high.shape[0]):
            lines = to_move_high[word, row]
            if lines:
                for j in range(width):
                    out[i, j] = UNREACHABLE if lines & to_move_low[word, j] else out[i, j]


HISTOGRAM_COPIES = 4
"""Histograms :func:`store_piece` counts into (a power of two: a copy is picked by a mask), the ``j``-th board of a
row's run into copy ``j % 4``, added up after: a board's count then seldom waits for the one before it (boards come
in runs of one score). Measured 2026-12-04 on 4x6k4-gravity's layer 20 (23.3 M boards, one thread, the fill and the
counts then a pass of their own): 1.8 ns a board for the fill and the counts, 2.2 with a count of every board and
another of the canonical ones, 7.8 with one copy (on 16 Mi boards in runs of 64), about 30 for the numpy passes."""


def stored_range_counted(scores: np.ndarray, pieces: Iterable[CanonicalPiece], reads: np.ndarray, before: int) -> tuple[np.ndarray, np.ndarray, int]:
    """What a table stores of a range of a layer's boards and their histograms, from the scores alone: which boards are
    canonical (the range's :func:`solver.contents.stored.canonical_pieces`) and read (``reads``:
    :func:`solver.contents.stored.read_scores`) found on the way, board by board (:func:`store_piece`), no mask held.
    The same bytes as its plain twins: :func:`solver.contents.stored.forward_fill` of the scores where
    :func:`solver.contents.stored.read_mask` says (given :func:`solver.contents.stored.canonical_mask`), and
    :func:`solver.contents.histograms.histograms`.

    :param scores: the raw int8 scores of the range (a memory map is read once).
    :param before: the stored byte just before the range (:func:`solver.contents.stored.fill_before`), a score, or any
        byte where the caller fills the boards before the first one read itself (the build's sealing: a range is sealed
        apart from those before it).
    :returns: the stored bytes, the histograms and how many boards come before the first one read (all: none is read).
    """
    values = np.asarray(scores).reshape(-1)
    if values.dtype != np.int8 or reads.dtype != np.bool_ or reads.shape != (256,):
        raise ValueError(f"scores must be int8 and the scores read 256 flags, found {values.dtype} and {reads.dtype} {reads.shape}")
    out = np.empty(values.size, dtype=np.int8)
    counts = np.zeros((HISTOGRAM_COPIES, 512), dtype=np.int64)
    last, covered = before, 0
    first = np.full(1, values.size, dtype=np.int64)
    for piece in pieces:
        flags = scratch_array("canonical flags", (1, piece.column_ranks.shape[1]), np.uint8)[0]
        last = store_piece(values, piece.at, piece.skip, piece.count, piece.row_ranks, piece.column_ranks, reads, last, flags, out, counts, first)
        covered += piece.count
    if covered != values.size:
        raise ValueError(f"the tiles' pieces cover {covered:,} boards of a range of {values.size:,}")
    split = counts.sum(axis=0).reshape(2, 256)  # row 0: the boards not canonical, row 1: the canonical ones
    return out, np.stack([split[0] + split[1], split[1]]), int(first[0])


@kernel
def store_piece(
    scores: np.ndarray,
    at: int,
    skip: int,
    count: int,
    row_ranks: np.ndarray,
    column_ranks: np.ndarray,
    reads: np.ndarray,
    last: int,
    flags: np.ndarray,
    out: np.ndarray,
    counts: np.ndarray,
    first_read: np.ndarray,
) -> int:
    """Boards ``at .. at + count - 1`` of a range (:func:`stored_range_counted`), which lie in one tile from its touched
    rows' board ``skip`` on: each board's stored byte into ``out`` (its score where it is canonical and its score is
    read, else the last such score before it, ``last`` ahead of the first) and its count into ``counts`` (int64,
    ``(HISTOGRAM_COPIES, 512)``: at ``score + 256 * canonical``, the score viewed as uint8); ``first_read[0]`` lowered
    to the range's index of the first board read. Returns the last stored byte.

    Row by row, the row's canonical flags first (``flags``: uint8, the tile's columns), one vector comparison of the
    row's rank with the columns' per symmetry (:class:`solver.contents.stored.CanonicalPiece`: int16 ranks, not int64
    sides); then, until a board is read, a search for the first one; then the boards one by one, the stored byte
    chosen without a branch (measured on 16 Mi boards of 5x5k4's layer 16, one thread: 2.3 ns a board against 4.1 with
    int64 sides and a branch).
    """
    width = column_ranks.shape[1]
    copies = counts.shape[0]
    flat = counts.reshape(-1)
    stored = np.int8(last)
    done = 0
    row = 0
    first = skip
    while done < count:
        boards = min(width - first, count - done)
        canonical = flags[:boards]  # slices, indexed from 0: numba checks no negative index in the loops, which vectorise
        for column in range(boards):
            canonical[column] = 1
        for s in range(row_ranks.shape[0]):
            rank = row_ranks[s, row]
            ranks = column_ranks[s, first : first + boards]
            for column in range(boards):
                canonical[column] &= np.uint8(rank <= ranks[column])
        these = scores[at + done : at + done + boards]
        written = out[at + done : at + done + boards]
        if _one_score(these):  # a row of one score (a row no game reaches: UNREACHABLE), counted whole
            stored = _store_one_score(these[0], canonical, reads, at + done, stored, written, flat, first_read)
        else:
            stored = _store_row(these, canonical, reads, at + done, stored, written, flat, copies, first_read)
        done += boards
        row += 1
        first = 0
    return int(stored)


@kernel
def uniform_blocks(data: np.ndarray, first: int, block: int, out: np.ndarray) -> None:
    """Whether each block of ``data`` (int8) from ``first`` on, ``block`` bytes each, holds one byte value throughout:
    ``out[b]`` for the block at ``first + b * block`` (the sealing encodes such a block once a value:
    :func:`solver.storage.blockarray.repeated_block`)."""
    for b in range(out.size):
        at = first + b * block
        out[b] = _one_score(data[at : at + block])


@kernel
def _store_row(
    these: np.ndarray,
    canonical: np.ndarray,
    reads: np.ndarray,
    at: int,
    stored: np.int8,
    written: np.ndarray,
    flat: np.ndarray,
    copies: int,
    first_read: np.ndarray,
) -> np.int8:
    """:func:`store_piece`'s loop over a row's boards (``these``, from the range's board ``at``) one by one: until a
    board is read, a search for the first one; then each stored byte chosen without a branch and each board counted
    into copy ``column % copies``. Returns the last stored byte."""
    boards = these.size
    if first_read[0] > at:
        for column in range(boards):
            if canonical[column] and reads[np.int64(these[column]) & 255]:
                first_read[0] = min(first_read[0], at + column)
                break
    for column in range(boards):
        score = these[column]
        flag = np.int64(canonical[column])
        stored = score if flag & np.int64(reads[np.int64(score) & 255]) else stored
        written[column] = stored
        flat[((column & (copies - 1)) << 9) | (np.int64(score) & 255) | (flag << 8)] += 1
    return stored


@kernel
def _one_score(these: np.ndarray) -> bool:
    """Whether every byte of ``these`` (a row's scores, a block's bytes) holds the same value (a vector pass, no early exit)."""
    value = these[0]
    differs = 0
    for column in range(these.size):
        differs |= these[column] ^ value
    return differs == 0


@kernel
def _store_one_score(
    score: np.int8, canonical: np.ndarray, reads: np.ndarray, at: int, stored: np.int8, written: np.ndarray, flat: np.ndarray, first_read: np.ndarray
) -> np.int8:
    """:func:`store_piece`'s loop over a row whose every board holds ``score``, by counts: the stored bytes are the
    last stored byte up to the row's first canonical board and ``score`` from it on where ``score`` is read, the last
    stored byte throughout where not; the canonical boards and the others counted at once (into the first copy).
    Returns the last stored byte."""
    boards = written.size
    canonicals = 0
    for column in range(boards):
        canonicals += int(canonical[column])
    value = np.int64(score) & 255
    flat[value | 256] += canonicals
    flat[value] += boards - canonicals
    start = boards
    if canonicals and reads[value]:
        start = 0
        while not canonical[start]:
            start += 1
        first_read[0] = min(first_read[0], at + start)
    for column in range(start):
        written[column] = stored
    for column in range(start, boards):
        written[column] = score
    return score if start < boards else stored


COUNT_SHIFT = 12
"""A sparse layer counts its boards reached every ``2 ** 12`` boards (:mod:`solver.retrograde.sparse`): a row's first
score is found from the count before it and at most 511 bytes of bits."""


@kernel
def densify_rows(bits: np.ndarray, counts: np.ndarray, scores: np.ndarray, starts: np.ndarray, out: np.ndarray) -> None:
    """Rows of a sparse layer made dense (:mod:`solver.retrograde.sparse`): row ``r`` of ``out`` (int8, rows x width) is
    boards ``starts[r] ..`` of the layer, each its score where a game reaches it, else ``UNREACHABLE``.

    :param bits: the layer's boards reached, a bit a board (``np.packbits`` order: big-endian within a byte).
    :param counts: the boards reached before board ``k << COUNT_SHIFT`` of the layer, for every ``k`` (int64).
    :param scores: the scores of the boards reached, in index order (int8): the sparse layer's file.
    :param starts: the first board of each row (int64), or -1 for a row left as it is (no board of it is read).

    A byte of bits at a time: a byte with no board reached is 8 ``UNREACHABLE`` (measured on a prototype, 2026-12-05,
    one thread under load: 0.6 to 1.4 ns a board from 7 % to 54 % reached)."""
    width = out.shape[1]
    for r in range(starts.size):
        start = starts[r]
        if start < 0:
            continue
        block = start >> COUNT_SHIFT
        rank = counts[block]
        for at in range((block << COUNT_SHIFT) >> 3, start >> 3):
            rank += _ones(bits[at])
        lead = start & 7
        if lead:
            rank += _ones(bits[start >> 3] >> (8 - lead))
        j = 0
        while j < width:
            board = start + j
            byte = bits[board >> 3]
            offset = board & 7
            step = min(8 - offset, width - j)
            if byte == 0:
                for t in range(step):
                    out[r, j + t] = UNREACHABLE
            else:
                for t in range(step):
                    if (byte >> (7 - offset - t)) & 1:
                        out[r, j + t] = scores[rank]
                        rank += 1
                    else:
                        out[r, j + t] = UNREACHABLE
            j += step


@kernel
def _ones(byte: np.uint8) -> int:
    """How many bits of a byte are set."""
    value = np.int64(byte)
    value = (value & 0x55) + ((value >> 1) & 0x55)
    value = (value & 0x33) + ((value >> 2) & 0x33)
    return int((value & 0x0F) + (value >> 4))
