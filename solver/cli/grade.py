"""``solve grade``: a move function graded on every position where its side is to move (printing only: the logic
is :func:`solver.grading.grader.grade`)."""

from __future__ import annotations

import contextlib
import functools
import json
import time
from collections.abc import Callable
from typing import NoReturn, cast

import click

from ..api import (
    DEFAULT_MEMORY_MB,
    DEFAULT_PROCESSES,
    DEFAULT_TIMEOUT,
    DEFAULT_TOTAL_TIMEOUT,
    GRADE_LIMIT,
    Game,
    GradeReport,
    GradingInterrupted,
    Returns,
    Sandbox,
    Turn,
    board_maker,
    describe_report,
    format_duration,
    parse_symbols,
    positions_to_grade,
)
from ..api import grade as _grade
from ..words import count
from .group import main
from .options import TableOptions, game_option
from .progress import meter


@main.command()
@click.argument("player", metavar="FILE.py:FUNCTION")
@game_option
@click.option("--symbols", default="X,O,None", show_default=True, help="X, O and empty in the board passed (None is Python's None), e.g. 'x,o,-' or 'X,O, '.")
@click.option("--numpy", "array", is_flag=True, help="Pass a numpy int array of shape (rows, cols): 1 X, -1 O, 0 empty.")
@click.option("--flat", is_flag=True, help="Pass a string of one symbol per cell, row by row ('.' for None), e.g. 'X...O....'.")
@click.option(
    "--turn",
    type=click.Choice(["symbol", "max"]),
    default=None,
    help="Also pass whose turn it is: the mover's symbol, or True when X (the maximiser) is to move.",
)
@click.option(
    "--returns", type=click.Choice(["move", "value-move"]), default="move", show_default=True, help="What the function returns: a move, or (value, move)."
)
@click.option(
    "--side",
    type=click.Choice(["X", "O", "both"], case_sensitive=False),
    default="both",
    show_default=True,
    help="Grade the positions where this side is to move.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=DEFAULT_TIMEOUT,
    show_default=True,
    help="Seconds per call; a call that runs over counts as timed out.",
)
@click.option(
    "--total-timeout",
    type=click.FloatRange(min=0),
    default=DEFAULT_TOTAL_TIMEOUT,
    show_default=True,
    help="Seconds for the whole grading (0: no limit); the report covers what was graded by then.",
)
@click.option(
    "--memory",
    "memory_mb",
    type=click.IntRange(min=0),
    default=DEFAULT_MEMORY_MB,
    show_default=True,
    help="The player's memory limit in MiB, its sandbox's /tmp and /dev/shm included (0: no limit).",
)
@click.option(
    "--processes",
    type=click.IntRange(min=1),
    default=DEFAULT_PROCESSES,
    show_default=True,
    help="The most processes and threads the player may have at once, its own included.",
)
@click.option(
    "--sandbox",
    type=click.Choice(["auto", "bwrap", "none"]),
    default="auto",
    show_default=True,
    help="Contain the player with bubblewrap (bwrap: it sees only Python, its own folder and a private /tmp): auto uses it "
    "where it works and otherwise says so once; bwrap refuses to grade without it; none runs it as a plain process.",
)
@click.option(
    "--support",
    "support",
    multiple=True,
    metavar="FILE",
    help="A file the player's file needs beside it (a course module it imports, a data file it reads); repeat for each. "
    "Each graded file is otherwise alone in its folder: it sees no other file of the folder it is in.",
)
@click.option(
    "--sample",
    type=click.IntRange(min=1),
    default=None,
    help="Grade this many positions drawn at random (the same every run) instead of all; games of more than 16 cells are always sampled (default 10,000).",
)
@click.option(
    "--limit",
    type=click.IntRange(min=0),
    default=GRADE_LIMIT,
    show_default=True,
    help="Show at most this many boards and error kinds in each section (0: all of them; --json always lists all).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def grade(
    player: str,
    options: TableOptions,
    symbols: str,
    array: bool,
    flat: bool,
    turn: str | None,
    returns: str,
    side: str,
    timeout: float,
    total_timeout: float,
    memory_mb: int,
    processes: int,
    sandbox: str,
    support: tuple[str, ...],
    sample: int | None,
    limit: int,
    as_json: bool,
) -> None:
    """Grade a move function on every position where its side is to move.

    FUNCTION takes a board (by default a list of rows of 'X', 'O' and None)
    and returns (row, col), [row, col] or a flat cell index; Class.method
    names a method of Class(). The file is imported and called in a separate
    process, with standard input closed and a time limit per call, inside a
    bubblewrap sandbox where one works (--sandbox), alone in a folder of its
    own with the --support files. Each answer
    is kept (keeps the result for the mover), optimal (a best move), lost
    (throws the result away), an exception, illegal, timed out or crashed.
    Ctrl-C prints the report so far.
    """
    parsed = parse_symbols(symbols)
    try:
        table = options.table()
        board_maker(table.game, symbols=parsed, array=array, flat=flat)  # refuse bad options before the bar
        planned = len(positions_to_grade(side=side, table=table, sample=sample))
    except KeyboardInterrupt:
        _interrupted_before_grading()
    run = functools.partial(
        _grade,
        player,
        symbols=parsed,
        array=array,
        flat=flat,
        turn=cast("Turn | None", turn),
        returns=cast("Returns", returns),
        side=side,
        table=table,
        sample=sample,
        timeout=timeout,
        total_timeout=total_timeout or None,
        memory_mb=memory_mb or None,
        processes=processes,
        sandbox=cast("Sandbox", sandbox),
        support=support,
    )  # the choices click checked
    opening = functools.partial(_grading_line, player, table.game, planned, timeout=timeout, total_timeout=total_timeout)
    report, stopped = _with_progress_bar(run, planned, f"grading {player.rpartition(':')[2]}", opening=opening, quiet=options.quiet)
    _print_grading(report, player, stopped, limit=limit, as_json=as_json, quiet=options.quiet)


