"""The engine: exact answers for the positions of a gravity game too big for a table (Connect Four), by search.

:class:`Engine` owns one game's transposition table, its optional book and the compiled search
(:mod:`solver.search.negamax`). Every answer is exact and the same every time: the value of the
position for the side to move, the plies to the end under perfect play (the winner as fast as it
can, the loser as slowly: the tables' meaning), and each move's value and plies, as the
project's score byte (:mod:`solver.rules.score`) so that a table-like adapter reads it as it
reads a table.

>>> engine = Engine("connect4", table_bytes=1 << 20)
>>> answer = engine.solve(moves="4455")  # X to move, three in a row to make
>>> answer.result, answer.plies, answer.score, answer.best
('win', 3, 97, (2, 5))
>>> engine.score(moves="44455554221")
-98

**Cost.** A search first runs in the caller's thread, up to :data:`SHORT_NODES` positions (a few milliseconds):
most positions past the opening end there, with no thread started. One that does not is handed to the worker
threads, which go on from what the first try stored in the table.

**Bounds.** The table's size is fixed when the engine is made (``table_bytes``); a search can
be given a time budget (``budget``, seconds: a number, refused before any search starts otherwise) and stops at
Ctrl-C, at any other exception raised while the caller waits (a ``progress`` hook that raises, a signal handler's),
or when a ``stop`` event is set: its worker threads (the kernel releases the GIL) poll a stop flag, while the caller
waits for them to end; then :class:`~solver.errors.SearchTimeout` or :class:`~solver.errors.SearchInterrupted` is
raised, saying how long it ran (any other exception goes on as it was, once the threads have stopped). Whatever ends a
wait, the threads have stopped before the engine's arrays serve another search. What the search stored before it
stopped is true (nothing aborted is stored), so the engine answers the next question exactly. ``progress`` is called
with the nodes searched and the seconds elapsed about every :data:`PROGRESS_SECONDS`.
"""

from __future__ import annotations

import functools
import os
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .. import words
from ..encoding.board import Board, render
from ..errors import InvalidBoardError, InvalidGameError, SearchDeferred, SearchInterrupted, SearchTimeout, quote
from ..rules.game import Game
from ..rules.score import UNREACHABLE, Result, decode
from .answer import Answer, score_byte
from .bitboard import NOT_PLAIN, centre_first
from .book import Book
from .kernel import direct, mark_compiled
from .negamax import (
    ANSWER_SLOTS,
    HELPER,
    LIMIT,
    MOVE_KEYS,
    NO_MOVE,
    NODES,
    NOT_SEARCHED,
    STOP,
    answer_items,
    new_control,
    reset_control,
    short_answer_string,
    short_solve_moves,
    short_solve_string,
    solve,
    solve_move,
)
from .options import DEFAULT_TABLE_BYTES, Progress, checked_budget
from .ordering import scratch
from .position import Moves, Position, cell_of, engine_game, from_moves, geometry_of, key_of, position_of
from .transposition import new_table

PROGRESS_SECONDS = 0.5
"""How often, in seconds, a search calls its ``progress`` hook."""

STOP_POLL_SECONDS = 0.1
"""How often the caller looks at a ``stop`` event while the threads search (the answer itself comes as soon as the
threads end: the caller waits on their end, not in a loop)."""

WAKE_SECONDS = 0.25
"""The longest the caller waits for the threads without looking up: an interrupt that comes as no signal
(``_thread.interrupt_main``) is seen within it. The answer itself comes when the threads end, not at a wake-up."""

SHORT_NODES = 20_000
"""Positions a search visits in the caller's thread before it is handed to the worker threads (a few milliseconds,
uninterruptible): Pons' easy sets end within it, where starting threads would cost more than the search."""

HELP_AFTER_SECONDS = 0.01
"""How long a job runs before a thread with no job left helps it (:class:`_Workers`): a shorter search is not worth a
second thread's CPU."""

SHORT = np.int64(SHORT_NODES)

_FORKS = [0]
"""How many forks made this process (one more in a child than in its parent at the fork): an engine's table belongs to
the process it was made in (:attr:`Engine._table`), told without a system call a look-up."""

_ENGINES: weakref.WeakSet[Engine] = weakref.WeakSet()
"""Every engine of this process, whose lanes a fork drops (:func:`_forked`)."""


def _forked() -> None:
    """In a forked child: count the fork, and drop every engine's lanes, which are bound to the parent's table (a new
    lane binds the child's own, :attr:`Engine._table`)."""
    _FORKS[0] += 1
    for engine in list(_ENGINES):
        engine._lanes.clear()


