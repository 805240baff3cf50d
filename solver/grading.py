"""Grading a player: call a move function on every position and judge each answer.

:func:`grade` calls ``move_fn(board)`` once on every reachable, unfinished
position where the graded side is to move, ordered by plies played, then by code.
Every call gets a **fresh** board (many minimax functions change the board they
are given), in the form the function expects:

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

An answer may be ``(row, col)``, ``[row, col]`` (numpy integers too) or a flat
cell index ``row * cols + col``. Each answer falls in exactly one bucket:

==============  =================================================================
bucket          meaning
==============  =================================================================
``kept``        a legal move that keeps the position's result for the mover
                (win stays win, draw stays draw; any move keeps a lost position)
``lost``        a legal move that throws the result away (a mistake or blunder,
                :mod:`solver.analysis`)
``exceptions``  the function raised
``illegal``     the answer is not a legal move (taken, off the board, unreadable)
==============  =================================================================

``optimal`` counts the kept answers that are also best (the position's best
score: win fastest, lose slowest); the other kept answers are listed in
``slower`` (a slower win or a faster loss). So ``kept == optimal + len(slower)``
and ``positions == kept + len(lost) + len(exceptions) + len(illegal)``.

>>> import solver
>>> report = solver.grade(solver.best_move, side="O")
>>> report.positions, report.kept, report.optimal, report.lost, report.errors
(2097, 2097, 2097, (), ())
"""

from __future__ import annotations

import importlib.util
import operator
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from .analysis import Verdict, verdict
from .cache import resolve_table
from .errors import PlayerError
from .game import Game
from .position import Move, Position
from .table import Table

Side = Literal["X", "O", "both"]
Symbols = tuple[Any, Any, Any]
Progress = Callable[[int], None]
"""Called with 1 after each position graded."""

DEFAULT_SYMBOLS: Symbols = ("X", "O", None)
_ARRAY_VALUES = np.array([0, 1, -1])


@dataclass(frozen=True)
class GradedMove:
    """A legal answer that was not a best move.

    :param position: the position the function was asked about (``position.result``
        is the mover's result there, ``position.best_cells`` the best moves).
    :param move: the move it answered, for the mover (``move.result``, ``move.plies``).
    :param verdict: ``'ok'`` (kept the result, but a slower win or a faster loss),
        ``'mistake'`` (win -> draw, draw -> loss) or ``'blunder'`` (win -> loss).
    """

    position: Position
    move: Move
    verdict: Verdict

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data; moves are flat cell indices."""
        p = self.position
        return {
            "code": p.code, "board": p.board, "to_move": p.to_move, "move": self.move.cell,
            "best_moves": list(p.best_cells), "result_before": p.result, "plies_before": p.plies,
            "result_after": self.move.result, "plies_after": self.move.plies, "verdict": self.verdict,
        }


@dataclass(frozen=True)
class PlayerFailure:
    """A call that gave no legal move.

    :param position: the position the function was asked about.
    :param kind: ``'exception'`` (the function raised) or ``'illegal'`` (its answer is not a legal move).
    :param message: e.g. ``"ZeroDivisionError: division by zero (player.py, line 3)"``
        or ``"cell (0, 0) is taken"``.
    :param answer: ``repr`` of the answer (empty for an exception).
    """

    position: Position
    kind: Literal["exception", "illegal"]
    message: str
    answer: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data."""
        p = self.position
        return {"code": p.code, "board": p.board, "to_move": p.to_move, "kind": self.kind, "message": self.message, "answer": self.answer}


