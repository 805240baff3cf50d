"""The search layer: exact answers for gravity games by a compiled search (Connect Four and its family).

A table answers a position by reading it; a game whose table is too big to build here (Connect Four:
4.5 trillion positions) is answered by searching it. The folder holds one part a module, as Pons'
``connect4`` and Steininger's ``c4`` do:

==================  ===========================================================================
module              what
==================  ===========================================================================
``bitboard``        the column bitboard, its moves, lines, keys and mirror (numba kernels)
``transposition``   the transposition table: packed one-word entries, two tiers a bucket
``ordering``        the moves in order: the threats they make, the centre first
``negamax``         the search: null-window probes, bounds, cut-offs, the book; a plain baseline
``book``            the book hook (:class:`~solver.search.book.Book`) and every position up to a ply
``position``        boards and move strings to bitboards, checked; canonical keys and back
``engine``          :class:`~solver.search.engine.Engine`: the Python face, time budget and Ctrl-C
==================  ===========================================================================

It imports the rules, the encoding, the errors and the base modules only.
"""

from __future__ import annotations

from .book import ArrayBook, Book, positions
from .engine import DEFAULT_TABLE_BYTES, Engine, MoveValue, Solution, score_byte
from .position import Position, code_of_key, engine_game, from_moves, key_of_code, position_of_key

__all__ = [
    "DEFAULT_TABLE_BYTES",
    "ArrayBook",
    "Book",
    "Engine",
    "MoveValue",
    "Position",
    "Solution",
    "code_of_key",
    "engine_game",
    "from_moves",
    "key_of_code",
    "position_of_key",
    "positions",
    "score_byte",
]
