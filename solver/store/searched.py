"""The search source: a game no table holds, answered by the Connect Four engine, as a table answers it.

Connect Four has 4.5 trillion positions: no table of it is built here. The engine
(:class:`solver.search.Engine`) answers any of them exactly by searching it. This module gives
the front ends the same objects a table gives: :class:`SearchSource` is a
:class:`~solver.store.tablebase.Source` of the :class:`~solver.store.tablebase.Tablebase` that
answers every gravity game the engine plays (a board of at most 64 bits' columns, normal play)
for which no table is at hand and none is built in a minute; it gives a :class:`SearchTable`,
a :class:`~solver.tables.Table` whose :meth:`~SearchTable.at` searches the position and every
move in it and returns the usual :class:`~solver.tables.position.Position`, read from the
engine's score bytes (:mod:`solver.rules.score`: the same bytes a table stores).

>>> from solver.store.tablebase import Tablebase
>>> table = Tablebase().table("connect4")
>>> table.kind, table.searches
('search', True)
>>> p = table.lookup("XOOOX../OXOXXX./XOOXOO./XOXOXX./OOOXXOO/XXOXXXO")  # late in a game: milliseconds
>>> p.to_move, p.result, p.plies, p.best_columns
('O', 'loss', 4, (5,))

**Cost.** A look-up costs a search: microseconds near the end of a game, milliseconds in the
middle game, seconds to minutes in the opening without a book (:mod:`solver.search.book`; the
book, when one is built, answers the opening). The answers are kept (a bounded memo of
:data:`KEPT_POSITIONS`), so a position's moves, best move and children cost nothing more.

**Budget and progress.** :meth:`SearchTable.bounded` gives a view of the same table whose
searches stop at a time budget (seconds; :class:`~solver.errors.SearchTimeout` then, never a
wrong answer) and report progress (nodes searched, seconds): ``solver.lookup(..., budget=5)``,
``solve lookup --budget 5`` (with a progress bar on a terminal), and the HTTP API, which bounds
every request's search (:data:`solver.web.app.SEARCH_BUDGET`).

**What a search table cannot do.** List its positions, count them by ply (``solve stats``
gives the root's answer instead: the per-ply counts need the full table), or be saved to a file.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn

import numpy as np

from .. import search, words  # search: its names load numba when first used (solver.search.options)
from ..encoding.board import check_rules
from ..encoding.coderules import code_rules
from ..encoding.columns import index_fits
from ..errors import InvalidBoardError, InvalidGameError, SearchInterrupted, SearchTimeout, TableError
from ..rules.base import DRAWN, INVALID, LINE
from ..rules.game import TABLE_CELLS, Game
from ..rules.score import UNREACHABLE, WIN
from ..search import booked, late
from ..search.answer import Answer
from ..search.games import engine_game
from ..search.options import DEFAULT_TABLE_BYTES, Progress, checked_budget
from ..storage import tablefile
from ..tables import Kind, Scores, Table
from ..tables.position import POSITION_SETTERS, Position
from ..tables.summary import TableStats
from . import locate
from .estimate import KNOWN_POSITIONS, paper_estimate

if TYPE_CHECKING:
    from ..search import Book, Engine
    from ..search import Position as SearchPosition
    from ..search.engine import Short

__all__ = ["KEEP_NODES", "KEPT_POSITIONS", "SearchSource", "SearchTable", "searched_by_engine"]

LATE_EMPTY = 16
"""A position with at most this many empty cells is searched in Python while the engine is not loaded
(:mod:`solver.search.late`); one with more would seldom finish within :data:`LATE_NODES`."""

LATE_NODES = 20_000
"""The positions one search in Python may visit (about a tenth of a second): past them the engine is loaded."""

LATE_BUDGET = 1.0
"""A look-up with less time than this left (its budget, or its block's deadline) is not searched in Python: the search
there could take a good part of it."""

LATE_SECONDS = 0.5
"""The seconds a process spends searching in Python before it loads the engine however late its positions (loading
the engine costs about a second: a process that keeps asking pays for it once it would have cost less)."""

KEPT_POSITIONS = 100_000
"""Positions whose answers a search table keeps (a few hundred bytes each): a game played and analysed costs one search a position."""

KEEP_NODES = 100
"""The fewest positions a look-up's search searches for its answer to be kept (the engine's count: the children it settles
without a search are not counted): an answer found in fewer (tens of microseconds of search) is searched again at a
second look-up, and every look-up near the end is spared the memo's lock and eviction."""

