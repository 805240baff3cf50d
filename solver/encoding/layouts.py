"""Which index a game's boards get: the layout its move rule needs, one per game and process.

The layered build and the compact tables number a game's boards by a :class:`solver.encoding.index.Layout`:
under placement the base-3 halves of :mod:`solver.encoding.index`, under gravity the column stacks of
:mod:`solver.encoding.columns` (a layout of the same shape). The layout of each move rule is
registered here by its type (:data:`LAYOUTS`), so nothing tests which rule a game has.

>>> from solver.rules.game import parse_game
>>> type(layout(parse_game("3x3"))).__name__, type(layout(parse_game("3x3k3-gravity"))).__name__
('Layout', 'ColumnLayout')
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from ..rules.game import Game
from ..rules.gravity import Drop
from ..rules.parts import MoveRule
from ..rules.placement import Placement
from .columns import ColumnLayout
from .index import Layout

LAYOUTS: dict[type[MoveRule], Callable[[Game], Layout]] = {Placement: Layout, Drop: ColumnLayout}
"""The layout of each move rule's games."""


@cache
def layout(game: Game) -> Layout:
    """The :class:`~solver.encoding.index.Layout` of a game (built once per process; the halves are shared by games):
    its move rule's (:data:`LAYOUTS`)."""
    return LAYOUTS[type(game.rules.move)](game)
