"""The exception hierarchy: every error the package raises on purpose.

==========================  ==============================================================
``SolverError``             base class of everything below
``InvalidBoardError``       a board that cannot be read or cannot occur (a ``ValueError``)
``InvalidGameError``        a game name or size that is not supported (a ``ValueError``)
``PlayerError``             a move function that cannot be loaded or graded as asked (a ``ValueError``)
``TableError``              a table file that is missing, truncated, corrupt or stale
==========================  ==============================================================
"""

from __future__ import annotations


class SolverError(Exception):
    """Base class of all errors raised by :mod:`solver`."""


class InvalidBoardError(SolverError, ValueError):
    """A board that cannot be parsed, or that no legal game reaches.

    The message says what was found and what was expected, naming the cell
    (``row 1, col 2``), the symbol, or the piece counts.
    """


class InvalidGameError(SolverError, ValueError):
    """A game specification such as ``"5x5k4"`` that is malformed or too large."""


class PlayerError(SolverError, ValueError):
    """A player that cannot be loaded or graded as asked: a missing file or
    function, or options that do not fit (symbols, side, board form)."""


class TableError(SolverError):
    """A table file that cannot be used.

    The message names the file and the command that rebuilds it.
    """
