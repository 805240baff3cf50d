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

from ..compiling import inlined, kernel
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
    bits: np.ndarray, low_first: int, low_width: int, drops: np.ndarray, high_first: int, rows: np.ndarray, top: np.ndarray, out: np.ndarray, live: np.ndarray
) -> None:
    """Which boards of a chunk a lift reaches from a board of the layer before that is set in ``bits`` (gravity's
    forward pass, :func:`solver.retrograde.gravity.reach_chunk`): ``out`` (uint8 0 or 1, chunk rows x tile columns).

    :param bits: the layer before, one bit a board in layer-local order (``np.packbits``: big-endian within a byte).
    :param low_first: the bit of the chunk's first row in the parent panel of the lifts in the low half, which keep
        the board's row; ``low_width``: that panel's columns (bit ``low_first + i * low_width + c``: row ``i``, column ``c``).
    :param drops: per parent column of that panel (``(drops, low_width)`` intp), the chunk's column its drop in each
        column of the low half reaches, or -1 where the column is full (the lifts in the low half turned round: a
        board is reached by lifting where a parent set in ``bits`` drops onto it); empty where no board of the chunk
        has such a lift.
    :param high_first: the first bit of the parent tile of the lifts in the high half, which keep the board's column
        (its rows are as wide as the chunk's tile).
    :param rows: per lift in the high half (``(lifts, chunk rows)`` intp), the parent's row, or -1.
    :param top: :data:`TOP_BIT` (the place of a byte's first bit set).
    :param live: set here: whether each row of ``out`` has a board reached (bool, a row each).

    Row by row, over the parent's bits a byte at a time, a byte with no bit set skipped whole: each parent set in the
    panel's row sets the boards its drops reach (:func:`_dropped`), and each parent row of a lift in the high half is
    ORed in (:func:`_ored`). Measured 2026-12-06 on every 25th chunk of 6x6k4-gravity's layer 28 (one thread): 0.86 ns
    a board, against 2.16 with each parent row unpacked a byte a bit and each lift in the low half gathered.
    """
    height, width = out.shape
    for i in range(height):
        for j in range(width):
            out[i, j] = 0
        found = False
        if drops.shape[0]:
            found = _dropped(bits, low_first + i * low_width, low_width, drops, top, out[i])
        for move in range(rows.shape[0]):
            at = rows[move, i]
            if at >= 0:
                found = _ored(bits, high_first + at * width, out[i]) or found
        live[i] = found


TOP_BIT = np.array([0] + [7 - (value.bit_length() - 1) for value in range(1, 256)], dtype=np.int64)
"""For each byte value, the place (0: the most significant bit, ``np.packbits`` order) of its first bit set (0 for
the byte 0, never read)."""


@kernel
def _dropped(bits: np.ndarray, first: int, count: int, drops: np.ndarray, top: np.ndarray, row: np.ndarray) -> bool:
    """For each bit ``first + c`` set in ``bits`` (``c`` below ``count``), ``row[drops[move, c]]`` set to 1 for each
    drop (-1: none), the set bits of a byte taken one by one (:data:`TOP_BIT`); whether a board was set."""
    found = False
    for at in range(first >> 3, (first + count + 7) >> 3):
        value = np.int64(bits[at])
        base = 8 * at - first
        while value:
            bit = top[value]
            value ^= 128 >> bit
            c = base + bit
            if 0 <= c < count:
                for move in range(drops.shape[0]):
                    child = drops[move, c]
                    if child >= 0:
                        row[child] = 1
                        found = True
    return found


