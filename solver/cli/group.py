"""The ``solve`` command group and its error handling: the package's errors become one line on stderr and a
non-zero exit status (2 for a bad board or game, 1 for a broken table, a search past its budget or a failed
verification), Ctrl-C one line and exit status 130, warnings one line each; a command class whose BOARD or MOVES may
start with '-'."""

from __future__ import annotations

import importlib
import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from ..errors import InvalidBoardError, InvalidGameError, PlayerError, SearchInterrupted, SearchTimeout, SolverError, TableError, one_line


class SolveGroup(click.Group):
    """A click group that turns the package's errors into one line on stderr, and imports a command's module when the
    command is first asked for (:attr:`lazy_commands`): ``solve lookup`` loads no other command's module, nor what that
    module imports."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands: dict[str, str] = {}
        """The commands not imported yet, by name: the module that adds each to this group when imported
        (:mod:`solver.cli` names them)."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = self.lazy_commands.get(cmd_name)
        if module is not None and cmd_name not in self.commands:
            importlib.import_module(module)  # its @main.command adds the command to this group
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy_commands})

    def invoke(self, ctx: click.Context) -> Any:
        try:
            with warnings.catch_warnings(), _ctrl_c_exits_130(ctx):
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


INTERRUPTED_STATUS = 130
"""The exit status of a command stopped by Ctrl-C, in every command: 128 + SIGINT, as a shell reports it."""


@contextmanager
def _ctrl_c_exits_130(ctx: click.Context) -> Iterator[None]:
    """Ctrl-C anywhere in a command that does not say more itself (a build, a fetch, a grading and a game do): one
    line on stderr, exit status :data:`INTERRUPTED_STATUS`, no "Aborted!". A search stopped by it says how long it
    ran (:class:`~solver.errors.SearchInterrupted`); a search stopped by its budget is an error (status 1)."""
    try:
        yield
    except SearchTimeout:
        raise
    except SearchInterrupted as stopped:
        click.echo(f"solve: {one_line(stopped)}", err=True)  # "the search of ... stopped at Ctrl-C after ..."
        ctx.exit(INTERRUPTED_STATUS)
    except KeyboardInterrupt:
        click.echo("solve: interrupted (Ctrl-C)", err=True)
        ctx.exit(INTERRUPTED_STATUS)
    except click.Abort as abort:  # a prompt's Ctrl-C (click raises Abort from it, as from end of input)
        if not isinstance(abort.__context__, KeyboardInterrupt):
            raise
        click.echo("solve: interrupted (Ctrl-C)", err=True)
        ctx.exit(INTERRUPTED_STATUS)


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


class ArgsCommand(click.Command):
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


@click.group(cls=SolveGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="solved-tictactoe")
def main() -> None:
    """Exact answers for tic-tac-toe, m,n,k games up to 25 cells, and gravity games (Connect Four's family): tables up
    to 39 cells (4x8 ships; 6x6 and 5x7 are built), Connect Four and larger boards by search.

    Boards are written one character per cell, rows separated by '/':
    X, O, and '.', '-', '_' or space for empty (e.g. "X.O/.X./..O"), or given
    as their base-3 code.
    """
