"""Charts as self-contained SVG: the outcomes of each ply of a game, a graded player's faults by
ply, and a game's value along its plies.

Drawn like the boards of :mod:`solver.present.svg`: one ``<svg>`` element with inline attributes
only (no ``<style>`` element, no ``style`` attribute, so a page's Content-Security-Policy lets it
in; no ``id``, no script, nothing fetched). Every bar or point carries what it draws as data
(``data-ply``, ``data-count``, ``data-of``, ``data-value``) and says it in words in a ``<title>``
(a tooltip, and what a screen reader reads), so a test or a reader can check the picture against
the numbers.

The functions take plain data, not the objects that hold it: this layer sits below the grader,
which calls :func:`faults_svg` with its own counts.

>>> from solver.contents.histograms import Counts
>>> svg = outcomes_svg([Counts(1, 0, 1, 0, 0), Counts(9, 0, 9, 0, 0)], game="3x3k3")
>>> svg.startswith("<svg"), svg.count('data-outcome="draws"'), svg.count('data-outcome="positions"')
(True, 2, 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from ..contents.histograms import Counts
from ..tables.summary import TableStats
from ..words import count
from .describe import stats_rows

FONT = "system-ui,-apple-system,'Segoe UI',Roboto,sans-serif"
"""The font, as the ``font-family`` attribute (an attribute, not a ``style``: see the module docstring)."""
OUTCOME_FILLS = {"x_wins": "#1e88e5", "draws": "#bdbdbd", "o_wins": "#f4511e"}
"""Bar colours by the result for X: X's blue, grey, O's orange-red (the pieces' colours, lighter)."""
OUTCOME_NAMES = {"x_wins": "X wins", "draws": "a draw", "o_wins": "O wins"}
FAULT_FILLS = {"blunders": "#b71c1c", "mistakes": "#e65100", "errors": "#6a1b9a", "slower": "#ffca28"}
"""Bar colours of a grade report's faults, worst first: blunders and mistakes as the verdicts' colours
(:data:`solver.present.svg.VERDICT_COLOURS`), calls without a legal move purple, slower answers amber."""
FAULT_NAMES = {
    "blunders": "blunders (a win thrown to a loss)",
    "mistakes": "mistakes (half a point thrown away)",
    "errors": "no legal move (exception, illegal, time-out, crash)",
    "slower": "kept the result, not the best score",
}
VERDICT_FILLS = {"best": "#1b5e20", "ok": "#33691e", "mistake": "#e65100", "blunder": "#b71c1c"}
"""A point's colour in :func:`values_svg`: the verdict of the move that led to it (as the analysis table)."""
START_FILL = "#546e7a"
AXIS = "#90a4ae"
INK = "#37474f"
PLOT_HEIGHT = 150
"""Height in pixels of a chart's main panel: a bar of 100 % (or of the scale's top) is this tall."""
POSITIONS_HEIGHT = 40
"""Height in pixels of the outcome chart's lower panel: the ply with the most positions."""
LEFT = 46
"""Room left of the plot for the axis labels."""


@dataclass(frozen=True)
class PlyFaults:
    """A graded player's answers at one ply (positions with ``ply`` pieces on the board).

    :param graded: positions graded at this ply (one call each).
    :param slower: legal answers that kept the result but not the best score.
    :param mistakes: answers that threw half a point away (win -> draw, draw -> loss).
    :param blunders: answers that turned a win into a loss.
    :param errors: calls with no legal move (exception, illegal answer, time-out, crash).
    """

    ply: int
    graded: int
    slower: int = 0
    mistakes: int = 0
    blunders: int = 0
    errors: int = 0

    def faults(self) -> int:
        """Every answer at this ply that was not a best move."""
        return self.slower + self.mistakes + self.blunders + self.errors


@dataclass(frozen=True)
class ValuePoint:
    """The position after ``ply`` plies of a game (0: the start) for :func:`values_svg`.

    :param value: its value for X under perfect play: 1 X wins, 0 a draw, -1 O wins.
    :param verdict: the verdict of the move that reached it (``None`` at the start).
    :param text: what the point's tooltip says, e.g. ``"ply 3, X at 0,0 (best): X wins in 5 plies"``.
    """

    ply: int
    value: int
    verdict: str | None
    text: str


def _open(width: float, height: float, title: str) -> list[str]:
    width = max(width, LEFT + 8 * len(title))  # the heading fits (13 px bold: 7 to 8 px a character)
    return [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
            f'role="img" aria-label="{escape(title)}" font-family="{escape(FONT)}">'
        ),
        f"<title>{escape(title)}</title>",
        f'<text x="{LEFT}" y="14" font-size="13" font-weight="600" fill="{INK}">{escape(title)}</text>',
    ]


