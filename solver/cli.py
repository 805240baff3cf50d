"""The ``solve`` command: parses arguments, calls the public API, prints.

Every command takes ``--game`` (default ``3x3k3``) and ``--table-dir``; errors
from the API become one line on stderr and a non-zero exit status (2 for a bad
board or game, 1 for a broken table or a failed verification).
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import random
import re
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn, cast

import click

from .api import (
    DEFAULT_BOOK_SAMPLE,
    DEFAULT_REFERENCE,
    MAX_EMPTY,
    MIRROR_ENV,
    BuildEstimate,
    BuildProgress,
    Check,
    LayerCheck,
    SearchTable,
    Tablebase,
    book_game,
    build_book,
    check_sample,
    cluster_scheduler,
    default_depth,
    default_tablebase,
    describe_book,
    estimate,
    estimate_book,
    fetch_table,
    format_duration,
    is_url,
    kind_for,
    open_book,
    parse_game,
    proof,
    proof_seconds,
    proof_work,
    rebuild_command,
    refuse_beyond_machine,
    refuse_replacing,
    remove_dead_temporaries,
    sample_seconds,
    verify_book,
    verify_plan,
    write_atomic,
)
from .encoding import board as _board
from .encoding.drops import move_string_code
from .errors import BuildNeedsConsent, InvalidBoardError, InvalidGameError, PlayerError, SearchTimeout, SolverError, TableError, one_line
from .grading.grader import (
    DEFAULT_TIMEOUT,
    DEFAULT_TOTAL_TIMEOUT,
    GradeReport,
    GradingInterrupted,
    Returns,
    board_maker,
    parse_symbols,
    positions_to_grade,
)
from .grading.grader import grade as _grade
from .grading.limits import DEFAULT_PROCESSES
from .grading.player import DEFAULT_MEMORY_MB, Turn
from .grading.sandbox import Sandbox
from .present.analysis import analysis_text as describe_analysis
from .present.analysis import best_text as _best_text
from .present.analysis import grid_text as _grid
from .present.charts import outcomes_svg
from .present.describe import column_board, move_words, stats_text, status_line
from .present.report import GRADE_LIMIT, describe_report
from .rules.game import DENSE_MAX_CELLS, Game
from .tables import Table
from .tables.analysis import GameAnalysis, move_code
from .tables.analysis import analyze as _analyze
from .tables.position import Position, outcome_label
from .words import count, percent


class SolveGroup(click.Group):
    """A click group that turns the package's errors into one line on stderr."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            with warnings.catch_warnings():
                warnings.showwarning = _warn_one_line
                return super().invoke(ctx)
        except (InvalidBoardError, InvalidGameError, PlayerError) as error:
            click.echo(f"solve: error: {one_line(error)}", err=True)
            ctx.exit(2)
        except BuildDeclined as declined:
            click.echo(f"solve: {declined}", err=True)
            ctx.exit(1)
        except SearchTimeout as error:
            click.echo(f"solve: error: {timeout_line(error, ctx.meta.get(BUDGET_KEY))}", err=True)
            ctx.exit(1)
        except (TableError, SolverError) as error:
            click.echo(f"solve: error: {one_line(error)}", err=True)
            ctx.exit(1)
        except OSError as error:
            where = f"{error.filename}: " if error.filename else ""
            click.echo(f"solve: error: {where}{error.strerror or error}", err=True)
            ctx.exit(1)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Each command's first sentence whole, wrapped (click cuts it to the terminal's width with ``...``)."""
        commands = [(name, command) for name in self.list_commands(ctx) if (command := self.get_command(ctx, name)) is not None and not command.hidden]
        if commands:
            with formatter.section("Commands"):
                formatter.write_dl([(name, command.get_short_help_str(limit=1_000)) for name, command in commands])


BUDGET_KEY = "solve.budget"
"""Where ``--budget`` leaves the seconds it gave in click's ``ctx.meta`` (shared by every context of a command), for
the line a search that ran out of them prints."""


def timeout_line(error: SearchTimeout, budget: float | None) -> str:
    """The one line of a search stopped at its budget: what stopped and when (the engine's words, which say the seconds
    that applied to that search), and how to give it more from the command line (not the Python API's ``budget=None``).

    >>> line = timeout_line(SearchTimeout("the search of ... stopped at its budget of 2 s after 2.1 s"), 2.0)
    >>> for part in line.split(": "):
    ...     print(part)
    the search of ... stopped at its budget of 2 s after 2.1 s
    this command had --budget 2 (seconds); give it more with --budget SECONDS, or no --budget for no limit
    """
    what = one_line(error.what)
    given = "" if budget is None else f"this command had --budget {budget:g} (seconds); "
    return f"{what}: {given}give it more with --budget SECONDS, or no --budget for no limit"


class BuildDeclined(Exception):
    """The person answered no to a build's question: not an error, but the command could not do its work
    (exit status 1, one calm line: what was not built and the command that builds it later)."""


def _warn_one_line(message: Warning | str, *args: Any, **kwargs: Any) -> None:
    """Show a warning (such as a table kept in memory only) as one line on stderr."""
    click.echo(f"solve: warning: {one_line(message)}", err=True)


class _ArgsCommand(click.Command):
    """A command whose BOARD or MOVES arguments may start with '-' (``---/---/---``, ``-1``).

    A token that starts with '-' but is no option of the command, and reads as a
    board (only ``XxOo.-_ /`` characters) or a number or move (``-1``, ``-1,2``),
    is moved after a ``--`` so click takes it as an argument; typos of real
    options (``--jsn``) are still reported by click.
    """

    _BOARDLIKE = re.compile(r"[-XxOo._ /\n\r]+|-[0-9]+(?:[, ]+-?[0-9]+)?")

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        options = [param for param in self.params if isinstance(param, click.Option)]
        names = {name for param in options for name in param.opts + param.secondary_opts}
        takes_value = {name for param in options if not param.is_flag for name in param.opts}
        kept: list[str] = []
        arguments: list[str] = []
        dashed = False
        tokens = iter(args)
        for token in tokens:
            if token == "--":
                arguments += tokens
                break
            if token in takes_value:
                kept += [token, *[value for value in [next(tokens, None)] if value is not None]]
            elif token.split("=", 1)[0] in names or (token.startswith("-") and not self._BOARDLIKE.fullmatch(token)):
                kept.append(token)  # an option, or an unknown one for click to report
            else:
                dashed = dashed or token.startswith("-")
                arguments.append(token)
        if not dashed:
            return super().parse_args(ctx, args)
        return super().parse_args(ctx, [*kept, "--", *arguments])


TABLE_DIR_HELP = (
    "Where built tables are kept (default: $SOLVED_TICTACTOE_DIR if set, else the user data directory, "
    "~/.local/share/solved-tictactoe on Linux; tables left in the old default, ~/.config/solved-tictactoe, are still used)."
)


def _game_option(function: Callable[..., Any]) -> Callable[..., Any]:
    @click.option(
        "--game",
        "-g",
        default="3x3k3",
        show_default=True,
        help="The game, ROWSxCOLS[kK][-RULE], e.g. 4x4, 3x4k3, 3x3k3-misere (misère: a line loses) or 4x4k4-gravity (pieces drop: a move is a column).",
    )
    @click.option("--table-dir", type=click.Path(file_okay=False, path_type=Path), default=None, help=TABLE_DIR_HELP)
    @click.option("--quiet", "-q", is_flag=True, help="No notice or progress bar when a table is built.")
    @functools.wraps(function)
    def wrapper(*args: Any, game: str, table_dir: Path | None, quiet: bool, **kwargs: Any) -> Any:
        given = click.get_current_context().get_parameter_source("game") is not click.core.ParameterSource.DEFAULT
        options = TableOptions(parse_game(game), table_dir, quiet, game_given=given, tablebase=_tablebase())
        return function(*args, options=options, **kwargs)

    return wrapper


def _tablebase() -> Tablebase:
    """The Tablebase the command answers from: the one given as click's ``obj`` (``main.main(args, obj=Tablebase(...))``),
    else the default one (:func:`solver.api.default_tablebase`)."""
    context = click.get_current_context(silent=True)
    found = None if context is None else context.find_object(Tablebase)
    return found if found is not None else default_tablebase()


class TableOptions:
    """The options every command shares, and how they open a table (through a :class:`~solver.api.Tablebase`)."""

    def __init__(self, game: Game, table_dir: Path | None, quiet: bool, *, game_given: bool = True, tablebase: Tablebase | None = None) -> None:
        self.tablebase = tablebase or default_tablebase()
        """Where every table of the command comes from."""
        self.game = game
        self.game_given = game_given
        """Whether --game was on the command line (``solve verify --table`` then checks the file holds it)."""
        self.table_dir = table_dir
        self.quiet = quiet

    budget: float | None = None
    """``--budget``: seconds a search may take, for a game answered by search (Connect Four)."""

    def table(self) -> Table:
        """The game's table; a missing one is built, asking first (on a terminal) when the build
        takes more than a minute or a GiB of disk, refused with the estimate elsewhere. A game answered
        by search (Connect Four) gets ``--budget`` and a progress bar on the terminal while a search runs."""
        table = self.tablebase.table(self.game, table_dir=self.table_dir, on_build=self._notice, consent=self._consent, notify=self.notify)
        if table.searches:
            return table.bounded(self.budget, None if self.quiet else _SearchBar(table.game, self.budget))
        return table

    def _consent(self, cost: BuildEstimate) -> bool:
        if not _interactive():
            return False  # refused with the estimate and the command that builds it
        if _confirm_build(cost, f"The {cost.game.name} table is not built yet; building it"):
            return True
        path = self.tablebase.path_of(cost.game, table_dir=self.table_dir)
        raise BuildDeclined(f"the {cost.game.name} table was not built (you answered no); build it later with: {_build_command(cost, path)}")

    @contextmanager
    def progress(self, game: Game, path: Path, work: int) -> Iterator[BuildProgress | None]:
        """A progress bar for an explicit build (``solve build``), no first-use notice."""
        with _resume_hint(game, path), _progress_bar(game, work, quiet=self.quiet) as progress:
            yield progress

    @contextmanager
    def _notice(self, game: Game, path: Path, work: int) -> Iterator[BuildProgress | None]:
        if not self.quiet:
            kept = f"it will be kept in {path}" if _can_keep(path) else "it is kept in memory (see below)"
            click.echo(f"Building the {game.name} table (first use, {_duration(estimate(game, path))}); {kept}", err=True)
        with _resume_hint(game, path), _progress_bar(game, work, quiet=self.quiet) as progress:
            yield progress

    def notify(self, message: str) -> None:
        """Say what a build found (e.g. that it resumes), unless quiet."""
        if not self.quiet:
            click.echo(message, err=True)


class _SearchBar:
    """The engine's progress hook as a click progress bar on stderr (drawn on a terminal only): it appears when
    a search has run for half a second, fills toward ``--budget`` when one is given, and counts positions searched."""

    def __init__(self, game: Game, budget: float | None) -> None:
        self.game, self.budget = game, budget
        self.bar: Any = None
        self.shown = 0

    def __call__(self, nodes: int, seconds: float) -> None:
        if self.bar is None:
            label = f"searching {self.game.name}" + ("" if self.budget is None else f" (budget {self.budget:g} s)")
            length = None if self.budget is None else max(1, round(self.budget * 10))
            self.bar = click.progressbar(length=length, label=label, file=sys.stderr, item_show_func=lambda item: item)
            self.bar.__enter__()
            click.get_current_context().call_on_close(self.close)
        tenths = round(seconds * 10)
        self.bar.update(max(0, tenths - self.shown), f"{nodes:,} positions, {seconds:.1f} s")
        self.shown = max(self.shown, tenths)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


def _finite_seconds(param: click.Parameter, value: float) -> float:
    """A number of seconds that is finite (``FloatRange`` lets ``nan`` through: it compares false with every bound)."""
    if not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a number of seconds: give a positive finite number, e.g. 5", param=param)
    return value


def _budget_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """``--budget SECONDS``: how long a search may take, for a game answered by search (Connect Four)."""

    @click.option(
        "--budget",
        type=click.FloatRange(min=0, min_open=True),
        default=None,
        metavar="SECONDS",
        help="For a game answered by search (connect4): stop a search after this many seconds (default: no limit; a progress bar shows on a terminal).",
    )
    @functools.wraps(function)
    def wrapper(*args: Any, options: TableOptions, budget: float | None, **kwargs: Any) -> Any:
        options.budget = budget
        click.get_current_context().meta[BUDGET_KEY] = budget
        return function(*args, options=options, **kwargs)

    return wrapper


def _can_keep(path: Path) -> bool:
    """Whether a table can be written at ``path``: its directory exists, or can be made now, and this user may write in it
    (checked before the first-use notice promises where the table will be kept)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(path.parent, os.W_OK | os.X_OK)


def _duration(cost: BuildEstimate) -> str:
    """``about 16 s on 1 core``: the time part of an estimate."""
    return f"about {format_duration(cost.seconds)} on {count(cost.jobs, 'core')}"


def _build_command(cost: BuildEstimate, path: Path) -> str:
    """The ``solve build`` command for ``path``, with ``--yes`` when the build is long enough for ``solve build`` to ask."""
    return rebuild_command(cost.game.name, path) + (" --yes" if cost.is_long else "")


def _interactive() -> bool:
    """Whether a person can answer a question: standard input and standard error are terminals."""
    return sys.stdin.isatty() and sys.stderr.isatty()


def _confirm_build(cost: BuildEstimate, what: str) -> bool:
    """On a terminal, ``<what> takes <the estimate>. Build it now? [y/N]``: whether the person said yes (off one: False).

    The one question before a long build, asked by a first-use build (``solve lookup``) and by ``solve build``.
    """
    if not _interactive():
        return False
    return click.confirm(f"{what} takes {cost.describe()}. Build it now?", default=False, err=True)


def _check_long_build(game: Game, path: Path, *, jobs: int | None, yes: bool, quiet: bool) -> None:
    """Before ``solve build``: say what is built and how long it should take (unless ``quiet``); for a build of more
    than ten minutes (:data:`solver.store.estimate.LONG_BUILD_SECONDS`) without ``--yes``, ask instead.

    :raises BuildDeclined: for a no.
    :raises BuildNeedsConsent: off a terminal (with the estimate and the ``--yes`` command).
    """
    cost = estimate(game, path, jobs=jobs)
    resuming = path.with_name(path.name + ".build").is_dir()
    what = f"Finishing the {game.name} build begun in {path}.build" if resuming else f"Building the {game.name} table"
    if yes or not cost.is_long:
        if not quiet and _can_keep(path):  # else the builder says at once why it cannot write there
            click.echo(f"{what}{'' if resuming else f' into {path}'}: {cost.describe()}", err=True)
        return
    if not _interactive():
        raise BuildNeedsConsent(f"{what[0].lower()}{what[1:]} takes {cost.describe()}; it is not started unasked: run the same command with --yes", cost)
    if not _confirm_build(cost, what):
        raise BuildDeclined(f"the {game.name} table was not built (you answered no); nothing was written: build it later with the same command and --yes")


def _there_already(tablebase: Tablebase, game: Game, path: Path, *, quiet: bool) -> bool:
    """Whether ``path`` holds ``game``'s table, whole: opened as any use opens it (its checksum, or this user's trust),
    and every block checked. Said in one line on stdout; a table there that does not verify is said on stderr and built again."""
    if not path.is_file():
        return False
    try:
        table = tablebase.open_file(path, game=game)
        problems = table.file.problems() if table.file is not None else []
    except TableError as error:
        problems = [one_line(error)]
    if problems:
        if not quiet:
            click.echo(f"{path} does not verify ({problems[0]}); building it again", err=True)
        return False
    click.echo(f"{path}: the {game.name} table is there already and every block checks (sha256 {table.sha256}); nothing built (--force builds it again)")
    return True


@contextmanager
def _resume_hint(game: Game, path: Path) -> Iterator[None]:
    """Ctrl-C during a build: one line saying what was kept and how to go on, and exit status 130 (no "Aborted!")."""
    try:
        yield
    except KeyboardInterrupt:
        if kind_for(game) == "compact":
            kept = f"the layers it finished are kept in {path}.build: run the same command again to resume from there"
        else:
            kept = "nothing was written (it takes seconds): run the same command again to build it"
        click.echo(f"solve: the {game.name} build was interrupted (Ctrl-C); {kept}", err=True)
        raise SystemExit(130) from None


PROGRESS_LINE_SECONDS = 60.0
"""Off a terminal (a log, a pipe, nohup), a build prints its progress as a line this often."""


class _ProgressLines:
    """A build's progress as a line on stderr every :data:`PROGRESS_LINE_SECONDS`: the layer being
    solved, the share done, the rate and the time left (what a progress bar shows, for a log file).

    The rate is in boards a second for a compact build, whose work units are its boards (plus a
    small fixed cost a chunk, :data:`solver.retrograde.chunks.CHUNK_COST`); the time left assumes
    the rate so far.
    """

    def __init__(self, game: Game, work: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.game, self.work, self.clock = game, work, clock
        self.started = self.shown = clock()
        self.done = 0
        self.layer: int | str | None = None

    def __call__(self, units: int, layer: int | str | None = None) -> None:
        """Count ``units`` done (in ``layer``), and print a line if the last one is a minute old."""
        self.done += units
        self.layer = self.layer if layer is None else layer
        now = self.clock()
        if now - self.shown >= PROGRESS_LINE_SECONDS:
            self.shown = now
            click.echo(self.line(now), err=True)

    def line(self, now: float) -> str:
        """``solving 5x5k4: layer 14/25, 43.1% done, 21.4 M boards/s, about 35 min left``."""
        elapsed = max(now - self.started, 1e-9)
        parts = [] if self.layer is None else [_layer_text(self.layer, self.game)]
        parts.append(f"{100 * self.done / max(self.work, 1):.1f}% done")
        if self.layer is not None:
            parts.append(f"{_rate(self.done / elapsed)} boards/s")
        if self.done:
            parts.append(f"about {format_duration(elapsed * (self.work - self.done) / self.done)} left")
        return f"solving {self.game.name}: {', '.join(parts)}"


def _layer_text(layer: int | str, game: Game) -> str:
    """``layer 14/25``, or the label a stage gave (a gravity build's forward pass: ``reachable positions, layer 3/28``)."""
    return layer if isinstance(layer, str) else f"layer {layer}/{game.cells}"


def _rate(per_second: float) -> str:
    """``21.4 M``, ``830 k``, ``75``: a rate to three figures."""
    for scale, unit in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if per_second >= scale:
            return f"{per_second / scale:.3g}{unit}"
    return f"{per_second:.3g}"


@contextmanager
def _progress_bar(game: Game, work: int, *, quiet: bool) -> Iterator[BuildProgress | None]:
    """A click progress bar on stderr over a build's work units (a dense build: a step per ply
    of each pass; a compact one: boards, labelled with the layer being solved). Off a terminal,
    where a bar cannot redraw, a line every minute instead (:class:`_ProgressLines`)."""
    if quiet:
        yield None
        return
    if not sys.stderr.isatty():  # a build of seconds prints nothing; a long one a line a minute
        yield _ProgressLines(game, work)
        return

    def layer_text(ply: int | str | None) -> str | None:
        return None if ply is None else _layer_text(ply, game)

    with click.progressbar(length=work, label=f"solving {game.name}", file=sys.stderr, item_show_func=layer_text) as bar:

        def advance(units: int, layer: int | str | None = None) -> None:
            bar.update(units, layer)

        yield advance


@click.group(cls=SolveGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="solved-tictactoe")
def main() -> None:
    """Exact answers for tic-tac-toe, m,n,k games up to 25 cells, and gravity games (Connect Four's family) up to 30.

    Boards are written one character per cell, rows separated by '/':
    X, O, and '.', '-', '_' or space for empty (e.g. "X.O/.X./..O"), or given
    as their base-3 code.
    """


# -- stats ----------------------------------------------------------------------
@main.command()
@_game_option
@_budget_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--svg",
    "svg_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE",
    help="Also write a chart of the outcomes of each ply to FILE (SVG, self-contained).",
)
def stats(options: TableOptions, as_json: bool, svg_path: Path | None) -> None:
    """Count positions, results, symmetric classes and complete games, in total and by ply."""
    if svg_path is not None:
        _check_writable(svg_path, "the chart")
    table = options.table()
    if table.searches:
        searched_stats(table, options, as_json)
        return
    counts = table.stats()
    if svg_path is not None:
        write_atomic(svg_path, outcomes_svg(counts.by_ply(), game=counts["game"]).encode())
    click.echo(json.dumps(counts, indent=2) if as_json else stats_text(counts))
    if svg_path is not None and not options.quiet:
        click.echo(f"chart of the outcomes by ply written to {svg_path}", err=True)


STATS_SEARCH_SECONDS = 2.0
"""``solve stats`` of a game answered by search, with no book and no ``--budget``: the seconds the root's search is
given (a small board's root is found in that time; Connect Four's takes minutes without a book, and is then not waited for)."""


def searched_stats(table: Table, options: TableOptions, as_json: bool) -> None:
    """``solve stats`` of a game answered by search: the root's answer, searched (read from the book when there is one;
    within ``--budget``, or :data:`STATS_SEARCH_SECONDS` when neither is given, then said to need more), and why the
    counts by ply need the full table."""
    game = table.game
    why = (
        f"{game.name} is answered by search, position by position: the counts of each ply need the full table of every "
        f"position, which is beyond this machine (solve build --game {game.name} builds the opening book, which holds the "
        f"scores of the first plies, not their counts)"
    )
    root, unsolved = _searched_root(table, options)
    if as_json:
        answer = {"game": game.name, "searched": True, "root": None if root is None else root.to_dict(), "counts": why}
        click.echo(json.dumps(answer if unsolved is None else {**answer, "root_not_found": unsolved}, indent=2))
        return
    if root is None:
        click.echo(f"The empty {game.name} board: {unsolved}.")
    else:
        click.echo(f"The empty board: {status_line(root)}")
        click.echo(f"Best first moves (columns): {', '.join(map(str, root.best_columns))}")
    click.echo(f"No counts by ply: {why}.")


def _searched_root(table: Table, options: TableOptions) -> tuple[Position | None, str | None]:
    """The empty board's position, searched, or None and why not: with no book and no ``--budget``, a search that
    passes :data:`STATS_SEARCH_SECONDS` is stopped and said to need a budget or the book (a given ``--budget``
    that runs out is an error, as in ``solve lookup``)."""
    booked = isinstance(table, SearchTable) and table.has_book
    if booked or options.budget is not None:
        return table.at(0), None
    try:
        return table.bounded(STATS_SEARCH_SECONDS).at(0), None
    except SearchTimeout as stopped:
        game = table.game.name
        return None, (
            f"its search was stopped after {STATS_SEARCH_SECONDS:g} s ({stopped.nodes:,} positions searched): with no book to read it from it takes longer "
            f"(Connect Four's: minutes here); give it time with solve stats --game {game} --budget SECONDS, or build the book with solve build --game {game}"
        )


def _check_writable(path: Path, what: str) -> None:
    """Refuse an output file whose directory is missing or read-only before any work (no directory is made for it)."""
    directory = path.parent
    if not directory.is_dir() or not os.access(directory, os.W_OK | os.X_OK):
        raise SolverError(f"cannot write {what} to {path}: {directory} is not a directory this user can write to")


# -- lookup ---------------------------------------------------------------------
@main.command(cls=_ArgsCommand)
@click.argument("board", required=False)
@_game_option
@_budget_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--moves",
    "move_string",
    default=None,
    metavar="COLUMNS",
    help="Instead of BOARD, the position after these moves as Connect Four players write them: "
    "columns numbered from 1, no separator (--game connect4 --moves 4453).",
)
@click.option(
    "--table",
    "source",
    default=None,
    metavar="PATH|URL",
    help="Read this table file, or the table at this http(s) URL block by block (each block fetched on first use, checked, cached).",
)
@click.option("--checksum", default=None, metavar="SHA256", help="With --table URL: the table's checksum, for a game without a shipped one.")
def lookup(board: str | None, options: TableOptions, as_json: bool, move_string: str | None, source: str | None, checksum: str | None) -> None:
    """Solve BOARD: result, plies to the end, best moves, and every move's outcome.

    BOARD is e.g. "X.O/.X./..O" (rows separated by '/'), "X O X / . X . / . . O"
    (cells spaced out), "---/-x-/---" (a leading '-' is fine) or a base-3 code.
    Connect Four (--game connect4) is answered by search: --moves 4453 gives the
    position as its players write it, --budget SECONDS bounds the search.
    """
    if (board is None) == (move_string is None):
        raise click.UsageError("give BOARD or --moves COLUMNS, one of them")
    if move_string is not None:
        code = move_string_code(move_string, options.game)
        table = options.table()
    elif source is None:
        _, code = _board.parse_text(board or "", options.game)  # ASCII digits are a code, as over HTTP; read before a table is built
        table = options.table()
    else:
        table = _table_at(source, options, checksum)  # the table names the game when --game does not
        _, code = _board.parse_text(board or "", table.game)
    position = table.at(code)
    if as_json:
        click.echo(json.dumps(position.to_dict(), indent=2))
        return
    click.echo(describe_position(position))


