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
from .book import Book
from .negamax import NO_MOVE, NODES, STOP, solve, solve_moves
from .ordering import scratch
from .position import Moves, Position, cell_of, engine_game, from_moves, geometry_of, key_of, position_of
from .transposition import new_table

DEFAULT_TABLE_BYTES = 128 << 20
"""The transposition table's default size, 128 MiB (16 M entries): it fits a laptop beside a browser, and on
Pons' test sets a bigger table saves little (a position of Connect Four's middle game searches tens of
thousands of nodes); the empty board from scratch wants more (``table_bytes=1 << 30``)."""

PROGRESS_SECONDS = 0.5
"""How often, in seconds, a search calls its ``progress`` hook."""

POLL_SECONDS = 0.02
"""How long the caller waits in one join of the worker thread: the delay of Ctrl-C and of the budget."""

INLINE_EMPTY = 14
"""Positions with at most this many empty cells are searched in the caller's thread: milliseconds at most (Pons'
"easy" sets), where starting a worker thread would cost more than the search."""

Progress = Callable[[int, float], None]
"""A progress hook: called with the nodes searched so far and the seconds elapsed."""


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
    :raises InvalidGameError: for a misère, non-gravity or too big game, or a book of another game.
    """

    def __init__(self, game: Game | str = "connect4", *, table_bytes: int = DEFAULT_TABLE_BYTES, book: Book | None = None) -> None:
        self.game = engine_game(game)
        self._geo = geometry_of(self.game)
        self._table = new_table(table_bytes)
        self._scratch = scratch(self.game.rows, self.game.cols)
        self._control = np.zeros(2, dtype=np.int64)
        self._lock = threading.Lock()
        self._book = _book_arrays(self.game, book)

    @property
    def table_bytes(self) -> int:
        """The transposition table's size in bytes."""
        return int(self._table.nbytes)

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
        """
        where = self.position(board, moves)
        start = time.monotonic()
        scores = self._run(solve_moves, where, budget, progress)
        found = [(c, int(s)) for c, s in enumerate(scores) if s != NO_MOVE]
        moves_out = tuple(self._move_value(where, c, s) for c, s in found)
        best = max(s for _, s in found)
        return self._solution(where, best, moves_out, start)

    def score(self, board: Board | Position | None = None, *, moves: Moves | None = None, budget: float | None = None, progress: Progress | None = None) -> int:
        """The exact score byte of a position for the side to move (:mod:`solver.rules.score`), the moves not valued."""
        where = self.position(board, moves)
        known = self._from_book(where)
        if known is not None:
            return known
        return score_byte(int(self._run(solve, where, budget, progress)), where.pieces, self.game.cells)

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
        return Solution(self.game, where.code, score, result, plies, moves, int(self._control[NODES]), time.monotonic() - start)

    def _move_value(self, where: Position, column: int, score: int) -> MoveValue:
        landing = (where.mask + (1 << column * (self.game.rows + 1))) & ~where.mask
        byte = score_byte(score, where.pieces, self.game.cells)
        result, plies = decode(byte, self.game.cells - where.pieces)
        return MoveValue(column, cell_of(self.game, landing.bit_length() - 1), byte, result, plies)

    def _run(self, kernel: Callable[..., Any], where: Position, budget: float | None, progress: Progress | None) -> Any:
        """Run a kernel on a position in a worker thread, waiting in short joins (module docstring); a position with
        at most :data:`INLINE_EMPTY` empty cells and no budget or progress hook is searched at once, in this thread."""
        with self._lock:
            control = self._control
            control[:] = 0
            args = (np.uint64(where.pos), np.uint64(where.mask), self._geo, self._table, self._book, control, self._scratch)
            if budget is None and progress is None and self.game.cells - where.pieces <= INLINE_EMPTY:
                return kernel(*args)
            box: list[Any] = []
            worker = threading.Thread(target=lambda: box.append(kernel(*args)), name="solver-search", daemon=True)
            start = time.monotonic()
            worker.start()
            try:
                self._wait(worker, where, start, budget, progress)
            except KeyboardInterrupt:
                self._stop(worker)
                raise SearchInterrupted(self._stopped(where, start, "at Ctrl-C"), seconds=time.monotonic() - start, nodes=int(control[NODES])) from None
            if not box:
                raise RuntimeError("the search's worker thread ended without an answer")
            return box[0]

    def _wait(self, worker: threading.Thread, where: Position, start: float, budget: float | None, progress: Progress | None) -> None:
        shown = start
        while worker.is_alive():
            worker.join(POLL_SECONDS)
            now = time.monotonic()
            if progress is not None and now - shown >= PROGRESS_SECONDS and worker.is_alive():
                shown = now
                progress(int(self._control[NODES]), now - start)
            if budget is not None and now - start >= budget and worker.is_alive():
                self._stop(worker)
                seconds = time.monotonic() - start
                message = self._stopped(where, start, f"at its budget of {budget:g} s") + ": give it more time (budget=None for no limit)"
                raise SearchTimeout(message, seconds=seconds, nodes=int(self._control[NODES]))

    def _stop(self, worker: threading.Thread) -> None:
        self._control[STOP] = 1
        worker.join()

    def _stopped(self, where: Position, start: float, why: str) -> str:
        seconds = time.monotonic() - start
        board = render(self.game, where.code)
        return f"the search of {board} ({self.game.name}) stopped {why} after {seconds:.2f} s and {int(self._control[NODES]):,} positions"


def _book_arrays(game: Game, book: Book | None) -> tuple[np.ndarray, np.ndarray, np.int64]:
    """The book as the kernels read it: sorted keys, score bytes and depth (-1: no book)."""
    if book is None:
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int8), np.int64(-1)
    if book.game != game:
        raise InvalidGameError(f"the book is for {book.game.name}, the engine plays {game.name}")
    keys, scores = book.arrays()
    return np.ascontiguousarray(keys, dtype=np.uint64), np.ascontiguousarray(scores, dtype=np.int8), np.int64(book.depth)
