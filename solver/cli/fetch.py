"""``solve fetch``: a table downloaded from a mirror, checked block by block, installed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from ..api import MIRROR_ENV, fetch_table
from ..errors import one_line
from .group import main
from .options import TableOptions, game_option, interactive
from .progress import meter


@main.command()
@game_option
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
    ask: bool | Callable[[Path, str], bool] = True if replace else (_ask_replace if interactive() else False)
    try:
        fetched = fetch_table(options.game, url=url, table_dir=options.table_dir, checksum=checksum, replace=ask, meter=None if options.quiet else meter)
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
