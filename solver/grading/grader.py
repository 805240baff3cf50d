"""Grading a player: call a move function on every position and judge each answer.

:func:`grade` calls the player once on every reachable, unfinished position
where the graded side is to move. Every call gets a **fresh** board (many
minimax functions change the board they are given), in the form the function
expects:

================================  ==========================================================
option                            the board passed
================================  ==========================================================
default                           a list of rows, ``symbols`` for X, O and empty:
                                  ``[["X", None, None], [None, "O", None], [None, None, None]]``
``array=True``                    a ``(rows, cols)`` numpy int array: 1 X, -1 O, 0 empty
``flat=True``                     a string of one character per cell, in cell order
                                  (``row * cols + col``), using ``symbols``, with ``"."``
                                  for an empty ``None``: ``"X...O...."``
================================  ==========================================================

Functions that take more, or answer more, than a board and a move are graded
with options instead of wrappers:

==============================  ================================================================
option                          the call
==============================  ================================================================
``turn="symbol"``               ``f(board, mover)``: the mover's symbol (``symbols``; 1/-1 with
                                ``array``; its character with ``flat``)
``turn="max"``                  ``f(board, is_max)``: ``True`` when X, the maximiser, is to move
``returns="value-move"``        ``f`` returns ``(value, move)``; the move is judged
``"FILE.py:Class.method"``      a method of ``Class()``, built with no arguments
==============================  ================================================================

An answer (the move) may be ``(row, col)``, ``[row, col]``, a flat cell index
``row * cols + col`` or any other form :func:`solver.encoding.moves.parse_move` reads.
Under gravity (``4x4k4-gravity``, Connect Four's family) an answer is a column (``2``), or
the ``(row, col)`` of the cell a piece dropped there lands on; any other cell is an
illegal answer, whose message says where the piece would land (:mod:`solver.encoding.drops`).
Each answer falls in exactly one bucket:

==============  =================================================================
bucket          meaning
==============  =================================================================
``kept``        a legal move that keeps the position's result for the mover
                (win stays win, draw stays draw; any move keeps a lost position)
``lost``        a legal move that throws the result away (a mistake or blunder,
                :mod:`solver.tables.analysis`)
``exceptions``  the function raised
``illegal``     the answer is not a legal move (taken, off the board, unreadable)
``timeouts``    the call ran over its time limit (``timeout``)
``crashes``     the call ended the player's process (``os._exit``, a signal, memory)
==============  =================================================================

``optimal`` counts the kept answers that are also best (the position's best
score: win fastest, lose slowest); the other kept answers are listed in
``slower`` (a slower win or a faster loss). So ``kept == optimal + len(slower)``
and ``positions == kept + len(lost) + len(errors)``.

**Isolation.** A player given as ``"FILE.py:NAME"`` (as ``solve grade`` does)
is imported and called in a separate process (:mod:`solver.grading.player`), inside
a bubblewrap sandbox where one works (:mod:`solver.grading.sandbox`: it sees Python, its
file alone in a folder of its own with the ``support`` files named, and a private ``/tmp``,
nothing else: not the other students' files beside it), in a fixed environment, with its memory and processes bounded
(:mod:`solver.grading.limits`): it cannot hang,
kill or fool the grader, whose verdicts are computed here from the answers
received as plain data, against scores copied out of the table and verified
before the player starts (:mod:`solver.grading.answerkey`), so nothing the player does to the table
file changes a verdict. Without a sandbox, a table file (dense or compact) the player changed is reported with a
:class:`~solver.errors.SandboxWarning` afterwards (and reopened, so refused, on next use).
A function object runs in the caller's own process, without time limits. Calls are made in a fixed shuffled order, so that
a progress bar's estimate of the time left is fair (the cost of a minimax call
falls steeply with the pieces on the board); the report lists positions by
plies played, then code. The report and its parts are :mod:`solver.grading.gradereport`'s.

>>> import solver
>>> report = solver.grade(solver.best_move, side="O")
>>> report.positions, report.kept, report.optimal, report.lost, report.errors
(2097, 2097, 2097, (), ())
>>> report
<GradeReport 3x3k3, O to move: 2,097 positions, 2,097 kept (100.0%), 2,097 optimal, 0 thrown away, no errors>
"""

from __future__ import annotations

import functools
import math
import os
import random
import time
import warnings
from collections import Counter
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np

from ..encoding.board import masks
from ..encoding.coderules import code_rules
from ..encoding.drops import expected_drops, landing_cell, read_drop
from ..encoding.moves import expected_moves, parse_move
from ..errors import InvalidBoardError, InvalidMoveError, OffBoardMoveError, PlayerError, SandboxWarning, SearchTimeout, printable, short
from ..rules.base import IN_PLAY
from ..rules.game import TABLE_CELLS, Game, parse_game
from ..store import locate as store
from ..store.tablebase import forget, resolve_table
from ..tables import CompactTable, Table
from ..tables.analysis import verdict
from ..tables.position import Position
from ..words import count
from .answerkey import AnswerKey
from .gradereport import FailureKind, GradedMove, GradeReport, GradingInterrupted, PlayerFailure, Side
from .limits import DEFAULT_PROCESSES, SANDBOX_TASKS, Limits, PidCgroup, Scratch
from .player import (
    DEFAULT_MEMORY_MB,
    DEFAULT_SYMBOLS,
    DEFAULT_TIMEOUT,
    BoardForm,
    Caller,
    PlayerProcess,
    Reply,
    Symbols,
    Turn,
    describe_exception,
    interrupts_deferred,
    load_player,
    split_player,
)
from .sandbox import Sandbox, choose, player_files
from .shapes import Shape, Tried, explain, hint, state_attribute

