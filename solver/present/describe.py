"""The words for a position: the one status line that ``solve lookup``, ``solve analyze``
and the notebook pictures (:mod:`solver.present.svg`) show under a board; and the lines of
``solve stats`` (:func:`stats_text`), which a notebook shows beside its chart.

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

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..encoding import board as _board
from ..tables.position import outcome_words
from ..words import count, signed

if TYPE_CHECKING:
    from ..rules.game import Game
    from ..tables.analysis import Replayed
    from ..tables.position import Position


VERBS = {"win": "wins", "draw": "draws", "loss": "loses"}
"""The verb of each result for a player: ``X wins in 3 plies``."""


def status_line(position: Position) -> str:
    """One sentence: who has won, or who is to move, what best play gives them
    (the result for the side to move, in plies to the end) and the value for X."""
    if position.is_over:
        completer = position.line_completer
        rules = position.game.rules
        return f"Game over: {rules.end_words(completer)}." if completer else f"Game over: {rules.scoring.full_words()}."
    if position.result == "draw":
        outcome = f"a draw with best play, {count(position.plies, 'ply')} to the end"
    else:
        outcome = f"a {position.result} in {count(position.plies, 'ply')} with best play"
    return f"{position.to_move} to move: {outcome} (value for X: {signed(position.value)})."


# -- a board under gravity -----------------------------------------------------------------------------
def column_board(position: Position | Replayed, above: Mapping[int, str] | None = None) -> list[str]:
    """A board under gravity, where a move is a column: each column's text ``above`` it (by column: an
    outcome such as ``D*``; none for a full column), the rows, and the column numbers under them.

    >>> import solver
    >>> print("\\n".join(column_board(solver.lookup("..../..../..../X...", game="4x4k4-gravity"), {0: "D*", 1: "L4"})))
    D* L4
     .  .  .  .
     .  .  .  .
     .  .  .  .
     X  .  .  .
     0  1  2  3
    """
    game = position.game
    shown = dict(above or {})
    width = max([1, len(str(game.cols - 1)), *(len(text) for text in shown.values())])
    lines = [" ".join(shown.get(col, "").rjust(width) for col in range(game.cols)).rstrip()] if shown else []
    lines += _board.draw(game, position.code, width=width)
    lines.append(" ".join(str(col).rjust(width) for col in range(game.cols)))
    return lines


def move_words(game: Game, cell: int) -> str:
    """A move in words: ``1,2`` (row, col), or under gravity ``column 2``."""
    return game.rules.move.move_words(cell)


# -- the counts of a table (solve stats) ---------------------------------------------------------------
def by_winner(x_wins: int, draws: int, o_wins: int, *, draws_last: bool = False) -> str:
    """``2,936 X wins, 1,068 draws, 1,474 O wins`` (``1 draw`` when there is one)."""
    parts = [count(x_wins, "X win"), count(draws, "draw"), count(o_wins, "O win")]
    return ", ".join([parts[0], parts[2], parts[1]] if draws_last else parts)


def by_result(counts: Mapping[str, int]) -> str:
    """``2,836 wins, 1,068 draws, 1,574 losses`` from a mapping with those keys."""
    return ", ".join(count(counts[key], noun) for key, noun in (("wins", "win"), ("draws", "draw"), ("losses", "loss")))


def _counted(counts: Mapping[str, Any], key: str, show: Callable[[Any], str]) -> str:
    """A count as text, or why it was not counted (compact tables of big games)."""
    value = counts.get(key)
    return show(value) if value is not None else f"not counted: {counts.get('omitted', {}).get(key, 'unavailable')}"


def stats_rows(counts: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The totals of :meth:`Table.stats <solver.tables.Table.stats>` as ``(label, text)`` rows, layers left out."""
    side, term, start = counts["side_to_move"], counts["terminal"], counts["start"]
    return [
        ("game", counts["game"]),
        ("reachable positions", f"{counts['positions']:,}"),
        ("  for X (perfect play)", by_winner(counts["x_wins"], counts["draws"], counts["o_wins"])),
        ("  for the side to move", by_result(side)),
        ("finished positions", f"{term['positions']:,} ({by_winner(term['x_wins'], term['draws'], term['o_wins'], draws_last=True)})"),
        ("up to symmetry", _counted(counts, "unique_positions", lambda n: f"{n:,}")),
        ("complete games", _counted(counts, "games", lambda g: f"{g['total']:,} ({by_winner(g['x_wins'], g['draws'], g['o_wins'], draws_last=True)})")),
        ("empty board", f"X to move: {outcome_words(start['result'], start['plies'])} (value for X: {signed(start['value'])})"),
    ]


def layer_rows(counts: Mapping[str, Any]) -> list[tuple[str, str]]:
    """One ``(label, text)`` row per layer of :meth:`Table.stats <solver.tables.Table.stats>`: its positions by
    result for the side to move, the finished ones, and the same up to symmetry."""
    rows = []
    for layer in counts.get("layers", []):
        unique = layer["unique"]
        rows.append(
            (
                f"  layer {layer['ply']}",
                f"{count(layer['positions'], 'position')}: {by_result(layer)} for the side to move, {layer['finished']:,} finished;"
                f" up to symmetry {unique['positions']:,}: {by_result(unique)}, {unique['finished']:,} finished",
            )
        )
    return rows


def stats_text(counts: Mapping[str, Any]) -> str:
    """What ``solve stats`` prints: the totals, then a line per layer (ply), labels aligned."""
    rows = stats_rows(counts) + layer_rows(counts)
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label.ljust(width)}  {text}" for label, text in rows)
