"""The search layer: exact answers for gravity games by a compiled search (Connect Four and its family).

A table answers a position by reading it; a game whose table is too big to build here (Connect Four:
4.5 trillion positions) is answered by searching it. The folder holds one part a module, as Pons'
``connect4`` and Steininger's ``c4`` do:

==================  ===========================================================================
module              what
==================  ===========================================================================
``games``           the games the engine plays, decided without loading it
``kernel``          how every kernel is compiled (numba: cached, no GIL, no reference counting)
``bitboard``        the column bitboard, its moves, lines, keys and mirror (numba kernels)
``transposition``   the transposition table: packed one-word entries, two tiers a bucket
``ordering``        the moves in order: the threats they make, the centre first
``negamax``         the search: null-window probes, bounds, cut-offs, the book; a plain baseline
``book``            the book hook (:class:`~solver.search.book.Book`) and the book file, read without numba
``plies``           every position up to a ply, and a ply's scores derived from the next (a book's build)
``booked``          the positions a book answers whole, every move valued in Python (no kernel loaded)
``late``            the positions near the end, searched in Python while the engine is not loaded
``answer``          what the engine answers of a position (:class:`~solver.search.answer.Answer`, the score byte)
``position``        boards and move strings to bitboards, checked; canonical keys and back
``engine``          :class:`~solver.search.engine.Engine`: the Python face, time budget and Ctrl-C
``options``         what a caller hands the engine without loading it: the progress hook, the table's size
==================  ===========================================================================

It imports the rules, the encoding, the contents and the storage (a book file: its game and its table file), the errors and
the base modules only (``tests/test_kernel_cache.py`` holds it: the compiled kernels' cache is keyed on all of them).

Every module but ``options``, ``answer``, ``games``, ``book``, ``booked`` and ``late`` loads numba, so this package loads its names when they
are first asked for (``solver.search.Engine``), not when it is imported: ``import solver``, a table's look-up, an
answer the book gives whole and, until a process has spent half a second on them, the positions near the end never
load numba.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .answer import score_byte
    from .book import ArrayBook, Book, TableBook, open_book, write_book
    from .engine import Engine, MoveValue, Solution
    from .games import engine_game
    from .options import DEFAULT_TABLE_BYTES
    from .plies import derive_all, positions
    from .position import Position, code_of_key, from_moves, key_of_code, position_of_key

_HOMES = {
    "ArrayBook": "book",
    "Book": "book",
    "TableBook": "book",
    "positions": "plies",
    "derive_all": "plies",
    "open_book": "book",
    "write_book": "book",
    "DEFAULT_TABLE_BYTES": "options",
    "Engine": "engine",
    "MoveValue": "engine",
    "Solution": "engine",
    "score_byte": "answer",
    "Position": "position",
    "code_of_key": "position",
    "engine_game": "games",
    "from_moves": "position",
    "key_of_code": "position",
    "position_of_key": "position",
}
"""Each public name's module."""

__all__ = [
    "DEFAULT_TABLE_BYTES",
    "ArrayBook",
    "Book",
    "Engine",
    "MoveValue",
    "Position",
    "Solution",
    "TableBook",
    "code_of_key",
    "derive_all",
    "engine_game",
    "from_moves",
    "key_of_code",
    "open_book",
    "position_of_key",
    "positions",
    "score_byte",
    "write_book",
]


def __getattr__(name: str) -> Any:
    """A public name, loaded from its module (:data:`_HOMES`) the first time it is asked for (PEP 562)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
