"""``solve play``: a game against the perfect player at the terminal, judged at its end."""

from __future__ import annotations

import contextlib
import random
import time
from typing import Any, cast

import click

from ..api import GameAnalysis, Replayed, Table, move_words, outcome_label, parse_game, plies_text, searches_by
from ..api import analyze as _analyze
from ..api import best_text as _best_text
from ..api import grid_text as _grid
from ..errors import InvalidBoardError
from ..words import count
from .group import main
from .options import TableOptions, budget_option, game_option


@main.command()
@game_option
@budget_option
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
    if game.rules.move.writes_columns:
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
    review = REVIEW_SECONDS if options.budget is None else options.budget
    with contextlib.nullcontext() if not table.searches else searches_by(time.monotonic() + review):  # the human's positions were not searched
        click.echo(describe_played(_analyze([game.coords(cell) for cell in cells], table=table), human))


REVIEW_SECONDS = 10.0
"""The seconds the closing analysis of ``solve play`` may take for a game answered by search, when no ``--budget`` is
given: the positions where the human moved are searched only then; the plies not judged by then are said to be."""


def _play_game(table: Table, human: str, rng: random.Random) -> list[int] | None:
    """The moves of a game played to its end at the terminal (flat cells), or None if the input ended first. The board
    is replayed by the rules (:class:`Replayed`): only the computer's moves are searched, so the human's first move is
    asked at once."""
    board, cells = Replayed(table.game, 0, 0), []
    while not board.is_over:
        click.echo(_grid(board))
        if board.to_move == human:
            cell = _ask_move(board)
            if cell is None:
                return None
        else:
            cell = rng.choice(table.at(board.code).best_cells)
            click.echo(f"I play {move_words(table.game, cell)}.")
        cells.append(cell)
        board = board.play(cell)
    click.echo(_grid(board))
    return cells


def describe_played(analysis: GameAnalysis, human: str) -> str:
    """The end of ``solve play``: who won in how many plies, the verdicts of the human's moves
    (the first mistake or blunder with the best moves there), and the ``solve analyze`` command that replays it."""
    final, plies = analysis.final, len(analysis.cells)
    if final.winner is None:
        lines = [f"Draw, after {count(plies, 'ply')}."]
    else:
        lines = [f"You win ({human}) in {count(plies, 'ply')}!" if final.winner == human else f"I win ({final.winner}) in {count(plies, 'ply')}."]
    mine = analysis.summary(cast("Any", human))
    verdicts = f"{mine.best} best, {mine.ok} ok, {count(mine.mistakes, 'mistake')}, {count(mine.blunders, 'blunder')}"
    unjudged = [ply.ply for ply in analysis.unjudged if ply.player == human]
    if unjudged:
        verdicts += f"; not judged: your {plies_text(unjudged)} ({analysis.why_unjudged})"
    lines.append(f"Your {count(mine.moves + len(unjudged), 'move')}: {verdicts}.")
    slip = next((ply for ply in analysis.plies if ply.player == human and ply.verdict in ("mistake", "blunder")), None)
    if slip is not None:
        before, after = outcome_label(slip.result_before, slip.plies_before), outcome_label(slip.result_after, slip.plies_after)
        best = _best_text(slip)
        if analysis.game.rules.move.writes_columns and best != "any":
            best = f"column{'s' if ' ' in best else ''} {best}"
        lines.append(f"The first {slip.verdict}: ply {slip.ply}, {move_words(analysis.game, slip.cell)} ({before} -> {after}); best was {best}.")
    game = "" if analysis.game == parse_game(None) else f" --game {analysis.game.name}"
    moves = analysis.columns if analysis.game.rules.move.writes_columns else analysis.cells
    lines.append(f"Replay it ply by ply: solve analyze {' '.join(map(str, moves))}{game}")
    return "\n".join(lines)


def _ask_move(position: Replayed) -> int | None:
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
