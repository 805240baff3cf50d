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
* :func:`settle` judges a position without a search, as Steininger's static search does: the side to move
  loses on the next ply when every move lets the opponent win (Pons' ``possibleNonLosingMoves``,
  :func:`solver.search.bitboard.non_losing_moves`), draws with two cells left, and scores within the earliest
  win or loss still possible and, where it could cut, the claimeven bound
  (:func:`solver.search.bitboard.claimeven_bound`); a *forced move* (the only move that does not lose at once) is
  played straight through, with no table entry of its own;
* :func:`negamax` searches a position :func:`settle` left open. It reads and writes bounds in the transposition
  table under the canonical key (a position and its mirror share them; the mirror image is carried down the
  search, so the key needs no loop over the columns), each entry marked with the work its search cost
  (:func:`solver.search.transposition.work_of`). It first settles **every child** (one that settles at or above
  the window cuts at once, the others raise ``alpha``), asks the processor to fetch the buckets of the children
  left (:func:`solver.search.transposition.prefetch_bucket`: a probe of a big table is a miss of every cache),
  reads what the book (at its depth) and, with :data:`ETC_MIN_EMPTY` empty cells or more, the table know of them
  (an *enhanced transposition cut-off*: the bound read is passed down, so a child searched next does not read it
  again), then searches the ones still open, best first (:mod:`solver.search.ordering`), each from the end of its
  forced moves. Settling every child before searching one is what ``c4`` does: a child lost at once or cut by a
  bound elsewhere in the list saves the search of the first;
* nothing aborted is ever stored: when the stop flag (``control[STOP]``) is set (by the caller, or by the
  search itself at its node limit, ``control[LIMIT]``), every level returns at once without writing, so a search
  cut short leaves only true bounds behind.

The kernels are compiled as :mod:`solver.search.kernel` says: once (later runs load them from numba's
cache), without numba's reference counting, and without the GIL, so a worker thread can run one while the
caller waits (:mod:`solver.search.engine`).
"""

from __future__ import annotations

import numpy as np

from ..rules.score import UNREACHABLE, WIN
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
    moves_against,
    non_losing_moves,
    play_string,
    popcount,
    possible,
    winning_cells,
)
from .kernel import inlined, kernel
from .ordering import F_KEY, F_MASK, F_MMASK, F_MOVE, F_MPOS, F_ORDER, F_POS, F_RANK, F_SIGN, F_STORED, order_children
from .transposition import get, prefetch_bucket, put, unpack, work_of

STOP, NODES, HELPER, LIMIT, BUDGET, GAVE_UP, PROBE_NODES = 0, 1, 2, 3, 4, 5, 6
"""Slots of the control array: the stop flag (set by the caller), the nodes searched (counted by the kernel: the
positions :func:`negamax` searched, not the ones :func:`settle` judged), ``k`` > 0 when this
thread is the ``k``-th helping others search the same position, 0 otherwise (set by the caller,
:mod:`solver.search.engine`; :func:`solve`), and a node limit: the search sets its own stop flag when its node count
reaches it (0: none; the engine's short first try in the caller's thread, :mod:`solver.search.engine`); then the
search's own: the node count at which a probe gives up (0: none), and 1 once it has (the probe then returns unstored,
as when stopped; :func:`solve_at_least` reads and clears it: the search writes the caller's stop flag only at
``LIMIT``); last, the positions a probe in Pons' order may search (set by the caller, :func:`new_control`; 0: no
limit, Pons' order throughout)."""
CONTROL_SLOTS = 7

NO_MOVE = -128
"""The score of a full column (:func:`solve_move`)."""

NOT_SEARCHED = -129
"""What a short search (:func:`short_solve_string`, :func:`short_solve_moves`) gives where it did not search: a move
string it does not play plainly, a position within the book's depth, a column it did not finish."""

ETC_MIN_EMPTY = 16
"""Enhanced transposition cut-offs (a node reading its children's table entries before searching any) are tried only
with at least this many empty cells: near the end reading every child costs more than it saves (at 12, Pons' End-Easy
set ran five times slower, when the read was a second probe); at 16, 12 positions of Begin-Medium searched 16 % fewer
nodes than without (20: 10 %, 26: 3 %). Since the read entry is passed down to the child searched (2026-12-04), they
are tried from a search's first node (they were tried only after 100,000 nodes): on one thread, 2 to 6 % fewer nodes
and 2 to 7 % less CPU on every set of ``scripts/bench.py``'s (docs/performance.md)."""


