"""The games the engine plays, decided without loading it: the parts of a rule it was written for and a board that
fits its 64-bit column bitboard.

Every other module of the search but :mod:`~solver.search.options`, :mod:`~solver.search.book` and
:mod:`~solver.search.booked` loads numba; this one does not, so that asking whether the engine plays a game (the
Tablebase asks it of every game it opens) costs nothing.
"""

from __future__ import annotations

from ..errors import InvalidGameError
from ..rules.game import Game, parse_game
from ..rules.gravity import Drop
from ..rules.grid import Grid
from ..rules.normal import Normal

BITS = 64
"""Bits in a bitboard: a game fits when ``cols * (rows + 1) <= BITS``."""

ENGINE_PARTS: tuple[frozenset[type], ...] = (frozenset({Grid}), frozenset({Drop}), frozenset({Normal}))
"""The part types the engine was written for, one set per part of a rule (:attr:`solver.rules.game.Game.parts`:
grid, move rule, scoring): the usual grid (its lines' directions are read from it,
:func:`~solver.search.position.geometry_of`), pieces that drop (a move is a column, the bitboard's moves), and normal
play (a line wins, a full board is a draw, the scores of the negamax). Types, not subclasses: a part that changes any
of these is refused until the engine is taught it and added here."""

PART_KINDS = ("grid", "move rule", "scoring")
"""The parts of a rule in the order of :attr:`solver.rules.game.Game.parts`."""

_USUAL = {"grid": "the usual grid (rows, columns and diagonals)", "move rule": "placement (no gravity)", "scoring": "normal play"}


def fits(rows: int, cols: int) -> bool:
    """Whether a ``rows`` x ``cols`` gravity board fits a 64-bit column bitboard (a sentinel bit a column)."""
    return cols * (rows + 1) <= BITS


def engine_game(game: Game | str) -> Game:
    """The game, if the engine plays it: every part of its rule one the engine was written for (:data:`ENGINE_PARTS`),
    on a board that fits a 64-bit column bitboard.

    :raises InvalidGameError: naming the game and the part the engine does not play (or the board's size).
    """
    found = parse_game(game)
    for kind, part, allowed in zip(PART_KINDS, found.parts, ENGINE_PARTS, strict=True):
        if part not in allowed:
            played = " or ".join(sorted(_part_words(kind, each) for each in allowed))
            raise InvalidGameError(
                f"the engine does not play {found.name}: its {kind} is {_part_words(kind, part)}, and the engine was written for "
                f"{played} only (Connect Four's family in normal play, e.g. '6x7k4-gravity'); its table answers it where one is built"
            )
    if not fits(found.rows, found.cols):
        raise InvalidGameError(f"{found.name} does not fit the engine's 64-bit column bitboard: columns x (rows + 1) = {found.cols * (found.rows + 1)} > 64")
    return found


def _part_words(kind: str, part: type) -> str:
    """A part in words, by its title: ``"gravity"``, ``"misère"``, ``"placement (no gravity)"``."""
    return str(getattr(part, "title", "")) or _USUAL[kind]