@kernel
def _ored(bits: np.ndarray, first: int, row: np.ndarray) -> bool:
    """``row`` ORed with bits ``first .. first + row.size - 1`` of ``bits`` (0 or 1 a byte): the bytes wholly inside
    without a bound checked a bit, a byte with no bit set skipped; the first and last bytes with one. Whether a bit
    was set."""
    count = row.size
    found = False
    start, stop = first >> 3, (first + count + 7) >> 3
    for at in (start, stop - 1):
        value = bits[at]
        for bit in range(8):
            j = 8 * at - first + bit
            if 0 <= j < count and (value >> (7 - bit)) & 1:
                row[j] = 1
                found = True
    for at in range(start + 1, stop - 1):
        value = bits[at]
        if value:
            found = True
            base = 8 * at - first
            for bit in range(8):
                row[base + bit] |= (value >> (7 - bit)) & 1
    return found


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
    live: np.ndarray,
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
    :param live: the rows whose boards are ruled (bool, a row each), or empty: every row. A row not live is left as
        it was (no game reaches its boards: nobody reads what the rules say of them).

    Row by row and word by word, a vector select over the row (a board has a line where its halves' sets share a
    bit); a row whose high half holds no line of a player in a word skips that word.
    """
    height, width = out.shape
    for i in range(height):
        if live.size and not live[i]:
            continue
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


def reached_scores(scores: np.ndarray, reached: np.ndarray) -> np.ndarray:
    """The scores of the boards a game reaches, in index order (int8; ``np.compress(reached, scores)``'s bytes), by
    :func:`kept_scores`: what a sparse layer keeps of a chunk (:mod:`solver.retrograde.sparse`)."""
    flags = np.ascontiguousarray(reached, dtype=bool)
    out = np.empty(int(np.count_nonzero(flags)) + 1, dtype=np.int8)
    kept = kept_scores(np.ascontiguousarray(scores, dtype=np.int8), flags, flags[: flags.size // 8 * 8].view(np.uint64), out)
    return out[:kept]


@kernel
def kept_scores(scores: np.ndarray, flags: np.ndarray, words: np.ndarray, out: np.ndarray) -> int:
    """``scores`` where ``flags`` is set written one after the other into ``out`` (which holds one byte more than
    they take); how many. Eight flags at a time (``words``: their bytes as uint64): eight boards no game reaches are
    skipped at once, the others written without a branch. Measured 2026-12-06 on 80 M boards of 6x6k4-gravity's
    layer 26 (29 % reached), one thread: 0.45 ns a board, against 1.44 for ``np.compress``."""
    kept = 0
    for word in range(words.size):
        if words[word] == 0:
            continue
        for board in range(8 * word, 8 * word + 8):
            out[kept] = scores[board]
            kept += flags[board]
    for board in range(8 * words.size, scores.size):
        out[kept] = scores[board]
        kept += flags[board]
    return kept


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
    """:func:`store_piece`'s loop over a row's boards (``these``, from the range's board ``at``): until a board is
    read, a search for the first one; then eight boards at a time where no game reaches any of them and their
    stored bytes are the last one (``UNREACHABLE`` not read, or read and the last stored byte: under gravity, every
    canonical board is read, :func:`solver.contents.stored.read_scores`), as in most of a row that has some boards
    reached under gravity (93 % of such words on 6x6k4-gravity's layer 33), their counts added up at once; the others one by one
    (:func:`_store_board`). The whole pass on 16 chunks of 6x6k4-gravity's layer 33 (62.5 M boards, 96 % of which no
    game reaches), one thread, 2026-12-06: 0.54 to 0.60 ns a board, against 0.85 a board at a time and 1.10 with every
    board counted into a copy. Returns the last stored byte."""
    boards = these.size
    if first_read[0] > at:
        for column in range(boards):
            if canonical[column] and reads[np.int64(these[column]) & 255]:
                first_read[0] = min(first_read[0], at + column)
                break
    whole = boards // 8
    words = these[: whole * 8].view(np.uint64)
    flags = canonical[: whole * 8].view(np.uint64)
    read_unreached = reads[UNREACHABLE & 255]
    unreached = np.int64(0)
    unreached_canonical = np.int64(0)
    for word in range(whole):
        if words[word] == _UNREACHED_WORD and (stored == UNREACHABLE or not read_unreached):
            unreached += 8
            unreached_canonical += np.int64((flags[word] * _H01) >> np.uint64(56))
            for column in range(8 * word, 8 * word + 8):
                written[column] = stored
            continue
        for column in range(8 * word, 8 * word + 8):
            stored, unreached, unreached_canonical = _store_board(
                these, canonical, reads, column, stored, written, flat, copies, unreached, unreached_canonical
            )
    for column in range(8 * whole, boards):
        stored, unreached, unreached_canonical = _store_board(these, canonical, reads, column, stored, written, flat, copies, unreached, unreached_canonical)
    flat[(UNREACHABLE & 255) | 256] += unreached_canonical
    flat[UNREACHABLE & 255] += unreached - unreached_canonical
    return stored


@inlined
def _store_board(
    these: np.ndarray,
    canonical: np.ndarray,
    reads: np.ndarray,
    column: int,
    stored: np.int8,
    written: np.ndarray,
    flat: np.ndarray,
    copies: int,
    unreached: np.int64,
    unreached_canonical: np.int64,
) -> tuple[np.int8, np.int64, np.int64]:
    """One board of :func:`_store_row`: its stored byte (its score where it is canonical and its score read, else
    ``stored``, chosen without a branch) and its count: into the two running sums where no game reaches it, else into
    copy ``column % copies``. Returns the stored byte and the running sums."""
    score = these[column]
    flag = np.int64(canonical[column])
    stored = score if flag & np.int64(reads[np.int64(score) & 255]) else stored
    written[column] = stored
    if score == UNREACHABLE:
        return stored, unreached + 1, unreached_canonical + flag
    flat[((column & (copies - 1)) << 9) | (np.int64(score) & 255) | (flag << 8)] += 1
    return stored, unreached, unreached_canonical


_UNREACHED_WORD = np.uint64(int.from_bytes(bytes([UNREACHABLE & 255]) * 8, "little"))
"""Eight boards no game reaches, their scores read as one uint64 (:func:`_store_row`)."""


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


_M1, _M2, _M4, _H01 = (np.uint64(m) for m in (0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x0101010101010101))
"""The masks of a 64-bit word's count of bits set (:func:`_rank`)."""


@kernel
def densify_rows(bits: np.ndarray, words: np.ndarray, counts: np.ndarray, scores: np.ndarray, starts: np.ndarray, top: np.ndarray, out: np.ndarray) -> None:
    """Rows of a sparse layer made dense (:mod:`solver.retrograde.sparse`): row ``r`` of ``out`` (int8, rows x width) is
    boards ``starts[r] ..`` of the layer, each its score where a game reaches it, else ``UNREACHABLE``.

    :param bits: the layer's boards reached, a bit a board (``np.packbits`` order: big-endian within a byte).
    :param words: ``bits``' whole 8-byte words (uint64, any byte order: only their bits set are counted).
    :param counts: the boards reached before board ``k << COUNT_SHIFT`` of the layer, for every ``k`` (int64).
    :param scores: the scores of the boards reached, in index order (int8): the sparse layer's file.
    :param starts: the first board of each row (int64), or -1 for a row left as it is (no board of it is read).
    :param top: :data:`TOP_BIT` (the place of a byte's first bit set).

    A row's first score is found from the count before it and the bits between, 8 bytes at a time (:func:`_rank`),
    or carried from the row before where the row follows it in the layer. Then a byte of bits at a time: a byte with
    no board reached is 8 ``UNREACHABLE``, one with all 8 reached 8 scores, another 8 ``UNREACHABLE`` and a score at
    each bit set (:data:`TOP_BIT`). Measured 2026-12-06 on every 10th chunk of 6x6k4-gravity's layer 26 (its child
    rows: 2.5 a board), one thread: 0.7 ns a byte made dense, against 1.1 with the count found a byte at a time and a
    branch a bit; with a call a byte (a function of its own), 1.3."""
    width = out.shape[1]
    end = -1
    rank = np.int64(0)
    for r in range(starts.size):
        start = starts[r]
        if start < 0:
            continue
        if start != end:
            rank = _rank(bits, words, counts, start)
        row = out[r]
        j = 0
        while j < width and (start + j) & 7:  # the bits of the row's first byte
            rank = _dense_bit(bits, scores, start + j, rank, row, j)
            j += 1
        while j + 8 <= width:  # a byte at a time, inline (a call a byte took twice as long)
            byte = bits[(start + j) >> 3]
            if byte == 255:
                for t in range(8):
                    row[j + t] = scores[rank + t]
                rank += 8
            else:
                for t in range(8):
                    row[j + t] = UNREACHABLE
                value = np.int64(byte)
                while value:
                    bit = top[value]
                    value ^= 128 >> bit
                    row[j + bit] = scores[rank]
                    rank += 1
            j += 8
        while j < width:
            rank = _dense_bit(bits, scores, start + j, rank, row, j)
            j += 1
        end = start + width


@kernel
def _rank(bits: np.ndarray, words: np.ndarray, counts: np.ndarray, start: int) -> np.int64:
    """The boards reached before board ``start`` (:func:`densify_rows`): the count of its block, and the bits set
    between, whole words then bytes then the bits of its own byte."""
    block = start >> COUNT_SHIFT
    rank = np.int64(counts[block])
    for at in range((block << COUNT_SHIFT) >> 6, start >> 6):  # a word's bits set, counted in place
        word = words[at]
        word = word - ((word >> np.uint64(1)) & _M1)
        word = (word & _M2) + ((word >> np.uint64(2)) & _M2)
        word = (word + (word >> np.uint64(4))) & _M4
        rank += np.int64((word * _H01) >> np.uint64(56))
    for at in range((start >> 6) << 3, start >> 3):
        rank += _ones(bits[at])
    lead = start & 7
    if lead:
        rank += _ones(bits[start >> 3] >> (8 - lead))
    return rank


@kernel
def _dense_bit(bits: np.ndarray, scores: np.ndarray, board: int, rank: np.int64, row: np.ndarray, j: int) -> np.int64:
    """``row[j]`` from board ``board``'s bit: its score (``scores[rank]``) or ``UNREACHABLE``; the rank after it."""
    if (bits[board >> 3] >> (7 - (board & 7))) & 1:
        row[j] = scores[rank]
        return rank + 1
    row[j] = UNREACHABLE
    return rank


@kernel
def _ones(byte: np.uint8) -> int:
    """How many bits of a byte are set."""
    value = np.int64(byte)
    value = (value & 0x55) + ((value >> 1) & 0x55)
    value = (value & 0x33) + ((value >> 2) & 0x33)
    return int((value & 0x0F) + (value >> 4))