PONS_PROBE_NODES = 10_000_000
"""The positions a probe in Pons' order may search before :func:`solve_at_least` gives it up for Steininger's order
(a few seconds of a core). Measured on 2026-12-04 (one thread, node counts): the empty board 131.4 million positions
in Pons' order throughout, 111.8 million with this limit (its fifth probe, "above 2?", given up), 113.7 million with
1 million; 40 Begin-Medium positions 356.6 thousand a position with this limit, as without, but 408.0 thousand with
1 million and 369.7 thousand with 3 million (c4's order is the worse one there); Begin-Easy and Begin-Hard the same
with any of them."""


def new_control() -> np.ndarray:
    """A control array for a search (the slots of :data:`CONTROL_SLOTS`), as :func:`reset_control` leaves it."""
    return reset_control(np.zeros(CONTROL_SLOTS, dtype=np.int64))


def reset_control(control: np.ndarray) -> np.ndarray:
    """A control array made ready for a new search, and returned: nothing searched, no stop, no limit, and a probe in
    Pons' order limited to :data:`PONS_PROBE_NODES` positions."""
    control[:] = 0
    control[PROBE_NODES] = PONS_PROBE_NODES
    return control


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


NOT_PROBED = np.int64(-1)
"""The table byte :func:`negamax` is given for a position its caller did not look up (it then looks it up itself)."""