__all__ = [
    "DEFAULT_SYMBOLS",
    "DEFAULT_TIMEOUT",
    "DEFAULT_TOTAL_TIMEOUT",
    "GradeReport",
    "GradedMove",
    "GradingInterrupted",
    "PlayerFailure",
    "Returns",
    "Side",
    "Turn",
    "answer_cell",
    "board_maker",
    "describe_exception",
    "grade",
    "load_player",
    "parse_symbols",
    "positions_to_grade",
]

Returns = Literal["move", "value-move"]
"""What the function returns: a move, or ``(value, move)``."""
Progress = Callable[[int], None]
"""Called with 0 once the player is loaded, then with 1 after each position graded."""

DEFAULT_TOTAL_TIMEOUT = 600.0
"""Seconds for a whole grading; what is graded by then is reported."""
EARLY = 20
"""When the first this many calls all fail the same known way, grading stops with one line saying which option fixes it."""
STEP = 256
"""Boards sent to the player's process per message."""
CRASHES_IN_A_ROW = 5
"""Grading stops when the player's process dies on this many calls in a row."""
TIMEOUTS_IN_A_ROW = 3
"""Grading stops when this many calls in a row time out (a player that hangs on every call)."""
TRIAL = 5
"""Positions each other shape is tried on when the first calls all fail in a known way (:mod:`solver.grading.shapes`)."""
MORE_TRIAL = 40
"""Positions the shapes that tie on :data:`TRIAL` are tried on again (``--turn max`` against ``--turn symbol``), before the
hint names them all."""
SHUFFLE_SEED = 0


# -- the positions ------------------------------------------------------------------
DEFAULT_SAMPLE = 10_000
"""Positions graded on a game of more than 16 cells when no ``sample`` is given (4x5k4 has 674 million)."""


def positions_to_grade(
    *, side: Side | str = "both", game: Game | str | None = None, table: Table | None = None, sample: int | None = None, seed: int = 0
) -> tuple[Position, ...]:
    """The reachable, unfinished positions where ``side`` is to move, by plies played then code.

    :param sample: grade only this many, drawn uniformly at random among them (seeded by
        ``seed``: the same positions every run). A table that cannot list every position
        (:attr:`solver.tables.Table.lists_positions`: a compact one, games of more than 16
        cells) is sampled, :data:`DEFAULT_SAMPLE` positions unless told otherwise, unless it has
        at most :data:`LISTED_BOARDS` boards (small gravity games): then every position is graded.

    On tic-tac-toe: 4,520 positions, 2,423 with X to move and 2,097 with O.

    >>> len(positions_to_grade(side="O"))
    2097
    >>> len(positions_to_grade(sample=100)), positions_to_grade(sample=3) == positions_to_grade(sample=3)
    (100, True)
    """
    chosen = _side(side)
    table = resolve_table(None if game is None else parse_game(game), table)  # a public function: the name is parsed here
    if sample is not None and sample < 1:
        raise PlayerError(f"a sample needs at least one position, found {sample}")
    if table.searches:
        return _searched_positions(table, chosen, sample or SEARCHED_SAMPLE, seed)
    if not (table.lists_positions or _few_boards(table)):
        codes = _sampled_codes(table, chosen, sample or DEFAULT_SAMPLE, seed)
    else:
        codes = table.reachable_codes()
        playing = _playing(table, codes, chosen)
        codes = codes[playing]
        if sample is not None and sample < codes.size:
            codes = np.sort(np.random.default_rng(seed).choice(codes, sample, replace=False))
    found = [table.at(code) for code in codes.tolist()]
    found.sort(key=_order)
    return tuple(found)


SEARCHED_SAMPLE = 40
"""Positions graded on a game answered by search (Connect Four) when no ``sample`` is given."""
SEARCHED_EMPTY = (6, 16)
"""The empty cells of the positions graded on a game answered by search once :data:`SEARCHED_SECONDS` have passed: the
end of a game, whose searches take milliseconds."""
SEARCHED_LEAST_EMPTY = 6
"""The fewest empty cells of a graded position of a game answered by search (a board nearly full has one or two moves)."""
SEARCHED_BUDGET = 0.25
"""Seconds a position's search may take to be graded: one that takes longer is left out (without the book, most of
Connect Four's openings; with it, the book answers them at once); after an opening's, the plies after it are drawn."""
SEARCHED_SECONDS = 10.0
"""Seconds spent drawing positions from the whole game; after them the rest come from :data:`SEARCHED_EMPTY`."""


