"""The options every command shares (``--game``, ``--table-dir``, ``--quiet``, ``--budget``) and how they open a
table through a :class:`~solver.api.Tablebase`: the first-use build's notice and question, the search's status line."""

from __future__ import annotations

import functools
import math
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..api import (
    BuildEstimate,
    Game,
    Table,
    Tablebase,
    default_tablebase,
    estimate,
    format_duration,
    parse_game,
    rebuild_command,
    search_compiled,
)
from ..words import count
from .group import BUDGET_KEY, BuildDeclined
from .progress import progress_bar

if TYPE_CHECKING:
    from ..api import BuildProgress

TABLE_DIR_HELP = (
    "Where built tables are kept (default: $SOLVED_TICTACTOE_DIR if set, else the user data directory, "
    "~/.local/share/solved-tictactoe on Linux; tables left in the old default, ~/.config/solved-tictactoe, are still used)."
)


def game_option(function: Callable[..., Any]) -> Callable[..., Any]:
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
        options = TableOptions(parse_game(game), table_dir, quiet, game_given=given, tablebase=command_tablebase())
        return function(*args, options=options, **kwargs)

    return wrapper


def command_tablebase() -> Tablebase:
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
        table = self.tablebase.table(
            self.game, table_dir=self.table_dir, on_build=self._notice, consent=self._consent, notify=self.notify, on_load=self._loading_search
        )
        if table.searches:
            shown = not self.quiet and sys.stderr.isatty()  # off a terminal no status line: a log gets the answer or the error
            return table.bounded(self.budget, _SearchBar(table.game, self.budget) if shown else None)
        return table

    def _loading_search(self, game: Game) -> None:
        """Say on a terminal, before a game answered by search loads its engine, that its kernels compile first (once
        after an install); a position the book answers whole loads none, and says nothing."""
        if not self.quiet and sys.stderr.isatty() and not search_compiled():
            click.echo(f"Compiling the search of {game.name}: once after an install (a minute or so); later commands load it at once", err=True)

    def _consent(self, cost: BuildEstimate) -> bool:
        if not interactive():
            return False  # refused with the estimate and the command that builds it
        if confirm_build(cost, f"The {cost.game.name} table is not built yet; building it"):
            return True
        path = self.tablebase.path_of(cost.game, table_dir=self.table_dir)
        raise BuildDeclined(f"the {cost.game.name} table was not built (you answered no); build it later with: {_build_command(cost, path)}")

    @contextmanager
    def progress(self, game: Game, path: Path, work: int) -> Iterator[BuildProgress | None]:
        """A progress bar for an explicit build (``solve build``), no first-use notice."""
        with _resume_hint(game, path), progress_bar(game, work, quiet=self.quiet) as progress:
            yield progress

    @contextmanager
    def _notice(self, game: Game, path: Path, work: int) -> Iterator[BuildProgress | None]:
        if not self.quiet:
            kept = f"it will be kept in {path}" if can_keep(path) else "it is kept in memory (see below)"
            click.echo(f"Building the {game.name} table (first use, {_duration(estimate(game, path))}); {kept}", err=True)
        with _resume_hint(game, path), progress_bar(game, work, quiet=self.quiet) as progress:
            yield progress

    def notify(self, message: str) -> None:
        """Say what a build found (e.g. that it resumes), unless quiet."""
        if not self.quiet:
            click.echo(message, err=True)


class _SearchBar:
    """The engine's progress hook as one status line on stderr, on a terminal only (:meth:`TableOptions.table` hands
    the engine none elsewhere): it appears when a search has run for half a second and says the seconds spent and the
    positions searched, and with ``--budget`` the seconds the budget allows. It gives no time left: a search's length is
    not known before it ends, and the budget's countdown is only when it would be stopped. The line is erased when the
    search ends (:meth:`finished`, which the search table calls), before anything else is printed."""

    def __init__(self, game: Game, budget: float | None) -> None:
        self.game, self.budget = game, budget
        self.width = 0

    def __call__(self, nodes: int, seconds: float) -> None:
        of = "" if self.budget is None else f" of the --budget {self.budget:g} s"
        line = f"searching {self.game.name}: {seconds:.1f} s{of}, {nodes:,} positions"
        click.echo(f"\r{line.ljust(self.width)}", file=sys.stderr, nl=False)
        self.width = max(self.width, len(line))

    def finished(self) -> None:
        """The search ended (answered, stopped or interrupted): the status line is erased, the cursor back at its start."""
        if self.width:
            click.echo(f"\r{' ' * self.width}\r", file=sys.stderr, nl=False)
            self.width = 0


class Seconds(click.ParamType):  # type: ignore[type-arg]  # generic in click's stubs, not at run time
    """Seconds as a finite number above 0: ``nan``, ``inf`` and ``1e309`` (past a float) are refused with the rest."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, float):
            seconds = value
        else:
            try:
                seconds = float(str(value))
            except ValueError:
                self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(seconds) or seconds <= 0:
            self.fail(f"{value!r} is not a number of seconds above 0 (a finite number, e.g. 5 or 0.5)", param, ctx)
        return seconds


def budget_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """``--budget SECONDS``: how long a search may take, for a game answered by search (Connect Four)."""

    @click.option(
        "--budget",
        type=Seconds(),
        default=None,
        metavar="SECONDS",
        help="For a game answered by search (connect4): stop a search after this many seconds (default: no limit; its progress shows on a terminal).",
    )
    @functools.wraps(function)
    def wrapper(*args: Any, options: TableOptions, budget: float | None, **kwargs: Any) -> Any:
        options.budget = budget
        click.get_current_context().meta[BUDGET_KEY] = budget
        return function(*args, options=options, **kwargs)

    return wrapper


def can_keep(path: Path) -> bool:
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


def interactive() -> bool:
    """Whether a person can answer a question: standard input and standard error are terminals."""
    return sys.stdin.isatty() and sys.stderr.isatty()


def confirm_build(cost: BuildEstimate, what: str) -> bool:
    """On a terminal, ``<what> takes <the estimate>. Build it now? [y/N]``: whether the person said yes (off one: False).

    The one question before a long build, asked by a first-use build (``solve lookup``) and by ``solve build``.
    """
    if not interactive():
        return False
    return click.confirm(f"{what} takes {cost.describe()}. Build it now?", default=False, err=True)


def kind_for(game: Game) -> str:
    """The kind of table a build of ``game`` writes (:func:`solver.api.kind_for`), which is the builder's: imported
    when a build is interrupted, so that the commands that build nothing (``solve lookup``) load no builder."""
    from ..api import kind_for

    return kind_for(game)


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
