"""The public functions: where a game name is parsed, once, and a :class:`Game` travels below.

Every function here takes ``game=`` as a name (``"4x4"``), a :class:`Game` or None
(tic-tac-toe), parses it at most once per call, and answers through the default
:class:`Tablebase` (:func:`solver.store.tablebase.default_tablebase`), the one owner of the
sources of answers, the open tables and the trust policy. :mod:`solver` re-exports them.

A look-up's table is remembered by that Tablebase per ``game=`` (by name, or by the
:class:`Game` object itself), so a later look-up of the same game costs one dictionary hit;
:func:`forget` clears it. The front ends (:mod:`solver.cli`, :mod:`solver.web`) take a
:class:`Tablebase` of their own or this one, and parse game names with :func:`parse_game`.

**The front ends' door.** The command line (:mod:`solver.cli`), the web app (:mod:`solver.web`) and
:mod:`solver.interop` import this module and the base modules (:mod:`solver.errors`, :mod:`solver.words`, :mod:`solver.extras`,
:mod:`solver.lifetime`) only: an import-linter contract forbids them every layer between (grading,
presentation, store, tables, builds, search, contents, storage, encoding, rules). What they need beyond the
functions above is re-exported here by name (``from solver.api import fetch_table``), so one place says what
a front end may do and print: build and estimate a table (``solve build``), prove it or check a sample
(``solve verify``), fetch one from a mirror (``solve fetch``), build and verify a Connect Four book, answer by
search (:class:`SearchTable`), grade a player (:func:`grade` and its options, :func:`describe_report`); read a
board or a move (:func:`parse_text`, :func:`code_of_text`, :func:`parse_moves`, :func:`move_string_code`) and draw one
(:func:`draw`, :func:`column_board`); the words, pictures and JSON of an answer (:func:`status_line`,
:func:`analysis_text`, :func:`outcomes_svg`, :func:`decode_scores`); and the few plain helpers a front end
prints or checks with (:func:`rebuild_command`, :func:`is_url`, :func:`is_shipped` for a download list,
:func:`write_atomic` for a report, :func:`remove_dead_temporaries` after a killed build). None is in
``__all__``: :mod:`solver` re-exports the public functions only. Those of the modules a look-up never uses (the grader,
the pictures and words, the builder and its proofs, the mirrors and URLs) are imported on first use (PEP 562's module
``__getattr__``), so that importing this module, or :mod:`solver`, loads none of them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .encoding import board as _board
from .encoding.board import Board as Board
from .encoding.board import check_rules as check_rules
from .encoding.board import digits as digits
from .encoding.board import draw as draw
from .encoding.board import encode_boards as encode_boards
from .encoding.board import parse as parse
from .encoding.board import parse_text as parse_text
from .encoding.drops import code_of_text as code_of_text
from .encoding.drops import move_string_code as move_string_code
from .encoding.moves import MoveSpec
from .encoding.moves import parse_move as parse_move
from .encoding.moves import parse_moves as parse_moves
from .encoding.moves import split_moves as split_moves
from .errors import InvalidArgumentError, InvalidBoardError
from .lazy import lazy_names
from .rules import score as _score
from .rules.base import OUTCOMES as OUTCOMES
from .rules.base import Outcome as Outcome
from .rules.game import CONNECT_FOUR as CONNECT_FOUR
from .rules.game import DEFAULT_GAME as DEFAULT_GAME
from .rules.game import DENSE_MAX_CELLS as DENSE_MAX_CELLS
from .rules.game import Game as Game
from .rules.game import parse_game
from .rules.score import RESULTS as RESULTS
from .rules.score import UNREACHABLE as UNREACHABLE
from .rules.score import WIN as WIN
from .search.options import Progress
from .storage.fsutil import remove_dead_temporaries as remove_dead_temporaries
from .storage.fsutil import write_atomic as write_atomic
from .storage.tablefile import is_shipped as is_shipped
from .storage.tablefile import rebuild_command as rebuild_command
from .store import book as _book
from .store import bookproof as _bookproof
from .store.book import book_game as book_game
from .store.book import build_book as build_book
from .store.book import default_depth as default_depth
from .store.book import estimate_book as estimate_book
from .store.bookproof import record_book_check as record_book_check
from .store.bookproof import shipped_book_path as shipped_book_path
from .store.bookproof import verify_book as verify_book
from .store.bookproof import verify_plan as verify_plan
from .store.estimate import BuildEstimate as BuildEstimate
from .store.estimate import estimate as estimate
from .store.estimate import format_duration as format_duration
from .store.estimate import proof_seconds as proof_seconds
from .store.estimate import refuse_beyond_machine as refuse_beyond_machine
from .store.estimate import sample_seconds as sample_seconds
from .store.searched import SearchTable as SearchTable
from .store.searched import searches_by as searches_by
from .store.tablebase import MIRROR_ENV, LocalTables, Source, TableAt, Tablebase, Want, default_tablebase
from .tables import DenseTable, Scores
from .tables import Table as Table
from .tables.position import Position as Position
from .tables.position import outcome_label as outcome_label

if TYPE_CHECKING:
    from .grading.grader import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
    from .grading.grader import DEFAULT_TOTAL_TIMEOUT as DEFAULT_TOTAL_TIMEOUT
    from .grading.grader import GradeReport as GradeReport
    from .grading.grader import GradingInterrupted as GradingInterrupted
    from .grading.grader import Returns as Returns
    from .grading.grader import board_maker as board_maker
    from .grading.grader import grade as grade
    from .grading.grader import parse_symbols as parse_symbols
    from .grading.grader import positions_to_grade as positions_to_grade
    from .grading.limits import DEFAULT_PROCESSES as DEFAULT_PROCESSES
    from .grading.player import DEFAULT_MEMORY_MB as DEFAULT_MEMORY_MB
    from .grading.player import Turn as Turn
    from .grading.sandbox import Sandbox as Sandbox
    from .present.analysis import analysis_text as analysis_text
    from .present.analysis import best_text as best_text
    from .present.analysis import grid_text as grid_text
    from .present.analysis import plies_text as plies_text
    from .present.charts import outcomes_svg as outcomes_svg
    from .present.describe import column_board as column_board
    from .present.describe import move_words as move_words
    from .present.describe import stats_text as stats_text
    from .present.describe import status_line as status_line
    from .present.report import GRADE_LIMIT as GRADE_LIMIT
    from .present.report import describe_report as describe_report
    from .search.book import TableBook
    from .storage.remote import is_url as is_url
    from .store.make import BuildHook
    from .store.make import BuildProgress as BuildProgress
    from .store.make import Check as Check
    from .store.make import cluster_scheduler as cluster_scheduler
    from .store.make import kind_for as kind_for
    from .store.make import proof as proof
    from .store.make import proof_disk as proof_disk
    from .store.make import proof_work as proof_work
    from .store.make import refuse_replacing as refuse_replacing
    from .store.mirror import fetch_table as fetch_table
    from .store.samplecheck import DEFAULT_REFERENCE as DEFAULT_REFERENCE
    from .store.samplecheck import MAX_EMPTY as MAX_EMPTY
    from .store.samplecheck import LayerCheck as LayerCheck
    from .store.samplecheck import check_sample as check_sample
    from .tables.analysis import GameAnalysis as GameAnalysis
    from .tables.analysis import Replayed as Replayed
    from .tables.analysis import move_code as move_code

__version__ = "0.1.0"

__all__ = [
    "MIRROR_ENV",
    "LocalTables",
    "Source",
    "TableAt",
    "Tablebase",
    "Want",
    "analyze",
    "best_move",
    "build_table",
    "default_tablebase",
    "encode",
    "forget",
    "get",
    "load_table",
    "lookup",
    "lookup_boards",
    "lookup_codes",
    "parse_game",
    "table_for",
]

_LAZY = {
    "DEFAULT_TIMEOUT": "solver.grading.grader",
    "DEFAULT_TOTAL_TIMEOUT": "solver.grading.grader",
    "GradeReport": "solver.grading.grader",
    "GradingInterrupted": "solver.grading.grader",
    "Returns": "solver.grading.grader",
    "board_maker": "solver.grading.grader",
    "grade": "solver.grading.grader",
    "parse_symbols": "solver.grading.grader",
    "positions_to_grade": "solver.grading.grader",
    "DEFAULT_PROCESSES": "solver.grading.limits",
    "DEFAULT_MEMORY_MB": "solver.grading.player",
    "Turn": "solver.grading.player",
    "Sandbox": "solver.grading.sandbox",
    "analysis_text": "solver.present.analysis",
    "best_text": "solver.present.analysis",
    "grid_text": "solver.present.analysis",
    "plies_text": "solver.present.analysis",
    "outcomes_svg": "solver.present.charts",
    "column_board": "solver.present.describe",
    "move_words": "solver.present.describe",
    "stats_text": "solver.present.describe",
    "status_line": "solver.present.describe",
    "GRADE_LIMIT": "solver.present.report",
    "describe_report": "solver.present.report",
    "is_url": "solver.storage.remote",
    "BuildHook": "solver.store.make",
    "BuildProgress": "solver.store.make",
    "Check": "solver.store.make",
    "cluster_scheduler": "solver.store.make",
    "kind_for": "solver.store.make",
    "proof": "solver.store.make",
    "proof_disk": "solver.store.make",
    "proof_work": "solver.store.make",
    "refuse_replacing": "solver.store.make",
    "fetch_table": "solver.store.mirror",
    "DEFAULT_REFERENCE": "solver.store.samplecheck",
    "MAX_EMPTY": "solver.store.samplecheck",
    "LayerCheck": "solver.store.samplecheck",
    "check_sample": "solver.store.samplecheck",
    "GameAnalysis": "solver.tables.analysis",
    "Replayed": "solver.tables.analysis",
    "move_code": "solver.tables.analysis",
}
"""The names re-exported from the modules a look-up never uses (the grader, the presentation, the builder and its
proofs, the mirrors and URLs), by the module that holds each: :func:`__getattr__` imports it on first use of the name
(PEP 562), so that importing this module, and :mod:`solver`, loads none of them."""


__getattr__, __dir__ = lazy_names(globals(), _LAZY)


DEFAULT_BOOK_SAMPLE = _bookproof.DEFAULT_SAMPLE
"""Entries of a book's deepest ply ``solve verify`` re-derives by search when not told (:data:`solver.store.bookproof.DEFAULT_SAMPLE`)."""
describe_book = _book.describe
"""A book's summary line (:func:`solver.store.book.describe`)."""
decode_score = _score.decode
"""``(result, plies)`` for the side to move, from a stored score (:func:`solver.rules.score.decode`)."""
decode_scores = _score.decode_many
"""``(sign, plies)`` of an array of stored scores, vectorised (:func:`solver.rules.score.decode_many`)."""

