"""Pictures of positions and analysed games for Jupyter: SVG and HTML, self-contained.

:meth:`Position._repr_svg_ <solver.tables.position.Position._repr_svg_>` and ``_repr_html_``
(and :meth:`GameAnalysis._repr_html_ <solver.tables.analysis.GameAnalysis._repr_html_>`)
draw with these functions (registered by :mod:`solver.present.notebook`), so a notebook cell that ends with ``solver.lookup(...)`` shows
the board the way the web page (``solve serve``) draws it: every empty cell coloured
by what playing there leads to for the side to move, with the plies as text, and the
best moves outlined and starred.

============  ===========  ===================================================
label         colour       meaning for the side to move if it plays the cell
============  ===========  ===================================================
``W<n>``      green        a win, the game ending ``n`` plies from now
``D``         grey         a draw
``L<n>``      red          a loss, the game ending ``n`` plies from now
``★``         blue outline  one of the best moves
============  ===========  ===================================================

The output uses inline attributes only: no ``<style>`` element (which would leak
into the rest of a notebook page) and no ``style`` attribute in the SVG (a page's
Content-Security-Policy may refuse it), no ``id`` (two pictures in one page cannot
clash), no JavaScript and nothing fetched from the network.

>>> import solver
>>> svg = position_svg(solver.lookup("XO./.X./..."))
>>> svg.startswith("<svg") and svg.count('data-cell="') == 9
True
>>> 'aria-label="row 2, column 2: O loses in 4 plies, best move"' in svg
True
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from ..rules.score import outcome_label
from ..words import count
from .charts import FONT, VERDICT_FILLS, ValuePoint, values_svg
from .describe import VERBS as _VERBS
from .describe import status_line as status_line  # re-exported: the one status line, under every picture

if TYPE_CHECKING:  # only for the annotations: the pictures are drawn for these, not from them
    from ..tables.analysis import GameAnalysis
    from ..tables.position import Move, Position

COLOURS = {
    "win": ("#c8e6c9", "#1b5e20"),
    "draw": ("#e6e6e6", "#37474f"),
    "loss": ("#ffcdd2", "#b71c1c"),
}
"""Fill and text colour of an empty cell by the mover's result (the web page uses the same)."""
PIECE_FILL = "#fafafa"
PIECE_COLOURS = {"X": "#0d47a1", "O": "#bf360c"}
"""Ink of the pieces: X blue, O red, as on the web page."""
BEST_STROKE = "#1565c0"
GRID_STROKE = "#90a4ae"
VERDICT_COLOURS = VERDICT_FILLS
"""The colour of each verdict (the analysis table, the value chart's points)."""
_FONT = f"font-family:{FONT}"


def move_phrase(player: str, move: Move) -> str:
    """``"X wins in 3 plies"``, ``"O draws"``: what playing ``move`` leads to for its player."""
    if move.result == "draw":
        return f"{player} draws"
    return f"{player} {_VERBS[move.result]} in {count(move.plies, 'ply')}"


def position_svg(position: Position, *, cell: int = 56, highlight: int | None = None) -> str:
    """The board as one ``<svg>`` element.

    Pieces are drawn as ``X`` and ``O``; every empty cell shows the outcome of playing
    there (``W3``, ``D``, ``L2``) in the colour of its result, with a ``<title>`` and an
    ``aria-label`` naming its row, column and outcome; best moves have a blue outline
    and a star. Each cell's group carries ``data-cell`` (its flat index).

    :param cell: the side of one cell in pixels.
    :param highlight: a cell to ring in black (the last move, in an analysed game).
    """
    game = position.game
    pad = 4
    width, height = game.cols * cell + 2 * pad, game.rows * cell + 2 * pad
    moves = {move.cell: move for move in position.moves}
    player = position.to_move or ""
    title = f"{game.name} board {position.board}: {status_line(position)}"
    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
            f'role="img" aria-label="{escape(title)}" font-family="{escape(FONT)}">'
        ),
        f"<title>{escape(title)}</title>",
    ]
    for index, piece in enumerate(position.cells):
        row, col = game.coords(index)
        x, y = pad + col * cell, pad + row * cell
        move = moves.get(index)
        if move is None:
            label: str = piece or ""
            fill, text = PIECE_FILL, f"row {row}, column {col}: {piece or 'empty'}"
            ink = PIECE_COLOURS[piece] if piece else "#212121"
            size = cell * 0.55
        else:
            fill, ink = COLOURS[move.result]
            label = outcome_label(move.result, move.plies)
            text = f"row {row}, column {col}: {move_phrase(player, move)}" + (", best move" if move.best else "")
            size = cell * 0.3
        parts.append(f'<g data-cell="{index}" aria-label="{escape(text)}"><title>{escape(text)}</title>')
        parts.append(f'<rect x="{x + 1}" y="{y + 1}" width="{cell - 2}" height="{cell - 2}" rx="4" fill="{fill}" stroke="{GRID_STROKE}" stroke-width="1"/>')
        if move is not None and move.best:
            parts.append(f'<rect x="{x + 3}" y="{y + 3}" width="{cell - 6}" height="{cell - 6}" rx="3" fill="none" stroke="{BEST_STROKE}" stroke-width="3"/>')
            parts.append(f'<text x="{x + cell - 7}" y="{y + 15}" font-size="{cell * 0.22:.1f}" text-anchor="end" fill="{BEST_STROKE}">★</text>')
        if index == highlight:
            parts.append(f'<rect x="{x + 2}" y="{y + 2}" width="{cell - 4}" height="{cell - 4}" rx="3" fill="none" stroke="#000" stroke-width="2.5"/>')
        if label:
            weight = "600" if move is None else "500"
            parts.append(
                f'<text x="{x + cell / 2:.1f}" y="{y + cell / 2:.1f}" font-size="{size:.1f}" font-weight="{weight}" '
                f'text-anchor="middle" dominant-baseline="central" fill="{ink}">{escape(label)}</text>'
            )
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def position_html(position: Position) -> str:
    """The board (:func:`position_svg`) with its status line, best moves and code, as HTML.

    A finished board has no moves to explain, so it has no legend.
    """
    if position.game.rules.move.writes_columns:  # a move is a column
        best = " ".join(map(str, position.best_columns))
        details = f"best columns: {best} · " if best else ""
    else:
        best = " ".join(f"({r},{c})" for r, c in position.best_moves)
        details = f"best (row,col): {best} · " if best else ""
    legend = "" if position.is_over else " · W<i>n</i> win, D draw, L<i>n</i> loss in <i>n</i> plies for the mover; ★ best"
    return (
        f'<div style="display:inline-block;{_FONT}">{position_svg(position)}'
        f'<div style="font-size:0.9em;margin-top:2px">{escape(status_line(position))}</div>'
        f'<div style="font-size:0.8em;color:#546e7a">{escape(details)}code {position.code} ({position.game.name})'
        f"{legend}</div></div>"
    )