Books = Callable[[Game], "Book | None"]
"""Finds the book of a game (None when none is built): the engine's book hook."""


def _answer_of(score: int, scored: tuple[tuple[int, int], ...]) -> Answer:
    """The answer of a position from its score byte and its moves' ``(cell, score byte)``: the best moves are those
    that keep the score."""
    best = 0
    for cell, byte in scored:
        if byte == score:
            best |= 1 << cell
    return Answer(score, best, scored)


class _Shared:
    """What every view of one game's search table shares: the engine (made at its first search), the book and the memo
    of answers."""

    def __init__(self, game: Game, engine: Engine | Callable[[], Engine], book: Book | None, on_load: Callable[[Game], None] | None = None) -> None:
        self.game = game
        self.made: Engine | None = None if callable(engine) else engine  # an Engine is not callable: a maker is
        """The engine once made (None until then: :attr:`engine` makes it)."""
        self._make: Callable[[], Engine] | None = engine if callable(engine) else None
        self.book = book
        self.on_load = on_load
        self.kept: OrderedDict[int, Answer] = OrderedDict()
        self.late_seconds = LATE_SECONDS
        """What is left of :data:`LATE_SECONDS` for searches in Python (:meth:`SearchTable._late`)."""
        self.lock = threading.Lock()
        self._loading = threading.Lock()

    @property
    def engine(self) -> Engine:
        """The engine, made (its compiled kernels loaded, its transposition table made) the first time it is asked for."""
        found = self.made
        if found is None:
            with self._loading:
                found = self.made
                if found is None:
                    if self.on_load is not None:
                        self.on_load(self.game)
                    assert self._make is not None
                    found = self.made = self._make()
        return found

    @property
    def loaded(self) -> bool:
        """Whether the engine has been made."""
        return self.made is not None

    def recall(self, code: int) -> Answer | None:
        with self.lock:
            found = self.kept.get(code)
            if found is not None:
                self.kept.move_to_end(code)
            return found

    def keep(self, code: int, answer: Answer) -> None:
        with self.lock:
            self.kept[code] = answer
            if len(self.kept) > KEPT_POSITIONS:
                self.kept.popitem(last=False)


_DEADLINE: ContextVar[float | None] = ContextVar("solver_search_deadline", default=None)
_SINCE: ContextVar[float] = ContextVar("solver_search_deadline_set", default=0.0)
"""When the block of :data:`_DEADLINE` began (:func:`time.monotonic` seconds): read only to say a stopped search's share."""
_BOUNDS: ContextVar[dict[str, Any]] = ContextVar("solver_search_bounds", default={})  # noqa: B039 - never mutated


@contextmanager
def searches_by(deadline: float, *, short_only: bool = False, stop: threading.Event | None = None) -> Iterator[None]:
    """Every search in this block (in this thread, or a task or thread started from it with its context) ends by
    ``deadline`` (:func:`time.monotonic` seconds): one budget for a whole request however many positions it searches
    (a mainline, an analysis), as the web app gives each request. A search past it raises
    :class:`~solver.errors.SearchTimeout`.

    :param short_only: every search answers only if it is short, else raises :class:`~solver.errors.SearchDeferred`
        (the engine's first try in the caller's thread: the web app's first attempt, :mod:`solver.web.admission`).
    :param stop: an event that stops every search of the block when set (:class:`~solver.errors.SearchInterrupted`;
        the web app sets it when the client leaves)."""
    token, since = _DEADLINE.set(deadline), _SINCE.set(time.monotonic())
    bounds = _BOUNDS.set({"short_only": short_only, "stop": stop})
    try:
        yield
    finally:
        _BOUNDS.reset(bounds)
        _SINCE.reset(since)
        _DEADLINE.reset(token)


