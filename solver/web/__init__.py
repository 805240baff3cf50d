"""``solve serve``: the tables over HTTP (a JSON API) and a web page to explore and play.

Needs the ``web`` extra (Starlette and uvicorn: ``pip install '.[web]'`` in the checkout);
``import solver`` never imports this package. :mod:`solver.web.app` holds the routes,
``static/`` the page (HTML, CSS and JavaScript, no build step, nothing fetched from
elsewhere), and :func:`serve` runs the app on uvicorn with the per-connection bounds of
:mod:`solver.web.protocol`, in one process or in several (:mod:`solver.web.workers`).
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
from collections.abc import Sequence

from ..api import Table
from ..errors import WorkerError
from .app import (
    MAX_BATCH,
    MAX_BATCHES,
    MAX_BODY_BYTES,
    MAX_QUERY_BYTES,
    SEARCH_BUDGET,
    VERIFIED_AT_START,
    checked_search_budget,
    create_app,
    discover_games,
    hold,
    open_tables,
    prepare_to_serve,
    table_checksum,
    verified_at_start,
)
from .protocol import (
    BODY_SECONDS,
    HEAD_SECONDS,
    MAX_CONNECTIONS,
    MAX_HEAD_BYTES,
    MAX_PER_ADDRESS,
    WRITE_SECONDS,
    http_protocol,
    open_file_budget,
)
from .workers import supervise

__all__ = [
    "HEAD_SECONDS",
    "MAX_BATCH",
    "MAX_BATCHES",
    "MAX_BODY_BYTES",
    "MAX_CONNECTIONS",
    "MAX_HEAD_BYTES",
    "MAX_PER_ADDRESS",
    "MAX_QUERY_BYTES",
    "SEARCH_BUDGET",
    "VERIFIED_AT_START",
    "WRITE_SECONDS",
    "WorkerError",
    "bind",
    "create_app",
    "discover_games",
    "hold",
    "prepare_to_serve",
    "open_tables",
    "serve",
    "table_checksum",
    "verified_at_start",
]

KEEP_ALIVE_SECONDS = 5
"""How long an idle keep-alive connection stays open."""
SWITCH_SECONDS = 0.001
"""The server process's interpreter switch interval (Python's default is 5 ms): while a batch
is read in a worker thread, the event loop waits at most about this long for its turn."""


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
    body_seconds: float = BODY_SECONDS,
    write_seconds: float = WRITE_SECONDS,
    max_connections: int = MAX_CONNECTIONS,
    max_per_address: int = MAX_PER_ADDRESS,
    max_batches: int = MAX_BATCHES,
    workers: int = 1,
    search_budget: float = SEARCH_BUDGET,
) -> None:
    """Serve ``tables`` on a bound socket (:func:`bind`) until SIGINT or SIGTERM; returns after a clean shutdown.

    The socket listens already, so clients may connect as soon as :func:`bind` returns:
    they wait in its backlog until the server accepts them.

    :param head_seconds: how long a request's head may take to arrive (:mod:`solver.web.protocol`).
    :param body_seconds: how long a request's body may take to arrive after its head.
    :param write_seconds: how long an answer may wait for a client that reads nothing.
    :param max_connections: connections open at once per worker, or fewer if the open-file limit
        leaves room for fewer (:func:`~solver.web.protocol.open_file_budget`: the soft limit is raised
        to the hard one first, and a shortfall is said once on stderr). When it is reached, an idle
        connection is closed to make room; the next ones get 503 only when none is idle.
    :param max_per_address: connections open at once per worker from one client address
        (:func:`~solver.web.protocol.client_key`), the same way; 0 for no such cap (behind a reverse
        proxy every client has the proxy's address).
    :param max_batches: batch requests answered at once per worker (the next ones get 503).
    :param search_budget: seconds one request's search may take, for a game answered by search (Connect Four; 503 beyond).
    :param workers: processes accepting on the socket. With more than one, this process
        forks them after the tables are open (the memory-mapped tables are shared, not
        copied), forwards SIGINT and SIGTERM to them, and returns when all have stopped;
        each answer then carries ``X-Worker: <number>``. POSIX only.
    :raises WorkerError: if a worker dies on its own (the others are stopped first).
    :raises InvalidValueError: for a ``search_budget`` that is not a positive finite number of seconds.
    """
    search_budget = checked_search_budget(search_budget)  # refused before a socket is served, not at the first hard request
    for table in tables:  # open_tables and prepare_to_serve() did this already; a table opened otherwise is copied now
        if table.reads_memory_map or table.searches:  # a search table's engine loaded before the server listens
            table.load_into_memory()
    budget = open_file_budget(max_connections)  # per process; the workers inherit the limit
    warning = budget.warning()
    if warning is not None:
        print(f"solve: warning: {warning}", file=sys.stderr)
    options = {
        "head_seconds": head_seconds,
        "body_seconds": body_seconds,
        "write_seconds": write_seconds,
        "max_connections": budget.connections,
        "max_per_address": max_per_address,
        "max_refusing": budget.refusing,
        "max_batches": max_batches,
        "search_budget": search_budget,
    }
    if workers <= 1:
        _run(tables, sock, table_dir, options, worker=None)
        return
    supervise(workers, lambda number: _run(tables, sock, table_dir, options, worker=number))


def _run(tables: Sequence[Table], sock: socket.socket, table_dir: str | os.PathLike[str] | None, options: dict[str, float], worker: int | None) -> None:
    """One server process: uvicorn on ``sock`` until SIGINT or SIGTERM."""
    import uvicorn

    sys.setswitchinterval(SWITCH_SECONDS)  # a batch thread hands the event loop the interpreter lock sooner
    protocol = http_protocol(
        head_seconds=options["head_seconds"],
        body_seconds=options["body_seconds"],
        write_seconds=options["write_seconds"],
        max_connections=int(options["max_connections"]),
        max_per_address=int(options["max_per_address"]),
        max_refusing=int(options["max_refusing"]),
    )
    if protocol == "h11" and worker in (None, 1):
        print(
            "solve: warning: httptools is missing, so uvicorn's h11 protocol runs with a head size limit only: "
            "slow heads and bodies, stalled readers and the connection cap are not bounded "
            "(install the web extra: pip install '.[web]')",
            file=sys.stderr,
        )
    config = uvicorn.Config(
        create_app(tables, table_dir=table_dir, max_batches=int(options["max_batches"]), worker=worker, search_budget=options["search_budget"]),
        http=protocol,
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        log_level="warning",
        access_log=False,
        server_header=False,
        lifespan="off",
        limit_concurrency=None,  # the protocol's own cap refuses new connections only, never the open ones' requests
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        timeout_graceful_shutdown=3,
    )
    previous = signal.signal(signal.SIGTERM, _terminated) if threading.current_thread() is threading.main_thread() else None
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except (KeyboardInterrupt, _Terminated):
        pass  # uvicorn raises the signal that stopped it again once its graceful shutdown is done: that is the clean stop
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


class _Terminated(Exception):
    """SIGTERM raised again by uvicorn after its graceful shutdown (:func:`_terminated`)."""


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM's handler around uvicorn (which puts it back before raising the signal again when it has stopped): the
    stop ends as Ctrl-C's does, a return, not the default handler's kill, so one process or several stop alike."""
    raise _Terminated