def _searched_positions(table: Table, chosen: Side, count: int, seed: int) -> tuple[Position, ...]:
    """``count`` distinct positions of a game answered by search, each the end of a seeded random game stopped at a ply
    drawn evenly from the opening to :data:`SEARCHED_LEAST_EMPTY` empty cells, in play, ``chosen`` to move, and
    searched now within :data:`SEARCHED_BUDGET` (kept by the table). A position past the budget is left out (an opening's:
    the plies up to it are not drawn again); after :data:`SEARCHED_SECONDS`, the plies of :data:`SEARCHED_EMPTY` only.
    Which openings are graded depends on this machine's speed (and on the book: :func:`sampled_words` says which)."""
    rng = np.random.default_rng(seed)
    game, bounded = table.game, table.bounded(SEARCHED_BUDGET)
    found: dict[int, Position] = {}
    first, deadline = 0, time.monotonic() + SEARCHED_SECONDS
    for _ in range(count * 50):
        if len(found) >= count:
            break
        most = game.cells - first if time.monotonic() < deadline else SEARCHED_EMPTY[1]
        stop = game.cells - int(rng.integers(SEARCHED_EMPTY[0] if most == SEARCHED_EMPTY[1] else SEARCHED_LEAST_EMPTY, most + 1))
        code = _random_game(game, game.rules, stop, rng)
        if code is None or code in found or not (chosen == "both" or (stop % 2 == 0) == (chosen == "X")):
            continue
        try:
            found[code] = bounded.at(code)
        except SearchTimeout:  # an opening past the budget: the plies before it are no cheaper (a later one is just left out)
            first = max(first, stop + 1) if stop < game.cells // 3 else first
    return tuple(sorted(found.values(), key=_order))


PHASES = ("opening", "middle game", "endgame")
"""A game's plies in thirds, as :func:`sampled_words` counts the positions graded."""