_new_position = Position.__new__
_set_game, _set_code, _set_score, _set_best_mask, _set_pieces, _set_table, _set_scored = POSITION_SETTERS
"""A :class:`Position`'s slots set one by one, read from module names (a look-up makes one: each name read from
:data:`POSITION_SETTERS` costs an attribute read)."""


def _budget_left(budget: float | None) -> float | None:
    """The seconds a search may take now: its table's budget, cut to what is left before the block's deadline."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return budget
    left = max(deadline - time.monotonic(), MIN_BUDGET)
    return left if budget is None else min(budget, left)


def _shared_budget_said(stopped: SearchTimeout, budget: float | None) -> SearchTimeout:
    """``stopped`` as it should be raised: a search stopped at what was left of a deadline its block shares
    (:func:`searches_by`: an analysis, a request), after earlier work of the block used some of it, says so (the engine
    knows only the seconds it was given); any other as it is. Called only when a search stopped, so a search that
    answers pays nothing for it."""
    deadline, since = _DEADLINE.get(), _SINCE.get()
    start = time.monotonic() - stopped.seconds  # when the stopped search began
    if deadline is None or (budget is not None and budget <= deadline - start) or start - since < SHARED_SAID_FROM:
        return stopped
    what = (
        f"{stopped.what}: the rest of the {words.seconds(deadline - since)} s its whole command or request shares ({start - since:.2f} s went to earlier work)"
    )
    return SearchTimeout(what, seconds=stopped.seconds, nodes=stopped.nodes)


SHARED_SAID_FROM = 0.01
"""Seconds of a shared deadline's block used before a search, from which a stopped search says so."""


MIN_BUDGET = 0.001
"""The budget of a search started after its deadline: it stops at once, saying so (:class:`~solver.errors.SearchTimeout`)."""