def _table_at(source: str, options: TableOptions, checksum: str | None) -> Table:
    """The table of ``--table``: a URL read block by block, or a file (of --game when given, else of the game it holds)."""
    game = options.game if options.game_given else None
    if is_url(source):
        return options.tablebase.open_url(source, game=game, checksum=checksum)
    if checksum is not None:
        raise click.UsageError("--checksum goes with --table URL: a file's checksum is checked against the shipped one, or proved")
    return options.tablebase.open_file(Path(source), game=game)


def describe_position(position: Position) -> str:
    """The board beside a grid of move outcomes, then the verdict in words (under gravity: the board with
    the outcome of dropping a piece above each column, :func:`describe_drops`)."""
    game = position.game
    if game.rules.move.form == "column":
        return describe_drops(position)
    labels = {move.cell: move.label + ("*" if move.best else "") for move in position.moves}
    width = max([2, *(len(label) for label in labels.values())])
    heading = "moves" if not position.is_over else ""
    left = _board.draw(game, position.code)
    column = max(len("board"), *(len(row) for row in left))  # a board narrower than its heading (1x1, 2x2) keeps the heading apart
    lines = [f"{'board'.ljust(column)}    {heading}".rstrip()]
    right = _board.draw(game, position.code, marks=labels, width=width) if labels else [""] * game.rows
    lines += [f"{board.ljust(column)}    {moves}".rstrip() for board, moves in zip(left, right, strict=True)]
    lines += ["", status_line(position)]
    if not position.is_over:
        best = ", ".join(f"({r},{c})" for r, c in position.best_moves)
        lines.append(f"Best moves (row,col): {best}")
        lines.append("Moves: W<n> win, D draw, L<n> loss in n plies for the mover; * marks the best.")
    lines.append(f"code {position.code} ({game.name})")
    return "\n".join(lines)