def sampled_words(table: Table, positions: Sequence[Position]) -> str | None:
    """What a sample of a game answered by search covers, in words for the report: the plies, and how many positions of
    the opening, middle and end thirds of the game; None for a game whose positions are listed or drawn from its table.
    """
    if not table.searches or not positions:
        return None
    game = table.game
    plies = [p.pieces for p in positions]
    third = -(-game.cells // 3)
    bounds = [(0, third - 1), (third, 2 * third - 1), (2 * third, game.cells)]
    counts = [sum(low <= ply <= high for ply in plies) for low, high in bounds]
    phases = ", ".join(f"{count(n, name)} (plies {low}-{high})" for n, name, (low, high) in zip(counts, PHASES, bounds, strict=True))
    left_out = f"a position whose search passes {SEARCHED_BUDGET:g} s is left out"
    if game.cells > TABLE_CELLS:  # Connect Four: its book answers the first plies
        depth = table.book_depth
        left_out += (
            f" (the book answers plies 0 to {depth})"
            if depth is not None
            else f" (no book: build it with solve build --game {game.name} to grade more openings)"
        )
    return f"sampled from random games at plies {min(plies)} to {max(plies)}: {phases}; {left_out}"


def _random_game(game: Game, rules: Any, stop: int, rng: np.random.Generator) -> int | None:
    """The code after ``stop`` random moves from the empty board that leave the game in play, or None if it ended."""
    code = taken = 0
    for ply in range(stop):
        cells = [cell for cell in range(game.cells) if rules.moves(taken, 0) >> cell & 1]
        cell = cells[int(rng.integers(len(cells)))]
        code += (1 if ply % 2 == 0 else 2) * 3**cell
        taken |= 1 << cell
        if code_rules(game).judge(code)[0] != IN_PLAY:
            return None
    return code


def _playing(table: Table, codes: np.ndarray, chosen: Side) -> np.ndarray:
    """Which codes are reachable, unfinished positions with ``chosen`` to move (a bool mask)."""
    status, ply = code_rules(table.game).classify(codes)  # the rules say which boards are still in play
    playing = status == IN_PLAY
    if chosen != "both":
        playing &= (ply % 2 == 0) == (chosen == "X")
    return np.asarray(playing)


LISTED_BOARDS = 1 << 22
"""A compact table of at most this many boards (4x4k4-gravity's 201,755; 3x5k3-gravity's) is graded on every position,
as a dense one is: listing them takes a pass over its layers (under a second)."""


def _few_boards(table: Table) -> bool:
    """Whether a compact table is small enough to grade every position (:data:`LISTED_BOARDS`)."""
    return isinstance(table, CompactTable) and table.layout.size <= LISTED_BOARDS


def _sampled_codes(table: Table, chosen: Side, count: int, seed: int) -> np.ndarray:
    """``count`` distinct positions drawn uniformly from a big table (rejection sampling over the boards of its index,
    each board once: legal counts, and under gravity no floating piece; over codes for any other table)."""
    rng = np.random.default_rng(seed)
    found: np.ndarray = np.zeros(0, dtype=np.int64)
    for _ in range(1000):
        size = max(4 * count, 1 << 16)
        if isinstance(table, CompactTable):
            codes = table.layout.codes_at(rng.integers(0, table.layout.size, size=size, dtype=np.int64))
        else:
            codes = rng.integers(0, table.game.codes, size=size, dtype=np.int64)
        codes = codes[_playing(table, codes, chosen)]
        if table.game.rules.table_marks_unreached:  # gravity: the rules call some boards in play that no game reaches; the table knows
            codes = codes[np.asarray(table.lookup_codes(codes, check=False).reachable).reshape(-1)]
        found = np.unique(np.concatenate([found, codes]))
        if found.size >= count:
            return np.sort(rng.choice(found, count, replace=False))
    return found


def _order(position: Position) -> tuple[int, int]:
    return position.pieces, position.code


def _side(side: str) -> Side:
    normal = {"x": "X", "o": "O", "both": "both"}.get(str(side).lower())
    if normal is None:
        raise PlayerError(f"side must be 'X', 'O' or 'both', found {side!r}")
    return normal  # type: ignore[return-value]


def _returns(returns: str) -> Returns:
    if returns not in ("move", "value-move"):
        raise PlayerError(f"returns must be 'move' or 'value-move', found {returns!r}")
    return returns  # type: ignore[return-value]


# -- the boards ----------------------------------------------------------------------
def parse_symbols(text: str) -> Symbols:
    """Three symbols for X, O and empty from ``"X,O,None"``, ``"x,o,-"`` or ``"X,O, "``.

    ``None`` stands for Python's None and integers for ints (``"1,-1,0"``).
    Parts are stripped of spaces unless they are only spaces.

    >>> parse_symbols("X,O,None"), parse_symbols("x,o,-"), parse_symbols("X,O, "), parse_symbols("1, 2, 0")
    (('X', 'O', None), ('x', 'o', '-'), ('X', 'O', ' '), (1, 2, 0))
    """
    parts = text.split(",")
    if len(parts) != 3:
        raise PlayerError(f"symbols {text!r} has {len(parts)} parts: expected three, for X, O and empty, e.g. 'X,O,None'")
    x, o, empty = (_symbol(part) for part in parts)
    return x, o, empty


def _symbol(part: str) -> Any:
    text = part if not part.strip() else part.strip()
    if text == "None":
        return None
    try:
        return int(text)
    except ValueError:
        return text


def board_maker(game: Game, *, symbols: Symbols = DEFAULT_SYMBOLS, array: bool = False, flat: bool = False) -> Callable[[Position], Any]:
    """The function that makes a fresh board of each position in the form asked (module docstring).

    >>> import solver
    >>> make = board_maker(solver.Game(), flat=True)
    >>> make(solver.lookup("X.O/.X./..O"))
    'X.O.X...O'
    """
    make = BoardForm(game.rows, game.cols, symbols, array, flat).maker()
    return lambda position: make(position.cells)


# -- the answers ---------------------------------------------------------------------
def answer_cell(answer: Any, position: Position, *, shown: str | None = None) -> int:
    """The flat cell of an answer, read by :func:`solver.encoding.moves.parse_move`, that is empty in ``position``.
    Under gravity an answer is a column, or the ``(row, col)`` of the cell a piece dropped there lands on
    (:mod:`solver.encoding.drops`).

    :param shown: how the answer reads in a message (default its ``repr``).
    :raises ValueError: saying why the answer is not a legal move there.
    """
    game = position.game
    if game.rules.move.writes_columns:
        return _drop_answer(answer, position, shown)
    try:
        cell = parse_move(answer, game)
    except OffBoardMoveError as why:
        raise ValueError(str(why)) from None
    except InvalidBoardError:
        raise ValueError(f"answer {shown or short(answer)} is not a move: {expected_moves(game)}") from None
    if not code_rules(game).is_legal(position.code, cell):
        row, col = game.coords(cell)
        piece = position.cells[cell]
        raise ValueError(f"cell ({row}, {col}) is taken by {piece}" if piece is not None else f"cell ({row}, {col}) is not a move here")
    return cell


def _drop_answer(answer: Any, position: Position, shown: str | None) -> int:
    """:func:`answer_cell` under gravity: the cell a column's piece lands on, or a ``(row, col)`` that is that cell."""
    game = position.game
    try:
        drop = read_drop(answer, game)
    except OffBoardMoveError as why:
        raise ValueError(str(why)) from None
    except InvalidBoardError:
        raise ValueError(f"answer {shown or short(answer)} is not a move: {expected_drops(game)}") from None
    x, o = masks(game, position.code)
    try:
        return landing_cell(drop, game, x | o)
    except InvalidMoveError as why:
        raise ValueError(str(why)) from None


def expected_answers(game: Game) -> str:
    """What an answer may be on ``game``, for messages: a cell or row,col, or under gravity a column."""
    return expected_drops(game) if game.rules.move.writes_columns else expected_moves(game)


def _value_move_kind(answer: Any, game: Game) -> str | None:
    """Whether an answer that is no legal move looks like ``(value, move)``: ``"value-move"`` for a number, then
    a move that is no number, or a float first; under gravity ``"value-column"`` for two ints that may be a value
    and a column or a row and a column (:func:`solver.grading.shapes.hint`); else None."""
    if not (isinstance(answer, list) and len(answer) == 2 and _is_number(answer[0])):
        return None
    value, move = answer
    if isinstance(move, list) or move is None or isinstance(value, float):
        return "value-move"
    if game.rules.move.writes_columns and isinstance(move, int) and not isinstance(move, bool) and 0 <= move < game.cols:
        return "value-column"
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# -- grading -------------------------------------------------------------------------
def grade(
    player: str | Callable[..., Any],
    *,
    symbols: Symbols = DEFAULT_SYMBOLS,
    array: bool = False,
    flat: bool = False,
    turn: Turn | None = None,
    returns: Returns = "move",
    side: Side | str = "both",
    game: Game | str | None = None,
    table: Table | None = None,
    progress: Progress | bool | None = None,
    sample: int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    total_timeout: float | None = DEFAULT_TOTAL_TIMEOUT,
    memory_mb: int | None = DEFAULT_MEMORY_MB,
    sandbox: Sandbox = "auto",
    processes: int = DEFAULT_PROCESSES,
    support: Sequence[str | os.PathLike[str]] = (),
) -> GradeReport:
    """Call the player on every position where ``side`` is to move and judge each answer.

    :param player: ``"FILE.py:NAME"``, loaded and called in a separate process (isolated, with time limits), or a function, called in this process.
    :param symbols: X, O and empty in list-of-rows and flat boards (module docstring).
    :param array: pass a ``(rows, cols)`` numpy array of 1 (X), -1 (O), 0 (empty) instead.
    :param flat: pass a string of one character per cell instead, e.g. ``"X...O...."``.
    :param turn: also pass whose turn it is: ``"symbol"`` (the mover's symbol) or ``"max"`` (``True`` when X is to move).
    :param returns: ``"move"``, or ``"value-move"`` for a function returning ``(value, move)``.
    :param side: ``'X'``, ``'O'`` or ``'both'``: whose positions are tried.
    :param game: e.g. ``"3x4"``; default tic-tac-toe.
    :param table: the table to use (default :func:`solver.table_for` of ``game``).
    :param progress: called with 0 once the player is loaded, then with 1 after each position graded (None or False: not called).
    :param sample: grade this many positions drawn at random (seeded, the same every run) instead of all of them;
        games of more than 16 cells are always sampled (:func:`positions_to_grade`).
    :param timeout: seconds per call (isolated players): a call that runs over is a time-out.
    :param total_timeout: seconds for the whole grading (``None``: no limit); reached at any moment (the import, a restart, a
        call), it ends the grading with the report so far (:attr:`GradeReport.stopped` says what ran out).
    :param memory_mb: the player's memory in MiB (``None``: no limit), its sandbox's ``/tmp`` and ``/dev/shm`` included (:mod:`solver.grading.limits`).
    :param sandbox: ``"auto"`` (bubblewrap where it works, else a warning), ``"bwrap"`` or ``"none"`` (:mod:`solver.grading.sandbox`).
    :param processes: the player's processes and threads at most, its own included (:mod:`solver.grading.limits`).
    :param support: files a ``"FILE.py:NAME"`` player gets beside it, alone in its folder, e.g. a module it imports (module docstring: Isolation).
    :raises PlayerError: for options that do not fit, a file that cannot be loaded, or when the first calls all fail in a way
        options fix (the message names every option found, by trying them); for ``sandbox="bwrap"`` where bubblewrap cannot run.
    :raises GradingInterrupted: on Ctrl-C, with the partial report.

    The function's exceptions, illegal answers, time-outs and crashes are recorded, never raised; a player that times out
    on :data:`TIMEOUTS_IN_A_ROW` calls in a row, or dies on :data:`CRASHES_IN_A_ROW`, is stopped there (module docstring: Isolation).
    """
    table, progress = resolve_table(None if game is None else parse_game(game), table), _progress_callback(progress)  # a public function: parsed here
    form = BoardForm(table.game.rows, table.game.cols, symbols, array, flat, turn)
    positions = positions_to_grade(side=side, table=table, sample=sample)
    judge = _Judge(table.game, _side(side), len(positions), _returns(returns), timeout, _player_name(player), sampled_words(table, positions))
    with _reported_on_ctrl_c(judge):  # the sandbox check and the answer key take a while: Ctrl-C there reports nothing graded
        contained = choose(sandbox) if isinstance(player, str) else "none"
        key = AnswerKey(table, positions)
        grading = _Grading(judge, _shuffled(key.positions), form, total_timeout)
        if not isinstance(player, str):
            return grading.run(progress, function=player)
        process = _player_process(player, form, table, contained, timeout, memory_mb, total_timeout, processes, support)
        return grading.run(progress, process=process, unsandboxed=key if contained == "none" else None)


def _progress_callback(progress: Progress | bool | None) -> Progress | None:
    """``progress=`` as given: a function, or None or False for none.

    :raises TypeError: for anything else (``True`` too: the grader draws no bar of its own), saying what it takes.
    """
    if progress is None or progress is False:
        return None
    if progress is True or not callable(progress):
        raise TypeError(
            f"progress takes a function, called with 0 once the player is loaded and then with 1 after each position graded "
            f"(or None or False for no progress), not {progress!r}; solve grade draws a progress bar with it"
        )
    return progress


def _player_process(
    player: str,
    form: BoardForm,
    table: Table,
    contained: Literal["bwrap", "none"],
    timeout: float,
    memory_mb: int | None,
    total_timeout: float | None,
    processes: int,
    support: Sequence[str | os.PathLike[str]],
) -> PlayerProcess:
    """The player's process, not started yet: its limits, its sandbox, its PID cgroup, and the table files it must not see."""
    if processes < 1:
        raise PlayerError(f"processes must be at least 1 (the player's own), found {processes}")
    player_files(Path(split_player(player)[0]), [Path(path) for path in support], hidden=_table_places(table))  # before a cgroup is made
    scratch = Scratch.of(memory_mb) if contained == "bwrap" else None
    limits = Limits.for_grading(memory_mb, total_timeout, processes=processes, scratch=scratch)
    with interrupts_deferred():  # Ctrl-C meanwhile would leave a cgroup nothing removes
        cgroup = PidCgroup.make(processes + SANDBOX_TASKS)
    if cgroup is None and os.geteuid() == 0:
        _say_once(
            "the player's processes are not bounded: no PID cgroup is writable here, and RLIMIT_NPROC does not bind root "
            "(grade as another user, or where /sys/fs/cgroup is writable)"
        )
    return PlayerProcess(
        player, form, timeout=timeout, limits=limits, sandbox=contained, hidden=_table_places(table), scratch=scratch, cgroup=cgroup, support=support
    )


_said: set[str] = set()


def _say_once(message: str) -> None:
    """One :class:`SandboxWarning` per process for ``message``."""
    if message not in _said:
        _said.add(message)
        warnings.warn(message, SandboxWarning, stacklevel=4)


@contextmanager
def _reported_on_ctrl_c(judge: _Judge, process: PlayerProcess | None = None) -> Iterator[None]:
    """Turn Ctrl-C (``KeyboardInterrupt``) inside the block into :class:`GradingInterrupted` with the report so far."""
    try:
        yield
    except GradingInterrupted:
        raise
    except KeyboardInterrupt:
        judge.stopped = "interrupted (Ctrl-C)"
        raise GradingInterrupted(judge.report(process)) from None


def _shuffled(positions: Sequence[Position]) -> list[Position]:
    """The positions in the fixed shuffled order the calls are made in (module docstring: Isolation)."""
    order = list(positions)
    random.Random(SHUFFLE_SEED).shuffle(order)
    return order


def _player_name(player: str | Callable[..., Any]) -> str:
    """The player's name in hints: ``NAME`` of ``"FILE.py:NAME"``, or the function's name."""
    return player.rpartition(":")[2] if isinstance(player, str) else getattr(player, "__name__", "the function")


def _table_places(table: Table) -> list[Path]:
    """Where tables live, for the sandbox to hide: the table directory, the graded table's folder, the shipped tables."""
    places = [store.table_dir()]
    if table.path is not None:
        places.append(Path(table.path).parent)
    for shipped in store.SHIPPED:
        found = store.shipped_path(parse_game(shipped))
        if found is not None:
            places.append(found.parent)
    return places


def _check_table(key: AnswerKey) -> None:
    """After an unsandboxed player ran: say so if it changed the table file, and forget the open tables."""
    damage = key.damage()
    if damage is not None:
        forget()
        warnings.warn(
            f"the table file was changed while the player ran, without a sandbox: {damage} (every verdict came from a copy verified before the player started)",
            SandboxWarning,
            stacklevel=4,
        )


Replies = Generator[tuple[Position, Reply], None, None]


class _Grading:
    """One grading under way: the judge, the positions in the order they are called, the time limit, and the player.

    The player is either :attr:`process` (a file's function in its own process) or :attr:`function`
    (a function object, called in this process).
    """

    def __init__(self, judge: _Judge, order: list[Position], form: BoardForm, total: float | None) -> None:
        """Start the clock: ``total`` seconds (None: no limit) from now."""
        self.judge, self.order, self.form, self.total = judge, order, form, total
        self.deadline = None if total is None else time.monotonic() + total
        self.process: PlayerProcess | None = None
        self.function: Callable[..., Any] | None = None

    def run(
        self,
        progress: Progress | None,
        *,
        process: PlayerProcess | None = None,
        function: Callable[..., Any] | None = None,
        unsandboxed: AnswerKey | None = None,
    ) -> GradeReport:
        """Start the player's process (if isolated), judge each reply as it comes, and report; the process is closed whatever happens.

        Ctrl-C at any moment, the clean-up included, ends in :class:`GradingInterrupted`, and only
        once the player's process is killed and reaped (the clean-up defers it). The total time
        limit ends the grading with the report so far, whatever was under way (:attr:`GradeReport.stopped` says what).

        :param process: the player's process (not started yet), or ``function``, the player called in this process.
        :param unsandboxed: the answer key of an isolated player that ran without a sandbox: its table file is checked afterwards.
        :raises GradingInterrupted: on Ctrl-C, with the partial report.
        :raises PlayerError: when the first calls all fail in a known way (the line names every option found to fix it).
        """
        judge, self.process, self.function = self.judge, process, function
        with _reported_on_ctrl_c(judge, process):
            replies = self._isolated() if process is not None else self._in_process()
            try:
                if process is not None and not process.start(self.deadline):
                    judge.stopped = f"stopped: {self._limit()} ran out while the player's file was being imported"
                    return judge.report(process)
                if progress is not None:
                    progress(0)
                for position, reply in replies:
                    judge.add(position, reply)
                    if progress is not None:
                        progress(1)
                    self._check_shape()
                self._check_shape(final=True)
            finally:
                with interrupts_deferred():
                    replies.close()
                    if process is not None:
                        process.shutdown()
                        if unsandboxed is not None:
                            _check_table(unsandboxed)
            return judge.report(process)

    def _limit(self) -> str:
        return "the total time limit" if self.total is None else f"the total time limit of {self.total:g} s"

    def _in_process(self) -> Replies:
        caller = Caller(cast(Callable[..., Any], self.function), self.form)
        for position in self.order:
            if self.deadline is not None and time.monotonic() >= self.deadline:
                self.judge.stopped = f"stopped at {self._limit()}"
                return
            yield position, caller.call(position.cells, position.to_move or "X")

    def _isolated(self) -> Replies:
        process, judge = cast(PlayerProcess, self.process), self.judge
        dead = late = 0
        for first in range(0, len(self.order), STEP):
            step = self.order[first : first + STEP]
            graded = 0
            for position, reply in zip(step, process.play([(p.cells, p.to_move or "X") for p in step], deadline=self.deadline), strict=False):
                graded += 1
                dead, late = (dead + 1 if "dead" in reply else 0), (late + 1 if "t" in reply else 0)
                yield position, reply
                if dead >= CRASHES_IN_A_ROW:
                    judge.stopped = f"stopped after the player's process died on {dead} calls in a row"
                    return
                if late >= TIMEOUTS_IN_A_ROW:
                    judge.stopped = f"stopped after the player timed out on {late} calls in a row (--timeout {process.timeout:g} s each)"
                    return
            if graded < len(step):
                judge.stopped = self._ended(process)
                return

    def _ended(self, process: PlayerProcess) -> str:
        """Why the player's process stopped answering before the step's end (:attr:`PlayerProcess.ended`)."""
        if process.ended == "restart":
            return f"stopped: {self._limit()} ran out while the player's process was being restarted"
        if process.ended == "restart failed":
            return f"stopped: the player's process could not be restarted: {process.ended_why}"
        return f"stopped at {self._limit()}"

    # functions of another shape
    def _check_shape(self, *, final: bool = False) -> None:
        """Stop with one line naming every option the function needs, when the first calls all failed in a known way."""
        judge = self.judge
        if not (judge.graded == EARLY or (final and 0 < judge.graded < EARLY)):
            return
        first = judge.tried()
        if first.failing is not None:
            if self.process is not None:
                self.process.close()  # it is still answering the rest of its batch: the trials start it afresh
            form = self.form
            start = Shape(form.turn, judge.returns, form.symbols)
            more = functools.partial(self._trial, count=MORE_TRIAL)
            raise PlayerError(explain(start, first, self._trial, more=more, name=judge.name, positions=judge.graded, array=form.array, flat=form.flat))

    def _trial(self, shape: Shape, count: int = TRIAL) -> Tried | None:
        """What the first ``count`` positions give with another shape: :data:`TRIAL` of those graded, or more of the
        positions to grade to break a tie (None: the time ran out, or the process cannot restart)."""
        positions = self.order[: min(count, len(self.order) if count > TRIAL else self.judge.graded)]
        judge = _Judge(self.judge.game, self.judge.side, len(positions), shape.returns, self.judge.timeout, self.judge.name)
        try:
            form = replace(self.form, symbols=shape.symbols, turn=shape.turn)
        except PlayerError:  # symbols this board form cannot carry
            return Tried(None, "", 0, 0, 0)
        if self.process is not None:
            replies = list(self.process.play([(p.cells, p.to_move or "X") for p in positions], deadline=self.deadline, form=form))
        else:
            caller = Caller(cast(Callable[..., Any], self.function), form)
            replies = [caller.call(p.cells, p.to_move or "X") for p in positions]
        if len(replies) < len(positions):
            return None
        for position, reply in zip(positions, replies, strict=True):
            judge.add(position, reply)
        return judge.tried()


def timeout_hint(name: str, game: Game, timeouts: Sequence[PlayerFailure], slowest_by_empty: dict[int, float], timeout: float) -> str | None:
    """For a function that timed out only on the boards with the most empty cells (the first plies, where a plain
    minimax searches the whole game tree): the ``--timeout`` that would let it finish there, else None.

    The time there is extrapolated from its slowest finished call with the most empty cells, ``e0`` of them: a plain
    minimax's time grows about as the number of empty cells' factorial, so each empty cell more than ``e0``
    multiplies it by that number of cells (a board with 9 empty costs about 72 times one with 7); the option asked
    for is half as much again, rounded up.
    """
    if not timeouts or not slowest_by_empty:
        return None
    empties = [game.cells - failure.position.pieces for failure in timeouts]
    most, e0 = max(empties), max(slowest_by_empty)
    if min(empties) < e0:
        return None  # it also timed out where calls on fuller boards finished: not the first plies' cost
    seconds = max(slowest_by_empty[e0] * math.prod(range(e0 + 1, most + 1)), 2 * timeout if most == e0 else 0.0)
    wanted = math.ceil(1.5 * seconds) if seconds < 10 else 10 * math.ceil(0.15 * seconds)
    return (
        f"{name} timed out on {count(len(timeouts), 'call')} (--timeout {timeout:g} s), {'on a board' if len(timeouts) == 1 else 'all on boards'} "
        f"with {_plural_empty(min(empties), most)}, "
        f"the first plies, where a plain minimax searches the whole game tree; its slowest call with {count(e0, 'empty cell')} took "
        f"{slowest_by_empty[e0]:.2f} s, and each empty cell more multiplies that by about their number: "
        f"grade it with --timeout {max(wanted, math.ceil(timeout) + 1)} (about {seconds:.0f} s a call there), or memoise it"
    )


def _plural_empty(fewest: int, most: int) -> str:
    return count(most, "empty cell") if fewest == most else f"{fewest} to {most} empty cells"


class _Judge:
    """Judges replies (plain data) against the table, and keeps the counts and the hints."""

    def __init__(self, game: Game, side: Side, planned: int, returns: Returns, timeout: float, name: str, sampled: str | None = None) -> None:
        self.game, self.side, self.planned, self.returns, self.timeout, self.name = game, side, planned, returns, timeout, name
        self.kept = self.optimal = self.mutated = self.graded = 0
        self.lost: list[GradedMove] = []
        self.answers: list[tuple[int, int]] = []
        self.slower: list[GradedMove] = []
        self.failures: dict[FailureKind, list[PlayerFailure]] = {"exception": [], "illegal": [], "timeout": [], "crash": []}
        self.seconds = self.slowest_seconds = 0.0
        self.slowest: Position | None = None
        self.stopped: str | None = None
        self.sampled = sampled
        """What the positions cover (:func:`sampled_words`), or None."""
        self.mismatches: Counter[str] = Counter()
        self.examples: dict[str, str] = {}
        self.tried_by_side: Counter[str] = Counter()
        self.slowest_by_empty: dict[int, float] = {}
        """The slowest finished call at each number of empty cells (seconds), for the hint after time-outs."""

    def add(self, position: Position, reply: Reply) -> None:
        """Judge one call."""
        self.graded += 1
        mover = position.to_move or "X"
        self.tried_by_side[mover] += 1
        given = reply.get("s")
        spent = float(given) if isinstance(given, (int, float)) and 0 <= given < 1e9 else 0.0
        self.seconds += spent
        if self.slowest is None or spent > self.slowest_seconds:
            self.slowest, self.slowest_seconds = position, spent
        self.mutated += reply.get("m") == 1
        if "dead" in reply:
            self._fail(position, "crash", str(reply["dead"]))
        elif "t" in reply:
            self._fail(position, "timeout", f"timed out: no answer within {self.timeout:g} s")
        elif "x" in reply:
            message = str(reply["x"])[:500]
            if reply.get("call"):
                self._mismatch(f"arguments: {reply['call']}", message)
            elif state_attribute(message) is not None:
                self._mismatch("state object", message)
            self._fail(position, "exception", message)
        elif "o" in reply:
            self._fail(position, "illegal", f"answer of type {str(reply['o'])[:60]} is not a move: {expected_answers(self.game)}", str(reply.get("r", ""))[:80])
        elif "a" in reply:
            empty = self.game.cells - position.pieces
            self.slowest_by_empty[empty] = max(spent, self.slowest_by_empty.get(empty, 0.0))
            self._judge(position, reply["a"], str(reply.get("r", ""))[:80] or short(reply["a"]))
        else:
            self._fail(position, "crash", "the player's process sent a reply that cannot be read")

    def _fail(self, position: Position, kind: FailureKind, message: str, answer: str = "") -> None:
        """Record a call without a legal move; the player's text in it is escaped here, whatever sent it (:func:`~solver.errors.printable`)."""
        self.failures[kind].append(PlayerFailure(position, kind, printable(message), printable(answer)))

    def _mismatch(self, kind: str, example: str) -> None:
        self.mismatches[kind] += 1
        self.examples.setdefault(kind, printable(example))

    def _judge(self, position: Position, answer: Any, shown: str) -> None:
        if self.returns == "value-move":
            if not (isinstance(answer, list) and len(answer) == 2):
                if not isinstance(answer, list):
                    self._mismatch("move only", shown)
                self._fail(position, "illegal", f"answer {shown} is not (value, move), as --returns value-move expects", shown)
                return
            answer = answer[1]
        try:
            cell = answer_cell(answer, position, shown=shown)
        except ValueError as why:
            if answer in (None, [], "", [None, None]):
                self._mismatch("no move", shown)
            elif self.returns == "move" and (looks := _value_move_kind(answer, self.game)) is not None:
                self._mismatch(looks, shown)
            self._fail(position, "illegal", str(why), shown)
            return
        self.answers.append((position.code, cell))
        move = next(move for move in position.moves if move.cell == cell)
        judged = verdict(position, move)
        self.kept += judged in ("best", "ok")
        self.optimal += judged == "best"
        if judged == "ok":
            self.slower.append(GradedMove(position, move, judged))
        elif judged != "best":
            self.lost.append(GradedMove(position, move, judged))

    def tried(self) -> Tried:
        """The calls so far, as :mod:`solver.grading.shapes` weighs them: the known way every one failed (if any), the legal answers."""
        failing = next((kind for kind, seen in self.mismatches.items() if seen == self.graded > 0), None)
        return Tried(failing, self.examples.get(failing, "") if failing else "", self.graded, self.kept + len(self.lost), self.kept)

    def hints(self) -> tuple[str, ...]:
        """One line per mismatch seen in at least half the calls, and a player that seems to play one side only."""
        found = [hint(kind, self.examples[kind], self.name) for kind, count in self.mismatches.items() if 2 * count >= self.graded > 0]
        found += [line for line in [timeout_hint(self.name, self.game, self.failures["timeout"], self.slowest_by_empty, self.timeout)] if line]
        if self.side == "both" and min(self.tried_by_side["X"], self.tried_by_side["O"]) >= EARLY:
            lost = Counter(item.position.to_move for item in self.lost)
            rate = {s: lost[s] / self.tried_by_side[s] for s in ("X", "O")}
            for good, bad in (("O", "X"), ("X", "O")):
                if rate[good] <= 0.01 and rate[bad] >= 0.05:
                    found.append(
                        f"{self.name} throws the result away in {rate[bad]:.0%} of {bad}'s positions but in {rate[good]:.0%} of "
                        f"{good}'s: it may play as {good} whatever the board says (how is it told whose turn it is? see --turn and "
                        f"--symbols); graded with --side {good} it would be graded only on the side it plays well"
                    )
        return tuple(found)

    def report(self, process: PlayerProcess | None) -> GradeReport:
        """The report so far, in the order of :func:`positions_to_grade`."""

        def by_order(items: list[Any]) -> tuple[Any, ...]:
            return tuple(sorted(items, key=lambda item: _order(item.position)))

        return GradeReport(
            game=self.game,
            side=self.side,
            planned=self.planned,
            positions=self.graded,
            kept=self.kept,
            optimal=self.optimal,
            lost=by_order(self.lost),
            slower=by_order(self.slower),
            exceptions=by_order(self.failures["exception"]),
            illegal=by_order(self.failures["illegal"]),
            timeouts=by_order(self.failures["timeout"]),
            crashes=by_order(self.failures["crash"]),
            mutated=self.mutated,
            answers=tuple(sorted(self.answers)),
            hints=self.hints(),
            stopped=self.stopped,
            printed=0 if process is None else process.printed,
            seconds=self.seconds,
            slowest=self.slowest,
            slowest_seconds=self.slowest_seconds,
            player=self.name,
            sampled=self.sampled,
        )