def _text(x: float, y: float, text: str, *, size: int = 10, anchor: str = "middle", fill: str = INK) -> str:
    return f'<text x="{x:.2f}" y="{y:.2f}" font-size="{size}" text-anchor="{anchor}" fill="{fill}">{escape(text)}</text>'


def _bar(x: float, y: float, width: float, height: float, fill: str, title: str, data: dict[str, object]) -> str:
    attributes = "".join(f' data-{key}="{escape(str(value))}"' for key, value in data.items())
    return f'<rect x="{x:.2f}" y="{y:.2f}" width="{width:.2f}" height="{height:.2f}" fill="{fill}"{attributes}><title>{escape(title)}</title></rect>'


def _step(plies: int) -> float:
    """Pixels per ply: the plot about 540 pixels wide, a bar 14 to 48 (3x3k3's 10 plies: 48; 5x5k4's 26: 20.8)."""
    return max(14.0, min(48.0, 540 / max(plies, 1)))


def short(number: int) -> str:
    """A count in a few characters, for an axis: ``1,520``, ``24k``, ``1.3M``, ``2.6G``."""
    if number < 10_000:
        return f"{number:,}"
    for size, unit in ((10**3, "k"), (10**6, "M"), (10**9, "G")):
        scaled = number / size
        if scaled < 999.5 or unit == "G":
            break
    return f"{scaled:.0f}{unit}" if scaled >= 9.95 else f"{scaled:.1f}{unit}"


def _ply_labels(plies: Sequence[int], step: float, y: float) -> list[str]:
    every = 1 if step >= 20 else 2
    return [_text(LEFT + i * step + step / 2, y, str(ply)) for i, ply in enumerate(plies) if ply % every == 0]


def _legend(x: float, y: float, entries: Sequence[tuple[str, str]]) -> list[str]:
    parts = []
    for fill, name in entries:
        parts.append(f'<rect x="{x:.0f}" y="{y - 9:.0f}" width="10" height="10" fill="{fill}"/>')
        parts.append(_text(x + 14, y, name, anchor="start"))
        x += 22 + 6.2 * len(name)
    return parts


def _y_axis(top: float, height: float, ticks: Sequence[tuple[float, str]]) -> list[str]:
    """Tick labels and faint grid lines: ``(fraction of the height from the bottom, label)``."""
    parts = []
    for fraction, label in ticks:
        y = top + height * (1 - fraction)
        parts.append(f'<line x1="{LEFT - 4}" y1="{y:.2f}" x2="{LEFT}" y2="{y:.2f}" stroke="{AXIS}"/>')
        parts.append(_text(LEFT - 6, y + 3.5, label, anchor="end"))
    return parts


# -- the outcomes of each ply ------------------------------------------------------------------------
def x_outcomes(ply: int, counts: Counts) -> dict[str, int]:
    """A layer's counts for the side to move as results for X: X is to move at an even ply."""
    x_to_move = ply % 2 == 0
    return {
        "x_wins": counts.wins if x_to_move else counts.losses,
        "draws": counts.draws,
        "o_wins": counts.losses if x_to_move else counts.wins,
    }


