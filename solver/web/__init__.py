"""``solve serve``: the tables over HTTP (a JSON API) and a web page to explore and play.

Needs the ``web`` extra (Starlette and uvicorn: ``pip install '.[web]'`` in the checkout);
``import solver`` never imports this package. :mod:`solver.web.app` holds the routes,
``static/`` the page (HTML, CSS and JavaScript, no build step, nothing fetched from
elsewhere), and :func:`serve` runs the app on uvicorn.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence

from ..tables import Table
from .app import (
    MAX_BATCH,
    MAX_BODY_BYTES,
    MAX_QUERY_BYTES,
    create_app,
    discover_games,
    open_tables,
    table_checksum,
)
from .protocol import HEAD_SECONDS, MAX_HEAD_BYTES, http_protocol

__all__ = ["HEAD_SECONDS", "MAX_BATCH", "MAX_BODY_BYTES", "MAX_HEAD_BYTES", "MAX_QUERY_BYTES", "bind", "create_app", "discover_games", "open_tables",
           "serve", "table_checksum"]


def bind(host: str = "127.0.0.1", port: int = 8000) -> socket.socket:
    """A listening TCP socket on ``host``:``port`` (port 0 picks a free one).

    :raises OSError: if the address is in use or cannot be bound.
    """
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def serve(
    tables: Sequence[Table],
    *,
    sock: socket.socket,
    table_dir: str | os.PathLike[str] | None = None,
    head_seconds: float = HEAD_SECONDS,
) -> None:
    """Serve ``tables`` on a bound socket (:func:`bind`) until SIGINT or SIGTERM; returns after a clean shutdown.

    The socket listens already, so clients may connect as soon as :func:`bind` returns:
    they wait in its backlog until the server accepts them.

    :param head_seconds: how long a request's head may take to arrive (:mod:`solver.web.protocol`).
    """
    import uvicorn

    config = uvicorn.Config(
        create_app(tables, table_dir=table_dir),
        http=http_protocol(head_seconds=head_seconds),
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        log_level="warning",
        access_log=False,
        server_header=False,
        lifespan="off",
        limit_concurrency=1000,  # past this many connections and requests at once, new requests get a 503
        timeout_keep_alive=5,
        timeout_graceful_shutdown=3,
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass  # uvicorn raises Ctrl-C's signal again once its graceful shutdown is done: that is the clean stop
