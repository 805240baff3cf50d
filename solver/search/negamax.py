"""The search: an exact negamax over Pons scores, with a null window, a transposition table and a book.

**Pons scores.** Inside the kernels a position's value is Pons' integer score for the side to move:
0 a draw, ``floor((cells - T) / 2) + 1`` a win whose last move is ply ``T`` (the pieces on the board
right after it), its negative a loss. The winner wants it large (an early ``T``), the loser small in
size (a late ``T``): negamax over this score is the tables' rule (winner fastest, loser slowest),
and since the parity of ``T`` is the winner's, the score gives the plies to the end exactly
(:func:`score_byte` turns it into the project's score byte).

**The search** (Pons' ``Solver.cpp``, then Steininger's ``c4``):

* :func:`solve` narrows the score window with null-window probes ``(med, med + 1)``, each a
  :func:`negamax` that only says "above" or "not above"; it starts at the side of 0 the window is
  larger on (a draw or a win is the common answer near the centre). A thread helping another on
  the same position (the ``k``-th: ``control[HELPER] = k``, :class:`solver.search.engine.Engine`)
  probes at ``k / (k + 1)`` of its window instead (the first helper at its middle), so that the
  threads prove different bounds, each reading the others' at the root from the shared table (a
  Lazy SMP search whose threads differ by their windows);
* :func:`negamax` requires that the side to move cannot win at once; it plays only the moves that
  do not lose at once (:func:`solver.search.bitboard.non_losing_moves`), bounds the score by the
  earliest win or loss still possible and, where it could cut, by the claimeven bound
  (:func:`solver.search.bitboard.claimeven_bound`), plays a *forced move* (the only move that does not lose at
  once) straight through, with no table entry of its own (Steininger's static search plays forced
  moves so), reads and writes bounds in the transposition table under
  the canonical key (a position and its mirror share them; the mirror image is carried down the
  search, so the key needs no loop over the columns), each entry marked with the work its search
  cost (:func:`solver.search.transposition.work_of`), looks a position up in the book at
  the book's depth, orders the children (:mod:`solver.search.ordering`) and asks the processor to
  fetch each child's table bucket (:func:`solver.search.transposition.prefetch_bucket`: a probe of
  a big table is a miss of every cache), tries an *enhanced transposition cut-off* (a child whose
  stored bound already proves the cut-off) once the search has grown long
  (:data:`ETC_AFTER_NODES`), and searches the children in order;
* nothing aborted is ever stored: when the stop flag (``control[STOP]``) is set (by the caller, or by the
  search itself at its node limit, ``control[LIMIT]``), every level returns at once without writing, so a search
  cut short leaves only true bounds behind.

The kernels are compiled as :mod:`solver.search.kernel` says: once (later runs load them from numba's
cache), without numba's reference counting, and without the GIL, so a worker thread can run one while the
caller waits (:mod:`solver.search.engine`).
"""

from __future__ import annotations

import numpy as np

from ..rules.score import WIN
from .answer import score_byte as score_byte  # compiled below (_score_byte); imported from here too
from .bitboard import (
    G_BOTTOM,
    G_CELLS,
    G_COLMASK,
    G_COLS,
    G_ORDER,
    G_ROWS,
    NOT_PLAIN,
    ONE,
    ZERO,
    can_win_next,
    canonical,
    canonical_of,
    claimeven_bound,
    has_line,
    key_of,
    mirror_cell,
    mirror_key,
    non_losing_moves,
    play_string,
    popcount,
    possible,
)
from .kernel import kernel
from .ordering import order_moves
from .transposition import get, prefetch_bucket, put, unpack, work_of

STOP, NODES, ETC_FROM, HELPER, LIMIT = 0, 1, 2, 3, 4
"""Slots of the control array: the stop flag (set by the caller), the nodes searched (counted by the kernel), the
node count from which the search tries enhanced transposition cut-offs (set by :func:`solve`), ``k`` > 0 when this
thread is the ``k``-th helping others search the same position, 0 otherwise (set by the caller,
:mod:`solver.search.engine`; :func:`solve`), and a node limit: the search sets its own stop flag when its node count
reaches it (0: none; the engine's short first try in the caller's thread, :mod:`solver.search.engine`)."""
CONTROL_SLOTS = 5

