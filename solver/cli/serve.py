"""``solve serve``: the HTTP API and the web page (``solver.web``, the [web] extra, imported only here)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import click

from ..api import Table, parse_game
from ..errors import TableError, one_line
from .group import main
from .options import TABLE_DIR_HELP, Seconds, TableOptions, command_tablebase


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
    type=Seconds(),  # finite: FloatRange lets nan through (it compares false with every bound)
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
        from .. import web
    except ImportError as error:
        from ..extras import install_command

        click.echo(f"solve: error: solve serve needs the web extra ({error.name or error} is missing): install it with {install_command('web')}", err=True)
        raise SystemExit(1) from None
    tablebase = command_tablebase()
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
    if not quiet:
        _say_unverified(tables, web.verified_at_start)
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


def _say_unverified(tables: list[Table], verified_at_start: Callable[[Table], bool]) -> None:
    """A note on stderr for each table whose blocks are checked as requests first read them, not all at start-up
    (:func:`solver.web.verified_at_start`: a table of hundreds of GB would keep the server from listening for minutes)."""
    for table in tables:
        if not verified_at_start(table):
            click.echo(
                f"solve: note: {table.game.name}'s table ({table.file_boards() or 0:,} boards) is checked block by block as requests first "
                "read it, not all before the server listens (solve verify proves a whole table)",
                err=True,
            )