def describe_drops(position: Position) -> str:
    """``solve lookup`` under gravity: above each column the outcome of dropping a piece there (nothing
    for a full column), the board, the column numbers, then the verdict and the best columns."""
    game = position.game
    labels = {move.col: move.label + ("*" if move.best else "") for move in position.moves}
    lines = [*column_board(position, labels), "", status_line(position)]
    if not position.is_over:
        lines.append(f"Best moves (columns): {', '.join(map(str, position.best_columns))}")
        lines.append("Above each column, dropping a piece there: W<n> win, D draw, L<n> loss in n plies for the mover; * marks the best.")
    lines.append(f"code {position.code} ({game.name})")
    return "\n".join(lines)


# -- play -----------------------------------------------------------------------
@main.command()
@_game_option
@_budget_option
@click.option(
    "--as",
    "human",
    type=click.Choice(["X", "O"], case_sensitive=False),
    metavar="[X|O]",
    default="X",
    show_default=True,
    help="Your side (X moves first).",
)
@click.option("--seed", type=int, default=None, help="Seed for the computer's choice among equally good moves.")
def play(options: TableOptions, human: str, seed: int | None) -> None:
    """Play against the perfect player in the terminal.

    At the end: the result, how your moves compare with perfect play (the
    verdicts of solve analyze) and the command that replays the game. Ctrl-D
    leaves the game; Ctrl-C too, with exit status 130.
    """
    human = human.upper()
    table = options.table()
    game = table.game
    if game.rules.move.form == "column":
        click.echo(f"You are {human}. Enter a column 0-{game.cols - 1}: your piece drops to its lowest empty cell.")
    else:
        click.echo(f"You are {human}. Enter a move as row,col (e.g. 1,1) or a cell number 0-{game.cells - 1}.")
    try:
        cells = _play_game(table, human, random.Random(seed))
    except (KeyboardInterrupt, click.Abort):
        click.echo("\nGoodbye: the game is left unfinished (Ctrl-C).")
        raise SystemExit(130) from None
    if cells is None:
        click.echo("\nEnd of input: the game is left unfinished.")
        return
    click.echo(describe_played(_analyze([game.coords(cell) for cell in cells], table=table), human))


