"""The words for a position: the one status line that ``solve lookup``, ``solve analyze``
and the notebook pictures (:mod:`solver.present.svg`) show under a board.

>>> import solver
>>> status_line(solver.lookup("XO./.X./..."))
'O to move: a loss in 4 plies with best play (value for X: +1).'
>>> status_line(solver.lookup("XX./OO./..."))
'X to move: a win in 1 ply with best play (value for X: +1).'
>>> status_line(solver.lookup(0))
'X to move: a draw with best play, 9 plies to the end (value for X: 0).'
>>> status_line(solver.lookup("XXX/OO./...")), status_line(solver.lookup("XOX/XOO/OXX"))
('Game over: X has won.', 'Game over: a draw.')
>>> status_line(solver.lookup("XXX/OO./...", game="3x3k3-misere"))
'Game over: X completed a line and lost.'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..words import count, signed

if TYPE_CHECKING:
    from ..tables.position import Position


VERBS = {"win": "wins", "draw": "draws", "loss": "loses"}
"""The verb of each result for a player: ``X wins in 3 plies``."""


def status_line(position: Position) -> str:
    """One sentence: who has won, or who is to move, what best play gives them
    (the result for the side to move, in plies to the end) and the value for X."""
    if position.is_over:
        completer = position.line_completer
        return f"Game over: {position.game.rules.end_words(completer)}." if completer else "Game over: a draw."
    if position.result == "draw":
        outcome = f"a draw with best play, {count(position.plies, 'ply')} to the end"
    else:
        outcome = f"a {position.result} in {count(position.plies, 'ply')} with best play"
    return f"{position.to_move} to move: {outcome} (value for X: {signed(position.value)})."
