"""``solve build``: a game's table file, or Connect Four's opening book, with the estimate first and a question
before a long build."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from ..api import (
    DENSE_MAX_CELLS,
    Game,
    Table,
    Tablebase,
    book_game,
    build_book,
    cluster_scheduler,
    default_depth,
    describe_book,
    estimate,
    estimate_book,
    kind_for,
    open_book,
    refuse_beyond_machine,
    refuse_replacing,
)
from ..errors import BuildNeedsConsent, TableError, one_line
from .group import BuildDeclined, main
from .options import TableOptions, can_keep, confirm_build, game_option, interactive
from .progress import book_meter, rate_text


@main.command()
@game_option
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
    whole = not path.with_name(path.name + ".build").is_dir()  # not resumed: this run's time is the build's
    table = options.tablebase.build(game, path, on_build=options.progress, jobs=jobs, scheduler=scheduler, notify=options.notify, force=force)
    if not options.quiet:
        seconds = time.perf_counter() - started
        rate = _throughput(table, seconds, None if scheduler or not whole else jobs or os.cpu_count() or 1)
        click.echo(f"Wrote {path} ({path.stat().st_size:,} bytes) in {seconds:.2f} s{rate}", err=True)


def _throughput(table: Table, seconds: float, cores: int | None) -> str:
    """``: 135,...,... positions, 28.3 M a second a core (2 cores)``: the built table's positions (where its file keeps
    their counts) over the build's wall time and the cores of this machine it ran on; no rate for a build resumed or
    run on a cluster (``cores`` None), whose wall time is not its work's."""
    positions = table.kept_position_count()
    if positions is None:
        return ""
    if cores is None:
        return f": {positions:,} positions"
    return f": {positions:,} positions, {rate_text(positions / max(seconds, 1e-9) / cores)} a second a core ({cores} core{'s' * (cores != 1)})"


def _build_book(options: TableOptions, path: Path, *, depth: int | None, jobs: int | None, scheduler: str | None, yes: bool, force: bool) -> None:
    """``solve build`` of a game answered by the engine: its opening book (:mod:`solver.store.book`), the estimate first."""
    game = options.game
    scheduler = cluster_scheduler(scheduler)  # a malformed address is refused before anything is built
    if not force:
        refuse_replacing(game, path)
        if _book_there_already(game, path, depth, quiet=options.quiet):
            return
    if not options.quiet:
        click.echo(_why_no_table(game, path, jobs=jobs), err=True)
    cost = estimate_book(game, path, depth=depth, jobs=jobs)
    if (
        not yes
        and cost.is_long
        and not confirm_build(cost, f"Building the {game.name} opening book (depth {depth if depth is not None else default_depth(game)})")
    ):
        raise BuildNeedsConsent(
            f"building the {game.name} opening book takes {cost.describe()}; it is not started unasked: run the same command with --yes", cost
        )
    with _resume_book_hint(game, path), book_meter(game, quiet=options.quiet) as advance:
        figures = build_book(game, path, depth=depth, jobs=jobs, scheduler=scheduler, progress=advance, notify=options.notify)
    if not options.quiet:
        click.echo(f"Wrote {path}: {describe_book(figures)} (sha256 {figures.checksum})", err=True)


def _why_no_table(game: Game, path: Path, *, jobs: int | None) -> str:
    """Why ``solve build`` of a game answered by the engine builds its book and not its table: what the table would
    take (:func:`solver.store.estimate.estimate`) and what this machine lacks for it."""
    table = estimate(game, path, jobs=jobs)
    lacks = " and ".join(table.beyond(path.parent)) or "too little for it"
    return (
        f"No {game.name} table is built: it would take {table.describe()}, and this machine has {lacks}; "
        f"its opening book is built instead (the search engine answers its positions from it)"
    )


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
        if not quiet and can_keep(path):  # else the builder says at once why it cannot write there
            click.echo(f"{what}{'' if resuming else f' into {path}'}: {cost.describe()}", err=True)
        return
    if not interactive():
        raise BuildNeedsConsent(f"{what[0].lower()}{what[1:]} takes {cost.describe()}; it is not started unasked: run the same command with --yes", cost)
    if not confirm_build(cost, what):
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