def _play_game(table: Table, human: str, rng: random.Random) -> list[int] | None:
    """The moves of a game played to its end at the terminal (flat cells), or None if the input ended first."""
    position, cells = table.at(0), []
    while not position.is_over:
        click.echo(_grid(position))
        if position.to_move == human:
            cell = _ask_move(position)
            if cell is None:
                return None
        else:
            cell = rng.choice(position.best_cells)
            click.echo(f"I play {move_words(table.game, cell)}.")
        cells.append(cell)
        position = table.at(move_code(position, cell))
    click.echo(_grid(position))
    return cells


def describe_played(analysis: GameAnalysis, human: str) -> str:
    """The end of ``solve play``: who won in how many plies, the verdicts of the human's moves
    (the first mistake or blunder with the best moves there), and the ``solve analyze`` command that replays it."""
    final, plies = analysis.final, len(analysis.plies)
    if final.winner is None:
        lines = [f"Draw, after {count(plies, 'ply')}."]
    else:
        lines = [f"You win ({human}) in {count(plies, 'ply')}!" if final.winner == human else f"I win ({final.winner}) in {count(plies, 'ply')}."]
    mine = analysis.summary(cast("Any", human))
    verdicts = f"{mine.best} best, {mine.ok} ok, {count(mine.mistakes, 'mistake')}, {count(mine.blunders, 'blunder')}"
    lines.append(f"Your {count(mine.moves, 'move')}: {verdicts}.")
    slip = next((ply for ply in analysis.plies if ply.player == human and ply.verdict in ("mistake", "blunder")), None)
    if slip is not None:
        before, after = outcome_label(slip.result_before, slip.plies_before), outcome_label(slip.result_after, slip.plies_after)
        best = _best_text(slip)
        if analysis.game.rules.move.form == "column" and best != "any":
            best = f"column{'s' if ' ' in best else ''} {best}"
        lines.append(f"The first {slip.verdict}: ply {slip.ply}, {move_words(analysis.game, slip.cell)} ({before} -> {after}); best was {best}.")
    game = "" if analysis.game == parse_game(None) else f" --game {analysis.game.name}"
    moves = analysis.columns if analysis.game.rules.move.form == "column" else analysis.cells
    lines.append(f"Replay it ply by ply: solve analyze {' '.join(map(str, moves))}{game}")
    return "\n".join(lines)


