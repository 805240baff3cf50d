"""A grade report in words and pictures: the text ``solve grade`` prints (which is also
``str(report)``), and the HTML a notebook shows (the same counts, a chart of the faults by
ply, and the boards of the answers that were not best moves).

The grader sits above this layer, so its report is read here through what it has
(:class:`ReportView`, a protocol), and the counts by ply come as plain data
(:class:`~solver.present.charts.PlyFaults`) from :meth:`GradeReport.faults_by_ply
<solver.grading.grader.GradeReport.faults_by_ply>`.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Protocol

from ..encoding import board as _board
from ..errors import printable
from ..rules.game import Game
from ..rules.score import outcome_label
from ..tables.position import Move, Position
from ..words import count, percent
from .charts import FONT, PlyFaults, faults_svg
from .svg import position_svg

GRADE_LIMIT = 20
"""Boards (and error kinds) a report shows per section unless told otherwise: a page or two
for a person, where all of them can run to thousands of lines."""


class GradedView(Protocol):
    """A legal answer that was not a best move (:class:`solver.grading.grader.GradedMove`)."""

    @property
    def position(self) -> Position: ...
    @property
    def move(self) -> Move: ...
    @property
    def verdict(self) -> str: ...


class FailureView(Protocol):
    """A call without a legal move (:class:`solver.grading.grader.PlayerFailure`)."""

    @property
    def position(self) -> Position: ...
    @property
    def kind(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def answer(self) -> str: ...


class ReportView(Protocol):
    """What the words and pictures read of a :class:`solver.grading.grader.GradeReport`."""

    @property
    def game(self) -> Game: ...
    @property
    def side(self) -> str: ...
    @property
    def planned(self) -> int: ...
    @property
    def positions(self) -> int: ...
    @property
    def kept(self) -> int: ...
    @property
    def optimal(self) -> int: ...
    @property
    def lost(self) -> tuple[GradedView, ...]: ...
    @property
    def slower(self) -> tuple[GradedView, ...]: ...
    @property
    def exceptions(self) -> tuple[FailureView, ...]: ...
    @property
    def illegal(self) -> tuple[FailureView, ...]: ...
    @property
    def timeouts(self) -> tuple[FailureView, ...]: ...
    @property
    def crashes(self) -> tuple[FailureView, ...]: ...
    @property
    def mutated(self) -> int: ...
    @property
    def hints(self) -> tuple[str, ...]: ...
    @property
    def stopped(self) -> str | None: ...
    @property
    def complete(self) -> bool: ...
    @property
    def mistakes(self) -> int: ...
    @property
    def blunders(self) -> int: ...


def rc(game: Game, cell: int) -> str:
    """A cell as ``row,col``."""
    row, col = game.coords(cell)
    return f"{row},{col}"


def _percent(part: int, whole: int) -> str:
    return f"({percent(part, whole)})" if whole else ""


def heading(report: ReportView, player: str) -> list[str]:
    """The first line, and a second when the grading stopped early."""
    n = report.positions
    sides = {"both": "X and O", "X": "X", "O": "O"}[report.side]
    lines = [f"Graded {player} on {count(n, 'position')} of {report.game.name} ({sides} to move)."]
    sampled = getattr(report, "sampled", None)  # a game answered by search: what the sample covers
    if sampled:
        lines.append(f"Positions {sampled}.")
    if not report.complete:
        lines.append(f"Incomplete: graded {n:,} of {count(report.planned, 'position')} (taken in a shuffled order): grading {report.stopped}.")
    return lines


def count_rows(report: ReportView) -> list[tuple[str, str, str]]:
    """``(label, count, note)``: tried, kept, optimal, thrown away, exceptions, illegal, and the rarer kinds when there are any."""
    n = report.positions
    rows = [
        ("positions tried", f"{n:,}", ""),
        ("kept the result", f"{report.kept:,}", _percent(report.kept, n)),
        ("optimal", f"{report.optimal:,}", _percent(report.optimal, n)),
        ("threw the result away", f"{len(report.lost):,}", f"({count(report.mistakes, 'mistake')}, {count(report.blunders, 'blunder')})"),
        ("raised an exception", f"{len(report.exceptions):,}", ""),
        ("illegal answers", f"{len(report.illegal):,}", ""),
    ]
    if report.timeouts:
        rows.append(("timed out", f"{len(report.timeouts):,}", ""))
    if report.crashes:
        rows.append(("ended its process", f"{len(report.crashes):,}", "(os._exit, a signal, or out of memory)"))
    if report.mutated:
        rows.append(("changed its board", f"{report.mutated:,}", "(harmless: every call gets a fresh board)"))
    return rows


def _graded_sections(report: ReportView) -> list[tuple[str, tuple[GradedView, ...]]]:
    return [
        ("Where the result was thrown away", report.lost),
        ("Kept the result, but not the best score (a slower win or a faster loss)", report.slower),
    ]


def _failure_sections(report: ReportView) -> list[tuple[str, tuple[FailureView, ...]]]:
    return [
        ("Exceptions", report.exceptions),
        ("Illegal answers", report.illegal),
        ("Timed out", report.timeouts),
        ("Ended the player's process", report.crashes),
    ]


def describe_report(report: ReportView, player: str, *, limit: int = GRADE_LIMIT) -> str:
    """The counts, then the lost and slower answers drawn as boards, then the errors grouped by message.

    Each section shows its first ``limit`` boards or error kinds (0: all) and says how many more there are.

    Nothing in it depends on timing, so the same player always prints the same report, and every
    character a terminal would act on is escaped (:func:`solver.errors.printable`).
    """
    lines = [*heading(report, player), ""]
    rows = count_rows(report)
    width = max(len(row[1]) for row in rows)
    lines += [f"{label:<22}{number.rjust(width)}  {note}".rstrip() for label, number, note in rows]
    lines += [f"hint: {hint}" for hint in report.hints]
    for title, graded in _graded_sections(report):
        if graded:
            lines += ["", f"{title}; ! the move played, * the best moves:"] + _graded_boards(graded, limit)
    for title, failures in _failure_sections(report):
        if failures:
            lines += ["", f"{title}:"] + _grouped(failures, limit)
    return "\n".join(printable(line) for line in lines)  # the player's text (messages, names, answers) shown, never acted on


def graded_line(item: GradedView) -> str:
    """``X to move, W5 -> L6 (blunder): played 0,1, best 1,2 2,2  [code 21]``; under gravity, where a
    move is a column, ``played column 0, best 2 3``."""
    p, move = item.position, item.move
    if p.game.rules.move.writes_columns:
        played, best = f"column {move.col}", " ".join(map(str, p.best_columns))
    else:
        played, best = rc(p.game, move.cell), " ".join(rc(p.game, cell) for cell in p.best_cells)
    return (
        f"{p.to_move} to move, {outcome_label(p.result, p.plies)} -> {outcome_label(move.result, move.plies)} ({item.verdict}): "
        f"played {played}, best {best}  [code {p.code}]"
    )


def _more(hidden: int) -> str:
    return f"... and {hidden:,} more (--limit 0 shows all, --json lists them)"


def _graded_boards(graded: tuple[GradedView, ...], limit: int) -> list[str]:
    shown = graded if limit == 0 else graded[:limit]
    lines = []
    for item in shown:
        p = item.position
        lines.append(f"  {graded_line(item)}")
        marks = dict.fromkeys(p.best_cells, "*") | {item.move.cell: "!"}
        lines += ["    " + row for row in _board.draw(p.game, p.code, marks=marks)]
    if len(shown) < len(graded):
        lines.append(f"  {_more(len(graded) - len(shown))}")
    return lines


def _groups(failures: tuple[FailureView, ...]) -> list[tuple[str, list[FailureView]]]:
    """The failures by message, the most frequent first."""
    groups: dict[str, list[FailureView]] = {}
    for failure in failures:
        groups.setdefault(failure.message, []).append(failure)
    return sorted(groups.items(), key=lambda item: -len(item[1]))


def _grouped(failures: tuple[FailureView, ...], limit: int) -> list[str]:
    ordered = _groups(failures)
    shown = ordered if limit == 0 else ordered[:limit]
    lines = []
    for message, group in shown:
        first = group[0]
        answer = f", answer {first.answer}" if first.answer else ""
        lines.append(f"  {len(group):>5,} x {message}  (first on {first.position.board}{answer})")
    if len(shown) < len(ordered):
        hidden = sum(len(group) for _, group in ordered[len(shown) :])
        lines.append(f"  ... and {count(len(ordered) - len(shown), 'more kind')} ({count(hidden, 'call')}; --limit 0 shows all, --json lists them)")
    return lines


# -- HTML for notebooks ---------------------------------------------------------------------------------
_MUTED = "color:#546e7a"


def report_html(report: ReportView, player: str, faults: Sequence[PlyFaults], *, limit: int = GRADE_LIMIT) -> str:
    """The report for a notebook: the counts and hints, :func:`~solver.present.charts.faults_svg` of
    ``faults``, then the boards of the answers thrown away and of the slower ones (the move played
    ringed in black, the best moves starred, every empty cell's outcome shown) and the errors by message.

    Self-contained like the other pictures: inline attributes, no script, nothing fetched.
    """
    cell = "padding:1px 10px 1px 0;text-align:left"
    rows = "".join(
        f'<tr><th style="{cell};font-weight:500">{escape(label)}</th><td style="{cell};text-align:right">{escape(number)}</td>'
        f'<td style="{cell};{_MUTED}">{escape(note)}</td></tr>'
        for label, number, note in count_rows(report)
    )
    parts = [f'<div style="font-family:{FONT}">', "".join(f"<div><b>{escape(line)}</b></div>" for line in heading(report, player))]
    parts.append(f'<table style="border-collapse:collapse;font-size:0.9em;margin:4px 0">{rows}</table>')
    parts += [f'<div style="color:#e65100">hint: {escape(hint)}</div>' for hint in report.hints]
    parts.append(faults_svg(faults, game=report.game.name))
    for title, graded in _graded_sections(report):
        if graded:
            parts.append(_boards_html(title, graded, limit))
    for title, failures in _failure_sections(report):
        if failures:
            parts.append(_failures_html(title, failures, limit))
    parts.append("</div>")
    return "".join(parts)


def _boards_html(title: str, graded: tuple[GradedView, ...], limit: int) -> str:
    shown = graded if limit == 0 else graded[:limit]
    boards = "".join(
        f'<figure data-code="{item.position.code}" data-verdict="{escape(item.verdict)}" style="margin:0;max-width:260px">'
        f"{position_svg(item.position, cell=40, highlight=item.move.cell)}"
        f'<figcaption style="font-size:0.8em">{escape(graded_line(item))}</figcaption></figure>'
        for item in shown
    )
    hidden = len(graded) - len(shown)
    more = f'<div style="font-size:0.85em;{_MUTED}">... and {hidden:,} more: the report\'s lists hold them all</div>' if hidden else ""
    return (
        f'<h4 style="margin:10px 0 4px">{escape(title)}</h4><div style="font-size:0.85em;{_MUTED}">ringed: the move played; ★ the best moves</div>'
        f'<div style="display:flex;flex-wrap:wrap;gap:12px">{boards}</div>{more}'
    )


def _failures_html(title: str, failures: tuple[FailureView, ...], limit: int) -> str:
    lines = _grouped(failures, limit)
    items = "".join(f"<li>{escape(line.strip())}</li>" for line in lines)
    return f'<h4 style="margin:10px 0 4px">{escape(title)}</h4><ul style="font-size:0.85em;margin:0">{items}</ul>'
