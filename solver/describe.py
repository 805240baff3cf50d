"""The words for a position: the one status line that ``solve lookup``, ``solve analyze``
and the notebook pictures (:mod:`solver.svg`) show under a board.

>>> import solver
>>> status_line(solver.lookup("XO./.X./..."))
'O to move loses in 4 plies under perfect play (value for X +1).'
>>> status_line(solver.lookup("XX./OO./..."))
'X to move wins in 1 ply under perfect play (value for X +1).'
>>> status_line(solver.lookup("XXX/OO./...")), status_line(solver.lookup("XOX/XOO/OXX"))
('Game over: X has won.', 'Game over: a draw.')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .position import Position

VERBS = {"win": "wins", "draw": "draws", "loss": "loses"}
"""The verb of each result for the side to move: ``X to move wins``."""


def plies_text(plies: int) -> str:
    """``"1 ply"``, ``"4 plies"``."""
    return f"{plies} {'ply' if plies == 1 else 'plies'}"


def status_line(position: Position) -> str:
    """One sentence: who has won, or who is to move, what perfect play gives them
    (the result for the side to move, in plies to the end) and the value for X."""
    if position.is_over:
        return f"Game over: {position.winner} has won." if position.winner else "Game over: a draw."
    value = f"{position.value:+d}" if position.value else "0"
    return f"{position.to_move} to move {VERBS[position.result]} in {plies_text(position.plies)} under perfect play (value for X {value})."