def _ask_move(position: Position) -> int | None:
    """Prompt until the human gives a legal move; its cell, or None at the end of input.

    The end of input (Ctrl-D, or a script's last line read) is a way to leave, not an
    error; Ctrl-C raises :class:`click.Abort` (``solve play`` says goodbye).
    """
    while True:
        try:
            text = click.prompt("your move", prompt_suffix="> ")
        except click.Abort as abort:
            if isinstance(abort.__context__, EOFError):  # click.prompt raises Abort from EOFError and KeyboardInterrupt alike
                return None
            raise
        try:
            return position.cell_of(text)  # any move solver.encoding.moves reads: 4, 1,1, (1,1), [1, 1]; under gravity a column
        except InvalidBoardError as error:
            click.echo(f"  {error}")


# -- build and verify -----------------------------------------------------------
@main.command()
@_game_option
@click.option(
    "--output", "-o", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Where to write the table (default: the table directory, <game>.ttt)."
)
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Worker processes for games of more than 16 cells (default: every core).")
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    default=None,
    help="Build a game of more than 16 cells on a Dask cluster (tcp://HOST:8786; default: $SOLVED_TICTACTOE_SCHEDULER if set). Needs the cluster extra.",
)
@click.option("--yes", "-y", is_flag=True, help="Start a build estimated at more than ten minutes without asking (off a terminal it is refused without --yes).")
@click.option(
    "--force",
    is_flag=True,
    help="Build even when the output already holds the game's table, whole; replace it even when it is not a table of this game (whatever it holds is lost).",
)
@click.option("--depth", type=click.IntRange(min=0), default=None, help="Connect Four: the opening book's depth in plies (default: the shipped book's).")
def build(options: TableOptions, output: Path | None, jobs: int | None, scheduler: str | None, yes: bool, force: bool, depth: int | None) -> None:
    """Solve a game and write its table file (atomically, deterministically).

    A build estimated at more than ten minutes shows the estimate (time on this
    machine's cores, disk, memory) and asks first; off a terminal it needs --yes.
    Any other starts with a line giving the estimate; its progress is a bar on a
    terminal, else a line a minute. Games of more than 16 cells are built layer
    by layer in <output>.build: after Ctrl-C or a crash, run the same command again
    and it resumes. An output that already holds the game's table, whole, is kept
    (one line says so); --force builds it again. An output that exists and is not a
    table of the game (a file of yours, a table of another game) is refused unless
    --force is given.
    """
    game = options.game
    path = output or options.tablebase.table_dir(options.table_dir) / f"{game.name}.ttt"
    started = time.perf_counter()
    if book_game(game):
        _build_book(options, path, depth=depth, jobs=jobs, scheduler=scheduler, yes=yes, force=force)
        return
    if depth is not None:
        raise click.UsageError(f"--depth is the depth of Connect Four's opening book; {game.name} has a table")
    if kind_for(game) == "compact":
        scheduler = cluster_scheduler(scheduler)  # a malformed address is refused before anything is built
    elif scheduler or jobs:
        raise click.UsageError(f"--jobs and --scheduler are for games with compact tables (more than {DENSE_MAX_CELLS} cells); {game.name} builds in seconds")
    refuse_beyond_machine(game, path)  # past this machine's memory, disk or rules' words (Connect Four): refused at once, with the estimate
    if not force:
        refuse_replacing(game, path)  # before the estimate is shown or asked about
        if _there_already(options.tablebase, game, path, quiet=options.quiet):
            return
    _check_long_build(game, path, jobs=jobs, yes=yes, quiet=options.quiet)
    options.tablebase.build(game, path, on_build=options.progress, jobs=jobs, scheduler=scheduler, notify=options.notify, force=force)
    if not options.quiet:
        size = path.stat().st_size
        click.echo(f"Wrote {path} ({size:,} bytes) in {time.perf_counter() - started:.2f} s", err=True)