if hasattr(os, "register_at_fork"):  # no fork, no hook (Windows)
    os.register_at_fork(after_in_child=_forked)


class _Lane(NamedTuple):
    """What a short search in the caller's thread works with (:meth:`Engine._lane`): its control, its scratch rows, the
    position's two board words and the moves' answer (:func:`~solver.search.negamax.short_solve_moves`), kept from
    one search to the next."""

    control: np.ndarray
    rows: np.ndarray
    words: np.ndarray
    out: np.ndarray
    answer: Callable[[bytes], None]
    """:func:`~solver.search.negamax.short_answer_string` on this lane's arrays and its engine's, a move string's bytes
    its one argument (:meth:`Engine.string_answer`): bound once, so that a look-up reads no attribute to call it."""


Short = tuple[list[Any], int]
"""What a short search in the caller's thread found (:meth:`Engine._short`): each job's answer (None for a job it did not
finish), and the positions it visited."""

Job = tuple[Callable[..., Any], tuple[Any, ...]]
"""One search of a position: a kernel and its own arguments (a column for :func:`~solver.search.negamax.solve_move`)."""


@dataclass(frozen=True)
class MoveValue:
    """One move's value for the player making it.

    :param column: the column, 0 to ``cols - 1`` (the move string writes ``column + 1``).
    :param cell: the cell the piece lands on (``row * cols + col``, row 0 the top).
    :param score: the score byte for the mover (:mod:`solver.rules.score`).
    :param result: ``'win'``, ``'draw'`` or ``'loss'`` for the mover.
    :param plies: plies from the position (this move included) to the end under perfect play.
    """

    column: int
    cell: int
    score: int
    result: Result
    plies: int


@dataclass(frozen=True)
class Solution:
    """A position's exact answer, for the side to move.

    :param code: the board's base-3 code.
    :param score: the score byte (:mod:`solver.rules.score`), for the side to move.
    :param result: ``'win'``, ``'draw'`` or ``'loss'`` for the side to move.
    :param plies: plies to the end under perfect play.
    :param moves: every legal move's value, in column order (empty when only the root was asked for).
    :param nodes: positions the search visited; :param seconds: wall time it took.
    """

    game: Game
    code: int
    score: int
    result: Result
    plies: int
    moves: tuple[MoveValue, ...]
    nodes: int
    seconds: float

    @property
    def best(self) -> tuple[int, ...]:
        """The columns (0-based) of the best moves: every move with the position's score."""
        return tuple(move.column for move in self.moves if move.score == self.score)


def _moves_answered(found: list[int], cols: int, pair: Callable[[int], tuple[int, int]]) -> Answer | None:
    """The answer in the items of a short search of every move (:func:`~solver.search.negamax.short_solve_moves`),
    None when it did not value every move; ``pair``: a move key's ``(cell, byte)`` (:func:`move_pairs`)."""
    count = found[cols]
    if count < 0:
        return None
    return _new(Answer, (found[2 * cols + 1], found[2 * cols + 2], tuple(map(pair, found[cols + 1 : cols + 1 + count]))))


