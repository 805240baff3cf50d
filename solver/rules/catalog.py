"""The catalog of rules: which rule a name suffix means.

A game's name is ``RxCkK`` for normal play and ``RxCkK-SUFFIX`` for another rule
(:mod:`solver.rules.game`). Adding a rule is a module of this package and a line here.

>>> sorted(RULES)
['', 'gravity', 'gravity-misere', 'misere']
>>> canonical_variant("Misère")
'misere'
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from ..errors import GameTooLargeError, InvalidGameError, quote
from .base import Rules
from .gravity import GravityMisereRules, GravityRules
from .misere import MisereRules
from .mnk import MnkRules

if TYPE_CHECKING:
    from .game import Game

RULES: dict[str, type[Rules]] = {rule.suffix: rule for rule in (MnkRules, MisereRules, GravityRules, GravityMisereRules)}
"""Every rule by its name suffix."""
ALIASES = {"misère": "misere", "gravity-misère": "gravity-misere", "misere-gravity": "gravity-misere", "misère-gravity": "gravity-misere"}
"""Other spellings of a suffix."""


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


@cache
def rules_for(game: Game) -> Rules:
    """The rule object of a game (one per game and process).

    :raises GameTooLargeError: for a board past :data:`solver.rules.game.WORD_CELLS` cells (Connect Four's 42):
        named, but played nowhere here (``solve build --game G`` says what its table would cost).
    """
    from .game import WORD_CELLS

    if game.cells > WORD_CELLS:
        if game.variant == "gravity":  # Connect Four: one board at a time, for the search (solver.rules.widegravity)
            from .widegravity import WideGravityRules

            return WideGravityRules(game)
        raise GameTooLargeError(
            f"{game.name} has {game.cells} cells: this machine plays boards of at most {WORD_CELLS} cells; "
            f"'solve build --game {game.name}' gives what its table would cost and the cluster command"
        )
    return RULES[game.variant](game)