NO_MOVE = -128
"""The score of a full column (:func:`solve_move`)."""

NOT_SEARCHED = -129
"""What a short search (:func:`short_solve_string`, :func:`short_solve_moves`) gives where it did not search: a move
string it does not play plainly, a position within the book's depth, a column it did not finish."""

ETC_MIN_EMPTY = 16
"""Enhanced transposition cut-offs are tried only with at least this many empty cells: near the end probing every
child costs more than it saves (at 12, Pons' End-Easy set ran five times slower); at 16, 12 positions of Begin-Medium
searched 16 % fewer nodes than without (20: 10 %, 26: 3 %)."""

ETC_AFTER_NODES = 100_000
"""Enhanced transposition cut-offs are tried only once a search has visited this many nodes: they save nodes but
probe every child, and in a short search the probes cost more than the nodes saved. Measured on 2026-11-29
(``scripts/bench.py``'s positions, each searched by engines differing only in this number, alternated position by
position): from the first node, Begin-Easy took 1.03 ms a position against 0.68 ms without any, Middle-Medium 9.0
against 8.4 ms, Begin-Medium 214 against 189 ms (14 % fewer nodes); from 100,000 nodes, Begin-Medium 191 ms with 13 %
fewer nodes, and the easier sets never reach it. On 6 positions of Begin-Hard, cut-offs from 16 empty cells saved
20 % of the nodes and 10 % of the time.

Measured again on 2026-11-29 once the children's buckets were prefetched before the cut-off's probes (so that they
wait less; 40 positions of Begin-Medium, 150 of Middle-Medium and 300 of Begin-Easy, alternated in one process): the
probes placed after the prefetch took Begin-Medium from 179 to 164 ms a position on one thread (the same nodes). From
10,000 nodes: 155 ms on one thread, but 124 against 125 ms on two, and Begin-Easy 0.88 against 0.85 ms; from the first
node, Begin-Easy 1.05 ms. So the number stays."""


@kernel
def _trunc_half(x: np.int64) -> np.int64:
    """``x / 2`` rounded towards zero (C++'s division, as Pons' window heuristic uses it)."""
    return x // 2 if x >= 0 else -((-x) // 2)


@kernel
def book_score(key: np.uint64, pieces: np.int64, cells: np.int64, keys: np.ndarray, scores: np.ndarray) -> np.int64:
    """The Pons score the book holds for a canonical key, or :data:`NO_MOVE` when it holds none.

    The book stores the project's score byte (``100 - d`` a win in ``d`` plies, ``-(100 - d)`` a loss, 0 a draw).
    """
    if keys.size == 0:
        return np.int64(NO_MOVE)
    at = np.searchsorted(keys, key)
    if at >= keys.size or keys[at] != key:
        return np.int64(NO_MOVE)
    byte = np.int64(scores[at])
    if byte == 0:
        return np.int64(0)
    last = pieces + 100 - abs(byte)
    size = (cells - last) // 2 + 1
    return size if byte > 0 else -size


@kernel
def book_floor(pos: np.uint64, mask: np.uint64, geo: np.ndarray, book: tuple[np.ndarray, np.ndarray, np.int64]) -> np.int64:
    """The least Pons score a position one ply past the book's depth can have, :data:`NO_MOVE` for any other position.

    Each of its parents (the position with one of the last mover's top pieces taken back) is in the book, and a move
    scores at most its position's score ``S`` for the player making it: so the position, the move's child, scores at
    least ``-S`` for its side to move, and at least the largest of these over its parents. It scores exactly that when
    it is the child of a best move of one of them.
    """
    pieces = np.int64(popcount(mask))
    if pieces != book[2] + 1:
        return np.int64(NO_MOVE)
    cells, theirs, floor = np.int64(geo[G_CELLS]), pos ^ mask, np.int64(NO_MOVE)
    for c in range(np.int64(geo[G_COLS])):
        column = mask & geo[G_COLMASK + c]
        if column == ZERO:
            continue
        top = (column + (geo[G_BOTTOM] & geo[G_COLMASK + c])) >> ONE  # a column's pieces are its lowest cells
        if top & theirs == ZERO:
            continue
        parent = canonical(key_of(theirs ^ top, mask ^ top, geo), geo)
        score = book_score(parent, pieces - 1, cells, book[0], book[1])
        if score != NO_MOVE and -score > floor:
            floor = -score
    return floor