_tablebase = default_tablebase()
_lookup = _tablebase.lookup  # the look-up hot path: one attribute fewer a call
_opened = _tablebase.opened


def lookup(
    board: Board | None = None, *, game: Game | str | None = None, moves: str | None = None, budget: float | None = None, progress: Progress | None = None
) -> Position:
    """Solve a position: value, result, plies to the end, best moves, every move's outcome.

    Connect Four (``game="connect4"``) and every gravity game the search engine plays whose table is
    not at hand are answered exactly by search (:mod:`solver.store.searched`): the same
    :class:`Position`, at the cost of a search (milliseconds in the middle game, longer in the opening).

    :param board: an int code, a string, nested rows, a flat list or a numpy array
        (:mod:`solver.encoding.board`).
    :param game: e.g. ``"4x4"``; default tic-tac-toe. A board of another shape is
        refused, naming its shape and the ``game=`` to pass (:mod:`solver.encoding.board`).
    :raises InvalidBoardError: saying what is wrong with the board and where.
    :raises InvalidGameError: for a malformed or unsupported ``game``.
    :raises BuildNeedsConsent: if the game's table is missing and building it takes more than a
        minute or a GiB of disk: build it first with ``table_for(game, build=True)`` or ``solve build``.
    :param moves: instead of ``board``, the move string Connect Four players write: the columns played,
        numbered from 1, first move first (``lookup(moves="4453", game="connect4")``; :mod:`solver.encoding.drops`).
    :param budget: for a game answered by search, the seconds the search may take (None: no limit).
    :param progress: for a search, called with the nodes searched and the seconds elapsed, about twice a second.
    :raises TableError: if the table file is broken.
    :raises SearchTimeout: when a search passes its ``budget``; :raises SearchInterrupted: at Ctrl-C.
    """
    if moves is None and budget is None and progress is None:  # the hot path: a board, no search bounds
        if type(board) is int and (game is None or type(game) is str):
            table = _opened.get(game)  # the table a look-up found before: no call between here and it
            if table is not None:
                return table.at(board)
        return _lookup(board, game=game)
    if moves is not None:
        if board is not None:
            raise InvalidArgumentError("give a board or a move string (moves=), not both")
        if budget is None and progress is None and type(game) is str:
            table = _opened.get(game)  # the table a look-up found before
            if table is not None:
                return table.at_moves(moves)
        return _tablebase.lookup_moves(moves, game=game, budget=budget, progress=progress)
    return _lookup(board, game=game, budget=budget, progress=progress)