class SearchTable(Table):
    """A game answered by search (module docstring): every method of a :class:`~solver.tables.Table` that
    answers positions, exactly; none that lists, counts or saves them.

    :param engine: the game's engine (its transposition table and book), or a function that makes it, called at the
        first search (a position the book answers whole needs none: :mod:`solver.search.booked`); then ``game`` is
        the game's.
    :param book: the engine's book, which answers the positions of fewer pieces than its depth without a search.
    :param budget: seconds one look-up's search may take (None: no limit); see :meth:`bounded`.
    :param progress: called with ``(nodes, seconds)`` while a search runs (:mod:`solver.search.engine`).
    :param on_load: called with the game just before the engine is made (its compiled kernels loaded: a second; compiled
        first after an install: a minute), as a command line says so.
    """

    kind: ClassVar[Kind] = "search"
    lists_positions: ClassVar[bool] = False
    stores_best_moves: ClassVar[bool] = False
    searches: ClassVar[bool] = True

    def __init__(
        self,
        engine: Engine | Callable[[], Engine] | None = None,
        *,
        game: Game | None = None,
        book: Book | None = None,
        budget: float | None = None,
        progress: Progress | None = None,
        on_load: Callable[[Game], None] | None = None,
        shared: _Shared | None = None,
    ) -> None:
        if shared is None:
            found = None if engine is None else game if callable(engine) else engine.game
            if engine is None or found is None:
                raise TypeError("a SearchTable needs its engine, or a function that makes it and game=")
            shared = _Shared(found, engine, book, on_load)
        self.game = shared.game
        self.path = None
        self.file = None
        self.prove = None
        self.budget = checked_budget(budget)  # refused here, before a look-up compares it with a deadline
        self.progress = progress
        self._shared = shared

    @property
    def engine(self) -> Engine:
        """The engine that searches this game."""
        return self._shared.engine

    @property
    def has_book(self) -> bool:
        """Whether the engine consults a book (:mod:`solver.search.book`): the opening is then answered at once."""
        return self._shared.book is not None

    @property
    def book_depth(self) -> int | None:
        """The deepest ply the engine's book holds (it answers every position with at most that many pieces), or None."""
        book = self._shared.book
        return None if book is None else book.depth

    def __repr__(self) -> str:
        budget = "no budget" if self.budget is None else f"a budget of {self.budget:g} s a search"
        return f"<SearchTable {self.game.name}: answered by search, {budget}>"

    def bounded(self, budget: float | None = None, progress: Progress | None = None) -> SearchTable:
        """This table with a time budget (seconds a look-up's search may take) and a progress hook; the engine and
        the answers found so far are shared. A position it gives plays on (``.play``) under the same budget."""
        return SearchTable(budget=budget, progress=progress, shared=self._shared)

    # -- one position ------------------------------------------------------------------
    def at(self, code: int) -> Position:
        """The :class:`Position` of a code, searched (and every move in it) unless it was searched before.

        :raises InvalidBoardError: for a code out of range or that no legal game reaches.
        :raises SearchTimeout: when the search passes :attr:`budget`; :raises SearchInterrupted: at Ctrl-C.
        """
        return self._position(code, self._answer(code))

    def at_moves(self, moves: str) -> Position:
        """The :class:`Position` a move string reaches (as :meth:`at` of its code), played on the engine's bitboards:
        reachable by construction, so no order of moves is looked for. A string the bitboards refuse (a bad or full
        column, a move after the end, a game it ends) is read by the rules instead (:meth:`Table.at_moves`), which
        say why, or answer the finished board."""
        if type(moves) is not str:  # the engine plays a list of columns too: a look-up reads only a move string
            return super().at_moves(moves)
        shared = self._shared
        book = shared.book
        if book is not None and len(moves) < book.depth:  # the book answers it whole (_book_answers): no engine is loaded
            bits = booked.play(self.game, moves)
            if bits is None:  # not played plainly: the rules read it, naming what is wrong or answering the end
                return super().at_moves(moves)
            code = booked.code_of(self.game, bits)
            return self._position(code, self._answer(code, bits), bits.pieces)
        engine = shared.made
        if engine is None:
            if self._late_open(len(moves)):  # near the end: searched in Python if plainly played
                bits = booked.play(self.game, moves)
                if bits is not None:
                    code = booked.code_of(self.game, bits)
                    return self._position(code, self._answer(code, bits), bits.pieces)
            engine = shared.engine
        if self.budget is None and self.progress is None and _DEADLINE.get() is None:  # no bounds: searches_by sets a deadline
            found = engine.string_answer(moves)  # one compiled call near the end (the look-up's fixed cost)
            if found is not None:
                code, pieces, nodes, answer, tried = found
                if answer is None:  # a longer search: it goes on from what the short try found, unless kept
                    assert tried is not None
                    return self._position(code, self._answer(code, *tried), pieces)
                if nodes >= KEEP_NODES:
                    shared.keep(code, answer)
                return self._position(code, answer, pieces)
        try:
            where = engine.position(moves=moves)
        except InvalidBoardError:
            return super().at_moves(moves)
        return self._position(where.code, self._answer(where.code, where), where.pieces)

    def _position(self, code: int, answer: Answer, pieces: int | None = None) -> Position:
        """The :class:`Position` of a code and its answer (``pieces``: the pieces on the board, when known)."""
        position = _new_position(Position)
        _set_game(position, self.game)
        _set_code(position, code)
        score, best_mask, scored = answer
        _set_score(position, score)
        _set_best_mask(position, best_mask)
        _set_pieces(position, _pieces(self.game, code) if pieces is None else pieces)
        _set_table(position, self)
        _set_scored(position, scored)
        return position

    def _late_open(self, pieces: int) -> bool:
        """Whether a position of ``pieces`` pieces is searched in Python first (:mod:`solver.search.late`): the engine is
        not loaded, the position has at most :data:`LATE_EMPTY` empty cells and the process has time left for it."""
        shared = self._shared
        if shared.loaded or shared.late_seconds <= 0 or self.game.cells - pieces > LATE_EMPTY:
            return False
        left = _budget_left(self.budget)
        return left is None or left >= LATE_BUDGET

    def _late(self, where: SearchPosition | booked.Bits) -> tuple[int, tuple[tuple[int, int], ...]] | None:
        """:meth:`_searched`'s answer found in Python when :meth:`_late_open` says so; None otherwise or when the search
        passes :data:`LATE_NODES` (its time is counted against :data:`LATE_SECONDS` either way)."""
        if not self._late_open(where.pieces):
            return None
        start = time.monotonic()
        try:
            return late.answer(self.game, where.pos, where.mask, where.pieces, LATE_NODES)
        except late.TooLong:
            return None
        except KeyboardInterrupt:
            raise SearchInterrupted(f"the search of a position of {where.pieces} pieces ({self.game.name}) stopped at Ctrl-C") from None
        finally:
            self._shared.late_seconds -= time.monotonic() - start

    def _book_answers(self, pieces: int) -> bool:
        """Whether the book answers every move of a position with ``pieces`` pieces: fewer than its depth."""
        book = self._shared.book
        return book is not None and pieces < book.depth

    def _answer(self, code: int, played: SearchPosition | booked.Bits | None = None, tried: Short | None = None) -> Answer:
        """The answer of a code: kept, read from the book when it answers every move (:mod:`solver.search.booked`), else
        searched; ``played``: its bitboards, already checked (reached by moves); ``tried``: what a short try of it found
        (:meth:`~solver.search.engine.Engine.move_scores`)."""
        found = self._shared.recall(code)
        if found is not None:
            return found
        where, over = (played, None) if played is not None else self._checked(code)
        if over is not None:
            return Answer(over, 0, ())
        assert where is not None  # a board in play
        book = self._shared.book
        answered = None if book is None else booked.answer(self.game, book, where.pos, where.mask, where.pieces)
        if answered is None:
            answered = self._late(where)
        answer = _answer_of(*(self._searched(code, where, tried) if answered is None else answered))
        self._shared.keep(code, answer)
        return answer

    def _searched(self, code: int, where: SearchPosition | booked.Bits, tried: Short | None = None) -> tuple[int, tuple[tuple[int, int], ...]]:
        """The engine's :meth:`~solver.search.engine.Engine.move_scores` of a checked position, within this view's budget."""
        engine = self.engine
        at = search.Position(where.pos, where.mask, where.pieces, code) if isinstance(where, booked.Bits) else where
        try:
            return engine.move_scores(at, budget=_budget_left(self.budget), progress=self.progress, tried=tried, **_BOUNDS.get())
        except SearchTimeout as stopped:
            raise _shared_budget_said(stopped, self.budget) from None
        finally:
            _finished(self.progress)

    def _checked(self, code: int) -> tuple[SearchPosition | booked.Bits | None, int | None]:
        """The bitboards of a board in play, checked (counts, stacking, the order of its moves, lines), or the score of a
        finished board (:meth:`_finished_score`); a board that breaks a rule raises, naming the rule. A board the book
        answers whole is checked by the rules (no engine loaded), any other by the engine's one check (a search needs
        it), the rules naming what is wrong."""
        pieces = _pieces(self.game, code) if 0 <= code < self.game.codes else -1
        if pieces >= 0 and (self._book_answers(pieces) or self._late_open(pieces)):
            over = self._finished_score(code)
            if over is not None:
                return None, over
            check_rules(self.game, code)
            return booked.bits_of_code(self.game, code), None
        try:
            return self.engine.position(code), None
        except InvalidBoardError:
            over = self._finished_score(code)  # the rule's own message, or a finished board's score
            if over is None:
                raise
            return None, over

    def _finished_score(self, code: int) -> int | None:
        """The score of a finished board (``-WIN``: the side to move has lost; 0: full and drawn), None while the
        game goes on; a board that breaks a rule raises, naming the rule."""
        if not 0 <= code < self.game.codes:
            self._refuse(code)
        status, _ = code_rules(self.game).judge(code)
        if status == INVALID:
            check_rules(self.game, code)
        if status in (LINE, DRAWN):
            check_rules(self.game, code)
            return -WIN if status == LINE else 0
        return None

    def score_of(self, code: int) -> int:
        """The score of a code for the side to move: the book's entry for a position it holds (read without the engine),
        else searched (``UNREACHABLE`` for a board no game reaches)."""
        if not 0 <= code < self.game.codes or code_rules(self.game).violation(code) is not None:
            return UNREACHABLE
        found = self._shared.recall(code)
        if found is not None:
            return found.score
        over = self._finished_score(code)
        if over is not None:
            return over
        book = self._shared.book
        if book is not None and _pieces(self.game, code) <= book.depth:  # the book's own entry: no engine loaded
            bits = booked.bits_of_code(self.game, code)
            entry = book.probe(booked.canonical_key(self.game, bits.pos, bits.mask))
            if entry is not None:
                return entry
        try:
            return self.engine.score(code, budget=_budget_left(self.budget), progress=self.progress, **_BOUNDS.get())
        except SearchTimeout as stopped:
            raise _shared_budget_said(stopped, self.budget) from None
        finally:
            _finished(self.progress)

    def best_mask_of(self, code: int) -> int:
        return self._answer(code).best_mask

    def move_scores(self, position: Position) -> tuple[tuple[int, int], ...]:
        return self._answer(position.code).scored

    # -- many positions ----------------------------------------------------------------
    def lookup_codes(self, codes: np.ndarray | Iterable[int], *, check: bool = True) -> Scores:
        """Exact answers of many codes, **by search: slow per position** (microseconds near the end of a game,
        seconds or more in the opening without a book), one after the other. :attr:`budget` bounds the whole
        batch (a :class:`~solver.errors.SearchTimeout` names how far it got).

        :raises InvalidBoardError: naming the first bad code and its index (with ``check``: an unreachable one too).
        """
        shape, flat = _python_codes(codes)
        for index, code in enumerate(flat):
            if not 0 <= code < self.game.codes:
                raise InvalidBoardError(f"codes[{index}] = {code} is out of range for {self.game.name}: expected 0 to {self.game.codes - 1}")
        score = np.empty(len(flat), dtype=np.int8)
        best = np.zeros(len(flat), dtype=np.uint64)
        deadline = None if self.budget is None else time.monotonic() + self.budget
        for index, code in enumerate(flat):
            score[index], best[index] = self._batch_answer(code, check, deadline, index, len(flat))
            if check and score[index] == UNREACHABLE:
                raise InvalidBoardError(f"codes[{index}] = {code} is not a reachable position: {code_rules(self.game).violation(code)}")
        ply = np.array([_pieces(self.game, code) for code in flat], dtype=np.uint8)
        return Scores(self.game, score.reshape(shape), ply.reshape(shape), best.reshape(shape))

    def _batch_answer(self, code: int, check: bool, deadline: float | None, index: int, total: int) -> tuple[int, int]:
        if code_rules(self.game).violation(code) is not None:
            return UNREACHABLE, 0
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            raise SearchTimeout(f"the batch stopped at its budget of {self.budget:g} s after {index:,} of {total:,} positions")
        answer = self.bounded(left, self.progress)._answer(code)
        return answer.score, answer.best_mask

    def reachable_codes(self) -> np.ndarray:
        self._cannot("list its positions")

    def stats(self) -> TableStats:
        self._cannot("count its positions by ply")

    # -- trust and files -----------------------------------------------------------------
    def verify_blocks(self) -> None:
        """Nothing stored to verify: every answer is searched (the book, when there is one, is a table of its own)."""

    @property
    def reads_memory_map(self) -> bool:
        return False

    def load_into_memory(self) -> Table:
        """The engine made now, its compiled kernels loaded and its transposition table made (what a search holds in
        memory), as a long-lived server does before it listens: its first search then spends its budget searching."""
        self._shared.engine  # noqa: B018 - made when first asked for
        return self

    def file_arrays(self) -> Mapping[str, tablefile.ArrayParts]:
        self._cannot("be saved to a file")

    @property
    def sha256(self) -> str:
        """What identifies the answers (an ETag's base): the game and the engine's book, not a file."""
        found = self._shared.book
        book = "no book" if found is None else str(getattr(found, "checksum", f"a book to ply {found.depth}"))
        return hashlib.sha256(f"search:{self.game.name}:{book}".encode()).hexdigest()

    def _cannot(self, what: str) -> NoReturn:
        raise TableError(
            f"{self.game.name} is answered by search, position by position: no table of its {_positions_words(self.game)} is built here, so it cannot {what}"
        )


