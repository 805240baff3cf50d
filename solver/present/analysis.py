"""A replayed game in text: the table of plies ``solve analyze`` prints, which is also ``str()`` of a
:class:`~solver.tables.analysis.GameAnalysis` (registered in :data:`solver.tables.position.PICTURES` as ``"analysis text"``)."""

from __future__ import annotations

from ..encoding import board as _board
from ..rules.game import Game
from ..tables.analysis import GameAnalysis, PlyAnalysis, Replayed
from ..tables.position import Position, outcome_label
from .describe import column_board, status_line
from .report import rc


def best_text(ply: PlyAnalysis) -> str:
    """The best moves before a ply: ``any``, the columns under gravity (``1 2``), else ``row,col`` cells (``0,0 2,2``)."""
    if len(ply.best_cells) == len(ply.before.moves) > 1:
        return "any"
    if ply.before.game.rules.move.writes_columns:
        return " ".join(map(str, ply.before.best_columns))
    return " ".join(rc(ply.before.game, cell) for cell in ply.best_cells)


def _move_text(game: Game, cell: int) -> str:
    """The move column of ``solve analyze``: ``1,1 (4)`` (row,col and flat cell), under gravity ``2 (3,2)`` (column, and the cell it landed on)."""
    row, col = game.coords(cell)
    return f"{col} ({row},{col})" if game.rules.move.writes_columns else f"{row},{col} ({cell})"


def analysis_text(analysis: GameAnalysis) -> str:
    """What ``solve analyze`` prints and ``str()`` of a :class:`~solver.tables.analysis.GameAnalysis` gives:
    a table of the plies, the final board, and each player's summary."""
    game = analysis.game
    drops = game.rules.move.writes_columns
    rows: list[tuple[str, ...]] = [("ply", "player", "column" if drops else "move", "best columns" if drops else "best moves", "before", "after", "verdict")]
    judged = [(ply.ply, _judged_row(ply)) for ply in analysis.plies]
    unjudged: list[tuple[int, tuple[str, ...]]] = [
        (ply.ply, (str(ply.ply), ply.player, _move_text(game, ply.cell), "?", "?", "?", "not judged")) for ply in analysis.unjudged
    ]
    rows += [row for _, row in sorted(judged + unjudged)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(text.rjust(w) if i == 0 else text.ljust(w) for i, (text, w) in enumerate(zip(row, widths, strict=True))).rstrip() for row in rows]
    lines.append("before/after: the mover's result under perfect play, W<n> win, D draw, L<n> loss,")
    lines.append("in n plies counted from before the move.")
    if analysis.unjudged:
        lines.append(f"Not judged: {plies_text([ply.ply for ply in analysis.unjudged])} ({analysis.why_unjudged}).")
    lines += ["", grid_text(analysis.final), status_line(analysis.final), ""]
    lines.append("player  moves  best  ok  mistakes  blunders")
    for player in ("X", "O"):
        s = analysis.summary(player)
        lines.append(f"{player:<6}  {s.moves:>5}  {s.best:>4}  {s.ok:>2}  {s.mistakes:>8}  {s.blunders:>8}")
    return "\n".join(lines)


def _judged_row(ply: PlyAnalysis) -> tuple[str, ...]:
    before, after = outcome_label(ply.result_before, ply.plies_before), outcome_label(ply.result_after, ply.plies_after)
    return (str(ply.ply), ply.player, _move_text(ply.before.game, ply.cell), best_text(ply), before, after, ply.verdict)


def plies_text(plies: list[int]) -> str:
    """Ply numbers in words, runs joined: ``ply 3``, ``plies 1 to 12``, ``plies 1 to 4 and 7``."""
    runs: list[list[int]] = []
    for ply in sorted(plies):
        if runs and ply == runs[-1][-1] + 1:
            runs[-1].append(ply)
        else:
            runs.append([ply])
    parts = [str(run[0]) if len(run) == 1 else f"{run[0]} to {run[-1]}" for run in runs]
    words = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{'ply' if len(plies) == 1 else 'plies'} {words}"


def grid_text(position: Position | Replayed) -> str:
    """The board; under gravity with the column numbers under it (a move is a column)."""
    if position.game.rules.move.writes_columns:
        return "\n".join(column_board(position))
    return "\n".join(_board.draw(position.game, position.code))