def get(board: Board, default: Any = None, *, game: Game | str | None = None, budget: float | None = None) -> Position | Any:
    """Like :func:`lookup`, but returns ``default`` for an invalid board."""
    return _tablebase.get(board, default, game=game, budget=budget)


def best_move(board: Board, *, game: Game | str | None = None, budget: float | None = None) -> tuple[int, int] | int:
    """One best move as ``(row, col)``: the first best move in cell order. Under gravity (``-gravity``
    games, Connect Four's family) a move is a column: the lowest-numbered best column, an ``int``.

    >>> best_move("XX./OO./...")
    (0, 2)
    >>> best_move("..../..../OOO./XXX.", game="4x4k4-gravity")  # X completes the bottom row
    3

    :param budget: for a game answered by search (Connect Four), the seconds it may take.
    :raises InvalidBoardError: for an invalid board, or when the game is over.
    """
    return _tablebase.lookup(board, game=game, budget=budget).best_move


def encode(board: Board, *, game: Game | str | None = None) -> int:
    """The base-3 code of a board (form checked only, not reachability)."""
    return parse(board, None if game is None else parse_game(game))[1]


def lookup_codes(codes: np.ndarray | Iterable[int], *, game: Game | str | None = None, check: bool = True, budget: float | None = None) -> Scores:
    """Vectorised :func:`lookup` over an array of codes (see :meth:`solver.tables.Table.lookup_codes`).

    The answer is a :class:`solver.tables.Scores` for every kind of table (a compact
    table's ``ply`` and ``best`` are computed when first read). A game answered by search
    (Connect Four) is answered exactly too, but **by search, one position after another: slow
    per position** (microseconds near the end of a game, seconds or more in the opening), and
    bounded by ``budget`` (seconds for the whole batch; None: no limit).
    """
    return _tablebase.lookup_codes(codes, game=game, check=check, budget=budget)