def _build_book(options: TableOptions, path: Path, *, depth: int | None, jobs: int | None, scheduler: str | None, yes: bool, force: bool) -> None:
    """``solve build`` of a game answered by the engine: its opening book (:mod:`solver.store.book`), the estimate first."""
    game = options.game
    scheduler = cluster_scheduler(scheduler)  # a malformed address is refused before anything is built
    if not force:
        refuse_replacing(game, path)
        if _book_there_already(game, path, depth, quiet=options.quiet):
            return
    cost = estimate_book(game, path, depth=depth, jobs=jobs)
    if (
        not yes
        and cost.is_long
        and not _confirm_build(cost, f"Building the {game.name} opening book (depth {depth if depth is not None else default_depth(game)})")
    ):
        raise BuildNeedsConsent(
            f"building the {game.name} opening book takes {cost.describe()}; it is not started unasked: run the same command with --yes", cost
        )
    with _resume_book_hint(game, path), _book_meter(game, quiet=options.quiet) as advance:
        figures = build_book(game, path, depth=depth, jobs=jobs, scheduler=scheduler, progress=advance, notify=options.notify)
    if not options.quiet:
        click.echo(f"Wrote {path}: {describe_book(figures)} (sha256 {figures.checksum})", err=True)


def _book_there_already(game: Game, path: Path, depth: int | None, *, quiet: bool) -> bool:
    """Whether ``path`` holds ``game``'s book, whole (every block and entry checked, as every use opens it), of the
    depth asked for (any, when ``--depth`` is not given). Said in one line on stdout; a book there that does not
    verify, or of another depth, is said on stderr and built again."""
    if not path.is_file():
        return False
    try:
        book = open_book(path, game)
    except TableError as error:
        if not quiet:
            click.echo(f"{path} does not verify ({one_line(error)}); building it again", err=True)
        return False
    if depth is not None and book.depth != depth:
        if not quiet:
            click.echo(f"{path} holds the {game.name} book to depth {book.depth}; building the one to depth {depth} in its place", err=True)
        return False
    click.echo(
        f"{path}: the {game.name} book (depth {book.depth}) is there already and every block and entry checks "
        f"(sha256 {book.checksum}); nothing built (--force builds it again)"
    )
    return True


@contextmanager
def _resume_book_hint(game: Game, path: Path) -> Iterator[None]:
    try:
        yield
    except KeyboardInterrupt:
        click.echo(
            f"solve: the {game.name} book build was interrupted (Ctrl-C); the chunks it finished are kept in {path}.build: "
            "run the same command again to resume",
            err=True,
        )
        raise SystemExit(130) from None


@contextmanager
def _book_meter(game: Game, *, quiet: bool) -> Iterator[Callable[[int, int], None]]:
    """The book build's progress: a bar on a terminal, else a line a minute (:data:`PROGRESS_LINE_SECONDS`)."""
    state: dict[str, Any] = {"bar": None, "shown": 0.0, "done": 0}
    start = time.monotonic()

    def advance(done: int, chunks: int) -> None:
        if quiet:
            return
        if sys.stderr.isatty():
            if state["bar"] is None:
                state["bar"] = click.progressbar(length=chunks, label=f"{game.name} book", file=sys.stderr).__enter__()
            state["bar"].update(done - state["done"])
        elif time.monotonic() - state["shown"] >= PROGRESS_LINE_SECONDS or done == chunks:
            state["shown"] = time.monotonic()
            click.echo(
                f"{game.name} book: {done:,} of {chunks:,} chunks searched ({100 * done / max(chunks, 1):.1f}%), "
                f"{format_duration(time.monotonic() - start)} so far",
                err=True,
            )
        state["done"] = done

    try:
        yield advance
    finally:
        if state["bar"] is not None:
            state["bar"].__exit__(None, None, None)


@main.command()
@_game_option
@click.option(
    "--table", "path", type=click.Path(dir_okay=False, path_type=Path), default=None, help="The table file to check (default: the one 'solve' uses for --game)."
)
@click.option(
    "--sample",
    "boards",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Instead of the proof, check a seeded sample of N boards in play per layer against their children (minutes, not hours; not a proof).",
)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="The seed of --sample's sample.")
@click.option(
    "--reference",
    type=click.IntRange(min=0),
    default=DEFAULT_REFERENCE,
    show_default=True,
    help=f"With --sample: boards per layer (with at most {MAX_EMPTY} empty cells) also solved by an independent minimax.",
)
@click.option("--all", "every", is_flag=True, help="Connect Four's book: re-derive every entry of its deepest ply by search (the time of a build).")
def verify(options: TableOptions, path: Path | None, boards: int | None, seed: int, reference: int, every: bool) -> None:
    """Prove everything a table file says: its header, every block, every score, the counts it keeps.

    One line per part on stdout as it is done (what was checked), each problem on stderr
    with the place in the file, then the verdict. A proved table of a game without a shipped
    checksum is trusted from then on. Also removes the temporary files that dead builders left beside it.
    With --sample N, check a seeded sample of every layer instead: one line per layer, then the verdict (a sample is not a proof: nothing is trusted for it).
    """
    path = path or options.tablebase.path_of(options.game, table_dir=options.table_dir)
    if book_game(options.game):
        _verify_book(path, options.game, boards, seed, every, quiet=options.quiet)
        return
    remove_dead_temporaries(path.parent)
    table = options.tablebase.open_file(path, game=options.game if options.game_given else None, verify=False, prove_untrusted=False)
    if boards is not None:
        _verify_sample(table, path, boards, seed, reference, quiet=options.quiet)
        return

    def show(check: Check) -> None:
        _echo_under_bar(f"{path}: {check.what}{': FAILED' if check.problems else ''}")
        for problem in check.problems:
            click.echo(_about(path, problem), err=True)

    if not options.quiet:
        seconds = proof_seconds(table.game, table.kind)
        click.echo(f"Proving {path} ({table.game.name}): every block and every score; about {format_duration(seconds)} on 1 core", err=True)
    with _meter(f"proving {table.game.name}", proof_work(table), quiet=options.quiet) as advance:
        problems = [problem for check in proof(table, on_check=show, progress=advance) for problem in check.problems]
    if problems:
        click.echo(f"{path}: FAILED ({table.game.name}): {count(len(problems), 'problem')}", err=True)
        raise SystemExit(1)
    options.tablebase.record_proof(table)  # proved: trusted from now on when no checksum ships for it
    click.echo(f"{path}: OK ({table.game.name}, sha256 {table.sha256})")