@functools.cache
def move_pairs(cells: int) -> tuple[tuple[int, int], ...]:
    """Every move key of a board of ``cells`` cells (:data:`~solver.search.negamax.MOVE_KEYS`) as its ``(cell, score
    byte)`` pair, at the key's index: made once, so that a look-up's moves are read from the kernel's keys and no
    pair is made a look-up (7 pairs: 0.47 against 0.74 µs to zip them, ``timeit``, 2026-12-05).

    >>> pairs = move_pairs(42)
    >>> pairs[3 * MOVE_KEYS + 97 - UNREACHABLE], len(pairs) == 42 * MOVE_KEYS
    ((3, 97), True)
    """
    return tuple((key // MOVE_KEYS, key % MOVE_KEYS + UNREACHABLE) for key in range(cells * MOVE_KEYS))


class StringAnswer(NamedTuple):
    """What :meth:`Engine.string_answer` found: the position's code and pieces, the positions the short try visited,
    and the position's answer; or, when the try did not value every move, no answer and ``tried``: the position and
    what the try found (for :meth:`Engine.move_scores`'s ``tried``)."""

    code: int
    pieces: int
    nodes: int
    answer: Answer | None
    tried: tuple[Position, Short] | None


_new = tuple.__new__
"""Makes a named tuple from a tuple of its fields without its Python ``__new__`` (a look-up makes two: 0.2 us each)."""


class Engine:
    """The exact search of one gravity game (module docstring).

    :param game: a gravity game in normal play whose board fits 64 bits (``"connect4"``, ``"6x7k4-gravity"``,
        ``"7x7k4-gravity"``, ``"4x5k4-gravity"``...).
    :param table_bytes: the transposition table's size in bytes (rounded down to a power of two, at least 1 MiB).
    :param book: exact scores of the early positions (:class:`solver.search.book.Book`), or None.
    :param threads: the search threads sharing the table (None: one a core this process may use,
        :func:`usable_cores`): the moves of a position (:meth:`solve`) are valued in parallel, one a thread at a
        time, and a thread with no move left helps one still searched; a position's own score (:meth:`score`) is
        searched by one thread, helped by the others once it has run :data:`HELP_AFTER_SECONDS` (:class:`_Workers`).
    :raises InvalidGameError: for a misère, non-gravity or too big game, or a book of another game.
    :raises ValueError: for fewer than one thread; :raises InvalidValueError: for a ``table_bytes`` past the machine's
        memory (:class:`~solver.errors.InvalidArgumentError` for one that is not an int).
    """

    def __init__(self, game: Game | str = "connect4", *, table_bytes: int = DEFAULT_TABLE_BYTES, book: Book | None = None, threads: int | None = None) -> None:
        self.game = engine_game(game)
        self.threads = usable_cores() if threads is None else threads
        if self.threads < 1:
            raise ValueError(f"an engine needs at least one search thread, not {self.threads}")
        self._geo = geometry_of(self.game)
        self._memory, self._owner = new_table(table_bytes), _FORKS[0]
        self._scratches = [scratch(self.game.rows, self.game.cols) for _ in range(self.threads)]
        self._controls = [new_control() for _ in range(self.threads)]
        self._scratch, self._control = self._scratches[0], self._controls[0]
        self._lock = threading.Lock()
        self._lanes: list[_Lane] = []
        self._columns = centre_first(self.game.cols)
        self._move_jobs: list[Job] = [(solve_move, (np.int64(c),)) for c in self._columns]
        self._landings = [tuple(cell_of(self.game, c * (self.game.rows + 1) + h) for h in range(self.game.rows)) for c in range(self.game.cols)]
        self._half_power = 3 ** (self.game.cells // 2)  # a code's high part's weight (code_parts)
        self._cols = self.game.cols
        self._answer_at = answer_items(self.game.cols)  # short_answer_string's pieces, then the code's parts, in its out
        self._landing_cells = np.array([cell for column in self._landings for cell in column], dtype=np.int64)  # by column * rows + height
        self._pair = move_pairs(self.game.cells).__getitem__
        self._nodes = 0
        self._book = _book_arrays(self.game, book)
        self._load_kernels()

    def _load_kernels(self) -> None:
        """Compile or load the kernels now (numba does it at a kernel's first call in a process: a second or two), so
        that a search's budget is the search's own: the kernels are called once with the stop flag set (the short ones
        on a string they do not play, and with a limit of one node)."""
        control = new_control()
        control[STOP] = 1
        shared = (self._geo, self._table, self._book, control, self._scratches[0])
        solve(np.uint64(0), np.uint64(0), *shared)
        solve_move(np.uint64(0), np.uint64(0), np.int64(0), *shared)
        short_solve_string(b"0", SHORT, *shared)
        words, out = self._lane_words(), self._lane_out()
        short_solve_moves(words, np.int64(1), out, self._landing_cells, *shared)
        short_answer_string(np.int64(1), words, out, self._landing_cells, *shared, b"0")
        self._answer_string = direct(short_answer_string, SHORT, words, out, self._landing_cells, *shared, b"0")
        self._solve_string = direct(short_solve_string, b"0", SHORT, *shared)
        _ENGINES.add(self)
        mark_compiled()

    @property
    def nodes(self) -> int:
        """The positions the last search searched, in every thread (as Steininger's ``c4`` counts them: not the children
        it settled without a search, :func:`~solver.search.negamax.settle`)."""
        return self._nodes

    @property
    def table_bytes(self) -> int:
        """The transposition table's size in bytes."""
        return int(self._table.nbytes)

    @property
    def _table(self) -> np.ndarray:
        """The transposition table; a process forked from the one that made it gets a fresh one of its own (the
        server's workers): it never writes to the inherited pages, so none is copied inside a search."""
        if self._owner != _FORKS[0]:
            self._memory, self._owner = new_table(self._memory.nbytes), _FORKS[0]
        return self._memory

    def clear(self) -> None:
        """Empty the transposition table (answers stay the same; the next searches start cold)."""
        with self._lock:
            self._table[:] = 0

    def position(self, board: Board | Position | None = None, moves: Moves | None = None) -> Position:
        """The checked position of a board or of a move string (exactly one of them).

        :raises InvalidBoardError: saying what is wrong and where (:mod:`solver.search.position`).
        """
        if isinstance(board, Position):
            return board
        if (board is None) == (moves is None):
            raise InvalidBoardError("give a board or a move string, one of them")
        if moves is not None:
            return from_moves(self.game, moves, self._geo)
        assert board is not None
        return position_of(self.game, board)

    def solve(
        self,
        board: Board | Position | None = None,
        *,
        moves: Moves | None = None,
        budget: float | None = None,
        progress: Progress | None = None,
        stop: threading.Event | None = None,
        short_only: bool = False,
    ) -> Solution:
        """The exact value and plies of a position and of every move in it.

        :param board: the board (anything :func:`solver.encoding.board.parse` reads, or a checked
            :class:`~solver.search.position.Position`, e.g. from ``position_of_key``), or
        :param moves: the move string that reaches it (``"4453"``: columns 1 to ``cols``).
        :param budget: seconds the search may take, None for no limit (or ``inf``).
        :param progress: called with ``(nodes, seconds)`` about every :data:`PROGRESS_SECONDS`; an exception it
            raises stops the search and goes on to the caller.
        :param stop: an event that stops the search when set (a server's client gone), within :data:`STOP_POLL_SECONDS`.
        :param short_only: answer only if the first :data:`SHORT_NODES` positions suffice, else raise
            :class:`~solver.errors.SearchDeferred` (no thread started).
        :raises InvalidArgumentError: for a budget that is not a number; :raises InvalidValueError: for ``nan`` or a
            negative one, before any search (:func:`~solver.search.options.checked_budget`).
        :raises SearchTimeout: at the budget; :raises SearchInterrupted: at Ctrl-C or ``stop`` (nothing wrong is kept).
        """
        budget = checked_budget(budget)
        where = self.position(board, moves)
        start = time.monotonic()
        score, scored = self.move_scores(where, budget=budget, progress=progress, stop=stop, short_only=short_only)
        empty = self.game.cells - where.pieces
        moves_out = tuple(MoveValue(cell % self.game.cols, cell, byte, *decode(byte, empty)) for cell, byte in scored)
        result, plies = decode(score, empty)
        return Solution(self.game, where.code, score, result, plies, moves_out, self.nodes, time.monotonic() - start)

    def move_scores(
        self,
        where: Position,
        *,
        budget: float | None = None,
        progress: Progress | None = None,
        stop: threading.Event | None = None,
        short_only: bool = False,
        tried: Short | None = None,
    ) -> tuple[int, tuple[tuple[int, int], ...]]:
        """:meth:`solve` of a checked position (:meth:`position`) without the objects: the position's score byte for
        the side to move, and each legal move's ``(cell, score byte)`` for the player making it, by cell (the cell its
        piece lands on: ``row * cols + col``, row 0 the top). What a table-like reader keeps of an answer
        (:class:`solver.store.searched.SearchTable`); the parameters and errors are :meth:`solve`'s.

        A search that the short try finishes (every move near the end) is answered as the compiled call gives it
        (:func:`~solver.search.negamax.moves_answer`), with nothing else made; ``tried``: what a short try of this
        position already found (:attr:`StringAnswer.tried`), which the search goes on from instead of trying again."""
        budget = checked_budget(budget)
        answered: list[tuple[int, tuple[tuple[int, int], ...]]] = []
        short = (lambda _: tried) if tried is not None else (lambda at: self._short_moves(at, answered))
        scores = self._run(self._move_jobs, where, _limits(budget, progress, stop, short_only), short)
        if answered:
            return answered[0]
        stride, field, pieces, cells = self.game.rows + 1, (1 << self.game.rows + 1) - 1, where.pieces, self.game.cells
        scored = []
        for column, score in zip(self._columns, scores, strict=True):
            if score != NO_MOVE:
                height = (where.mask >> column * stride & field).bit_length()  # the pieces in the column
                scored.append((self._landings[column][height], score_byte(int(score), pieces, cells)))
        scored.sort()
        return max(byte for _, byte in scored), tuple(scored)

    def score(
        self,
        board: Board | Position | None = None,
        *,
        moves: Moves | None = None,
        budget: float | None = None,
        progress: Progress | None = None,
        stop: threading.Event | None = None,
        short_only: bool = False,
    ) -> int:
        """The exact score byte of a position for the side to move (:mod:`solver.rules.score`), the moves not valued
        (the parameters as :meth:`solve`'s)."""
        budget = checked_budget(budget)
        short = None
        if board is None and type(moves) is str and moves.isascii():
            short = self._short_string(moves)
            if short is not None and short[0][0] is not None:
                self._nodes = short[1]
                return score_byte(int(short[0][0]), len(moves), self.game.cells)  # every byte a move: the pieces
        where = self.position(board, moves)
        known = self._from_book(where)
        if known is not None:
            return known
        tried = None if short is None else lambda _: short  # what the string's short search found: not searched again
        found = self._run([(solve, ())], where, _limits(budget, progress, stop, short_only), tried)
        return score_byte(int(found[0]), where.pieces, self.game.cells)

    def _from_book(self, where: Position) -> int | None:
        """The score byte the book holds for the position itself (the root, read before any search starts), or None."""
        keys, scores, depth = self._book
        if where.pieces > depth:
            return None
        key = np.uint64(key_of(self.game, where))
        at = int(np.searchsorted(keys, key))
        return int(scores[at]) if at < keys.size and keys[at] == key else None

    def _run(self, jobs: list[Job], where: Position, limits: _Limits, short: Callable[[Position], Short] | None = None) -> list[Any]:
        """Each job's answer on a position: first in this thread up to :data:`SHORT_NODES` positions in all
        (:meth:`_short`, or ``short``: a compiled short search of the jobs, :meth:`_short_moves`), then the jobs left
        by worker threads that share the table and take them in turn, while this thread waits for their end
        (:meth:`_handed_off`)."""
        start = time.monotonic()
        try:
            found, nodes = self._short(jobs, where) if short is None else short(where)
        except KeyboardInterrupt:
            raise SearchInterrupted(self._stopped(where, start, "at Ctrl-C", 0), seconds=time.monotonic() - start) from None
        self._nodes = nodes
        left = [index for index, answer in enumerate(found) if answer is None]
        if not left:
            return found
        if limits.short_only:
            why = f"after its first {SHORT_NODES:,} positions (short_only)"
            raise SearchDeferred(self._stopped(where, start, why, nodes), seconds=time.monotonic() - start, nodes=nodes)
        answers = self._handed_off([jobs[index] for index in left], where, limits, start, nodes)
        for index, answer in zip(left, answers, strict=True):
            found[index] = answer
        return found

    def _short(self, jobs: list[Job], where: Position) -> tuple[list[Any], int]:
        """The jobs' answers searched in this thread until :data:`SHORT_NODES` positions in all (None for each job not
        finished then), and the positions visited; on a lane (a control and a scratch array) of its own, so that
        it runs beside a long search of the same engine."""
        lane = self._lane()
        control, rows = lane.control, lane.rows
        try:
            reset_control(control)
            control[LIMIT] = SHORT_NODES
            found: list[Any] = [None] * len(jobs)
            head = (np.uint64(where.pos), np.uint64(where.mask))
            shared = (self._geo, self._table, self._book, control, rows)
            for index, (kernel, extra) in enumerate(jobs):
                answer = kernel(*head, *extra, *shared)
                if control[STOP]:
                    break
                found[index] = answer
            return found, int(control[NODES])
        finally:
            self._lanes.append(lane)

    def _short_moves(self, where: Position, answered: list[tuple[int, tuple[tuple[int, int], ...]]]) -> Short:
        """:meth:`_short` of every move of a position (the jobs of :meth:`solve`, in :attr:`_columns` order), searched by
        one compiled call (:func:`~solver.search.negamax.short_solve_moves`): a call a move cost more than the
        searches near the end of a game. When every move is done, :meth:`move_scores`'s answer goes into ``answered``."""
        lane = self._lane()
        control, out, words = lane.control, lane.out, lane.words
        try:
            cols = self.game.cols
            words[0], words[1] = where.pos, where.mask
            short_solve_moves(words, SHORT, out, self._landing_cells, self._geo, self._table, self._book, control, lane.rows)
            found = out.tolist()
            done = _moves_answered(found, cols, self._pair)
            if done is not None:  # every move valued: no job is left
                answered.append((done.score, done.scored))
                return [], control.item(NODES)
            return self._left(found), control.item(NODES)
        finally:
            self._lanes.append(lane)

    def _left(self, found: list[int]) -> list[Any]:
        """Each move's Pons score from a short search's items, in :attr:`_columns` order, None where it did not finish."""
        return [None if found[c] == NOT_SEARCHED else found[c] for c in self._columns]

    def string_answer(self, moves: str) -> StringAnswer | None:
        """The code and pieces of the checked position a move string reaches, and its :class:`Answer` when the short
        try values every move in this thread (else what the try found, which :meth:`move_scores` goes on from:
        :class:`StringAnswer`); None for a string not played plainly (:meth:`position` reads it and says what is wrong).

        One compiled call (:func:`~solver.search.negamax.short_answer_string`): the string played, checked, its code
        made and every move valued, for a position near the end whose search takes microseconds, so that a look-up's
        fixed cost stays small beside it: one list read from the call, two tuples made. No budget applies: the try
        stops at :data:`SHORT_NODES` positions.

        :raises SearchInterrupted: at Ctrl-C (seen once the compiled call returns).
        """
        try:
            text = moves.encode("ascii")
        except UnicodeEncodeError:
            return None
        try:
            lane = self._lanes.pop()
        except IndexError:
            lane = self._lane()
        try:
            lane.answer(text)
            found = lane.out.tolist()
            at = self._answer_at
            pieces = found[at]
            if pieces == NOT_PLAIN:
                return None
            code, nodes = found[at + 1] + found[at + 2] * self._half_power, found[at + 3]
            self._nodes = nodes
            answer = _moves_answered(found, self._cols, self._pair)
            if answer is not None:
                return _new(StringAnswer, (code, pieces, nodes, answer, None))
            pos, mask = lane.words.tolist()
        except KeyboardInterrupt:
            why = f"the search of the position after {quote(moves)} ({self.game.name}) stopped at Ctrl-C after {int(lane.control[NODES]):,} positions"
            raise SearchInterrupted(why, nodes=int(lane.control[NODES])) from None
        finally:
            self._lanes.append(lane)
        where = _new(Position, (pos, mask, pieces, code))
        return _new(StringAnswer, (code, pieces, nodes, None, (where, (self._left(found), nodes))))

    def _short_string(self, moves: str) -> Short | None:
        """:meth:`_short` of :meth:`score`'s one job on the position a move string reaches, the string played and
        searched in one compiled call (:func:`~solver.search.negamax.short_solve_string`); None for a string it does not
        play plainly or a position the book may hold (read and answered the general way, which says what is wrong)."""
        lane = self._lane()
        control, rows = lane.control, lane.rows
        try:
            found = self._solve_string(moves.encode(), SHORT, self._geo, self._table, self._book, control, rows)
            if found == NOT_SEARCHED:
                return None
            return [None if control[STOP] else found], int(control[NODES])
        except KeyboardInterrupt:  # seen once the kernel returned
            nodes = int(control[NODES])
            why = f"the search of the position after {quote(moves)} ({self.game.name}) stopped at Ctrl-C after {nodes:,} positions"
            raise SearchInterrupted(why, nodes=nodes) from None
        finally:
            self._lanes.append(lane)

    def _lane(self) -> _Lane:
        """The arrays of a short search in the caller's thread (:class:`_Lane`), given back to :attr:`_lanes` after it
        (one lane a thread searching at once: ``list.pop`` and ``append`` are atomic)."""
        try:
            return self._lanes.pop()
        except IndexError:
            control, rows, words, out = new_control(), scratch(self.game.rows, self.game.cols), self._lane_words(), self._lane_out()
            answer = functools.partial(self._answer_string, SHORT, words, out, self._landing_cells, self._geo, self._table, self._book, control, rows)
            return _Lane(control, rows, words, out, answer)

    def _lane_words(self) -> np.ndarray:
        """A lane's two board words (:class:`_Lane`)."""
        return np.zeros(2, dtype=np.uint64)

    def _lane_out(self) -> np.ndarray:
        """A lane's answer items (:func:`~solver.search.negamax.short_answer_string`)."""
        return np.empty(answer_items(self.game.cols) + ANSWER_SLOTS, dtype=np.int64)

    def _handed_off(self, jobs: list[Job], where: Position, limits: _Limits, start: float, nodes: int) -> list[Any]:
        """The jobs searched by the worker threads (:class:`_Workers`), within the budget from ``start`` (waiting for
        another search of this engine included). Whatever ends the wait, the threads have stopped when this returns or
        raises, and only then do the arrays serve another search."""
        wait = None if limits.budget is None else max(0.0, limits.budget - (time.monotonic() - start))
        if not self._lock.acquire(timeout=-1 if wait is None else wait):
            why = f"at its budget of {words.seconds(limits.budget or 0.0)} s, waiting for another search of this engine"
            raise SearchTimeout(self._stopped(where, start, why, nodes), nodes=nodes)
        try:
            for control in self._controls:
                reset_control(control)
            search = _Workers(jobs, functools.partial(self._args, where), self._controls)
            try:
                self._wait(search, where, start, limits, nodes)
            except KeyboardInterrupt:
                search.stop()
                self._nodes = nodes + search.nodes()
                raise SearchInterrupted(self._stopped(where, start, "at Ctrl-C"), seconds=time.monotonic() - start, nodes=self.nodes) from None
            finally:
                search.stop()  # whatever ended the wait: the threads stop, and are joined, before the lock is released
                self._nodes = nodes + search.nodes()
            return search.answers()
        finally:
            self._lock.release()

    def _args(self, where: Position, extra: tuple[Any, ...], thread: int) -> tuple[Any, ...]:
        """A kernel's arguments: the position, the job's own, then what the kernels share and the thread's own."""
        shared = (self._geo, self._table, self._book, self._controls[thread], self._scratches[thread])
        return (np.uint64(where.pos), np.uint64(where.mask), *extra, *shared)

    def _wait(self, search: _Workers, where: Position, start: float, limits: _Limits, nodes: int) -> None:
        """Wait for the threads' end, calling ``progress`` on time; raise at the budget or at ``stop``."""
        shown = start
        while True:
            now = time.monotonic()
            if limits.stop is not None and limits.stop.is_set():
                raise SearchInterrupted(
                    self._stopped(where, start, "as its caller asked", nodes + search.nodes()), seconds=now - start, nodes=nodes + search.nodes()
                )
            if limits.budget is not None and now - start >= limits.budget:
                seconds, searched = now - start, nodes + search.nodes()
                why = f"at its budget of {words.seconds(limits.budget)} s"
                raise SearchTimeout(self._stopped(where, start, why, searched), seconds=seconds, nodes=searched)
            if limits.progress is not None and now - shown >= PROGRESS_SECONDS:
                shown = now
                limits.progress(nodes + search.nodes(), now - start)
            if search.wait(limits.timeout(now, start, shown)):
                return

    def _stopped(self, where: Position, start: float, why: str, nodes: int | None = None) -> str:
        seconds = time.monotonic() - start
        board = render(self.game, where.code)
        searched = self.nodes if nodes is None else nodes
        return f"the search of {board} ({self.game.name}) stopped {why} after {seconds:.2f} s and {searched:,} positions"


class _Limits(NamedTuple):
    """What bounds one search: its budget (seconds, checked), progress hook, stop event, and whether only a short
    search is wanted (:meth:`Engine.solve`). A tuple: made for every call, a third of a frozen dataclass's cost."""

    budget: float | None
    progress: Progress | None
    stop: threading.Event | None
    short_only: bool

    def timeout(self, now: float, start: float, shown: float) -> float:
        """How long the caller may wait for the threads before it must act (the budget, the progress, the stop event)."""
        due = [WAKE_SECONDS]
        if self.budget is not None:
            due.append(start + self.budget - now)
        if self.progress is not None:
            due.append(shown + PROGRESS_SECONDS - now)
        if self.stop is not None:
            due.append(STOP_POLL_SECONDS)
        return max(0.0, min(due))


_NO_LIMITS = _Limits(None, None, None, False)


def _limits(budget: float | None, progress: Progress | None, stop: threading.Event | None, short_only: bool) -> _Limits:
    """A search's :class:`_Limits` (the one without any made once: a plain look-up makes no object for it)."""
    if budget is None and progress is None and stop is None and not short_only:
        return _NO_LIMITS
    return _Limits(budget, progress, stop, short_only)


class _Workers:
    """The threads of one search: each takes the next job and runs it with its own control and scratch arrays.

    A thread that finds no job left helps the job still running that has the fewest threads (once it has run
    :data:`HELP_AFTER_SECONDS`), searching it in the same table with windows of its own (``control[HELPER]``: how
    many threads were on the job when it joined, :func:`~solver.search.negamax.solve`). The first thread to finish
    a job gives its answer and stops the others on it: a Lazy SMP search (Steininger's ``c4`` searches so, its
    threads' move orders varied by random noise; here they differ by their windows, with no randomness). The
    answers come back in the jobs' order; :meth:`wait` returns as soon as the last thread has ended.
    """

    def __init__(self, jobs: list[Job], args: Callable[[tuple[Any, ...], int], tuple[Any, ...]], controls: list[np.ndarray]) -> None:
        self._jobs = jobs
        self._args = args
        self._found: list[Any] = [None] * len(jobs)
        self._next = 0
        self._started: dict[int, float] = {}
        self._on: list[set[int]] = [set() for _ in jobs]
        self._halted = False
        self._state = threading.Condition()
        self._controls = controls
        self._running = len(controls)
        self._ended = threading.Event()
        self._threads = [threading.Thread(target=self._work, args=(i,), name="solver-search", daemon=True) for i in range(len(controls))]
        try:
            for thread in self._threads:
                thread.start()
        except BaseException:
            self._threads = [thread for thread in self._threads if thread.ident is not None]
            self.stop()
            raise

    def _take(self, thread: int) -> int | None:
        """The job this thread runs next (a new one, else one to help), None when there is none; under the lock."""
        while not self._halted:
            if self._next < len(self._jobs):
                self._next += 1
                job, self._controls[thread][HELPER] = self._next - 1, 0
                self._started[job] = time.monotonic()
            else:
                open_jobs = [job for job in self._started if self._found[job] is None]
                if not open_jobs:
                    return None
                job = min(open_jobs, key=lambda j: (len(self._on[j]), self._started[j]))
                wait = self._started[job] + HELP_AFTER_SECONDS - time.monotonic()
                if wait > 0:
                    self._state.wait(wait)
                    continue
                self._controls[thread][HELPER] = len(self._on[job])
            self._controls[thread][STOP] = 0
            self._on[job].add(thread)
            return job
        return None

    def _work(self, thread: int) -> None:
        try:
            with self._state:
                job = self._take(thread)
            while job is not None:
                kernel, extra = self._jobs[job]
                found = kernel(*self._args(extra, thread))
                with self._state:
                    self._on[job].discard(thread)
                    if not self._controls[thread][STOP] and self._found[job] is None:
                        self._found[job] = found
                        for other in self._on[job]:
                            self._controls[other][STOP] = 1
                    self._state.notify_all()
                    job = self._take(thread)
        finally:
            with self._state:
                self._running -= 1
                if not self._running:
                    self._ended.set()

    def wait(self, timeout: float | None) -> bool:
        """Whether every thread has ended, waiting up to ``timeout`` seconds (None: until they have)."""
        return self._ended.wait(timeout)

    def nodes(self) -> int:
        """The positions the threads have visited so far."""
        return sum(int(control[NODES]) for control in self._controls)

    def stop(self) -> None:
        """Stop every thread and wait for them (what they stored in the table stays true); a second call, or a call
        once they have ended, only joins them. A ``KeyboardInterrupt`` while joining does not cut the join short: it
        is raised once every thread has ended, so that no thread searches on arrays that serve another search."""
        with self._state:
            if not self._ended.is_set():
                self._halted = True
                for control in self._controls:
                    control[STOP] = 1
            self._state.notify_all()
        interrupted: BaseException | None = None
        for thread in self._threads:
            while thread.is_alive():
                try:
                    thread.join()
                except BaseException as error:  # noqa: BLE001 - joined to the end, then raised (docstring)
                    interrupted = error
        if interrupted is not None:
            raise interrupted

    def answers(self) -> list[Any]:
        """The answers of every job, once every thread has ended unstopped."""
        for thread in self._threads:
            thread.join()
        if self._halted or any(found is None for found in self._found):
            raise RuntimeError("the search's worker threads ended without every answer")
        return self._found


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system says, else the machine's count)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _book_arrays(game: Game, book: Book | None) -> tuple[np.ndarray, np.ndarray, np.int64]:
    """The book as the kernels read it: sorted keys, score bytes and depth (-1: no book)."""
    if book is None:
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int8), np.int64(-1)
    if book.game != game:
        raise InvalidGameError(f"the book is for {book.game.name}, the engine plays {game.name}")
    keys, scores = book.arrays()
    return np.ascontiguousarray(keys, dtype=np.uint64), np.ascontiguousarray(scores, dtype=np.int8), np.int64(book.depth)
