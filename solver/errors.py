"""The exception hierarchy: every error the package raises on purpose, and the warnings it gives.

==========================  ==============================================================
``SolverError``             base class of everything below
``InvalidBoardError``       a board that cannot be read or cannot occur (a ``ValueError``)
``OffBoardMoveError``       a move that was read but lies off the board (an ``InvalidBoardError``)
``InvalidGameError``        a game name or size that is not supported (a ``ValueError``)
``InvalidArgumentError``    an argument of the wrong type (``url=123``, ``table_dir=5``): the message names
                            it (a ``TypeError``)
``InvalidValueError``       an argument whose value cannot be used (a budget of ``nan`` seconds, a
                            transposition table past the machine's memory): the message names it (a ``ValueError``)
``PlayerError``             a move function that cannot be loaded or graded as asked (a ``ValueError``)
``TableError``              a table file that is missing, truncated, corrupt or stale
``BuildNeedsConsent``       a missing table whose build is too long or too large to start unasked
                            (a ``TableError``)
``CodecUnavailable``        a table compressed with a codec whose package is not installed
                            (a ``TableError``)
``DiskFullError``           the disk filled up while a table or a build's layers were written:
                            the path, what was needed and what is free (a ``TableError``)
``BuildError``              a compact build that cannot run: disk, memory, or a build directory
                            that is another game's or damaged
``ResumedLayerWrong``       a layer left by an earlier build run that disagrees with its children
                            (a ``BuildError``)
``SearchInterrupted``       a search stopped before its answer (Ctrl-C): how long it ran, nothing
                            answered wrong
``SearchTimeout``           a search stopped at its time budget: how long it ran and how to give
                            it more (a ``SearchInterrupted``)
==========================  ==============================================================

Messages quote what they were given with :func:`quote`, which keeps any input to one short line;
:func:`one_line` is how a front end (``solve``, the HTTP API) shows a message, and :func:`short`
how a player's answer is shown in a grading report.
"""

from __future__ import annotations

import reprlib
from typing import Any


class SolverError(Exception):
    """Base class of all errors raised by :mod:`solver`."""


class InvalidBoardError(SolverError, ValueError):
    """A board that cannot be parsed, or that no legal game reaches.

    The message says what was found and what was expected, naming the cell
    (``row 1, col 2``), the symbol, or the piece counts.
    """


class OffBoardMoveError(InvalidBoardError):
    """A move that was read (a number, a pair) but names a cell, row or column off the board."""


class InvalidGameError(SolverError, ValueError):
    """A game specification such as ``"5x5k4"`` that is malformed or too large."""


class GameTooLargeError(InvalidGameError):
    """A game that can be named but not played or built on this machine (Connect Four: 42 cells).

    The message gives what building its table would cost (time, disk, memory) and the cluster command.
    """


class InvalidMoveError(InvalidBoardError):
    """A move that is on the board but not legal there: a taken cell, or under gravity a cell that is not the
    lowest empty one of its column (the message says where the piece would land)."""


class InvalidArgumentError(SolverError, TypeError):
    """An argument of a type the function does not take (``table_for(url=123)``): the message names the
    argument, what it must be and what was given."""


class InvalidValueError(SolverError, ValueError):
    """An argument of the right type whose value cannot be used (``budget=float("nan")``, a transposition table
    larger than the machine's memory): the message names the argument, what it may be and what was given."""


class PlayerError(SolverError, ValueError):
    """A player that cannot be loaded or graded as asked: a missing file or
    function, or options that do not fit (symbols, side, board form)."""


class TableError(SolverError):
    """A table file that cannot be used.

    The message names the file and the command that rebuilds it.
    """


class BuildNeedsConsent(TableError):
    """A missing table whose build would take more than a minute or a GiB of disk: it is not
    started unasked. The message gives the estimate (time, disk, memory) and the ``solve build``
    command; :attr:`estimate` is the :class:`solver.store.estimate.BuildEstimate`.

    Ask for the build with ``table_for(game, build=True)`` (or run ``solve build``).
    """

    def __init__(self, message: str, estimate: object = None) -> None:
        super().__init__(message)
        self.estimate = estimate


class CodecUnavailable(TableError):
    """A table compressed with a codec whose package is not installed (the message says which)."""


class DiskFullError(TableError):
    """The disk filled up ("No space left on device", or a quota) while a table file or a build's layers were
    written. The message names the path, what the write needed and what is free, and how to go on (a
    compact build resumes from what it finished)."""


class BuildError(SolverError):
    """A compact build that cannot run: not enough disk or memory, or a build directory of another game."""


class ResumedLayerWrong(BuildError):
    """A layer an earlier run left in the build directory disagrees with its children: damaged or forged."""


class SearchInterrupted(SolverError):
    """A search of the engine (:mod:`solver.search`) stopped before its answer, by Ctrl-C (a ``KeyboardInterrupt``).

    The message says how long it ran and how many positions it searched. Nothing wrong was answered or kept:
    the engine answers the next question exactly. :attr:`seconds` and :attr:`nodes` hold the figures.
    """

    def __init__(self, message: str, *, seconds: float = 0.0, nodes: int = 0) -> None:
        super().__init__(message)
        self.seconds = seconds
        self.nodes = nodes