@kernel
def _etc(pos: np.uint64, mask: np.uint64, mpos: np.uint64, mmask: np.uint64, geo: np.ndarray, table: np.ndarray, moves: np.uint64, beta: np.int64) -> np.int64:
    """An enhanced transposition cut-off: the largest score a child's stored upper bound proves, if it is at least ``beta``."""
    best = np.int64(NO_MOVE)
    child_pos, child_mpos = pos ^ mask, mpos ^ mmask
    for c in range(np.int64(geo[G_COLS])):
        move = moves & geo[G_COLMASK + c]
        if move == ZERO:
            continue
        stored = get(table, canonical_of(child_pos, mask | move, child_mpos, mmask | mirror_cell(move, geo), geo))
        if stored:
            bound, lower = unpack(stored)
            if not lower and -bound >= beta and -bound > best:
                best = -bound
    return best


@kernel
def _stored_window(table: np.ndarray, key: np.uint64, alpha: np.int64, beta: np.int64) -> tuple[np.int64, np.int64, bool]:
    """The window ``(alpha, beta)`` narrowed by the table's bound on a key, and whether that bound is a lower one."""
    stored = get(table, key)
    if not stored:
        return alpha, beta, False
    bound, lower = unpack(stored)
    if lower:
        return max(alpha, bound), beta, True
    return alpha, min(beta, bound), False