def lookup_boards(
    boards: np.ndarray | Sequence[Any] | None = None,
    *,
    moves: Sequence[str] | None = None,
    game: Game | str | None = None,
    budget: float | None = None,
    check: bool = True,
) -> Scores:
    """A batch of boards answered in one call (value, plies to the end, best moves: a :class:`solver.tables.Scores`
    shaped like the batch), within one ``budget`` for the whole batch: :func:`lookup_codes` of their codes.

    >>> import numpy as np
    >>> boards = np.zeros((2, 3, 3), dtype=np.int8)
    >>> boards[1, 1, 1] = 1  # X in the centre; row 0 is the top row
    >>> found = lookup_boards(boards)
    >>> found.value.tolist(), found.plies.tolist()
    ([0, 0], [9, 8])

    :param boards: numbers with 1 = X, -1 = O, 0 = empty, of shape ``(..., rows, cols)`` or ``(..., cells)``
        (:func:`solver.encoding.board.encode_boards`): a batch of Connect Four boards is ``(N, 6, 7)``, ``int8`` as an
        RL batch holds it, **row 0 the top row** (the pieces rest on row 5).
    :param moves: instead of ``boards``, move strings as Connect Four players write them (``["4453", "44"]``: columns
        from 1, :mod:`solver.encoding.drops`), one a position.
    :param game: e.g. ``"connect4"``; default tic-tac-toe.
    :param budget: for a game answered by search (Connect Four), the seconds the whole batch may take (None: no
        limit); past it :class:`~solver.errors.SearchTimeout` names how far it got.
    :param check: refuse a board no game reaches (:class:`InvalidBoardError` naming its index); False: mark it in
        :attr:`Scores.reachable`.
    :raises InvalidBoardError: for a malformed batch, naming the first bad board and cell (or move string).
    :raises InvalidArgumentError: for both ``boards`` and ``moves``, or neither.
    """
    if (boards is None) == (moves is None):
        raise InvalidArgumentError("give boards or moves= (a list of move strings), one of them")
    resolved = parse_game(game)
    if moves is not None:
        return _tablebase.lookup_codes(move_string_codes(moves, resolved), game=resolved, check=check, budget=budget)
    codes = encode_boards(cast("np.ndarray | Sequence[Any]", boards), resolved)
    found = _tablebase.lookup_codes(codes, game=resolved, check=False, budget=budget)
    if check and not found.reachable.all():  # named as the caller gave them: boards[i], not the codes made of them
        where = np.unravel_index(int(np.argmin(found.reachable)), found.reachable.shape)
        code = int(np.asarray(codes)[where])
        reason = _board.rule_violation(resolved, code) or "no game reaches it"
        raise InvalidBoardError(f"boards{[int(i) for i in where]} is not a reachable position ({_board.render(resolved, code)}): {reason}")
    return found