def _finished(progress: Progress | None) -> None:
    """Tell a progress hook that its search has ended, answered or not, when it asks to be told (a ``finished()``
    method: the command line erases its status line then, before the answer is printed)."""
    finished = getattr(progress, "finished", None)
    if callable(finished):
        finished()


def _positions_words(game: Game) -> str:
    return f"{KNOWN_POSITIONS[game]:,} positions" if game in KNOWN_POSITIONS else "positions"


def _python_codes(codes: np.ndarray | Iterable[int]) -> tuple[tuple[int, ...], list[int]]:
    """The shape and the codes of a batch as Python ints: Connect Four's codes reach 3**42, past int64, so a
    batch of them is a list of ints or a numpy array of objects."""
    try:
        found = np.asarray(codes, dtype=object)
    except (ValueError, TypeError) as error:
        raise InvalidBoardError(f"codes must be a rectangular array of integers: {str(error)[:120]}") from None
    flat = []
    for index, code in enumerate(found.reshape(-1).tolist()):
        if isinstance(code, bool) or not isinstance(code, (int, np.integer)):
            raise InvalidBoardError(f"codes[{index}] is {type(code).__name__}: codes must be integers")
        flat.append(int(code))
    return found.shape, flat


def _pieces(game: Game, code: int) -> int:
    pieces = 0
    while code:
        code, digit = divmod(code, 3)
        pieces += digit != 0
    return pieces


