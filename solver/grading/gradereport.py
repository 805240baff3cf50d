"""What a grading found (:func:`solver.grading.grader.grade` finds it): the report and its parts.

A :class:`GradeReport` counts the answers (kept, optimal, lost) and holds every legal answer that was not a
best move (:class:`GradedMove`) and every call without a legal move (:class:`PlayerFailure`: an exception,
an illegal move, a timeout, a crash), with its words and pictures (:mod:`solver.present.report`) and its
JSON; :class:`GradingInterrupted` carries the report so far past Ctrl-C.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from ..encoding.board import digits
from ..present.charts import PlyFaults
from ..present.report import describe_report, report_html
from ..rules.game import Game
from ..tables.analysis import Verdict
from ..tables.position import Move, Position
from ..words import count, percent

Side = Literal["X", "O", "both"]
FailureKind = Literal["exception", "illegal", "timeout", "crash"]


@dataclass(frozen=True)
class GradedMove:
    """A legal answer that was not a best move.

    :param position: the position the function was asked about (``position.result``
        is the mover's result there, ``position.best_cells`` the best moves).
    :param move: the move it answered, for the mover (``move.result``, ``move.plies``).
    :param verdict: ``'ok'`` (kept the result, but a slower win or a faster loss),
        ``'mistake'`` (win -> draw, draw -> loss) or ``'blunder'`` (win -> loss).
    """

    position: Position
    move: Move
    verdict: Verdict

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data; moves are flat cell indices (under gravity too: the cells the pieces land on)."""
        p = self.position
        return {
            "code": p.code,
            "board": p.board,
            "to_move": p.to_move,
            "move": self.move.cell,
            "best_moves": list(p.best_cells),
            "result_before": p.result,
            "plies_before": p.plies,
            "result_after": self.move.result,
            "plies_after": self.move.plies,
            "verdict": self.verdict,
        }


@dataclass(frozen=True)
class PlayerFailure:
    """A call that gave no legal move.

    :param position: the position the function was asked about.
    :param kind: ``'exception'`` (the function raised), ``'illegal'`` (its answer is not
        a legal move), ``'timeout'`` (no answer in time) or ``'crash'`` (the call ended
        the player's process).
    :param message: e.g. ``"ZeroDivisionError: division by zero (player.py, line 3)"``
        or ``"cell (0, 0) is taken by X"``.
    :param answer: ``repr`` of the answer (empty when there is none).
    """

    position: Position
    kind: FailureKind
    message: str
    answer: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data."""
        p = self.position
        return {"code": p.code, "board": p.board, "to_move": p.to_move, "kind": self.kind, "message": self.message, "answer": self.answer}


@dataclass(frozen=True, repr=False)
class GradeReport:
    """What :func:`grade` found (the buckets are defined in the module docstring).

    :param planned: the positions to grade; :attr:`positions` of them were graded
        (fewer when :attr:`stopped` says why).
    :param positions: positions tried: one call each.
    :param kept: legal answers that keep the position's result for the mover.
    :param optimal: kept answers that are best moves.
    :param lost: the positions where the result was thrown away (mistakes and blunders).
    :param slower: the kept answers that are not best: a slower win or a faster loss.
    :param exceptions: the calls that raised.
    :param illegal: the answers that are not legal moves.
    :param timeouts: the calls that ran over the time limit.
    :param crashes: the calls that ended the player's process.
    :param mutated: calls that changed the board they were given (harmless: each call gets a fresh one).
    :param answers: ``(code, cell)`` of every legal answer, by code: what the function played where.
    :param hints: one line per known mismatch seen in the answers, naming the option that fixes it.
    :param stopped: why grading stopped before every planned position, or ``None``.
    :param printed: lines the player printed (not shown).
    :param seconds: time spent inside the function, in total, as measured where it ran.
    :param slowest: the position of the slowest call, and :attr:`slowest_seconds` its time.
    :param player: the function's name, as ``str(report)`` and the notebook picture name it.

    ``str(report)`` is the text ``solve grade`` prints; in a notebook the report shows the same
    counts, a chart of the faults by ply (:meth:`faults_by_ply`) and the boards.
    """

    game: Game
    side: Side
    planned: int
    positions: int
    kept: int
    optimal: int
    lost: tuple[GradedMove, ...]
    slower: tuple[GradedMove, ...]
    exceptions: tuple[PlayerFailure, ...]
    illegal: tuple[PlayerFailure, ...]
    timeouts: tuple[PlayerFailure, ...]
    crashes: tuple[PlayerFailure, ...]
    mutated: int
    answers: tuple[tuple[int, int], ...]
    hints: tuple[str, ...]
    stopped: str | None
    printed: int = field(compare=False)
    seconds: float = field(compare=False)
    slowest: Position | None = field(compare=False)
    slowest_seconds: float = field(compare=False)
    player: str = field(default="the player", compare=False)
    sampled: str | None = field(default=None, compare=False)
    """What the positions graded cover, for a game answered by search (:func:`~solver.grading.grader.sampled_words`), or None."""

    def __str__(self) -> str:
        """What ``solve grade`` prints (:func:`solver.present.report.describe_report`): the counts, the boards, the errors."""
        return describe_report(self, self.player)

    def _repr_html_(self) -> str:
        """The report for Jupyter: the counts, the faults by ply as a chart, and the boards (:func:`solver.present.report.report_html`)."""
        return report_html(self, self.player, self.faults_by_ply())

    def faults_by_ply(self) -> list[PlyFaults]:
        """The positions graded at each ply (pieces on the board) and the answers there that were
        not best moves: slower, mistakes, blunders, and calls without a legal move. Plies with no
        graded position are left out."""

        def ply(code: int) -> int:
            return sum(1 for digit in digits(self.game, code) if digit)

        graded = Counter(ply(code) for code, _ in self.answers) + Counter(failure.position.pieces for failure in self.errors)
        kinds = {
            "slower": Counter(item.position.pieces for item in self.slower),
            "mistakes": Counter(item.position.pieces for item in self.lost if item.verdict == "mistake"),
            "blunders": Counter(item.position.pieces for item in self.lost if item.verdict == "blunder"),
            "errors": Counter(failure.position.pieces for failure in self.errors),
        }
        return [PlyFaults(at, graded[at], **{kind: counted[at] for kind, counted in kinds.items()}) for at in sorted(graded)]

    def __repr__(self) -> str:
        """The counts in one line (the module docstring shows one); ``solve grade`` prints the boards."""
        sides = {"both": "X and O", "X": "X", "O": "O"}[self.side]
        done = f"{self.positions:,}" if self.complete else f"incomplete: {self.stopped}, {self.positions:,} of {self.planned:,}"
        kept = f"{self.kept:,} kept" + (f" ({percent(self.kept, self.positions)})" if self.positions else "")
        lost = f"{len(self.lost):,} thrown away" + (f" ({count(self.mistakes, 'mistake')}, {count(self.blunders, 'blunder')})" if self.lost else "")
        failed = [
            count(len(items), noun)
            for items, noun in ((self.exceptions, "exception"), (self.illegal, "illegal answer"), (self.timeouts, "time-out"), (self.crashes, "crash"))
            if items
        ]
        return (
            f"<GradeReport {self.game.name}, {sides} to move: {done} positions, {kept}, {self.optimal:,} optimal, {lost}, {', '.join(failed) or 'no errors'}>"
        )

    @property
    def complete(self) -> bool:
        """Whether every planned position was graded."""
        return self.stopped is None and self.positions == self.planned

    @property
    def errors(self) -> tuple[PlayerFailure, ...]:
        """Every call without a legal move: exceptions, illegal answers, time-outs, crashes."""
        return self.exceptions + self.illegal + self.timeouts + self.crashes

    @property
    def answered(self) -> int:
        """Legal answers: ``kept + len(lost)``."""
        return self.kept + len(self.lost)

    @property
    def mistakes(self) -> int:
        """Lost positions that were a win -> draw or a draw -> loss."""
        return sum(1 for lost in self.lost if lost.verdict == "mistake")

    @property
    def blunders(self) -> int:
        """Lost positions that were a win -> loss."""
        return sum(1 for lost in self.lost if lost.verdict == "blunder")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data: counts, ``lost`` as codes, and the details."""
        return {
            "game": self.game.name,
            "side": self.side,
            "planned": self.planned,
            "positions": self.positions,
            "complete": self.complete,
            "stopped": self.stopped,
            "kept": self.kept,
            "optimal": self.optimal,
            "lost": [lost.position.code for lost in self.lost],
            "mistakes": self.mistakes,
            "blunders": self.blunders,
            "exceptions": len(self.exceptions),
            "illegal": len(self.illegal),
            "timeouts": len(self.timeouts),
            "crashes": len(self.crashes),
            "hints": list(self.hints),
            "errors": [failure.to_dict() for failure in self.errors],
            "lost_positions": [lost.to_dict() for lost in self.lost],
            "slower": [slower.position.code for slower in self.slower],
            "slower_positions": [slower.to_dict() for slower in self.slower],
            "mutated": self.mutated,
            "printed": self.printed,
            "seconds": round(self.seconds, 3),
            "slowest": None if self.slowest is None else {"code": self.slowest.code, "board": self.slowest.board, "seconds": round(self.slowest_seconds, 3)},
            "sampled": self.sampled,
        }


class GradingInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`grade`; :attr:`report` holds what was graded so far (``stopped`` says so)."""

    def __init__(self, report: GradeReport) -> None:
        super().__init__("grading interrupted")
        self.report = report