def move_string_codes(moves: Sequence[str], game: Game) -> np.ndarray:
    """The codes of the positions move strings reach (:func:`solver.encoding.drops.move_string_code`), as exact Python ints
    in an array of ``dtype=object``; a bad one is refused naming its index."""
    if isinstance(moves, (str, bytes)) or not isinstance(moves, Sequence):
        raise InvalidBoardError(f"moves= must be a list of move strings, one a position, found {type(moves).__name__}: e.g. ['4453', '44']")
    codes = np.empty(len(moves), dtype=object)
    for index, text in enumerate(moves):
        try:
            codes[index] = move_string_code(text, game)
        except InvalidBoardError as error:
            raise type(error)(f"moves[{index}]: {error}") from None
    return codes


def analyze(moves: Iterable[MoveSpec], *, game: Game | str | None = None, table: Table | None = None, budget: float | None = None) -> GameAnalysis:
    """Replay a game from the empty board and judge every ply (:func:`solver.tables.analysis.analyze`).

    :param moves: the game so far, one move per ply, in any form of :mod:`solver.encoding.moves`:
        flat cell indices (``[4, 0, 8]``), ``(row, col)`` pairs (``[(1, 1), (0, 0), (2, 2)]``)
        or text (``["1,1", "(0,0)"]``).
    :param game: e.g. ``"4x4"``; default tic-tac-toe.
    :param table: the table to use (default :func:`table_for` of ``game``).
    :raises InvalidBoardError: for ``moves`` that is not a sequence, or an illegal move,
        naming the ply and the cell.
    :param budget: for a game answered by search (Connect Four), the seconds the whole analysis may take: the plies
        are judged from the last back, and those whose positions are not answered by then are named in
        :attr:`GameAnalysis.unjudged` (with :attr:`GameAnalysis.why_unjudged`), not judged. None: no limit.
    :raises InvalidGameError: if ``game`` and ``table`` disagree.
    :raises SearchTimeout: when not even the final position is answered within ``budget``.
    """
    return _tablebase.analyze(moves, game=game, table=table, budget=budget)