@kernel
def settle(
    pos: np.uint64, mask: np.uint64, mpos: np.uint64, mmask: np.uint64, alpha: np.int64, beta: np.int64, geo: np.ndarray, depth: np.int64
) -> tuple[bool, np.int64, bool, np.uint64, np.uint64, np.uint64, np.uint64, np.int64, np.int64, np.int64]:
    """What a position (where the side to move cannot win at once) gives without a search (Steininger's static search).

    The side to move loses on the next ply if every move lets the opponent win, draws with two cells or fewer left,
    and scores within the earliest win or loss still possible and the claimeven bound
    (:func:`solver.search.bitboard.claimeven_bound`); a *forced move* (the only one that does not lose at once, past
    the book's ``depth``) is played straight through. Returns ``(settled, score, same, pos, mask, mpos, mmask, alpha,
    beta, rank)``: settled, the score in the window ``(alpha, beta)`` (fail-soft, for the position's side to move);
    otherwise the position the forced moves lead to, ``same`` whether its side to move is the given position's, and
    its window (its side to move's), narrowed by these bounds (``score`` then 0). ``rank``: the opponent's threats in the given position (the cells
    where the player who just moved would complete a line), its move's rank (:mod:`solver.search.ordering`).
    """
    cells, rows = np.int64(geo[G_CELLS]), np.int64(geo[G_ROWS])
    same, rank = True, np.int64(-1)
    while True:
        pieces = np.int64(popcount(mask))
        threats = winning_cells(pos ^ mask, mask, geo)
        if rank < 0:
            rank = np.int64(popcount(threats))
        moves = moves_against(mask, threats, geo)
        score = np.int64(0)
        settled = True
        if moves == ZERO:
            score = -((cells - pieces) // 2)
        elif pieces < cells - 2:
            alpha = max(alpha, -((cells - 2 - pieces) // 2))
            beta = min(beta, (cells - 1 - pieces) // 2)
            if beta > alpha >= -((rows - 1) // 2 + 1):  # the lowest claimeven bound there is: below it none cuts
                beta = min(beta, claimeven_bound(pos, mask, geo))
            score = alpha
            settled = bool(alpha >= beta)
        if settled:
            return True, score if same else -score, same, pos, mask, mpos, mmask, alpha, beta, rank
        if moves & (moves - ONE) != ZERO or pieces <= depth:
            return False, np.int64(0), same, pos, mask, mpos, mmask, alpha, beta, rank
        pos, mask, mpos, mmask = pos ^ mask, mask | moves, mpos ^ mmask, mmask | mirror_cell(moves, geo)
        alpha, beta, same = -beta, -alpha, not same


@kernel
def _known(
    table: np.ndarray,
    book: tuple[np.ndarray, np.ndarray, np.int64],
    key: np.uint64,
    pieces: np.int64,
    cells: np.int64,
    probe: bool,
    alpha: np.int64,
    beta: np.int64,
) -> tuple[bool, np.int64, np.int64, np.int64, np.int64]:
    """What the book and (when ``probe``) the table know of a position: ``(settled, score, alpha, beta, stored)``, the
    score when settled (fail-soft in ``(alpha, beta)``), else the window narrowed by the table's bound; ``stored``
    the table's byte (0: none; :data:`NOT_PROBED` when not probed)."""
    if pieces <= book[2]:
        known = book_score(key, pieces, cells, book[0], book[1])
        if known != NO_MOVE:
            return True, known, alpha, beta, np.int64(0)
    if not probe:
        return False, np.int64(0), alpha, beta, NOT_PROBED
    stored = get(table, key)
    if stored:
        alpha, beta, lower = _narrowed(stored, alpha, beta)
        if alpha >= beta:
            return True, alpha if lower else beta, alpha, beta, stored
    return False, np.int64(0), alpha, beta, stored


@inlined
def _narrowed(stored: np.int64, alpha: np.int64, beta: np.int64) -> tuple[np.int64, np.int64, bool]:
    """The window ``(alpha, beta)`` narrowed by a table byte (:func:`~solver.search.transposition.get`, not 0), and
    whether its bound is a lower one (a cut then returns ``alpha``, else ``beta``: the bound either way)."""
    bound, lower = unpack(stored)
    if lower:
        return max(alpha, bound), beta, True
    return alpha, min(beta, bound), False


@kernel
def _window(alpha: np.int64, beta: np.int64, same: bool) -> tuple[np.int64, np.int64]:
    """The window of a child's forced line's end, from its parent's ``(alpha, beta)``: the child's is ``(-beta,
    -alpha)``, and the end's the same when ``same`` (its side to move is the child's), else the parent's own."""
    return (-beta, -alpha) if same else (alpha, beta)


@inlined
def _own_window(
    table: np.ndarray, key: np.uint64, stored: np.int64, alpha: np.int64, beta: np.int64, cells: np.int64, pieces: np.int64
) -> tuple[bool, np.int64, np.int64, np.int64]:
    """A searched node's window narrowed by the earliest win or loss still possible and by its table entry (``stored``,
    read here if :data:`NOT_PROBED`): ``(cut, score, alpha, beta)``, the node's fail-soft score when ``cut``."""
    alpha = max(alpha, -((cells - 2 - pieces) // 2))
    beta = min(beta, (cells - 1 - pieces) // 2)
    if alpha >= beta:
        return True, alpha, alpha, beta
    if stored == NOT_PROBED:
        stored = get(table, key)
    if stored:
        alpha, beta, lower = _narrowed(stored, alpha, beta)
        if alpha >= beta:
            return True, alpha if lower else beta, alpha, beta
    return False, np.int64(0), alpha, beta


@inlined
def _settle_children(
    pos: np.uint64,
    mask: np.uint64,
    mpos: np.uint64,
    mmask: np.uint64,
    alpha: np.int64,
    beta: np.int64,
    geo: np.ndarray,
    table: np.ndarray,
    depth: np.int64,
    scratch: np.ndarray,
) -> tuple[bool, np.int64, np.int64]:
    """Each child of a searched node (its moves that do not lose at once, centre first) settled without a search
    (:func:`settle`): ``(cut, alpha, count)``, ``alpha`` the node's score when a child cuts, else raised by the settled
    ones; the ``count`` others go to the node's scratch row (:data:`~solver.search.ordering.F_MOVE` and the others),
    their table buckets fetched."""
    cols, pieces = np.int64(geo[G_COLS]), np.int64(popcount(mask))
    moves = non_losing_moves(pos, mask, geo)
    row, count = pieces, 0
    child_pos, child_mpos = pos ^ mask, mpos ^ mmask
    for slot in range(cols):
        move = moves & geo[G_COLMASK + np.int64(geo[G_ORDER + slot])]
        if move == ZERO:
            continue
        settled, score, same, p, m, mp, mm, _, _, rank = settle(child_pos, mask | move, child_mpos, mmask | mirror_cell(move, geo), -beta, -alpha, geo, depth)
        if settled:
            if -score >= beta:
                return True, -score, np.int64(count)
            alpha = max(alpha, -score)
            continue
        scratch[row, F_MOVE * cols + count], scratch[row, F_POS * cols + count], scratch[row, F_MASK * cols + count] = move, p, m
        scratch[row, F_RANK * cols + count] = rank
        scratch[row, F_MPOS * cols + count], scratch[row, F_MMASK * cols + count], scratch[row, F_SIGN * cols + count] = mp, mm, ONE if same else ZERO
        scratch[row, F_KEY * cols + count] = canonical_of(p, m, mp, mm, geo)
        prefetch_bucket(table, scratch[row, F_KEY * cols + count])
        count += 1
    return False, alpha, np.int64(count)


@inlined
def _read_children(
    table: np.ndarray,
    book: tuple[np.ndarray, np.ndarray, np.int64],
    geo: np.ndarray,
    scratch: np.ndarray,
    row: np.int64,
    count: np.int64,
    alpha: np.int64,
    beta: np.int64,
) -> tuple[bool, np.int64, np.int64]:
    """What the book and (with :data:`ETC_MIN_EMPTY` empty cells or more) the table know of the ``count`` children of
    scratch row ``row`` (an enhanced transposition cut-off): ``(cut, alpha, left)`` as :func:`_settle_children`, the
    ``left`` children still open moved to the row's front, each with the table byte read (plus one; 0: not read)."""
    cols, cells = np.int64(geo[G_COLS]), np.int64(geo[G_CELLS])
    probe = bool(cells - row >= ETC_MIN_EMPTY)
    left = 0
    for i in range(count):
        same = scratch[row, F_SIGN * cols + i] != ZERO
        low, high = _window(alpha, beta, same)
        pieces = np.int64(popcount(scratch[row, F_MASK * cols + i]))
        settled, score, low, high, known = _known(table, book, scratch[row, F_KEY * cols + i], pieces, cells, probe, low, high)
        score = -score if same else score
        if settled:
            if score >= beta:
                return True, score, np.int64(left)
            alpha = max(alpha, score)
            continue
        for f in range(F_ORDER):
            scratch[row, f * cols + left] = scratch[row, f * cols + i]
        scratch[row, F_STORED * cols + left] = np.uint64(known + 1)
        left += 1
    return False, alpha, np.int64(left)


@kernel
def negamax(
    pos: np.uint64,
    mask: np.uint64,
    mpos: np.uint64,
    mmask: np.uint64,
    alpha: np.int64,
    beta: np.int64,
    key: np.uint64,
    stored: np.int64,
    geo: np.ndarray,
    table: np.ndarray,
    book: tuple[np.ndarray, np.ndarray, np.int64],
    control: np.ndarray,
    scratch: np.ndarray,
) -> np.int64:
    """The score of a position that :func:`settle` did not settle (``mpos``, ``mmask``: its mirror image; ``key``: its
    canonical key; ``stored``: its table byte, :data:`NOT_PROBED` if not read yet) in the window ``(alpha, beta)``,
    fail-soft: its window narrowed (:func:`_own_window`), its children settled (:func:`_settle_children`) and read in
    the book and the table (:func:`_read_children`), the ones left searched best first."""
    control[NODES] += 1
    start = control[NODES]
    if start == control[LIMIT]:
        control[STOP] = 1  # this node and its ancestors return unstored, as when the caller stops the search
    if start == control[BUDGET]:
        control[GAVE_UP] = 1  # the same, for this probe only (solve_at_least)
    cols, pieces = np.int64(geo[G_COLS]), np.int64(popcount(mask))
    cut, score, alpha, beta = _own_window(table, key, stored, alpha, beta, np.int64(geo[G_CELLS]), pieces)
    if cut:
        return score
    cut, alpha, count = _settle_children(pos, mask, mpos, mmask, alpha, beta, geo, table, book[2], scratch)
    if not cut:
        cut, alpha, count = _read_children(table, book, geo, scratch, pieces, count, alpha, beta)
    if cut:
        return alpha
    order_children(geo, scratch, pieces, count)
    for j in range(count):
        k = np.int64(scratch[pieces, F_ORDER * cols + j])
        same = scratch[pieces, F_SIGN * cols + k] != ZERO
        low, high = _window(alpha, beta, same)
        score = negamax(
            scratch[pieces, F_POS * cols + k], scratch[pieces, F_MASK * cols + k], scratch[pieces, F_MPOS * cols + k],
            scratch[pieces, F_MMASK * cols + k], low, high, scratch[pieces, F_KEY * cols + k],
            np.int64(scratch[pieces, F_STORED * cols + k]) - 1, geo, table, book, control, scratch,
        )  # fmt: skip
        score = -score if same else score
        if control[STOP] or control[GAVE_UP]:
            return np.int64(0)
        if score >= beta:
            put(table, key, score, True, work_of(control[NODES] - start))
            return score
        alpha = max(alpha, score)
    put(table, key, alpha, False, work_of(control[NODES] - start))
    return alpha


@kernel
def search(
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
    """The score of a position where the side to move cannot win at once, in the window ``(alpha, beta)``, fail-soft:
    :func:`settle`, the book and the table, then :func:`negamax` (Steininger's ``Search::search``)."""
    settled, score, same, p, m, mp, mm, low, high, _ = settle(pos, mask, mpos, mmask, alpha, beta, geo, book[2])
    if settled:
        return score
    key = canonical_of(p, m, mp, mm, geo)
    settled, score, low, high, stored = _known(table, book, key, np.int64(popcount(m)), np.int64(geo[G_CELLS]), False, low, high)
    if not settled:
        score = negamax(p, m, mp, mm, low, high, key, NOT_PROBED, geo, table, book, control, scratch)
    return score if same else -score


@kernel
def solve(
    pos: np.uint64, mask: np.uint64, geo: np.ndarray, table: np.ndarray, book: tuple[np.ndarray, np.ndarray, np.int64], control: np.ndarray, scratch: np.ndarray
) -> np.int64:
    """The exact Pons score of a position that is not over, by null-window probes (Pons' ``solve``); 0 if stopped.

    A position one ply past the book's depth is searched from the floor its parents' scores give (:func:`book_floor`).
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
    earliest win or loss still possible, which a quick win needs) until a probe has searched ``control[PROBE_NODES]``
    positions (:data:`PONS_PROBE_NODES`): it gives that probe up (what it stored is true) and goes on in Steininger's
    order, the middle of its window first, then at the bound each probe returned (what a score near 0 needs: the
    empty board's). A helper (``control[HELPER]`` = k) probes at k / (k + 1) of the window. Steininger's order
    throughout made Begin-Easy's quick wins 20 times as many positions (docs/performance.md)."""
    cells = np.int64(geo[G_CELLS])
    pieces = np.int64(popcount(mask))
    if can_win_next(pos, mask, geo):
        return (cells + 1 - pieces) // 2
    low, high = -((cells - pieces) // 2), (cells + 1 - pieces) // 2
    first = bool(floor > low)
    if first:
        low = min(floor, high)
    mpos, mmask = mirror_key(pos, geo), mirror_key(mask, geo)
    middle = False
    guess = np.int64(0)
    while low < high and not control[STOP]:
        share = max(control[HELPER], 1)
        med = low + (high - low) * share // (share + 1)
        budget = control[PROBE_NODES] > 0 and not control[HELPER] and not first and not middle
        if not control[HELPER]:
            if first:
                med = low
            elif middle:
                med = min(max(guess, low + 1), high) - 1
            elif med <= 0 and _trunc_half(low) < med:
                med = _trunc_half(low)
            elif med >= 0 and _trunc_half(high) > med:
                med = _trunc_half(high)
        first = False
        if budget:
            control[BUDGET] = control[NODES] + control[PROBE_NODES]
        found = search(pos, mask, mpos, mmask, med, med + 1, geo, table, book, control, scratch)
        control[BUDGET] = 0
        if control[GAVE_UP]:
            control[GAVE_UP], middle, guess = 0, True, _trunc_half(low + high)
            continue
        if found <= med:
            high = found
        else:
            low = found
        guess = found
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
    count ``n``, then ``out[cols + 1 ..]`` the ``n`` moves' keys in cell order (:data:`MOVE_KEYS`: each holds its score
    byte), then ``out[2 * cols + 1]`` the position's score byte (the best move's) and ``out[2 * cols + 2]`` its best
    moves (a bit a landing cell) (``-1`` in ``out[cols]`` until then; ``out`` holds at least :func:`answer_items`)."""
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


def answer_items(cols: int) -> int:
    """The items of ``out`` that :func:`short_solve_moves` fills on a board of ``cols`` columns: the scores by column,
    the moves' count, their keys (at most one a column), the position's score byte and its best moves."""
    return 2 * cols + 3


ANSWER_SLOTS = 4
"""What :func:`short_answer_string` adds after :func:`short_solve_moves`'s :func:`answer_items` items of ``out``: the
pieces on the board (:data:`~solver.search.bitboard.NOT_PLAIN` for a string not played plainly), the low and high
parts of the position's code (:func:`~solver.search.bitboard.code_parts`), then the positions the search visited (so
that one ``tolist`` of ``out`` reads everything a look-up needs)."""


@kernel
def short_answer_string(
    limit: np.int64,
    words: np.ndarray,
    out: np.ndarray,
    landings: np.ndarray,
    geo: np.ndarray,
    table: np.ndarray,
    book: tuple[np.ndarray, np.ndarray, np.int64],
    control: np.ndarray,
    scratch: np.ndarray,
    text: bytes,
) -> None:
    """:func:`short_solve_moves` of the position a move string reaches (its ASCII bytes, played by
    :func:`~solver.search.bitboard.play_string`): the string read, played, checked, its code made and every move
    valued in one call, for a position near the end whose search takes microseconds. The position's two board words
    go into ``words``, and ``out`` holds :func:`short_solve_moves`'s items, then the :data:`ANSWER_SLOTS`: the pieces
    (:data:`~solver.search.bitboard.NOT_PLAIN` when the string is not played plainly: nothing else is written, and the
    caller's general way reads it, saying what is wrong), the code's parts and the positions searched. The string
    comes last, so that a caller binds every other argument once (:meth:`~solver.search.engine.Engine.string_answer`)."""
    pos, mask, pieces, low, high = play_string(text, geo)
    at = 2 * np.int64(geo[G_COLS]) + 3  # answer_items
    out[at] = pieces
    if pieces == NOT_PLAIN:
        return
    out[at + 1], out[at + 2] = low, high
    words[0], words[1] = pos, mask
    short_solve_moves(words, limit, out, landings, geo, table, book, control, scratch)
    out[at + 3] = control[NODES]


MOVE_KEYS = 256
"""A move as :func:`moves_answer` writes it, one int: its key ``cell * MOVE_KEYS + byte - UNREACHABLE`` (its landing
cell and its score byte for the mover, which is at least :data:`~solver.rules.score.UNREACHABLE`), so that the engine
reads a move's ``(cell, byte)`` pair ready-made (:meth:`~solver.search.engine.Engine.string_answer`). Keys order as
their cells."""


@kernel
def moves_answer(mask: np.uint64, out: np.ndarray, landings: np.ndarray, geo: np.ndarray) -> None:
    """Each move's key (:data:`MOVE_KEYS`: its landing cell and score byte, :func:`score_byte`), ordered by cell, from the Pons scores by column in
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
        key = cell * MOVE_KEYS + byte - UNREACHABLE
        at = count
        while at > 0 and out[cols + at] > key:  # insertion by cell (a key's order): at most a board's columns
            out[cols + 1 + at] = out[cols + at]
            at -= 1
        out[cols + 1 + at] = key
        count += 1
        if byte > best:
            best, bests = byte, np.int64(0)
        if byte == best:
            bests |= np.int64(1) << cell
    out[cols], out[2 * cols + 1], out[2 * cols + 2] = count, best, bests


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