def _verify_book(path: Path, game: Game, boards: int | None, seed: int, every: bool, *, quiet: bool) -> None:
    """``solve verify`` of an opening book: what it checks and how long it should take on stderr (unless ``quiet``),
    then every byte, the derivation of every shallower ply, and the deepest ply's entries re-derived by search (a
    seeded sample, or all with --all): a line per entry searched, then the verdict."""
    sample = None if every else (boards or DEFAULT_BOOK_SAMPLE)
    searched = _announce_book_check(path, game, sample, quiet=quiet)
    with _meter(f"verifying the {game.name} book", searched, quiet=quiet) as advance:

        def show(key: int, stored: int, found: int, seconds: float) -> None:
            _echo_under_bar(f"{path}: key {key:#x}: {stored} in the book, {found} by search ({seconds:.2f} s){'' if stored == found else ': FAILED'}")
            advance(1)

        check = verify_book(path, game, sample=sample, seed=seed, on_entry=show)
    what = (
        f"{game.name} book, depth {check.depth}: every block, {check.derived:,} entries against their children, "
        f"{check.searched:,} re-derived by search, {check.seconds:.1f} s"
    )
    if check.problems:
        for problem in check.problems:
            click.echo(problem, err=True)
        click.echo(f"{path}: FAILED ({what}): {count(len(check.problems), 'problem')}", err=True)
        raise SystemExit(1)
    click.echo(f"{path}: OK ({what}; sha256 {check.checksum})")


def _announce_book_check(path: Path, game: Game, sample: int | None, *, quiet: bool) -> int:
    """Say what ``solve verify`` of a book checks and about how long it takes (:func:`solver.api.verify_plan`: its
    header read, nothing else yet); the entries it will search. A header that cannot be read is left to the check to refuse."""
    plan = verify_plan(path, game, sample)
    if plan is None:
        return 0
    if not quiet:
        click.echo(
            f"Verifying {path} ({game.name} book, depth {plan.depth}, {plan.positions:,} positions): every block, every entry of plies 0 to "
            f"{plan.depth - 1} against its children, and {plan.searched:,} of the {plan.deepest:,} entries of ply {plan.depth} searched again; "
            f"about {format_duration(plan.seconds)} on 1 core",
            err=True,
        )
    return plan.searched


def _about(path: Path, problem: str) -> str:
    """``<path>: <problem>``, with the path once: a problem found in the file's blocks names it already."""
    return problem if problem.startswith(f"{path}: ") else f"{path}: {problem}"


def _verify_sample(table: Table, path: Path, boards: int, seed: int, reference: int, *, quiet: bool) -> None:
    """``solve verify --sample``: what it checks and how long it should take on stderr (unless ``quiet``),
    a line per layer on stdout, a line per problem on stderr, then the verdict."""
    game = table.game
    if not quiet:
        seconds = sample_seconds(game, boards=boards, reference=reference, max_empty=MAX_EMPTY)
        solved = f", {min(reference, boards):,} of them in each layer with at most {MAX_EMPTY} empty cells also by the reference minimax" if reference else ""
        what = f"up to {count(boards, 'board')} in each of its {game.cells + 1} layers{solved}"
        click.echo(f"Checking a sample of {path} ({game.name}): {what}; about {format_duration(seconds)}", err=True)

    with _meter(f"sampling {game.name}", game.cells + 1, quiet=quiet) as advance:

        def show(layer: LayerCheck) -> None:
            against = f", {layer.reference:,} against the reference minimax" if layer.reference else ""
            _echo_under_bar(f"layer {layer.ply:2d}: {count(layer.boards, 'board')} checked{against}, {layer.seconds:.2f} s")
            advance(1)

        report = check_sample(table, boards=boards, seed=seed, reference=reference, on_layer=show)
    what = f"{table.game.name}, seed {seed}, {count(report.checked, 'board')} in {count(len(report.layers), 'layer')}, {report.seconds:.1f} s"
    if report.problems:
        for problem in report.problems:
            click.echo(_about(path, problem), err=True)
        click.echo(f"{path}: sample FAILED ({what}): {count(len(report.problems), 'problem')}", err=True)
        raise SystemExit(1)
    click.echo(f"{path}: sample OK ({what}); a sample, not a proof: 'solve verify' without --sample proves every board")


# -- fetch ----------------------------------------------------------------------
@main.command()
@_game_option
@click.option(
    "--from",
    "url",
    default=None,
    metavar="URL",
    help=f"The table file's http(s) URL, or a directory's that holds <game>.ttt (default: ${MIRROR_ENV}).",
)
@click.option("--checksum", default=None, metavar="SHA256", help="The table's checksum, for a game without a shipped one (its publisher gives it).")
@click.option("--replace", is_flag=True, help="Replace a different table file of the game already in the table directory (asked on a terminal).")
def fetch(options: TableOptions, url: str | None, checksum: str | None, replace: bool) -> None:
    """Download a table from a mirror, check every block against its checksum, install it.

    Any web server that serves files will do: a static host, a bucket, a release page,
    or another machine's 'solve serve' (its files are under /tables/). An interrupted
    download is resumed by the same command; a mirror that sends wrong bytes is
    refused, naming the block, and nothing is installed. A table already in place is
    checked block by block first: a damaged one is fetched again and replaced once the
    new one has passed. A server that stalls is cut off: the head within 30 s, the body
    at 1,024 bytes a second or more (SOLVED_TICTACTOE_HTTP_HEAD_SECONDS,
    SOLVED_TICTACTOE_HTTP_SPEED_LIMIT and SOLVED_TICTACTOE_HTTP_SPEED_TIME change them).
    """
    ask: bool | Callable[[Path, str], bool] = True if replace else (_ask_replace if _interactive() else False)
    try:
        fetched = fetch_table(options.game, url=url, table_dir=options.table_dir, checksum=checksum, replace=ask, meter=None if options.quiet else _meter)
    except KeyboardInterrupt:
        click.echo("solve: fetch interrupted: what was downloaded is kept; run the same command again to resume", err=True)
        raise SystemExit(130) from None
    if not fetched.installed:
        click.echo(f"{fetched.path}: the {fetched.game.name} table is there already (sha256 {fetched.checksum}); nothing fetched")
        return
    resumed = f", resumed after {fetched.resumed_from:,} bytes" if fetched.resumed_from else ""
    verb, damage = ("Repaired", f"; the file there had failed its check: {one_line(fetched.repaired)}") if fetched.repaired else ("Installed", "")
    click.echo(f"{verb} {fetched.path} ({fetched.size:,} bytes, sha256 {fetched.checksum}, every block checked) from {fetched.url}{resumed}{damage}")


def _ask_replace(path: Path, checksum: str) -> bool:
    shown = f"checksum {checksum}" if checksum else "not a readable table"
    return click.confirm(f"{path} holds another table file ({shown}). Replace it?", default=False, err=True)


@contextmanager
def _meter(label: str, total: int, *, quiet: bool = False) -> Iterator[Callable[[int], None]]:
    """A click progress bar on stderr over ``total`` units (a download's bytes, a check's blocks, a proof's boards,
    a grading's positions); off a terminal, where click would print the label as a line, a line a minute only
    (:class:`_MinuteLines`: a command of seconds prints nothing but its result); nothing if ``quiet``."""
    if quiet:
        yield lambda units: None
        return
    if not sys.stderr.isatty():
        yield _MinuteLines(label, total)
        return
    with click.progressbar(length=total, label=label, file=sys.stderr) as bar:
        yield bar.update


