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

**Bounds.** The table's size is fixed when the engine is made (``table_bytes``); a search can
be given a time budget (``budget``, seconds) and stops at Ctrl-C: it runs in a worker thread
(the kernel releases the GIL) that polls a stop flag, while the caller waits in short joins;
then :class:`~solver.errors.SearchTimeout` or :class:`~solver.errors.SearchInterrupted` is
raised, saying how long it ran. What the search stored before it stopped is true (nothing
aborted is stored), so the engine answers the next question exactly. ``progress`` is called
with the nodes searched and the seconds elapsed about every :data:`PROGRESS_SECONDS`.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..encoding.board import Board, render
from ..errors import InvalidBoardError, InvalidGameError, SearchInterrupted, SearchTimeout
from ..rules.game import Game
from ..rules.score import WIN, Result, decode
from .bitboard import centre_first
from .book import Book
from .negamax import CONTROL_SLOTS, HELPER, NO_MOVE, NODES, STOP, solve, solve_move
from .options import DEFAULT_TABLE_BYTES, Progress, budget_seconds
from .ordering import scratch
from .position import Moves, Position, cell_of, engine_game, from_moves, geometry_of, key_of, position_of
from .transposition import new_table

PROGRESS_SECONDS = 0.5
"""How often, in seconds, a search calls its ``progress`` hook."""

POLL_SECONDS = 0.02
"""How long the caller waits in one join of the worker thread: the delay of Ctrl-C and of the budget."""

INLINE_EMPTY = 14
"""Positions with at most this many empty cells are searched in the caller's thread: milliseconds at most (Pons'
"easy" sets), where starting a worker thread would cost more than the search."""

HELP_AFTER_SECONDS = 0.01
"""How long a job runs before a thread with no job left helps it (:class:`_Workers`): a shorter search is not worth a
second thread's CPU."""

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


