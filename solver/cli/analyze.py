"""``solve analyze``: every ply of a game judged (printing only: the logic is :func:`solver.api.analyze`)."""

from __future__ import annotations

import contextlib
import json
import time

import click

from ..api import analysis_text as describe_analysis
from ..api import analyze as _analyze
from ..api import searches_by
from .group import ArgsCommand, main
from .options import TableOptions, budget_option, game_option


@main.command(cls=ArgsCommand)
@click.argument("moves", nargs=-1, required=True)
@game_option
@budget_option
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
    A game answered by search (connect4) is judged from its last ply back;
    --budget SECONDS bounds the whole analysis, and the plies not judged by
    then are named.
    """
    table = options.table()
    with contextlib.nullcontext() if options.budget is None else searches_by(time.monotonic() + options.budget):  # one budget for the analysis
        analysis = _analyze(moves, table=table)
    if as_json:
        click.echo(json.dumps(analysis.to_dict(), indent=2))
        return
    click.echo(describe_analysis(analysis))