def searched_by_engine(game: Game) -> bool:
    """Whether the engine plays ``game`` (a gravity game in normal play that fits its bitboard)."""
    try:
        engine_game(game)
    except InvalidGameError:
        return False
    return True


@dataclass(frozen=True)
class SearchSource:
    """The Tablebase's source of answers by search (module docstring): a :class:`SearchTable` for a game the
    engine plays whose table is neither at hand nor built within a minute; it declines every other game.

    :param table_bytes: the size of each engine's transposition table in bytes.
    :param books: finds a game's book (the engine's book hook); None: the book built in a table directory, if any
        (:meth:`~solver.store.tablebase.Tablebase.book`: the table directory's, built by ``solve build --game connect4``
        or fetched by ``solve fetch``, else the one the package ships).
    :param directory: the table directory its books and tables are looked for in; None: the Tablebase's
        (:meth:`~solver.store.tablebase.Tablebase.table` passes its ``table_dir``, ``solve --table-dir``).
    """

    table_bytes: int = DEFAULT_TABLE_BYTES
    books: Books | None = None
    directory: Path | None = None

    @property
    def key(self) -> Hashable:
        return ("search", self.table_bytes, self.directory)

    def table(self, game: Game, want: Any, tablebase: Any) -> Table | None:
        """A :class:`SearchTable` of ``game``, or None (the :class:`~solver.store.tablebase.Source` protocol; ``want`` and
        ``tablebase`` are the Tablebase's :class:`~solver.store.tablebase.Want` and itself, typed loosely: this module
        is imported by the Tablebase's, and imports nothing back)."""
        directories = tablebase.table_dirs(self.directory)
        if _table_at_hand(game, directories) or not searched_by_engine(game):  # a table at hand: the engine not even loaded
            return None
        book = self.books(game) if self.books is not None else tablebase.book(game, table_dir=self.directory)
        size = self.table_bytes
        return SearchTable(lambda: search.Engine(game, table_bytes=size, book=book), game=game, book=book, on_load=want.on_load)


def _table_at_hand(game: Game, directories: Iterable[Path]) -> bool:
    """Whether a table answers ``game`` without a long build: a file is there (shipped, or in one of the table
    ``directories``), or a build takes at most a minute and its index fits the memory free (never for a game past
    :data:`~solver.rules.game.TABLE_CELLS` cells: its ``<game>.ttt`` is its book)."""
    if game.cells > TABLE_CELLS:
        return False
    if locate.shipped_path(game) is not None or any((Path(directory) / f"{game.name}.ttt").exists() for directory in directories):
        return True
    return not paper_estimate(game).needs_consent and index_fits(game, share=INDEX_SHARE)


INDEX_SHARE = 4
"""A short build is preferred to the engine only while its board's index takes at most a quarter of the memory free
(a tall gravity board such as ``19x1k4-gravity`` has a few positions and an index of gigabytes: the engine answers it)."""