class SearchTimeout(SearchInterrupted):
    """A search that reached its time budget before its answer. The message is :attr:`what` stopped and when, then
    how to give it more time from Python (:attr:`ADVICE`); a front end that gives time its own way (the command
    line's ``--budget``, a server's budget a request) says :attr:`what` and its own advice."""

    ADVICE = "give it more time (budget=None for no limit)"

    def __init__(self, what: str, *, seconds: float = 0.0, nodes: int = 0) -> None:
        super().__init__(f"{what}: {self.ADVICE}", seconds=seconds, nodes=nodes)
        self.what = what
        """What stopped and when (with the seconds and positions), without the advice."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.what,), self.__dict__)


class SearchDeferred(SearchInterrupted):
    """A search asked to answer only if it is short (``short_only``: the engine's first try in the caller's thread,
    :mod:`solver.search.engine`) that is not: a server then admits it to its queue of long searches, or refuses it
    (:mod:`solver.web.admission`). Nothing wrong was answered or kept. It is not a :class:`SearchTimeout`, so that
    code that goes on past a search out of time does not take it for one."""


class _Quoter(reprlib.Repr):
    """``repr`` cut short: long strings and lists elided, deep nesting and huge ints summarised."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.maxstring = self.maxother = self.maxlong = limit
        self.maxlist = self.maxtuple = 12
        self.maxlevel = 4

    def repr_int(self, x: int, level: int) -> str:
        if abs(x) < 10**40:
            return super().repr_int(x, level)
        return f"<an int of about {int(x.bit_length() * 0.30103) + 1:,} digits>"


_QUOTERS: dict[int, _Quoter] = {}


def quote(value: object, limit: int = 60) -> str:
    """``repr(value)`` for an error message, at most about ``limit`` characters.

    Longer input is elided with ``...`` and its length is given, so a message stays
    one readable line whatever was passed (a million-character board, a 5,000-digit
    code, lists nested 200,000 deep).

    >>> quote("X O X")
    "'X O X'"
    >>> quote("X" * 1000, limit=12)
    "'XXX...XXXX' (1,000 characters)"
    """
    quoter = _QUOTERS.get(limit) or _QUOTERS.setdefault(limit, _Quoter(limit))
    try:
        text = quoter.repr(value)
    except Exception:  # noqa: BLE001 - a user object whose __repr__ fails
        text = f"<{type(value).__name__}>"
    if isinstance(value, str) and len(value) > limit:
        text += f" ({len(value):,} characters)"
    return text


def one_line(error: BaseException | str) -> str:
    """An error's message on one line, as ``solve`` prints it and the HTTP API answers it.

    Line breaks (and the spaces around them) become one space; every other space is kept,
    so input quoted in the message is shown faithfully.

    Any other character a terminal would act on is escaped (:func:`printable`).

    >>> one_line(ValueError("cannot read board 'X  O':\\n  expected 9 cells"))
    "cannot read board 'X  O': expected 9 cells"
    """
    return printable(" ".join(line.strip() for line in str(error).splitlines() if line.strip()))


def printable(text: str) -> str:
    """``text`` with every character that is not printable escaped as Python writes it in a string
    literal (``\\x1b``, ``\\u202e``): how a player's text (an exception's message, a type's name, an
    answer's ``repr``) reaches a grading report, so that nothing a student wrote can clear the
    teacher's screen, set the window's title, colour the report, reorder it (bidi overrides) or
    forge a line of it.

    Printable is Python's :meth:`str.isprintable` (what ``repr`` escapes by): the C0 and C1 controls,
    ESC and DEL, line breaks and tabs, format characters such as the bidi overrides and zero-width
    marks, separators other than the space, surrogates and unassigned code points are escaped;
    letters, marks, digits, punctuation, symbols and the space are kept. Escaping twice changes
    nothing more (the escapes are printable).

    >>> printable("raised \\x1b[2J\\u202eevil\\n")
    'raised \\\\x1b[2J\\\\u202eevil\\\\n'
    """
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _escaped(char) for char in text)


_SHORT_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escaped(char: str) -> str:
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def short(value: object, limit: int = 60) -> str:
    """``repr(value)`` on one line (runs of whitespace become one space), cut to ``limit``
    characters ending in ``...``: how a player's answer is shown in a grading report.

    A ``__repr__`` that raises gives ``<TypeName>``; an int too long for ``repr`` its count of digits.

    >>> short([1, 2]), short("x" * 100, limit=10)
    ('[1, 2]', "'xxxxxx...")
    """
    try:
        text = repr(value)
    except Exception as error:  # noqa: BLE001 - a user object whose __repr__ fails, or an int past Python's 4,300 digits
        too_long = isinstance(error, ValueError) and isinstance(value, (int, list, tuple))
        text = quote(value, limit) if too_long else f"<{type(value).__name__}>"  # an int summarised by its digits
    text = printable(" ".join(str(text).split()))
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- not errors: what the package tells its user and how its workers end ------------------------------
class WorkerError(RuntimeError):
    """A worker process exited without being asked to."""


class RegistryWarning(UserWarning):
    """A registry that is not this user's alone (or is unreadable) was ignored, or a table could not be recorded in it."""


class SandboxWarning(UserWarning):
    """The player runs without the sandbox: the warning says what it can reach, and how to contain it."""


class TableWarning(UserWarning):
    """A table was built but could not be kept: it lives in memory for this process only."""


class GameNameWarning(UserWarning):
    """A game's name read in a way its writer may not have meant: a gravity game whose ``k`` was not given (the shorter
    side, so ``6x7-gravity`` is six in a row), or a board of 7 rows by 6 columns (Connect Four written columns first).
    The message says which game was chosen and names ``connect4`` where the board is 6x7 or 7x6."""


class OldTableDirWarning(UserWarning):
    """A table was found in the directory earlier versions used: it is used from there, and
    the message says where new tables go and the command that moves the old ones."""
