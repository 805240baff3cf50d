"""Tables at a URL: which URL, which checksum, and the table read from there block by block.

A table is named by the URL of its file (``https://host/tables/5x5k4.ttt``) or of the
directory that holds it (``https://host/tables/``: the game's ``<game>.ttt`` is added), or
by ``$SOLVED_TICTACTOE_MIRROR`` (:data:`MIRROR_ENV`) when no URL is given. The table must
have a checksum: the one the package ships for the game (:mod:`solver.storage.checksums`),
or one given by whoever publishes the table (``checksum=``, ``--checksum``); without
either it is refused before a block is read, because nothing else proves that the bytes
a server sends are a table (the trust policy decides: :func:`solver.storage.trust.required_root`).

:func:`open_url_table` reads the table where it is (:func:`solver.storage.remote.open_url`):
each block fetched on first touch and checked as a file's block is, fetched blocks kept
in a bounded on-disk cache. :mod:`solver.store.mirror` downloads the whole file instead.
"""

from __future__ import annotations

import os

from ..contents.opening import fits
from ..errors import TableError
from ..rules.game import Game
from ..storage import trust
from ..tables import Table, from_file

MIRROR_ENV = "SOLVED_TICTACTOE_MIRROR"
"""The URL tables are fetched from when none is given (a directory of ``<game>.ttt`` files, or a file)."""


def table_url(game: Game, url: str | None = None) -> str:
    """The URL of ``game``'s table file: ``url`` (or ``$SOLVED_TICTACTOE_MIRROR``) as is when it names a
    ``.ttt`` file, else with ``<game>.ttt`` added as a file of that directory.

    :raises InvalidArgumentError: if ``url`` is not a str.
    :raises TableError: if no URL is given or set, or it is not an http or https URL (the message names ``url``
        or the variable).
    """
    from ..storage import remote  # here, as in open_url_table: urllib, http.client and ssl load when a URL is used

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


def open_url_table(url: str, *, game: Game | None = None, checksum: str | None = None, cache_bytes: int | None = None) -> Table:
    """The table at ``url``, read block by block over HTTP (see the module docstring).

    :param url: the table file's URL (``http`` or ``https``).
    :param game: the game it must hold (None: the one its header names).
    :param checksum: the table's checksum when none ships for its game.
    :param cache_bytes: the bound of the on-disk cache of fetched blocks (default 1 GiB; 0: no cache).
    :raises TableError: naming the URL: unreachable, not a table of ``game``, no known checksum, or a
        checksum that is not the expected one (nothing is used from it).
    """
    from ..storage import remote  # here: a process that reads no URL loads no urllib, http.client or ssl
    from . import make as builder  # here: the builder's proof, for a table without a shipped checksum

    remote.check_url(url, name="url")
    trust.check_checksum_type(checksum)
    cache = None if cache_bytes == 0 else remote.open_cache(cache_bytes)
    opened = remote.open_url(url, fits, game=game, expected=trust.expects(game, checksum), cache=cache)
    return from_file(opened, prove=builder.prove)
