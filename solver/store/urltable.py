"""Tables at a URL: which URL, which checksum, and the table read from there block by block.

A table is named by the URL of its file (``https://host/tables/5x5k4.ttt``) or of the
directory that holds it (``https://host/tables/``: the game's ``<game>.ttt`` is added), or
by ``$SOLVED_TICTACTOE_MIRROR`` (:data:`MIRROR_ENV`) when no URL is given. The table must
have a checksum: the one the package ships for the game (:mod:`solver.storage.checksums`),
or one given by whoever publishes the table (``checksum=``, ``--checksum``); without
either it is refused before a block is read, because nothing else proves that the bytes
a server sends are a table.

:func:`open_url_table` reads the table where it is (:func:`solver.storage.remote.open_url`):
each block fetched on first touch and checked as a file's block is, fetched blocks kept
in a bounded on-disk cache. :mod:`solver.store.mirror` downloads the whole file instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from ..errors import InvalidArgumentError, TableError, quote
from ..rules.game import Game
from ..storage import remote
from ..storage.tablefile import Header, expected_root
from ..tables import Table, from_file
from . import make as builder

MIRROR_ENV = "SOLVED_TICTACTOE_MIRROR"
"""The URL tables are fetched from when none is given (a directory of ``<game>.ttt`` files, or a file)."""


def table_url(game: Game, url: str | None = None) -> str:
    """The URL of ``game``'s table file: ``url`` (or ``$SOLVED_TICTACTOE_MIRROR``) as is when it names a
    ``.ttt`` file, else with ``<game>.ttt`` added as a file of that directory.

    :raises InvalidArgumentError: if ``url`` is not a str.
    :raises TableError: if no URL is given or set, or it is not an http or https URL (the message names ``url``
        or the variable).
    """
    if url is not None and (url or not isinstance(url, str)):  # "" is no URL: the variable's is used, as for None
        base = remote.check_url(url, name="url")
    else:
        base = os.environ.get(MIRROR_ENV, "")
        if not base:
            raise TableError(f"no URL to fetch the {game.name} table from: give one with --from URL, or set ${MIRROR_ENV} to a mirror's address")
        remote.check_url(base, name=f"${MIRROR_ENV}")
    path = base.split("?", 1)[0].split("#", 1)[0]
    if path.endswith(".ttt"):
        return base
    return base + ("" if base.endswith("/") else "/") + f"{game.name}.ttt"


def expected_checksum(game: Game, kind: str, checksum: str | None) -> str:
    """The checksum ``game``'s table of ``kind`` must have: the shipped one, else ``checksum``.

    :raises TableError: when neither exists, or ``checksum`` is not a SHA-256 in hex or differs from the shipped one.
    """
    check_checksum_type(checksum)
    shipped = expected_root(game, kind)
    given = checksum.strip().lower() if checksum else None
    if given is not None and (len(given) != 64 or any(c not in "0123456789abcdef" for c in given)):
        raise TableError(f"--checksum {checksum[:80] if checksum else ''!r} is not a SHA-256 (64 hexadecimal digits)")
    if shipped is not None and given is not None and given != shipped:
        raise TableError(f"the checksum given for {game.name}, {given}, is not the one the package ships ({shipped}); the shipped one is used: drop --checksum")
    found = shipped or given
    if found is None:
        raise TableError(
            f"no checksum ships for {kind} {game.name} tables, and none was given: a table from a server is used only when its "
            "checksum is known: give the one its publisher gives (--checksum SHA256, checksum=)"
        )
    return found


def check_checksum_type(checksum: object) -> None:
    """Refuse a checksum that is not a str (or None).

    :raises InvalidArgumentError: naming the argument.
    """
    if checksum is not None and not isinstance(checksum, str):
        raise InvalidArgumentError(f"checksum must be a SHA-256 in hexadecimal (a str), not {type(checksum).__name__} {quote(checksum)}")


def expects(game: Game | None, checksum: str | None) -> Callable[[Header], str | None]:
    """What :func:`solver.storage.remote.read_remote_header` asks: the checksum a header's table must have."""

    def expected(header: Header) -> str | None:
        if game is not None and header.game != game:
            return None
        return expected_checksum(header.game, header.kind, checksum)

    return expected


def open_url_table(url: str, *, game: Game | None = None, checksum: str | None = None, cache_bytes: int | None = None) -> Table:
    """The table at ``url``, read block by block over HTTP (see the module docstring).

    :param url: the table file's URL (``http`` or ``https``).
    :param game: the game it must hold (None: the one its header names).
    :param checksum: the table's checksum when none ships for its game.
    :param cache_bytes: the bound of the on-disk cache of fetched blocks (default 1 GiB; 0: no cache).
    :raises TableError: naming the URL: unreachable, not a table of ``game``, no known checksum, or a
        checksum that is not the expected one (nothing is used from it).
    """
    remote.check_url(url, name="url")
    check_checksum_type(checksum)
    cache = None if cache_bytes == 0 else remote.open_cache(cache_bytes)
    opened = remote.open_url(url, game=game, expected=expects(game, checksum), cache=cache)
    return from_file(opened, prove=builder.prove)