def score_byte(score: int, pieces: int, cells: int) -> int:
    """The project's score byte of a Pons score (:mod:`solver.search.negamax`) of a position with ``pieces`` pieces.

    >>> score_byte(18, 4, 42), score_byte(-15, 11, 42), score_byte(0, 9, 42)  # win in 3, loss in 2, draw
    (97, -98, 0)
    """
    if score == 0:
        return 0
    last = cells - 2 * (abs(score) - 1)
    if (last - pieces) % 2 != (score > 0):
        last -= 1
    plies = last - pieces
    return WIN - plies if score > 0 else plies - WIN


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
        self._memory, self._owner = new_table(table_bytes), os.getpid()
        self._scratches = [scratch(self.game.rows, self.game.cols) for _ in range(self.threads)]
        self._controls = [np.zeros(CONTROL_SLOTS, dtype=np.int64) for _ in range(self.threads)]
        self._scratch, self._control = self._scratches[0], self._controls[0]
        self._lock = threading.Lock()
        self._book = _book_arrays(self.game, book)
        self._load_kernels()

    def _load_kernels(self) -> None:
        """Compile or load the kernels now (numba does it at a kernel's first call in a process: a second or two), so
        that a search's budget is the search's own: the kernels are called once with the stop flag set."""
        control = np.zeros(CONTROL_SLOTS, dtype=np.int64)
        control[STOP] = 1
        shared = (self._geo, self._table, self._book, control, self._scratches[0])
        solve(np.uint64(0), np.uint64(0), *shared)
        solve_move(np.uint64(0), np.uint64(0), np.int64(0), *shared)

    @property
    def nodes(self) -> int:
        """The positions the last search visited, in every thread."""
        return sum(int(control[NODES]) for control in self._controls)

    @property
    def table_bytes(self) -> int:
        """The transposition table's size in bytes."""
        return int(self._table.nbytes)

    @property
    def _table(self) -> np.ndarray:
        """The transposition table; a process forked from the one that made it gets a fresh one of its own (the
        server's workers): it never writes to the inherited pages, so none is copied inside a search."""
        if self._owner != os.getpid():
            self._memory, self._owner = new_table(self._memory.nbytes), os.getpid()
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
            return from_moves(self.game, moves)
        assert board is not None
        return position_of(self.game, board)

    def solve(
        self, board: Board | Position | None = None, *, moves: Moves | None = None, budget: float | None = None, progress: Progress | None = None
    ) -> Solution:
        """The exact value and plies of a position and of every move in it.

        :param board: the board (anything :func:`solver.encoding.board.parse` reads, or a checked
            :class:`~solver.search.position.Position`, e.g. from ``position_of_key``), or
        :param moves: the move string that reaches it (``"4453"``: columns 1 to ``cols``).
        :param budget: seconds the search may take, None for no limit.
        :param progress: called with ``(nodes, seconds)`` about every :data:`PROGRESS_SECONDS`.
        :raises SearchTimeout: at the budget; :raises SearchInterrupted: at Ctrl-C (nothing wrong is kept).
        :raises InvalidArgumentError: for a budget that is not a number; :raises InvalidValueError: for ``nan`` or a
            negative one (:func:`~solver.search.options.budget_seconds`).
        """
        budget = budget_seconds(budget)  # a bad budget refused before a thread starts
        where = self.position(board, moves)
        start = time.monotonic()
        columns = centre_first(self.game.cols)
        scores = self._run([(solve_move, (np.int64(c),)) for c in columns], where, budget, progress)
        found = sorted((c, int(s)) for c, s in zip(columns, scores, strict=True) if s != NO_MOVE)
        moves_out = tuple(self._move_value(where, c, s) for c, s in found)
        best = max(s for _, s in found)
        return self._solution(where, best, moves_out, start)

    def score(self, board: Board | Position | None = None, *, moves: Moves | None = None, budget: float | None = None, progress: Progress | None = None) -> int:
        """The exact score byte of a position for the side to move (:mod:`solver.rules.score`), the moves not valued."""
        budget = budget_seconds(budget)
        where = self.position(board, moves)
        known = self._from_book(where)
        if known is not None:
            return known
        return score_byte(int(self._run([(solve, ())], where, budget, progress)[0]), where.pieces, self.game.cells)

    def _from_book(self, where: Position) -> int | None:
        """The score byte the book holds for the position itself (the root, read before any search starts), or None."""
        keys, scores, depth = self._book
        if where.pieces > depth:
            return None
        key = np.uint64(key_of(self.game, where))
        at = int(np.searchsorted(keys, key))
        return int(scores[at]) if at < keys.size and keys[at] == key else None

    def _solution(self, where: Position, best: int, moves: tuple[MoveValue, ...], start: float) -> Solution:
        score = score_byte(best, where.pieces, self.game.cells)
        result, plies = decode(score, self.game.cells - where.pieces)
        return Solution(self.game, where.code, score, result, plies, moves, self.nodes, time.monotonic() - start)

    def _move_value(self, where: Position, column: int, score: int) -> MoveValue:
        landing = (where.mask + (1 << column * (self.game.rows + 1))) & ~where.mask
        byte = score_byte(score, where.pieces, self.game.cells)
        result, plies = decode(byte, self.game.cells - where.pieces)
        return MoveValue(column, cell_of(self.game, landing.bit_length() - 1), byte, result, plies)

    def _run(self, jobs: list[Job], where: Position, budget: float | None, progress: Progress | None) -> list[Any]:
        """Each job's answer on a position: searched by worker threads that share the table and take the jobs in
        turn, while the caller waits in short joins (module docstring); with at most :data:`INLINE_EMPTY` empty
        cells and no budget or progress hook, searched at once in this thread."""
        with self._lock:
            for control in self._controls:
                control[:] = 0
            if budget is None and progress is None and self.game.cells - where.pieces <= INLINE_EMPTY:
                return [kernel(*self._args(where, extra, 0)) for kernel, extra in jobs]
            search = _Workers(jobs, functools.partial(self._args, where), self._controls)
            start = time.monotonic()
            try:
                self._wait(search, where, start, budget, progress)
            except KeyboardInterrupt:
                search.stop()
                raise SearchInterrupted(self._stopped(where, start, "at Ctrl-C"), seconds=time.monotonic() - start, nodes=self.nodes) from None
            return search.answers()

    def _args(self, where: Position, extra: tuple[Any, ...], thread: int) -> tuple[Any, ...]:
        """A kernel's arguments: the position, the job's own, then what the kernels share and the thread's own."""
        shared = (self._geo, self._table, self._book, self._controls[thread], self._scratches[thread])
        return (np.uint64(where.pos), np.uint64(where.mask), *extra, *shared)

    def _wait(self, search: _Workers, where: Position, start: float, budget: float | None, progress: Progress | None) -> None:
        shown = start
        while search.running():
            now = time.monotonic()
            if progress is not None and now - shown >= PROGRESS_SECONDS:
                shown = now
                progress(self.nodes, now - start)
            if budget is not None and now - start >= budget:
                search.stop()
                seconds = time.monotonic() - start
                raise SearchTimeout(self._stopped(where, start, f"at its budget of {budget:g} s"), seconds=seconds, nodes=self.nodes)

    def _stopped(self, where: Position, start: float, why: str) -> str:
        seconds = time.monotonic() - start
        board = render(self.game, where.code)
        return f"the search of {board} ({self.game.name}) stopped {why} after {seconds:.2f} s and {self.nodes:,} positions"


class _Workers:
    """The threads of one search: each takes the next job and runs it with its own control and scratch arrays.

    A thread that finds no job left helps the job still running that has the fewest threads (once it has run
    :data:`HELP_AFTER_SECONDS`), searching it in the same table with windows of its own (``control[HELPER]``: how
    many threads were on the job when it joined, :func:`~solver.search.negamax.solve`). The first thread to finish
    a job gives its answer and stops the others on it: a Lazy SMP search (Steininger's ``c4`` searches so, its
    threads' move orders varied by random noise; here they differ by their windows, with no randomness). The
    answers come back in the jobs' order.
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
        self._threads = [threading.Thread(target=self._work, args=(i,), name="solver-search", daemon=True) for i in range(len(controls))]
        for thread in self._threads:
            thread.start()

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

    def running(self) -> bool:
        """Whether a thread still searches (waits up to :data:`POLL_SECONDS` for one of them to end)."""
        alive = [thread for thread in self._threads if thread.is_alive()]
        if alive:
            alive[0].join(POLL_SECONDS)
        return any(thread.is_alive() for thread in self._threads)

    def stop(self) -> None:
        """Stop every thread and wait for them (what they stored in the table stays true)."""
        with self._state:
            self._halted = True
            for control in self._controls:
                control[STOP] = 1
            self._state.notify_all()
        for thread in self._threads:
            thread.join()

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