@kernel
def negamax(  # noqa: C901 - one search node: bounds, table, book, cut-off and the children, kept in one kernel for speed
    pos: np.uint64,
    mask: np.uint64,
    mpos: np.uint64,
    mmask: np.uint64,
    alpha: np.int64,
    beta: np.int64,
    geo: np.ndarray,
    table: np.ndarray,
    book: tuple[np.ndarray, np.ndarray, np.int64],
    control: np.ndarray,
    scratch: np.ndarray,
) -> np.int64:
    """The score of a position (``mpos``, ``mmask``: its mirror image) in the window ``(alpha, beta)``, fail-soft."""
    control[NODES] += 1
    start = control[NODES]
    if start == control[LIMIT]:
        control[STOP] = 1  # this node and its ancestors return unstored, as when the caller stops the search
    cells = np.int64(geo[G_CELLS])
    pieces = np.int64(popcount(mask))
    moves = non_losing_moves(pos, mask, geo)
    if moves == ZERO:
        return -((cells - pieces) // 2)
    if pieces >= cells - 2:
        return np.int64(0)
    alpha = max(alpha, -((cells - 2 - pieces) // 2))
    beta = min(beta, (cells - 1 - pieces) // 2)
    if beta > alpha >= -((np.int64(geo[G_ROWS]) - 1) // 2 + 1):  # the lowest claimeven bound there is: below it none cuts
        beta = min(beta, claimeven_bound(pos, mask, geo))
    if alpha >= beta:
        return alpha
    if moves & (moves - ONE) == ZERO and pieces > book[2]:
        return -negamax(pos ^ mask, mask | moves, mpos ^ mmask, mmask | mirror_cell(moves, geo), -beta, -alpha, geo, table, book, control, scratch)
    key = canonical_of(pos, mask, mpos, mmask, geo)
    alpha, beta, lower = _stored_window(table, key, alpha, beta)
    if alpha >= beta:
        return alpha if lower else beta
    known = book_score(key, pieces, cells, book[0], book[1]) if pieces <= book[2] else np.int64(NO_MOVE)
    if known != NO_MOVE:
        return known
    count = order_moves(pos, mask, moves, geo, scratch, pieces)
    child_pos, child_mpos, cols = pos ^ mask, mpos ^ mmask, np.int64(geo[G_COLS])
    for i in range(count):
        scratch[pieces, cols + i] = mmask | mirror_cell(scratch[pieces, i], geo)  # the rank, no longer needed
        prefetch_bucket(table, canonical_of(child_pos, mask | scratch[pieces, i], child_mpos, scratch[pieces, cols + i], geo))
    etc = cells - pieces >= ETC_MIN_EMPTY and control[NODES] >= control[ETC_FROM]
    cut = _etc(pos, mask, mpos, mmask, geo, table, moves, beta) if etc else np.int64(NO_MOVE)
    if cut != NO_MOVE:
        return cut
    for i in range(count):
        move, mirrored = scratch[pieces, i], scratch[pieces, cols + i]
        score = -negamax(child_pos, mask | move, child_mpos, mirrored, -beta, -alpha, geo, table, book, control, scratch)
        if control[STOP]:
            return np.int64(0)
        if score >= beta:
            put(table, key, score, True, work_of(control[NODES] - start))
            return score
        alpha = max(alpha, score)
    put(table, key, alpha, False, work_of(control[NODES] - start))
    return alpha


@kernel
def solve(
    pos: np.uint64, mask: np.uint64, geo: np.ndarray, table: np.ndarray, book: tuple[np.ndarray, np.ndarray, np.int64], control: np.ndarray, scratch: np.ndarray
) -> np.int64:
    """The exact Pons score of a position that is not over, by null-window probes (Pons' ``solve``); 0 if stopped.

    A position one ply past the book's depth is searched from the floor its parents' scores give (:func:`book_floor`).
    Enhanced transposition cut-offs start after :data:`ETC_AFTER_NODES` nodes of this call.
    """
    return solve_at_least(pos, mask, book_floor(pos, mask, geo, book), geo, table, book, control, scratch)


@kernel
def solve_at_least(
    pos: np.uint64,
    mask: np.uint64,
    floor: np.int64,
    geo: np.ndarray,
    table: np.ndarray,
    book: tuple[np.ndarray, np.ndarray, np.int64],
    control: np.ndarray,
    scratch: np.ndarray,
) -> np.int64:
    """:func:`solve` of a position whose score is known to be at least ``floor`` (:data:`NO_MOVE`: nothing is known),
    probed there first: a position one ply past the book (:func:`book_floor`) scores exactly its floor when it is the
    child of a best move, which the first probe then proves.

    The first thread probes where Pons' solver does (from the window's ends inwards: shallow searches, cut by the
    earliest win or loss still possible); a helper (``control[HELPER]`` = k) at k / (k + 1) of the window. The sign
    first, then next to the bound nearest 0, was tried: the empty board 302 instead of 385 million positions, but
    Begin-Easy's quick wins 4.75 times as many (docs/performance.md)."""
    cells = np.int64(geo[G_CELLS])
    pieces = np.int64(popcount(mask))
    if can_win_next(pos, mask, geo):
        return (cells + 1 - pieces) // 2
    low, high = -((cells - pieces) // 2), (cells + 1 - pieces) // 2
    first = bool(floor > low)
    if first:
        low = min(floor, high)
    control[ETC_FROM] = control[NODES] + ETC_AFTER_NODES
    mpos, mmask = mirror_key(pos, geo), mirror_key(mask, geo)
    while low < high and not control[STOP]:
        share = max(control[HELPER], 1)
        med = low + (high - low) * share // (share + 1)
        if not control[HELPER]:
            if first:
                med = low
            elif med <= 0 and _trunc_half(low) < med:
                med = _trunc_half(low)
            elif med >= 0 and _trunc_half(high) > med:
                med = _trunc_half(high)
        first = False
        found = negamax(pos, mask, mpos, mmask, med, med + 1, geo, table, book, control, scratch)
        if found <= med:
            high = found
        else:
            low = found
    return low


@kernel
def solve_move(
    pos: np.uint64,
    mask: np.uint64,
    column: np.int64,
    geo: np.ndarray,
    table: np.ndarray,
    book: tuple[np.ndarray, np.ndarray, np.int64],
    control: np.ndarray,
    scratch: np.ndarray,
) -> np.int64:
    """The exact Pons score of a move (a column) for the player making it, :data:`NO_MOVE` for a full column.

    A move that completes a line wins at once. The moves of one position are searched one a call, so that threads
    sharing the table can take them in turn (:class:`solver.search.engine.Engine`); 0 if stopped. When the book holds
    the position, its move's child is searched from the floor its score gives (:func:`book_floor`).
    """
    cells = np.int64(geo[G_CELLS])
    pieces = np.int64(popcount(mask))
    move = possible(mask, geo) & geo[G_COLMASK + column]
    if move == ZERO:
        return np.int64(NO_MOVE)
    if has_line(pos | move, geo):
        return (cells + 1 - pieces) // 2
    if pieces + 1 == cells:
        return np.int64(0)
    return -solve(pos ^ mask, mask | move, geo, table, book, control, scratch)


@kernel
def _fresh(control: np.ndarray, limit: np.int64) -> None:
    """A control for a new search of this thread: no stop, no nodes, no helper, a node limit (0: none)."""
    control[STOP], control[NODES], control[HELPER], control[LIMIT] = 0, 0, 0, limit


@kernel
def short_solve_string(
    text: bytes, limit: np.int64, geo: np.ndarray, table: np.ndarray, book: tuple[np.ndarray, np.ndarray, np.int64], control: np.ndarray, scratch: np.ndarray
) -> np.int64:
    """The exact Pons score of the position a move string reaches (its ASCII bytes, played by
    :func:`~solver.search.bitboard.play_string`), searched with a fresh control up to ``limit`` nodes: the string read,
    played, checked and searched in one call (a position near the end costs microseconds, so a call's fixed cost
    shows). :data:`NOT_SEARCHED` for a string not played plainly or a position within the book's depth (the caller's
    general way reads and answers those); when the limit stops the search, ``control[STOP]`` is set (and 0 returned).
    """
    pos, mask, pieces, _, _ = play_string(text, geo)
    if pieces == NOT_PLAIN or pieces <= book[2]:
        return np.int64(NOT_SEARCHED)
    _fresh(control, limit)
    return solve(pos, mask, geo, table, book, control, scratch)


_score_byte = kernel(score_byte)
"""The same, compiled for the kernels (:func:`short_solve_moves`)."""


@kernel
def short_solve_moves(
    words: np.ndarray,
    limit: np.int64,
    out: np.ndarray,
    landings: np.ndarray,
    geo: np.ndarray,
    table: np.ndarray,
    book: tuple[np.ndarray, np.ndarray, np.int64],
    control: np.ndarray,
    scratch: np.ndarray,
) -> None:
    """Every move's exact Pons score for the player making it (:func:`solve_move`) in the position ``words`` (its two
    board words: the side to move's, then every piece's) into ``out[column]``, the columns centre first, with a fresh
    control, up to ``limit`` nodes in all: one call for the moves of a position (each near the end takes
    microseconds). A column not finished when the limit stops the search keeps
    :data:`NOT_SEARCHED`, and so do the ones after it (``control[STOP]`` is then set).

    Once every column is done, the moves also as the engine answers them (:func:`moves_answer`): ``out[cols]`` their
    count ``n``, then ``out[cols + 1 ..]`` the ``n`` landing cells in order and ``out[2 * cols + 1 ..]`` their score
    bytes, then ``out[3 * cols + 1]`` the position's score byte (the best move's) and ``out[3 * cols + 2]`` its best
    moves (a bit a landing cell) (``-1`` in ``out[cols]`` until then; ``out`` holds at least ``3 * cols + 3`` items)."""
    _fresh(control, limit)
    pos, mask = words[0], words[1]
    cols = np.int64(geo[G_COLS])
    out[:cols] = NOT_SEARCHED
    out[cols] = -1
    for slot in range(cols):
        column = np.int64(geo[G_ORDER + slot])
        score = solve_move(pos, mask, column, geo, table, book, control, scratch)
        if control[STOP]:
            return
        out[column] = score
    moves_answer(mask, out, landings, geo)


ANSWER_SLOTS = 4
"""What :func:`short_answer_string` adds after :func:`short_solve_moves`'s ``3 * cols + 3`` items of ``out``: the
pieces on the board (:data:`~solver.search.bitboard.NOT_PLAIN` for a string not played plainly), the low and high
parts of the position's code (:func:`~solver.search.bitboard.code_parts`), then the positions the search visited (so
that one ``tolist`` of ``out`` reads everything a look-up needs)."""


@kernel
def short_answer_string(
    text: bytes,
    limit: np.int64,
    words: np.ndarray,
    out: np.ndarray,
    landings: np.ndarray,
    geo: np.ndarray,
    table: np.ndarray,
    book: tuple[np.ndarray, np.ndarray, np.int64],
    control: np.ndarray,
    scratch: np.ndarray,
) -> None:
    """:func:`short_solve_moves` of the position a move string reaches (its ASCII bytes, played by
    :func:`~solver.search.bitboard.play_string`): the string read, played, checked, its code made and every move
    valued in one call, for a position near the end whose search takes microseconds. The position's two board words
    go into ``words``, and ``out`` holds :func:`short_solve_moves`'s items, then the :data:`ANSWER_SLOTS`: the pieces
    (:data:`~solver.search.bitboard.NOT_PLAIN` when the string is not played plainly: nothing else is written, and the
    caller's general way reads it, saying what is wrong), the code's parts and the positions searched."""
    pos, mask, pieces, low, high = play_string(text, geo)
    at = 3 * np.int64(geo[G_COLS]) + 3
    out[at] = pieces
    if pieces == NOT_PLAIN:
        return
    out[at + 1], out[at + 2] = low, high
    words[0], words[1] = pos, mask
    short_solve_moves(words, limit, out, landings, geo, table, book, control, scratch)
    out[at + 3] = control[NODES]


@kernel
def moves_answer(mask: np.uint64, out: np.ndarray, landings: np.ndarray, geo: np.ndarray) -> None:
    """Each move's landing cell and score byte (:func:`score_byte`), ordered by cell, from the Pons scores by column in
    ``out[:cols]`` (:data:`NO_MOVE` for a full column), into ``out`` as :func:`short_solve_moves` says, with the
    position's score byte (the largest) and its best moves (those of that byte); ``landings``: the cell a piece lands
    on by column and height (``landings[column * rows + height]``)."""
    cols, rows, cells = np.int64(geo[G_COLS]), np.int64(geo[G_ROWS]), np.int64(geo[G_CELLS])
    pieces = np.int64(popcount(mask))
    count, best, bests = 0, np.int64(-WIN - 1), np.int64(0)
    for column in range(cols):
        score = out[column]
        if score == NO_MOVE:
            continue
        cell = landings[column * rows + np.int64(popcount(mask & geo[G_COLMASK + column]))]
        byte = np.int64(_score_byte(int(score), int(pieces), int(cells)))
        at = count
        while at > 0 and out[cols + at] > cell:  # insertion by cell: at most a board's columns
            out[cols + 1 + at], out[2 * cols + 1 + at] = out[cols + at], out[2 * cols + at]
            at -= 1
        out[cols + 1 + at], out[2 * cols + 1 + at] = cell, byte
        count += 1
        if byte > best:
            best, bests = byte, np.int64(0)
        if byte == best:
            bests |= np.int64(1) << cell
    out[cols], out[3 * cols + 1], out[3 * cols + 2] = count, best, bests


@kernel
def plain_negamax(pos: np.uint64, mask: np.uint64, alpha: np.int64, beta: np.int64, geo: np.ndarray, control: np.ndarray) -> np.int64:
    """The baseline of the benchmark: alpha-beta over Pons scores, columns left to right, no table, no ordering."""
    control[NODES] += 1
    cells = np.int64(geo[G_CELLS])
    pieces = np.int64(popcount(mask))
    if pieces == cells:
        return np.int64(0)
    free = possible(mask, geo)
    cols = np.int64(geo[G_COLS])
    for c in range(cols):
        move = free & geo[G_COLMASK + c]
        if move != ZERO and has_line(pos | move, geo):
            return (cells + 1 - pieces) // 2
    best = -np.int64(cells)
    for c in range(cols):
        move = free & geo[G_COLMASK + c]
        if move == ZERO:
            continue
        score = -plain_negamax(pos ^ mask, mask | move, -beta, -alpha, geo, control)
        best = max(best, score)
        alpha = max(alpha, score)
        if alpha >= beta or control[STOP]:
            break
    return best