def _grading_line(player: str, game: Game, planned: int, first_call: float, *, timeout: float, total_timeout: float) -> str:
    """``Grading move in f.py on 4,520 positions of 3x3k3: about 9 s expected (the first call took 2 ms); at most 30 s a
    call, so at most 37 h 40 min; --total-timeout stops it at 10 min``: the time the first call took (``first_call``,
    seconds) times the positions first, then the bound the time limit gives."""
    file, _, function = player.rpartition(":")
    bound = planned * timeout
    took = f"{first_call * 1000:.0f} ms" if first_call < 1 else f"{first_call:.1f} s"
    expected = f"about {format_duration(first_call * planned)} expected (the first call took {took})"
    line = f"Grading {function} in {file} on {count(planned, 'position')} of {game.name}: {expected}; "
    line += f"at most {timeout:g} s a call, so at most {format_duration(bound)}"
    if total_timeout and total_timeout < bound:
        line += f"; --total-timeout stops it at {format_duration(total_timeout)}"
    return line


def _with_progress_bar(run: Callable[..., GradeReport], planned: int, label: str, *, opening: Callable[[float], str], quiet: bool) -> tuple[GradeReport, int]:
    """``run(progress=...)`` under a progress meter on stderr (:func:`meter`), started at the first answer, after the
    ``opening`` line made with the seconds from the player's load to that answer (a player that does not load gets its
    one error line only); none of it if ``quiet``.

    :returns: the report, and 130 if Ctrl-C stopped the grading, else 0.
    """
    shown = contextlib.ExitStack()
    advance: list[Callable[[int], None]] = []
    loaded: list[float] = []

    def step(n: int) -> None:
        if n == 0:  # the player is loaded: its first answer tells how long a call takes
            loaded.append(time.monotonic())
            return
        if not advance:  # the meter starts, and its estimate of the time left counts from here
            click.echo(opening(time.monotonic() - loaded[0]), err=True)
            advance.append(shown.enter_context(meter(label, planned)))
        advance[0](n)

    with shown:
        try:
            return run(progress=None if quiet else step), 0
        except GradingInterrupted as interrupted:
            return interrupted.report, 130
        except KeyboardInterrupt:  # before grade() had its positions: nothing to report
            _interrupted_before_grading()


def _interrupted_before_grading() -> NoReturn:
    """Ctrl-C before the grading had its positions (the table, the options): one line on stderr, exit status 130."""
    click.echo("solve: grading interrupted (Ctrl-C) before the first position", err=True)
    raise SystemExit(130) from None


def _print_grading(report: GradeReport, player: str, stopped: int, *, limit: int, as_json: bool, quiet: bool) -> None:
    """The report on stdout and the notes on stderr; exit non-zero (``stopped``, else 1) if the grading did not finish."""
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
    else:
        click.echo(describe_report(report, player, limit=limit))
    if report.slowest is not None and not quiet:  # timings vary: stderr, so stdout stays reproducible
        click.echo(f"time in the function: {report.seconds:.2f} s, slowest call {report.slowest_seconds:.2f} s on {report.slowest.board}", err=True)
    if report.printed:
        click.echo(f"note: the player printed {count(report.printed, 'line')}; {'it was' if report.printed == 1 else 'they were'} not shown", err=True)
    if not report.complete:
        click.echo(f"solve: grading {report.stopped}: graded {report.positions:,} of {count(report.planned, 'position')}", err=True)
        raise SystemExit(stopped or 1)