def outcomes_svg(layers: Sequence[Counts], *, game: str) -> str:
    """The positions of each ply (``layers[ply]``, ply 0 first) by their result for X with best play.

    The upper panel stacks, for each ply, the shares of the positions there that X wins (blue, on top),
    that are draws (grey) and that O wins (orange, at the bottom): each bar is as tall as its share of
    :data:`PLOT_HEIGHT`. The lower panel shows how many positions each ply has, the largest
    :data:`POSITIONS_HEIGHT` pixels tall. Bars carry ``data-ply``, ``data-outcome`` (``x_wins``,
    ``draws``, ``o_wins`` or ``positions``), ``data-count`` and ``data-of`` (the ply's positions).
    """
    step = _step(len(layers))
    top, low = 40.0, 40.0 + PLOT_HEIGHT + 14
    width, height = LEFT + step * len(layers) + 12, low + POSITIONS_HEIGHT + 44
    parts = _open(width, height, f"{game}: the positions of each ply by their result with best play")
    parts += _y_axis(top, PLOT_HEIGHT, [(0, "0%"), (0.5, "50%"), (1, "100%")])
    most = max((layer.positions for layer in layers), default=0)
    parts += _y_axis(low, POSITIONS_HEIGHT, [(0, "0"), (1, short(most))])
    parts.append(_text(LEFT + 4, low + 8, "positions at each ply", anchor="start"))
    for ply, layer in enumerate(layers):
        x = LEFT + ply * step + 1
        parts += _outcome_bars(ply, layer, x, step - 2, top)
        if layer.positions:
            tall = POSITIONS_HEIGHT * layer.positions / most
            title = f"ply {ply}: {count(layer.positions, 'position')} ({count(layer.finished, 'finished')})"
            data = {"ply": ply, "outcome": "positions", "count": layer.positions, "of": most}
            parts.append(_bar(x, low + POSITIONS_HEIGHT - tall, step - 2, tall, AXIS, title, data))
    parts += _ply_labels(range(len(layers)), step, low + POSITIONS_HEIGHT + 13)
    parts.append(_text(LEFT + step * len(layers) / 2, low + POSITIONS_HEIGHT + 26, "ply (pieces on the board)"))
    parts += _legend(LEFT, height - 6, [(OUTCOME_FILLS[key], OUTCOME_NAMES[key]) for key in OUTCOME_FILLS])
    parts.append("</svg>")
    return "".join(parts)


def _outcome_bars(ply: int, layer: Counts, x: float, width: float, top: float) -> list[str]:
    """One ply's stacked shares, X's wins on top."""
    if not layer.positions:
        return []
    mover = "X" if ply % 2 == 0 else "O"
    parts, y = [], top
    for key, number in x_outcomes(ply, layer).items():
        if not number:
            continue
        tall = PLOT_HEIGHT * number / layer.positions
        share = 100 * number / layer.positions
        title = f"ply {ply}, {mover} to move: {OUTCOME_NAMES[key]} in {number:,} of {count(layer.positions, 'position')} ({share:.1f}%)"
        parts.append(_bar(x, y, width, tall, OUTCOME_FILLS[key], title, {"ply": ply, "outcome": key, "count": number, "of": layer.positions}))
        y += tall
    return parts


# -- a grade report's faults by ply -------------------------------------------------------------------
def fault_scale(rows: Sequence[PlyFaults]) -> float:
    """The share of a ply's graded positions at the top of the faults chart: the worst ply's share,
    rounded up to 5 %, 10 %, 25 %, 50 % or 100 %."""
    worst = max((row.faults() / row.graded for row in rows if row.graded), default=0.0)
    return next(top for top in (0.05, 0.1, 0.25, 0.5, 1.0) if worst <= top)


def faults_svg(rows: Sequence[PlyFaults], *, game: str) -> str:
    """A graded player's answers that were not best moves, by ply, as shares of the positions graded there.

    Each ply's bar stacks blunders (at the bottom), mistakes, calls without a legal move and slower
    answers, each as tall as its count over the ply's graded positions, on a scale whose top is
    :func:`fault_scale`. Bars carry ``data-ply``, ``data-kind``, ``data-count`` and ``data-of`` (the
    positions graded at that ply); a ply with no fault has no bar, and its label says how many were graded.
    """
    rows = sorted(rows, key=lambda row: row.ply)
    scale = fault_scale(rows)
    step = _step(len(rows))
    top = 40.0
    width, height = LEFT + step * max(len(rows), 1) + 12, top + PLOT_HEIGHT + 48
    parts = _open(width, height, f"{game}: faults by ply, as shares of the positions graded there")
    parts += _y_axis(top, PLOT_HEIGHT, [(0, "0%"), (0.5, f"{50 * scale:g}%"), (1, f"{100 * scale:g}%")])
    for index, row in enumerate(rows):
        parts += _fault_bars(row, LEFT + index * step + 1, step - 2, top + PLOT_HEIGHT, scale)
    parts += _ply_labels([row.ply for row in rows], step, top + PLOT_HEIGHT + 13)
    parts.append(_text(LEFT + step * len(rows) / 2, top + PLOT_HEIGHT + 26, "ply (pieces on the board)"))
    if not any(row.faults() for row in rows):
        parts.append(_text(LEFT + 8, top + PLOT_HEIGHT / 2, "every answer was a best move", size=12, anchor="start"))
    parts += _legend(LEFT, height - 6, [(FAULT_FILLS[key], key) for key in FAULT_FILLS])
    parts.append("</svg>")
    return "".join(parts)