def _echo_under_bar(line: str) -> None:
    """A line on stdout while a :func:`_meter` bar may be drawn on the same terminal: the bar's line is cleared
    first (it is drawn again at its next step), so the line does not land after the bar's text."""
    if sys.stderr.isatty() and sys.stdout.isatty():
        click.echo("\r\x1b[K", nl=False, err=True)
    click.echo(line)


class _MinuteLines:
    """Progress off a terminal: ``<label>: 45.0% done, about 2 min left`` on stderr once a minute (:data:`PROGRESS_LINE_SECONDS`)."""

    def __init__(self, label: str, total: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.label, self.total, self.clock = label, total, clock
        self.started = self.shown = clock()
        self.done = 0

    def __call__(self, units: int) -> None:
        self.done += units
        now = self.clock()
        if now - self.shown >= PROGRESS_LINE_SECONDS and self.done:
            self.shown = now
            left = (now - self.started) * max(self.total - self.done, 0) / self.done
            click.echo(f"{self.label}: {percent(self.done, max(self.total, 1))} done, about {format_duration(left)} left", err=True)


# -- analyze and grade ------------------------------------------------------------
# Printing only: the logic is solver.tables.analysis.analyze and solver.grading.grader.grade.


@main.command(cls=_ArgsCommand)
@click.argument("moves", nargs=-1, required=True)
@_game_option
@_budget_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def analyze(moves: tuple[str, ...], options: TableOptions, as_json: bool) -> None:
    """Judge every ply of a game: best, ok, mistake or blunder.

    MOVES is the game so far, one move per ply from the empty board, as flat
    cells (solve analyze 4 0 8), row,col pairs (solve analyze 1,1 0,0 2,2) or
    the (row,col) form solve lookup prints (solve analyze "(1,1)" "(0,0)").
    Under gravity (--game 4x4k4-gravity) a move is a column, numbered from 0 at
    the left (solve analyze --game 4x4k4-gravity 0 1 1 2), or a whole game is
    the move string Connect Four players write, columns from 1 (solve analyze
    --game connect4 4453: two or more digits, so never a single column).
    """
    analysis = _analyze(moves, table=options.table())
    if as_json:
        click.echo(json.dumps(analysis.to_dict(), indent=2))
        return
    click.echo(describe_analysis(analysis))


@main.command()
@click.argument("player", metavar="FILE.py:FUNCTION")
@_game_option
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
    """``run(progress=...)`` under a progress meter on stderr (:func:`_meter`), started at the first answer, after the
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
            advance.append(shown.enter_context(_meter(label, planned)))
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


# -- serve ----------------------------------------------------------------------
# The HTTP API and the web page are solver.web (the [web] extra), imported only here.


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (127.0.0.1: this machine only).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port to listen on (0 picks a free one).")
@click.option(
    "--game",
    "-g",
    "games",
    multiple=True,
    metavar="GAME",
    help="Also serve this game, building its table first if needed (repeatable); the first is the page's default.",
)
@click.option("--table-dir", type=click.Path(file_okay=False, path_type=Path), default=None, help=TABLE_DIR_HELP)
@click.option("--quiet", "-q", is_flag=True, help="No notice or progress bar when a table is built.")
@click.option(
    "--workers",
    "-w",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="Processes answering on the port (one per core; they share the tables held in memory).",
)
@click.option(
    "--connections-per-address",
    "per_address",
    type=click.IntRange(0, None),
    default=64,  # solver.web.MAX_PER_ADDRESS (not imported here: the web extra may be missing)
    show_default=True,
    metavar="N",
    help="Connections one client address may hold open at once, per worker (an idle one of its own is closed "
    "to make room, else 503); 0 for no such cap, e.g. behind a reverse proxy, where every client has the proxy's address.",
)
@click.option(
    "--search-budget",
    type=click.FloatRange(min=0, min_open=True),
    callback=lambda ctx, param, value: _finite_seconds(param, value),
    default=5.0,  # solver.web.SEARCH_BUDGET
    show_default=True,
    metavar="SECONDS",
    help="For a game answered by search (--game connect4): the seconds one request's search may take (503 beyond, saying so).",
)
def serve(host: str, port: int, games: tuple[str, ...], table_dir: Path | None, quiet: bool, workers: int, per_address: int, search_budget: float) -> None:
    """Serve the tables over HTTP: a JSON API under /api/v1 and a web page at /.

    Serves tic-tac-toe, every table already in the table directory, and each
    --game (built before the server starts listening). A request never starts a
    build. Ctrl-C (or SIGTERM) stops the server. The open-file limit is raised to
    its hard limit; when that leaves room for fewer connections than the server
    would hold, it says so once at start-up.
    """
    try:
        from . import web
    except ImportError as error:
        from .extras import install_command

        click.echo(f"solve: error: solve serve needs the web extra ({error.name or error} is missing): install it with {install_command('web')}", err=True)
        raise SystemExit(1) from None
    tablebase = _tablebase()
    wanted = [TableOptions(parse_game(name), table_dir, quiet, tablebase=tablebase).table() for name in games]  # builds happen here
    for table in wanted:
        web.prepare_to_serve(table)  # every block checked before the server listens, and no look-up left on a memory map
    names = dict.fromkeys([table.game for table in wanted] + [parse_game(None)])
    tables = wanted + web.open_tables([game for game in names if game not in {t.game for t in wanted}], table_dir=table_dir, tablebase=tablebase)
    for game in web.discover_games(table_dir, tablebase=tablebase):
        if game not in names:
            try:
                tables += web.open_tables([game], table_dir=table_dir, tablebase=tablebase)
            except TableError as error:
                click.echo(f"solve: warning: not serving {game.name}: {one_line(error)}", err=True)
            names[game] = None
    try:
        sock = web.bind(host, port)
    except OSError as error:
        click.echo(f"solve: error: cannot listen on {host}:{port}: {error.strerror or error}", err=True)
        raise SystemExit(1) from None
    bound_host, bound_port = sock.getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    click.echo(
        f"Serving {', '.join(t.game.name for t in tables)} at http://{shown}:{bound_port}/ "
        "(API under /api/v1, OpenAPI at /api/v1/openapi.json, table files at /tables/). Ctrl-C stops."
    )
    if not quiet and bound_host not in ("127.0.0.1", "::1", "localhost"):
        click.echo(f"solve: warning: listening on {bound_host}: other machines can reach this server", err=True)
    if workers > 1 and not hasattr(os, "fork"):
        click.echo("solve: error: --workers needs a system with fork (Linux, macOS)", err=True)
        raise SystemExit(1)
    try:
        web.serve(tables, sock=sock, table_dir=table_dir, workers=workers, max_per_address=per_address, search_budget=search_budget)
    except web.WorkerError as error:
        click.echo(f"solve: error: {error}", err=True)
        raise SystemExit(1) from None
    if not quiet:
        click.echo("Stopped.", err=True)


if __name__ == "__main__":  # pragma: no cover
    main()
