"""``solve lookup``: one position's result, plies to the end, best moves and every move's outcome."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..api import Position, Table, code_of_text, column_board, draw, move_string_code, status_line
from .group import ArgsCommand, main
from .options import TableOptions, budget_option, game_option


@main.command(cls=ArgsCommand)
@click.argument("board", required=False)
@game_option
@budget_option
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
        code = code_of_text(board or "", options.game, moves="--moves ")  # ASCII digits are a code, as over HTTP; read before a table is built
        table = options.table()
    else:
        table = _table_at(source, options, checksum)  # the table names the game when --game does not
        code = code_of_text(board or "", table.game, moves="--moves ")
    position = table.at(code)
    if as_json:
        click.echo(json.dumps(position.to_dict(), indent=2))
        return
    click.echo(describe_position(position))


def _table_at(source: str, options: TableOptions, checksum: str | None) -> Table:
    """The table of ``--table``: a URL read block by block, or a file (of --game when given, else of the game it holds)."""
    from ..api import is_url  # here: its module (urllib, http.client, ssl) loads only for a --table

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
    if game.rules.move.writes_columns:
        return describe_drops(position)
    labels = {move.cell: move.label + ("*" if move.best else "") for move in position.moves}
    width = max([2, *(len(label) for label in labels.values())])
    heading = "moves" if not position.is_over else ""
    left = draw(game, position.code)
    column = max(len("board"), *(len(row) for row in left))  # a board narrower than its heading (1x1, 2x2) keeps the heading apart
    lines = [f"{'board'.ljust(column)}    {heading}".rstrip()]
    right = draw(game, position.code, marks=labels, width=width) if labels else [""] * game.rows
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
