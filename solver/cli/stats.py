"""``solve stats``: counts of positions, results, symmetric classes and complete games by ply (the root's answer for
a game answered by search)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from ..api import Position, SearchTable, Table, book_game, estimate, outcomes_svg, stats_text, status_line, write_atomic
from ..errors import SearchTimeout, SolverError
from .group import main
from .options import TableOptions, budget_option, game_option


@main.command()
@game_option
@budget_option
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
    why = _why_no_counts(table, options)
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


def _why_no_counts(table: Table, options: TableOptions) -> str:
    """Why a game answered by search has no counts by ply, and how to get its table where this machine can build one
    (:func:`solver.api.book_game`: a game past it has a book, which holds scores, not counts)."""
    game = table.game
    if book_game(game):
        return (
            f"{game.name} is answered by search, position by position: the counts of each ply need the full table of every "
            f"position, which is beyond this machine (solve build --game {game.name} builds the opening book, which holds the "
            f"scores of the first plies, not their counts)"
        )
    cost = estimate(game, options.tablebase.table_dir(options.table_dir) / f"{game.name}.ttt")
    return (
        f"{game.name}'s table is not here (its positions are searched one by one), and the counts of each ply are read "
        f"from it: solve build --game {game.name} --yes builds it ({cost.describe()}), or solve fetch --game "
        f"{game.name} --from URL fetches it from a mirror"
    )


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
        game, source = table.game.name, "book" if book_game(table.game) else "table"
        return None, (
            f"its search was stopped after {STATS_SEARCH_SECONDS:g} s ({stopped.nodes:,} positions searched): with no {source} to read it from it takes longer "
            f"(Connect Four's: minutes here); give it time with solve stats --game {game} --budget SECONDS, or build its "
            f"{source} with solve build --game {game}"
        )


def _check_writable(path: Path, what: str) -> None:
    """Refuse an output file whose directory is missing or read-only before any work (no directory is made for it)."""
    directory = path.parent
    if not directory.is_dir() or not os.access(directory, os.W_OK | os.X_OK):
        raise SolverError(f"cannot write {what} to {path}: {directory} is not a directory this user can write to")