def _fault_bars(row: PlyFaults, x: float, width: float, bottom: float, scale: float) -> list[str]:
    """One ply's stacked faults, blunders at the bottom."""
    parts = []
    y = bottom
    for key in FAULT_FILLS:
        number: int = getattr(row, key)
        if not number or not row.graded:
            continue
        tall = PLOT_HEIGHT * number / row.graded / scale
        y -= tall
        title = f"ply {row.ply}: {number:,} {FAULT_NAMES[key]} of {count(row.graded, 'position')} graded ({100 * number / row.graded:.1f}%)"
        parts.append(_bar(x, y, width, tall, FAULT_FILLS[key], title, {"ply": row.ply, "kind": key, "count": number, "of": row.graded}))
    return parts


# -- a game's value along its plies -----------------------------------------------------------------
def value_y(value: int, top: float = 40.0) -> float:
    """The height of a value in :func:`values_svg`: X wins (+1) at the top, a draw in the middle, O wins at the bottom."""
    return top + PLOT_HEIGHT * (1 - value) / 2


def values_svg(points: Sequence[ValuePoint], *, game: str) -> str:
    """A game's value for X after each ply (ply 0 the start), as points joined by a line.

    A point is a ``<circle>`` with ``data-ply`` and ``data-value``, at :func:`value_y` of its value,
    coloured by the verdict of the move that reached it (:data:`VERDICT_FILLS`); a fall or a rise
    of the line is a mistake or a blunder by the side whose value fell.
    """
    step = _step(len(points))
    top = 40.0
    width, height = LEFT + step * max(len(points), 1) + 12, top + PLOT_HEIGHT + 48
    parts = _open(width, height, f"{game}: the value for X after each ply, with best play from there")
    parts += _y_axis(top, PLOT_HEIGHT, [(0, "O wins"), (0.5, "draw"), (1, "X wins")])
    centres = [(LEFT + index * step + step / 2, value_y(point.value, top)) for index, point in enumerate(points)]
    if len(centres) > 1:
        line = " ".join(f"{x:.2f},{y:.2f}" for x, y in centres)
        parts.append(f'<polyline points="{line}" fill="none" stroke="{AXIS}" stroke-width="2"/>')
    for point, (x, y) in zip(points, centres, strict=True):
        fill = START_FILL if point.verdict is None else VERDICT_FILLS.get(point.verdict, START_FILL)
        verdict = "" if point.verdict is None else f' data-verdict="{escape(point.verdict)}"'
        parts.append(
            f'<circle cx="{x:.2f}" cy="{y:.2f}" r="5" fill="{fill}" data-ply="{point.ply}" data-value="{point.value}"{verdict}>'
            f"<title>{escape(point.text)}</title></circle>"
        )
    parts += _ply_labels([point.ply for point in points], step, top + PLOT_HEIGHT + 16)
    parts.append(_text(LEFT + step * len(points) / 2, top + PLOT_HEIGHT + 29, "ply"))
    parts += _legend(LEFT, height - 6, [(VERDICT_FILLS[key], key) for key in VERDICT_FILLS])
    parts.append("</svg>")
    return "".join(parts)


# -- pictures for notebooks ---------------------------------------------------------------------------
def stats_html(counts: TableStats) -> str:
    """A table's counts as HTML: the totals ``solve stats`` prints, then :func:`outcomes_svg` of its layers."""
    cell = "padding:1px 10px 1px 0;text-align:left;vertical-align:top"
    rows = "".join(
        f'<tr><th style="{cell};font-weight:500">{escape(label.strip())}</th><td style="{cell}">{escape(text)}</td></tr>' for label, text in stats_rows(counts)
    )
    return (
        f'<div style="font-family:{FONT}"><table style="border-collapse:collapse;font-size:0.9em;margin-bottom:6px">{rows}</table>'
        f"{outcomes_svg(counts.by_ply(), game=counts['game'])}</div>"
    )