@dataclass(frozen=True)
class GradeReport:
    """What :func:`grade` found (the buckets are defined in the module docstring).

    :param positions: positions tried: one call each.
    :param kept: legal answers that keep the position's result for the mover.
    :param optimal: kept answers that are best moves.
    :param lost: the positions where the result was thrown away (mistakes and blunders).
    :param slower: the kept answers that are not best: a slower win or a faster loss.
    :param exceptions: the calls that raised.
    :param illegal: the answers that are not legal moves.
    :param mutated: calls that changed the board they were given (harmless: each call gets a fresh one).
    :param seconds: wall time spent inside the function, in total.
    :param slowest: the position of the slowest call, and :attr:`slowest_seconds` its time.
    """

    game: Game
    side: Side
    positions: int
    kept: int
    optimal: int
    lost: tuple[GradedMove, ...]
    slower: tuple[GradedMove, ...]
    exceptions: tuple[PlayerFailure, ...]
    illegal: tuple[PlayerFailure, ...]
    mutated: int
    seconds: float = field(compare=False)
    slowest: Position | None = field(compare=False)
    slowest_seconds: float = field(compare=False)

    @property
    def errors(self) -> tuple[PlayerFailure, ...]:
        """Every call without a legal move: exceptions, then illegal answers."""
        return self.exceptions + self.illegal

    @property
    def answered(self) -> int:
        """Legal answers: ``kept + len(lost)``."""
        return self.kept + len(self.lost)

    @property
    def mistakes(self) -> int:
        """Lost positions that were a win -> draw or a draw -> loss."""
        return sum(1 for lost in self.lost if lost.verdict == "mistake")

    @property
    def blunders(self) -> int:
        """Lost positions that were a win -> loss."""
        return sum(1 for lost in self.lost if lost.verdict == "blunder")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data: counts, ``lost`` as codes, and the details."""
        return {
            "game": self.game.name,
            "side": self.side,
            "positions": self.positions,
            "kept": self.kept,
            "optimal": self.optimal,
            "lost": [lost.position.code for lost in self.lost],
            "mistakes": self.mistakes,
            "blunders": self.blunders,
            "exceptions": len(self.exceptions),
            "illegal": len(self.illegal),
            "errors": [failure.to_dict() for failure in self.errors],
            "lost_positions": [lost.to_dict() for lost in self.lost],
            "slower": [slower.position.code for slower in self.slower],
            "slower_positions": [slower.to_dict() for slower in self.slower],
            "mutated": self.mutated,
            "seconds": round(self.seconds, 3),
            "slowest": None if self.slowest is None else {"code": self.slowest.code, "board": self.slowest.board, "seconds": round(self.slowest_seconds, 3)},
        }


# -- the positions ------------------------------------------------------------------
def positions_to_grade(*, side: Side | str = "both", game: Game | str | None = None, table: Table | None = None) -> tuple[Position, ...]:
    """Every reachable, unfinished position where ``side`` is to move, by plies played then code.

    On tic-tac-toe: 4,520 positions, 2,423 with X to move and 2,097 with O.

    >>> len(positions_to_grade(side="O"))
    2097
    """
    chosen = _side(side)
    table = resolve_table(game, table)
    found = []
    for code in table.reachable_codes().tolist():
        position = table.at(code)
        if not position.is_over and chosen in ("both", position.to_move):
            found.append(position)
    found.sort(key=lambda p: (p.pieces, p.code))
    return tuple(found)


def _side(side: str) -> Side:
    normal = {"x": "X", "o": "O", "both": "both"}.get(str(side).lower())
    if normal is None:
        raise PlayerError(f"side must be 'X', 'O' or 'both', found {side!r}")
    return normal  # type: ignore[return-value]


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
    return tuple(_symbol(part) for part in parts)  # type: ignore[return-value]


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
    symbols = tuple(symbols)  # type: ignore[assignment]
    if len(symbols) != 3:
        raise PlayerError(f"symbols must be three, for X, O and empty; found {len(symbols)}: {symbols!r}")
    x, o, empty = symbols
    if x == o or x == empty or o == empty:
        raise PlayerError(f"symbols for X, O and empty must differ, found {symbols!r}")
    if array and flat:
        raise PlayerError("choose one board form: array (numpy) or flat (a string), not both")
    if array:
        rows, cols = game.rows, game.cols
        return lambda p: _ARRAY_VALUES[[(c is not None) + (c == "O") for c in p.cells]].reshape(rows, cols)
    if flat:
        chars = ["." if s is None else str(s) for s in symbols]
        if any(len(char) != 1 for char in chars):
            raise PlayerError(f"a flat board needs one-character symbols (None stands for '.'), found {symbols!r}")
        table = {"X": chars[0], "O": chars[1], None: chars[2]}
        return lambda p: "".join(table[c] for c in p.cells)
    mapping = {"X": x, "O": o, None: empty}
    rows, cols = game.rows, game.cols

    def make_rows(position: Position) -> list[list[Any]]:
        cells = [mapping[c] for c in position.cells]
        return [cells[r * cols : (r + 1) * cols] for r in range(rows)]

    return make_rows


# -- the answers ---------------------------------------------------------------------
def answer_cell(answer: Any, position: Position) -> int:
    """The flat cell of an answer: ``(row, col)``, ``[row, col]`` or a flat index.

    :raises ValueError: saying why the answer is not a legal move there.
    """
    game = position.game
    expected = f"expected (row, col) or a cell 0-{game.cells - 1}"
    if isinstance(answer, np.ndarray) and answer.ndim == 0:
        answer = answer.item()
    if isinstance(answer, (bool, np.bool_)) or answer is None:
        raise ValueError(f"answer {_shown(answer)} is not a move: {expected}")
    if isinstance(answer, (int, np.integer)):
        cell = int(answer)
        if not 0 <= cell < game.cells:
            raise ValueError(f"cell {cell} is off the board: {expected}")
    elif isinstance(answer, (Sequence, np.ndarray)) and not isinstance(answer, (str, bytes)) and len(answer) == 2:
        if any(isinstance(part, (bool, np.bool_)) for part in answer):
            raise ValueError(f"answer {_shown(answer)} is not a move: {expected}")
        try:
            row, col = (operator.index(part) for part in answer)
        except TypeError:
            raise ValueError(f"answer {_shown(answer)} is not a move: row and col must be integers") from None
        if not (0 <= row < game.rows and 0 <= col < game.cols):
            raise ValueError(f"({row}, {col}) is off the board: row 0-{game.rows - 1}, col 0-{game.cols - 1}")
        cell = game.cell(row, col)
    else:
        raise ValueError(f"answer {_shown(answer)} is not a move: {expected}")
    piece = position.cells[cell]
    if piece is not None:
        row, col = game.coords(cell)
        raise ValueError(f"cell ({row}, {col}) is taken by {piece}")
    return cell


def _shown(answer: Any) -> str:
    """The answer as it reads in a message: its repr for plain data, else its type (no addresses)."""
    if answer is None or isinstance(answer, (int, float, str, bytes, tuple, list, np.ndarray, np.generic)):
        return _short_repr(answer)
    return f"of type {type(answer).__name__}"


# -- grading -------------------------------------------------------------------------
def grade(
    move_fn: Callable[[Any], Any],
    *,
    symbols: Symbols = DEFAULT_SYMBOLS,
    array: bool = False,
    flat: bool = False,
    side: Side | str = "both",
    game: Game | str | None = None,
    table: Table | None = None,
    progress: Progress | None = None,
) -> GradeReport:
    """Call ``move_fn`` on every position where ``side`` is to move and judge each answer.

    :param move_fn: takes one board, returns ``(row, col)``, ``[row, col]`` or a flat index.
    :param symbols: X, O and empty in list-of-rows and flat boards (module docstring).
    :param array: pass a ``(rows, cols)`` numpy array of 1 (X), -1 (O), 0 (empty) instead.
    :param flat: pass a string of one character per cell instead, e.g. ``"X...O...."``.
    :param side: ``'X'``, ``'O'`` or ``'both'``: whose positions are tried.
    :param game: e.g. ``"3x4"``; default tic-tac-toe.
    :param table: the table to use (default :func:`solver.table_for` of ``game``).
    :param progress: called with 1 after each position (``len(positions_to_grade(...))`` calls).
    :raises PlayerError: for symbols, side or board options that do not fit.

    The function's exceptions and illegal answers are recorded, never raised
    (``KeyboardInterrupt`` still stops the grading).
    """
    chosen = _side(side)
    table = resolve_table(game, table)
    make = board_maker(table.game, symbols=symbols, array=array, flat=flat)
    kept = optimal = mutated = 0
    lost: list[GradedMove] = []
    slower: list[GradedMove] = []
    exceptions: list[PlayerFailure] = []
    illegal: list[PlayerFailure] = []
    total = slowest_seconds = 0.0
    slowest: Position | None = None
    positions = positions_to_grade(side=chosen, table=table)
    for position in positions:
        board = make(position)
        started = time.perf_counter()
        try:
            answer = move_fn(board)
        except (Exception, SystemExit) as error:  # noqa: BLE001 - the player's errors are data
            answer = error
        spent = time.perf_counter() - started
        total += spent
        if spent > slowest_seconds or slowest is None:
            slowest, slowest_seconds = position, spent
        if not _same(board, make(position)):
            mutated += 1
        if isinstance(answer, BaseException):
            exceptions.append(PlayerFailure(position, "exception", describe_exception(answer)))
        else:
            try:
                cell = answer_cell(answer, position)
            except Exception as why:  # noqa: BLE001 - any unreadable answer is illegal, never a crash
                reason = str(why) if isinstance(why, ValueError) else f"answer of type {type(answer).__name__} is not a move"
                illegal.append(PlayerFailure(position, "illegal", reason, _short_repr(answer)))
            else:
                move = position.move(cell)
                judged = verdict(position, move)
                kept += judged in ("best", "ok")
                optimal += judged == "best"
                if judged == "ok":
                    slower.append(GradedMove(position, move, judged))
                elif judged != "best":
                    lost.append(GradedMove(position, move, judged))
        if progress is not None:
            progress(1)
    return GradeReport(
        game=table.game, side=chosen, positions=len(positions), kept=kept, optimal=optimal, lost=tuple(lost), slower=tuple(slower),
        exceptions=tuple(exceptions), illegal=tuple(illegal), mutated=mutated,
        seconds=total, slowest=slowest, slowest_seconds=slowest_seconds,
    )


def _same(given: Any, fresh: Any) -> bool:
    """Whether the board a call was given still equals a fresh one (False if it cannot tell)."""
    try:
        if isinstance(fresh, np.ndarray):
            return isinstance(given, np.ndarray) and given.shape == fresh.shape and bool(np.array_equal(given, fresh))
        return bool(given == fresh)
    except Exception:  # noqa: BLE001 - the player may have put anything in its board
        return False


def _short_repr(answer: Any, limit: int = 60) -> str:
    try:
        text = repr(answer)
    except Exception:  # noqa: BLE001
        text = f"<{type(answer).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_exception(error: BaseException) -> str:
    """``"Type: message (file.py, line N)"``, naming the innermost frame that raised."""
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    frames = traceback.extract_tb(error.__traceback__)
    if frames:
        text += f" ({Path(frames[-1].filename).name}, line {frames[-1].lineno})"
    return " ".join(text.split())


# -- loading a player -----------------------------------------------------------------
def load_player(spec: str) -> Callable[[Any], Any]:
    """The function named by ``"path/to/file.py:FUNCTION"`` (``FUNCTION`` may be dotted).

    The file is imported as a module, so code at its top level runs (keep games
    and ``input()`` under ``if __name__ == "__main__":``). Its folder is put on
    ``sys.path`` while it loads, so it can import its neighbours.

    :raises PlayerError: naming the file or function that could not be loaded and why.
    """
    path_text, sep, name = spec.rpartition(":")
    if not sep or not path_text or not name:
        raise PlayerError(f"cannot read player {spec!r}: expected FILE.py:FUNCTION, e.g. player.py:minimax")
    path = Path(path_text)
    if not path.is_file():
        raise PlayerError(f"{path}: no such file")
    module_name = f"_solve_player_{abs(hash(str(path.resolve())))}"
    loader_spec = importlib.util.spec_from_file_location(module_name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise PlayerError(f"{path}: cannot import it as Python (expected a .py file)")
    module = importlib.util.module_from_spec(loader_spec)
    folder = str(path.resolve().parent)
    sys.path.insert(0, folder)
    sys.modules[module_name] = module
    try:
        loader_spec.loader.exec_module(module)
    except (Exception, SystemExit) as error:  # noqa: BLE001 - report any failure of the user's file
        sys.modules.pop(module_name, None)
        raise PlayerError(f"{path}: importing it failed: {describe_exception(error)}") from error
    finally:
        if folder in sys.path:
            sys.path.remove(folder)
    found: Any = module
    for part in name.split("."):
        if not hasattr(found, part):
            defined = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_") and getattr(v, "__module__", None) == module_name)
            hint = f"; functions defined there: {', '.join(defined)}" if defined else ""
            raise PlayerError(f"{path}: no function {name!r}{hint}")
        found = getattr(found, part)
    if not callable(found):
        raise PlayerError(f"{path}: {name!r} is a {type(found).__name__}, not a function")
    return found  # type: ignore[no-any-return]
