"""The catalogue of rules: the parts a name suffix means, composed into a game's rule.

A game's name is ``RxCkK`` for normal play and ``RxCkK-SUFFIX`` for another rule
(:mod:`solver.rules.game`); the suffix is a grid's name, a move rule's name and a scoring's
name, in that order, each left out when it is the usual one (``gravity-misere``). Adding a
grid, a move rule or a scoring is a module of this package and a line here (a move rule also
registers its kernel's hook, :mod:`solver.retrograde.kernel`, and its layout,
:mod:`solver.encoding.layouts`): the recipe is docs/rules.md's "Adding a rule".
The size limits of the games are the move rules' (:attr:`solver.rules.parts.MoveRule.max_cells`).

>>> sorted(GRIDS), sorted(MOVE_RULES), sorted(SCORINGS)
([''], ['', 'gravity'], ['', 'armageddon', 'misere'])
>>> sorted(RULES)
['', 'armageddon', 'gravity', 'gravity-armageddon', 'gravity-misere', 'misere']
>>> canonical_variant("Misère"), canonical_variant("misere-gravity")
('misere', 'gravity-misere')
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

from ..errors import GameTooLargeError, InvalidGameError, quote
from .armageddon import Armageddon
from .base import Rules
from .gravity import Drop
from .grid import Grid
from .misere import Misere
from .normal import Normal
from .parts import MoveRule, Scoring, Shape
from .placement import Placement

GRIDS: dict[str, type[Grid]] = {grid.name: grid for grid in (Grid,)}
"""Every grid by its name (``""``: the usual grid, lines in rows, columns and diagonals)."""
MOVE_RULES: dict[str, type[MoveRule]] = {rule.name: rule for rule in (Placement, Drop)}
"""Every move rule by its name (``""``: placement)."""
SCORINGS: dict[str, type[Scoring]] = {scoring.name: scoring for scoring in (Normal, Misere, Armageddon)}
"""Every scoring by its name (``""``: normal play)."""


class Parts(NamedTuple):
    """The types of a rule's three parts: what a suffix means before any game exists."""

    grid: type[Grid]
    move: type[MoveRule]
    scoring: type[Scoring]


RULES: dict[str, Parts] = {
    "-".join(part for part in (grid, move, scoring) if part): Parts(GRIDS[grid], MOVE_RULES[move], SCORINGS[scoring])
    for grid in GRIDS
    for move in MOVE_RULES
    for scoring in SCORINGS
}
"""Every rule by its name suffix: a grid's name, a move rule's, then a scoring's, joined by ``-``."""
ALIASES = {"misère": "misere", "gravity-misère": "gravity-misere", "misere-gravity": "gravity-misere", "misère-gravity": "gravity-misere"}
"""Other spellings of a suffix."""

WORD_CELLS = 32
"""Largest board the rules play on: X's and O's cells in one 64-bit word (:mod:`solver.rules.base`)."""
TABLE_CELLS = 39
"""Largest board a table holds: its base-3 codes fit int64 (``3**39 < 2**63 <= 3**40``); past :data:`WORD_CELLS`
the rule is :class:`solver.rules.widegravity.WideRules`, a board two masks."""


def canonical_variant(variant: str) -> str:
    """The suffix of a rule as names spell it (``"misère"`` -> ``"misere"``).

    :raises InvalidGameError: for a suffix no rule has, listing those that exist.
    """
    if not isinstance(variant, str):
        raise InvalidGameError(f"a game's rule is a name suffix like 'misere', found {type(variant).__name__} {quote(variant)}")
    name = variant.strip().lower()
    name = ALIASES.get(name, name)
    if name not in RULES:
        known = ", ".join(repr(suffix) for suffix in sorted(RULES) if suffix)
        raise InvalidGameError(f"no rule is named {quote(variant)}: the suffixes are {known} (none for normal play)")
    return name


def parts_of(variant: str) -> Parts:
    """The types of the parts a (canonical) suffix names: their constants hold before a game exists (a move rule's
    size limits, a grid's directions)."""
    return RULES[variant]


@cache
def rules_for(game: Shape) -> Rules:
    """The rule object of a game (one per game and process): its board, move rule and scoring composed.

    A board past :data:`WORD_CELLS` cells (only a move rule whose :attr:`~solver.rules.parts.MoveRule.max_cells`
    names it: gravity) gets :class:`solver.rules.widegravity.WideRules`, a board as two masks.

    :raises GameTooLargeError: for a board past 64 cells, which no mask holds.
    """
    grid, move, scoring = RULES[game.variant]
    if game.cells > WORD_CELLS:
        from .widegravity import WIDE_SHIFT, WideRules

        if game.cells > WIDE_SHIFT:
            raise GameTooLargeError(f"{game.name} has {game.cells} cells: the rules play boards of at most {WIDE_SHIFT} cells")
        return WideRules(game, grid(game), move(game), scoring(game))
    return Rules(game, grid(game), move(game), scoring(game))