def value_words(position: Position) -> str:
    """What best play gives from ``position``, for the value chart: ``X wins with best play, 5 plies to the end``."""
    if position.is_over:
        return f"game over: {position.winner} has won" if position.winner else "game over: a draw"
    if position.result == "draw":
        return f"a draw with best play, {count(position.plies, 'ply')} to the end"
    winner = "X" if position.value > 0 else "O"
    return f"{winner} wins with best play, {count(position.plies, 'ply')} to the end"


def value_points(analysis: GameAnalysis) -> list[ValuePoint]:
    """The points of :func:`~solver.present.charts.values_svg`: the start, then the position after each ply."""
    start = analysis.plies[0].before if analysis.plies else analysis.final
    first = analysis.plies[0].ply - 1 if analysis.plies else 0  # the plies before the first judged one were not judged
    points = [ValuePoint(first, start.value, None, f"{'start' if first == 0 else f'after ply {first}'}: {value_words(start)}")]
    for ply in analysis.plies:
        where = ply.before.game.rules.move.move_words(ply.move.cell)
        text = f"ply {ply.ply}, {ply.player} at {where} ({ply.verdict}): {value_words(ply.after)}"
        points.append(ValuePoint(ply.ply, ply.after.value, ply.verdict, text))
    return points


def analysis_html(analysis: GameAnalysis) -> str:
    """An analysed game as HTML: a row per ply with its verdict, a chart of the value for X along the
    plies (:func:`~solver.present.charts.values_svg`), the final board, each player's summary."""
    game = analysis.game
    cell_style = "padding:1px 8px;text-align:left"
    drops = game.rules.move.writes_columns  # a move is a column: shown with the cell it landed on
    names = ("ply", "player", "column" if drops else "move", "best columns" if drops else "best moves", "before", "after", "verdict")
    head = "".join(f'<th style="{cell_style}">{name}</th>' for name in names)
    rows = []
    for ply in analysis.plies:
        if drops:
            best = " ".join(map(str, ply.before.best_columns))
            move = f"{ply.move.col} ({ply.move.row},{ply.move.col})"
        else:
            best = " ".join(f"{r},{c}" for r, c in (game.coords(cell) for cell in ply.best_cells))
            move = f"{ply.move.row},{ply.move.col} ({ply.cell})"
        colour = VERDICT_COLOURS[ply.verdict]
        values = (
            str(ply.ply),
            ply.player,
            move,
            best,
            outcome_label(ply.result_before, ply.plies_before),
            outcome_label(ply.result_after, ply.plies_after),
        )
        cells = "".join(f'<td style="{cell_style}">{escape(value)}</td>' for value in values)
        rows.append(f'<tr data-ply="{ply.ply}">{cells}<td style="{cell_style};color:{colour};font-weight:600">{ply.verdict}</td></tr>')
    summary = []
    for player in ("X", "O"):
        s = analysis.summary(player)
        moves = "1 move" if s.moves == 1 else f"{s.moves} moves"
        summary.append(f"{player}: {moves}; best {s.best}, ok {s.ok}, mistakes {s.mistakes}, blunders {s.blunders}")
    last = analysis.plies[-1].cell if analysis.plies else None
    chart = values_svg(value_points(analysis), game=game.name) if rows else ""
    table = (
        (f'<table style="border-collapse:collapse;font-size:0.9em;margin-bottom:6px"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>')
        if rows
        else "<div>No moves played.</div>"
    )
    return (
        f'<div style="{_FONT}">{table}{chart}<div style="display:flex;gap:12px;align-items:flex-start">'
        f"{position_svg(analysis.final, highlight=last)}"
        f'<div style="font-size:0.9em">{escape(status_line(analysis.final))}<br>{"<br>".join(escape(s) for s in summary)}'
        f'<br><span style="color:#546e7a">before/after: the mover\'s result under perfect play, in plies counted from '
        f"before the move</span>{_unjudged_html(analysis)}</div></div></div>"
    )


def _unjudged_html(analysis: GameAnalysis) -> str:
    """The plies a game answered by search left unjudged (:attr:`GameAnalysis.unjudged`), and why; nothing when every ply was judged."""
    if not analysis.unjudged:
        return ""
    plies = ", ".join(str(ply.ply) for ply in analysis.unjudged)
    return f'<br><span style="color:#5d4037">not judged: plies {escape(plies)} ({escape(analysis.why_unjudged)})</span>'