def table_for(
    game: Game | str | None = None,
    *,
    table_dir: str | os.PathLike[str] | None = None,
    build: bool | None = None,
    on_build: BuildHook | None = None,
    url: str | None = None,
    checksum: str | None = None,
) -> Table:
    """The table of ``game`` (default tic-tac-toe), opened once per process (:meth:`Tablebase.table` of the default one).

    ``table_for("5x5k4", url="https://host/tables/")`` reads the table where a server keeps it:
    the header and digests once, then each block by an HTTP Range request on first touch,
    checked as a local block is, kept in a bounded on-disk cache (:mod:`solver.store.urltable`).

    :param table_dir: where built tables are kept (see :mod:`solver.store.locate`).
    :param build: for a missing table: None (default) builds it only when that takes at most
        a minute and a GiB of disk (:mod:`solver.store.estimate`); True builds it whatever it costs;
        False never builds (a missing table is a :class:`TableError`).
    :param on_build: called around a build (the CLI shows a notice and a progress bar).
    :param url: the URL of the table file, or of a directory of ``<game>.ttt`` files (``http`` or ``https``).
    :param checksum: with ``url``, the table's checksum (SHA-256 in hex) for a game without a shipped one.
    :raises BuildNeedsConsent: for a missing table whose build needs ``build=True`` (the message
        gives the estimate and the ``solve build`` command; nothing is written).
    :raises TableError: if the table file is broken (its message names the rebuild command).
    """
    return _tablebase.table(game, table_dir=table_dir, build=build, on_build=on_build, url=url, checksum=checksum)


def search_compiled() -> bool:
    """Whether the search (Connect Four's engine) is compiled and cached for this install: else its first use in a
    process compiles it, once (tens of seconds; :func:`solver.search.kernel.compiled_before`). Loads numba."""
    from .search.kernel import compiled_before

    return compiled_before()


def open_book(path: str | os.PathLike[str], game: Game | str | None = None) -> TableBook:
    """An opening book file, copied into memory, every byte checked and believed by the trust policy of tables
    (:func:`solver.store.bookproof.open_trusted_book`: its shipped checksum, or built or proved here, or proved now
    when that takes at most a minute).

    :raises TableError: for a file that is damaged, forged, wrong, unproved or not a book of ``game``.
    """
    return _bookproof.open_trusted_book(path, game)


def load_table(path: str | os.PathLike[str], *, game: Game | str | None = None, verify: bool | None = None, follow_symlinks: bool = True) -> DenseTable:
    """Open a dense table file, every block verified before it answers (:meth:`Tablebase.open_file` with ``kind="dense"``)."""
    table = _tablebase.open_file(path, game=game, kind="dense", verify=verify, follow_symlinks=follow_symlinks)
    assert isinstance(table, DenseTable)
    return table


def build_table(rows: int = 3, cols: int = 3, k: int = 3, *, game: Game | str | None = None, progress: Any = None) -> DenseTable:
    """Solve a game of up to 16 cells in memory: ``build_table()`` is tic-tac-toe, ``build_table(game="4x4")`` four in a row.

    :param progress: called with 1 after each ply of each pass (:func:`solver.retrograde.dense.build_steps` calls).
    """
    resolved = parse_game(game) if game is not None else Game(rows, cols, k)
    from .store import make as builder  # here: the builder and the build's modules load only for a build

    return builder.build_table(resolved, progress=progress)


def forget() -> None:
    """Forget every open table and the look-up memo: :meth:`Tablebase.clear` of the default Tablebase."""
    _tablebase.clear()
