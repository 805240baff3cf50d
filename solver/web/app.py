"""The HTTP app: routes only, each a thin call into the public API.

==========================================  =====================================================
route                                       answer
==========================================  =====================================================
``GET /``                                   the web page (``static/index.html``)
``GET /static/{name}``                      the page's CSS and JavaScript (a fixed list of files)
``GET /api/v1/games``                       the games served, with their table checksums
``GET /api/v1/openapi.json``                the OpenAPI 3.1 description of this API
``GET /api/v1/games/{game}``                the served game a name means (``connect4``), as ``/api/v1/games`` lists it
``GET /api/v1/{game}?board=B``              :func:`solver.web.batch.position_dict`: :meth:`Position.to_dict` with ``best_first=True``
``GET /api/v1/{game}?moves=4453``           the same, of the position a move string reaches (Connect Four's notation)
``GET /api/v1/{game}/mainline?board=B``     one line of perfect play to the end
``GET /api/v1/{game}/analyze?moves=M``      :meth:`GameAnalysis.to_dict` of :func:`solver.analyze`
``GET /api/v1/{game}/outcomes.svg``         a chart of the outcomes of each ply (:func:`solver.present.charts.outcomes_svg`)
``POST /api/v1/{game}/batch``               ``{"boards": [...]}`` -> ``{"results": [...]}``
``GET /tables/``                            the table files offered for download (:mod:`solver.web.files`)
``GET /tables/{game}.ttt``                  one table file, with byte ranges, its checksum as ETag
==========================================  =====================================================

Nothing a request sends reaches the file system: the tables are opened before the
app is made (``Tablebase.table(..., build=False)``, :mod:`solver.api`), and the page's files are
read from the package once, into memory, from a fixed list. A request never starts
a table build; a game that is not served is a 404 naming ``solve build``.

A ``board`` (query or batch string) is read by :func:`solver.encoding.board.parse_text` and a
``moves`` list by :func:`solver.encoding.moves.split_moves` (moves separated by spaces or ``;``)
with each move read as ``solve analyze`` reads one argument (:func:`~solver.encoding.moves.parse_moves`;
under gravity a bare number is a column, :mod:`solver.encoding.drops`): the command line's readings, so the
same text means the same position or game over HTTP as in a terminal.

Errors are JSON ``{"error": message}``: 400 for a bad board, move list or body (the
message is :class:`~solver.errors.InvalidBoardError`'s), 404 for an unknown game or
path, 405 for a wrong method, 408 for a body slower than :data:`BODY_SECONDS`, 413 for a body over :data:`MAX_BODY_BYTES` or a batch
over :data:`MAX_BATCH`, 414 for a query string over :data:`MAX_QUERY_BYTES`, 503 for a batch
past :data:`MAX_BATCHES` at once or a search past :data:`SEARCH_BUDGET` (a game answered by search, Connect Four:
its answer says the budget and how long the search ran), 500 when the server's table cannot be read (its file was
changed or truncated after the server started: :func:`hold`; the
:class:`~solver.errors.TableError` is written once to the server's stderr, not sent). Never a
traceback; a message quotes at most a few dozen characters of what was sent
(:func:`solver.errors.quote`) and is at most :data:`MAX_MESSAGE_CHARS` long.

A batch is answered off the event loop and in slices: its boards are read in a worker
thread (at most :data:`BATCH_THREADS` at once, so single look-ups keep the loop), and the
answer is streamed :data:`BATCH_SLICE` positions at a time, each slice made only when the
client has read the previous ones: a client that stops reading holds one slice, not the
whole answer, until the server drops it (:data:`~solver.web.protocol.WRITE_SECONDS`).

Answers to ``GET`` requests never change while the table does not, so they carry an
``ETag`` built from the table's checksum (:func:`table_checksum`) and what was asked,
``Cache-Control: public, max-age=86400``, and ``If-None-Match`` gets a 304. Any web page may
call the API: answers carry ``Access-Control-Allow-Origin: *`` and preflights are answered.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from importlib import resources
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import numpy as np
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..api import (
    DEFAULT_GAME,
    UNREACHABLE,
    Game,
    Table,
    Tablebase,
    analyze,
    code_of_text,
    default_tablebase,
    move_string_code,
    outcomes_svg,
    parse,
    parse_game,
    parse_moves,
    split_moves,
)
from ..errors import InvalidBoardError, InvalidGameError, InvalidValueError, SearchInterrupted, SearchTimeout, SolverError, TableError, one_line, quote
from .admission import Admission
from .admission import searched as admitted
from .batch import answers, position_dict, searched_answers
from .files import TableFiles, none_match
from .openapi import openapi_document

MAX_BATCH = 100_000
"""Most boards one ``POST /api/v1/{game}/batch`` may ask for (413 beyond)."""
MAX_SEARCH_BATCH = 1_000
"""Most boards one batch of a game answered by search (Connect Four) may ask for (413 beyond): all of them are searched
within one request's budget (:data:`SEARCH_BUDGET`)."""
MAX_BODY_BYTES = 8 * 1024 * 1024
"""Largest request body accepted (413 beyond): room for :data:`MAX_BATCH` 4x4 board strings."""
BODY_SECONDS = 30.0
"""Longest time a request body may take to arrive (408 beyond)."""
MAX_BATCHES = 16
"""Most batch requests answered at once (per worker); the next ones get 503 and ``Retry-After``."""
BATCH_THREADS = 1
"""Worker threads reading and answering batches (the event loop keeps answering single look-ups:
one thread leaves it every other turn of the interpreter lock)."""
BATCH_SLICE = 2048
"""Positions made per slice of a streamed batch answer (about 1 MB of JSON for 4x4)."""
BATCH_KEPT = 8192
"""Positions' answers kept per batch for reuse in later slices (a 3x3 batch makes each of its
5,478 positions once; a 4x4 batch of distinct positions keeps only the first ones)."""
SEARCH_BUDGET = 5.0
"""Seconds the search of one request may take, for a game answered by search (Connect Four): past it the request
is refused with 503, saying so (:func:`_search_error`); the server goes on (``solve serve --search-budget``)."""
SEARCH_MARGIN = 0.1
"""Seconds of a request's search budget kept for what follows the search (the refusal or the answer written), so
that no answer comes later than the budget; a budget under twice this keeps half of it."""
MAX_MESSAGE_CHARS = 400
"""Longest error message sent (a longer one is cut, saying how long it was)."""
MAX_REPORTED = 100
"""Distinct table errors written to stderr (each once); past these, nothing more is written."""
MAX_QUERY_BYTES = 4096
"""Longest query string accepted (414 beyond); the longest board or move list needs a few dozen bytes."""
CACHE_CONTROL = "public, max-age=86400"
CACHED_POSITIONS = 65_536
"""JSON answers kept per game (a few hundred bytes each): every 3x3 position fits."""
STATIC_FILES = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
    "favicon.svg": "image/svg+xml",
}
"""The page's files: the only files the app serves, read once from the package."""
SECURITY_HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "content-security-policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
}
_JSON = "application/json"


def table_checksum(table: Table) -> str:
    """The checksum that identifies a table's contents: every answer's ETag is built on it.

    :attr:`Table.sha256`, the checksum ``solve verify`` prints (read from the file's
    header for a table opened from a file). The one place to change if that moves.
    """
    return table.sha256


def discover_games(table_dir: str | os.PathLike[str] | None = None, *, tablebase: Tablebase | None = None) -> list[Game]:
    """The games whose tables are already in the table directory (``<game>.ttt``, or in the old
    default directory: :meth:`solver.api.Tablebase.table_dirs`), smallest board first.

    :param tablebase: whose local tables (default: :func:`solver.api.default_tablebase`).
    """
    found = set()
    for directory in (tablebase or default_tablebase()).table_dirs(table_dir):
        for path in sorted(directory.glob("*.ttt")) if directory.is_dir() else []:
            try:
                game = parse_game(path.stem)
            except InvalidGameError:
                continue
            if game.name == path.stem:
                found.add(game)
    return sorted(found, key=lambda game: (game.cells, game.rows, game.k))


@dataclass(frozen=True)
class ServedGame:
    """One game the server answers for: its table, checksum and cached JSON answers."""

    table: Table
    checksum: str
    answer: Callable[[int], bytes]
    """The JSON bytes of :func:`~solver.web.batch.position_dict` of a reachable code, cached."""
    search_budget: float = SEARCH_BUDGET
    """Seconds every search of one request may take together, for a game answered by search."""

    @property
    def name(self) -> str:
        """The game's name, e.g. ``"3x3k3"``."""
        return self.table.game.name

    def etag(self, what: str) -> str:
        """A strong ETag for an answer: the table's checksum and what was asked."""
        return f'"{self.checksum[:20]}-{what}"'


def served_game(table: Table, search_budget: float = SEARCH_BUDGET) -> ServedGame:
    """Wrap an open table for the app; a game answered by search gets ``search_budget`` seconds a request (a search table's view)."""
    if table.searches:
        table = table.bounded(search_budget)
    at = table.at

    @lru_cache(maxsize=CACHED_POSITIONS)
    def answer(code: int) -> bytes:
        return _dumps(position_dict(at(code)))

    return ServedGame(table, table_checksum(table), answer, search_budget)


def open_tables(games: Iterable[Game | str], *, table_dir: str | os.PathLike[str] | None = None, tablebase: Tablebase | None = None) -> list[Table]:
    """The tables of ``games`` (never built here), each made ready by :func:`prepare_to_serve`: each must be shipped or in the table directory.

    :param tablebase: where the tables come from (default: :func:`solver.api.default_tablebase`).
    :raises TableError: for a missing or broken table, naming the command that makes it.
    """
    source = tablebase or default_tablebase()
    tables = [source.table(game, table_dir=table_dir, build=False) for game in games]
    for table in tables:
        prepare_to_serve(table)
    return tables


VERIFIED_AT_START = 16 << 30
"""The decoded bytes of a compact table (a byte a board of its layout) up to which :func:`prepare_to_serve` verifies
every block before the server listens: about 12 s at 4x4k4's 1.4 GB a second. A larger table is checked block by
block as requests first read it, as every compact table is: verifying 6x6k4-gravity's 600.5 GB at start-up kept the
server from listening for minutes (measured 2026-12-06: still verifying after 96 s of a core)."""


def verified_at_start(table: Table) -> bool:
    """Whether :func:`prepare_to_serve` verifies every block of ``table`` before the server listens (else each block
    is checked the first time a request reads it: :data:`VERIFIED_AT_START`)."""
    return (table.file_boards() or 0) <= VERIFIED_AT_START


def prepare_to_serve(table: Table) -> Table:
    """Ready ``table`` to be served for as long as the server runs; returns it.

    Every block is verified now, before the server listens, where the table decodes to at most
    :data:`VERIFIED_AT_START` bytes (:func:`verified_at_start`): a damaged file is refused at
    start-up, and the first requests do not pay for hashing; a larger one's blocks are each
    checked when a request first reads them (a damaged one gives that request a 500). And no look-up is left reading
    a memory map of the file, which a later write to the file would reach and a truncation
    would turn into SIGBUS, the end of the server: a table read through one (dense, or
    compact in the plain format of earlier releases) is copied into the server's memory,
    each block checked in the copy (:meth:`Table.load_into_memory`: 172 MB for 4x4k4), and a
    game answered by search loads its engine now (its compiled kernels and its table). A
    compressed compact table reads each block with ``pread`` when it first needs it, checking
    it, so a file changed or truncated under the server gives that request a 500 and the
    server goes on.

    :raises TableError: for a damaged block.
    """
    if table.reads_memory_map or table.searches:  # a search table: its engine loaded before the server listens
        table.load_into_memory()
    elif verified_at_start(table):
        table.verify_blocks()
    return table


def hold(table: Table) -> Table:
    """Deprecated alias of :func:`prepare_to_serve` (the old name said nothing of what it does)."""
    warnings.warn("solver.web.hold is deprecated: use solver.web.prepare_to_serve", DeprecationWarning, stacklevel=2)
    return prepare_to_serve(table)


def create_app(
    tables: Sequence[Table] | None = None,
    *,
    table_dir: str | os.PathLike[str] | None = None,
    max_batches: int = MAX_BATCHES,
    worker: int | None = None,
    search_budget: float = SEARCH_BUDGET,
) -> Starlette:
    """The ASGI app serving ``tables`` (default: tic-tac-toe and every table in ``table_dir``).

    :param tables: open tables (:func:`open_tables`); the first one is the page's default game. A game answered by
        search has its engine made here (its compiled kernels loaded), before any request.
    :param table_dir: where to look for tables when ``tables`` is not given, and where the
        404 message tells users their builds go.
    :param max_batches: batch requests answered at once; the next ones get 503.
    :param worker: this worker's number when ``solve serve --workers`` runs several: every
        answer then says it in an ``X-Worker`` header.
    :param search_budget: seconds one request's search may take, for a game answered by search (Connect Four).
    """
    search_budget = checked_search_budget(search_budget)
    if tables is None:
        names = dict.fromkeys([DEFAULT_GAME, *discover_games(table_dir)])
        tables = open_tables(names, table_dir=table_dir)
    games: dict[str, ServedGame] = {}
    for table in tables:
        if table.searches:  # its engine made now (once a process), so that no request's short search pays its load
            table.load_into_memory()
        games.setdefault(table.game.name, served_game(table, search_budget))
    api = _Api(games, table_dir, max_batches)
    files = TableFiles(game.table for game in games.values())
    routes = [
        Route("/", api.page, methods=["GET"]),
        Route("/static/{name}", api.static, methods=["GET"]),
        Route("/api/v1/games", api.games, methods=["GET"]),
        Route("/api/v1/openapi.json", api.openapi, methods=["GET"]),
        Route("/api/v1/games/{game}", api.game, methods=["GET"]),
        Route("/api/v1/{game}", api.lookup, methods=["GET"]),
        Route("/api/v1/{game}/mainline", api.mainline, methods=["GET"]),
        Route("/api/v1/{game}/analyze", api.analyze, methods=["GET"]),
        Route("/api/v1/{game}/outcomes.svg", api.outcomes, methods=["GET"]),
        Route("/api/v1/{game}/batch", api.batch, methods=["POST"]),
        Route("/tables/", files.index, methods=["GET"]),
        Route("/tables/{name}", files.file, methods=["GET"]),
    ]
    handlers: Mapping[Any, Any] = {HTTPException: _http_error, TableError: _table_error, SearchInterrupted: _search_error, Exception: _internal_error}
    app = Starlette(routes=routes, exception_handlers=handlers)
    app.state.games = games
    app.state.admission = Admission()
    app.state.report = api.report
    # The answers are public and the same for everyone: any web page may call the API (as the lichess tablebase allows).
    app.add_middleware(CORSMiddleware, allow_origins=["*"], allow_methods=["GET", "POST"], allow_headers=["content-type"], max_age=86400)
    app.add_middleware(_Guard, worker=worker)
    return app


def checked_search_budget(seconds: object) -> float:
    """A server's search budget: seconds, a positive finite number (``nan`` would let every hard search run forever).

    :raises InvalidValueError: for anything else, before the server starts.
    """
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not (math.isfinite(seconds) and seconds > 0):
        raise InvalidValueError(f"search_budget must be a positive finite number of seconds, e.g. {SEARCH_BUDGET:g}; found {quote(seconds)}")
    return float(seconds)


class _Guard:
    """Refuses an oversized query string (414) before routing, and adds the security headers."""

    def __init__(self, app: ASGIApp, worker: int | None = None) -> None:
        self.app = app
        extra = {**SECURITY_HEADERS, **({"x-worker": str(worker)} if worker is not None else {})}
        self.headers = [(name.encode(), value.encode()) for name, value in extra.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if len(scope.get("query_string", b"")) > MAX_QUERY_BYTES:
            response = _error(414, f"the query string is over {MAX_QUERY_BYTES} bytes")
            await response(scope, receive, send)
            return
        extra = self.headers

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)


class _Api:
    """The route handlers, over the served games."""

    def __init__(self, games: dict[str, ServedGame], table_dir: str | os.PathLike[str] | None, max_batches: int = MAX_BATCHES) -> None:
        self.served = games
        self.table_dir = table_dir
        self.files = {name: (resources.files(__package__).joinpath("static", name).read_bytes(), kind) for name, kind in STATIC_FILES.items()}
        self.file_etags = {name: f'"{hashlib.sha256(data).hexdigest()[:20]}"' for name, (data, _) in self.files.items()}
        names = list(games)
        listing = {"games": [_game_info(game) for game in games.values()], "default": names[0] if names else None, "more": _more(names)}
        self.listing = _dumps(listing)
        self.listing_etag = '"' + hashlib.sha256(self.listing).hexdigest()[:20] + '"'
        self.openapi_json = _dumps(openapi_document(names, max_batch=MAX_BATCH, max_body=MAX_BODY_BYTES))
        self.batches = 0  # batch requests being answered
        self.max_batches = max_batches
        self.limiter: anyio.CapacityLimiter | None = None  # made on first use, inside the worker's event loop
        self.reported: set[str] = set()

    def report(self, error: TableError) -> None:
        """Tell the server's operator (stderr) that a table could not be read: each distinct error once, at most :data:`MAX_REPORTED`."""
        message = one_line(error)
        if message not in self.reported and len(self.reported) < MAX_REPORTED:
            self.reported.add(message)
            print(f"solve: error: a request could not be answered: {message}", file=sys.stderr, flush=True)

    # -- the page --------------------------------------------------------------
    async def page(self, request: Request) -> Response:
        return self._file(request, "index.html")

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in self.files or name == "index.html":
            raise HTTPException(404, f"no file {quote(name)} here")
        return self._file(request, name)

    def _file(self, request: Request, name: str) -> Response:
        data, kind = self.files[name]
        headers = {"etag": self.file_etags[name], "cache-control": "no-cache"}
        if none_match(request.headers.get("if-none-match"), headers["etag"]):
            return Response(status_code=304, headers=headers)
        return Response(data, media_type=kind, headers=headers)

    # -- the API ---------------------------------------------------------------
    async def games(self, request: Request) -> Response:
        return _cached(request, self.listing, self.listing_etag)

    async def game(self, request: Request) -> Response:
        """The served game a name means (``connect4``: ``6x7k4-gravity``), as the listing gives it: what the page resolves
        ``?game=`` with, no position solved (404 for a game not served, as every route)."""
        game = self._game(request)
        return _cached(request, _dumps(_game_info(game)), game.etag("game"))

    async def openapi(self, request: Request) -> Response:
        return Response(self.openapi_json + b"\n", media_type=_JSON, headers={"cache-control": "no-cache"})

    def _game(self, request: Request) -> ServedGame:
        text = request.path_params["game"]
        game = self.served.get(text)
        if game is not None:
            return game
        try:
            name = parse_game(text).name
        except InvalidGameError as error:
            raise HTTPException(404, f"unknown game {quote(text)}: {error}") from None
        if name in self.served:
            return self.served[name]
        where = f" --table-dir {self.table_dir}" if self.table_dir is not None else ""
        raise HTTPException(
            404,
            f"game {name} is not served here (serving {', '.join(self.served)}); build its table with "
            f"'solve build --game {name}{where}' and restart 'solve serve', or start "
            f"'solve serve --game {name}'",
        )

    async def lookup(self, request: Request) -> Response:
        game = self._game(request)
        code = _request_code(game.table, request)
        if game.table.searches:  # a search runs off the event loop, within the game's budget
            return await _searched(request, game, game.etag(str(code)), lambda: _answer_or_400(game, code))
        return _cached(request, None, game.etag(str(code)), lambda: game.answer(code))

    async def mainline(self, request: Request) -> Response:
        game = self._game(request)
        code = _request_code(game.table, request)

        def body() -> bytes:
            try:  # a board no game reaches is found by the search's checks: a 400 with their words, as for /api/v1/{game}
                start = position = game.table.at(code)
            except InvalidBoardError as error:
                raise HTTPException(400, one_line(error)) from None
            line = []
            while not position.is_over:
                cell = position.best_cells[0]
                player = position.to_move
                row, col = game.table.game.coords(cell)
                position = position.play((row, col))  # a (row, col) pair is the same cell under every rule (a bare number is a column under gravity)
                line.append({"ply": position.pieces, "player": player, "cell": cell, "row": row, "col": col, "board": position.board})
            state: dict[str, Any] = {"over": True} if start.is_over else {"over": False, "to_move": start.to_move}
            state["result"] = start.result  # on a finished board too: for the player who would move next, as Position.result
            return _dumps(
                {
                    "game": game.name,
                    "code": code,
                    "code_str": str(code),
                    "board": start.board,
                    **state,
                    "value": start.value,
                    "plies": start.plies,
                    "winner": position.winner,
                    "final": position.board,
                    "mainline": line,
                }
            )

        if game.table.searches:
            return await _searched(request, game, game.etag(f"m{code}"), body)
        return _cached(request, None, game.etag(f"m{code}"), body)

    async def analyze(self, request: Request) -> Response:
        game = self._game(request)
        if game.table.searches:
            text = request.query_params.get("moves", "")
            return await _searched(request, game, game.etag("a" + text), lambda: _analysis(game, text))
        rules, text = game.table.game.rules, request.query_params.get("moves", "")
        try:
            if rules.move.writes_columns:  # each move read as `solve analyze` reads one argument: a bare number is a column
                analysis = analyze(split_moves(text, game.table.game), table=game.table)
                cells = list(analysis.cells)
            else:
                cells = parse_moves(text, game.table.game)
                analysis = analyze(cells, table=game.table)
        except InvalidBoardError as error:
            raise HTTPException(400, one_line(error)) from None
        return _cached(request, _dumps(analysis.to_dict()), game.etag("a" + ".".join(map(str, cells))))

    async def outcomes(self, request: Request) -> Response:
        """The chart of the outcomes of each ply, counted once per game (a pass over a dense table) off the event loop."""
        game = self._game(request)
        if game.table.searches:
            raise HTTPException(
                404, f"no chart of the outcomes of each ply for {game.name}: it is answered by search, and the counts of each ply need the full table"
            )
        etag = game.etag("outcomes.svg")
        headers = {"etag": etag, "cache-control": CACHE_CONTROL}
        if none_match(request.headers.get("if-none-match"), etag):
            return Response(status_code=304, headers=headers)
        body = await anyio.to_thread.run_sync(outcomes_chart, game.table)
        return Response(body, media_type="image/svg+xml", headers=headers)

    async def batch(self, request: Request) -> Response:
        game = self._game(request)
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            raise HTTPException(413, f"the body is {int(declared):,} bytes; at most {MAX_BODY_BYTES:,} are accepted")
        if game.table.searches:
            return await _searched_batch(request, game)
        if self.batches >= self.max_batches:
            raise HTTPException(503, f"{self.max_batches} batches are being answered; try again in a second", headers={"retry-after": "1"})
        self.batches += 1
        try:
            raw = await _body(request)
            if raw is None:  # the client went away mid-body: nobody to answer
                self.batches -= 1
                return Response(status_code=400)
            if self.limiter is None:
                self.limiter = anyio.CapacityLimiter(BATCH_THREADS)
            codes, errors = await anyio.to_thread.run_sync(partial(batch_codes, game, raw), limiter=self.limiter)
        except BaseException:
            self.batches -= 1
            raise
        return _BatchResponse(game, codes, errors, self.limiter, self._batch_done, self.report)

    def _batch_done(self) -> None:
        self.batches -= 1


async def _body(request: Request) -> bytes | None:
    """The request body (at most :data:`MAX_BODY_BYTES`, within :data:`BODY_SECONDS`); None if the client left."""
    raw = bytearray()
    try:
        async with asyncio.timeout(BODY_SECONDS):
            async for chunk in request.stream():
                raw += chunk
                if len(raw) > MAX_BODY_BYTES:
                    raise HTTPException(413, f"the body is over {MAX_BODY_BYTES:,} bytes")
    except TimeoutError:
        raise HTTPException(408, f"the body did not arrive within {BODY_SECONDS:g} s") from None
    except ClientDisconnect:
        return None
    return bytes(raw)


async def _searched_batch(request: Request, game: ServedGame) -> Response:
    """``POST /api/v1/{game}/batch`` of a game answered by search (Connect Four): at most :data:`MAX_SEARCH_BATCH`
    boards (``{"boards": [...]}``, strings or codes) or move strings (``{"moves": ["4453", ...]}``), searched in order
    within one request's budget (:func:`_searched`); a board not answered by then is an error in its place."""
    raw = await _body(request)
    if raw is None:  # the client went away mid-body: nobody to answer
        return Response(status_code=400)
    items = searched_batch_items(game, raw)
    etag = game.etag("b" + hashlib.sha256(raw).hexdigest()[:32])
    return await _searched(request, game, etag, lambda: searched_answers(game.answer, items, game.search_budget))


def searched_batch_items(game: ServedGame, raw: bytes) -> list[int | bytes]:
    """Each board's code, or the JSON error saying why it cannot be read, of a searched game's batch body.

    :raises HTTPException: 400 for a body that is neither ``{"boards": [...]}`` nor ``{"moves": [...]}``, 413 past
        :data:`MAX_SEARCH_BATCH` boards.
    """
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError) as error:
        raise HTTPException(400, f"the body is not JSON: {error}") from None
    keys = [key for key in ("boards", "moves") if isinstance(body, dict) and isinstance(body.get(key), list)]
    if len(keys) != 1:
        raise HTTPException(400, 'expected a JSON object {"boards": [board, ...]} (board strings or codes) or {"moves": ["4453", ...]} (move strings)')
    given = body[keys[0]]
    if len(given) > MAX_SEARCH_BATCH:
        raise HTTPException(413, f"{len(given):,} boards asked; at most {MAX_SEARCH_BATCH:,} per request for {game.name}, answered by search")
    table = game.table
    if keys[0] == "moves":
        return [_read_moves(table.game, text) for text in given]
    return [_read(table, board) if type(board) in (str, int) else _not_a_board(board) for board in given]


def _read_moves(game: Game, text: object) -> int | bytes:
    """A move string's code, or the JSON error saying why it cannot be read."""
    if not isinstance(text, str):
        return _dumps({"error": f'a move string is text (columns from 1: "4453"), found {json.dumps(text)[:40]}'})
    try:
        return move_string_code(text, game)
    except SolverError as error:
        return _dumps({"error": one_line(error)})


def batch_codes(game: ServedGame, raw: bytes) -> tuple[np.ndarray, dict[int, bytes]]:
    """The codes of a batch body's boards, and the JSON error of each board that cannot be read or reached.

    :raises HTTPException: 400 for a body that is not ``{"boards": [...]}``, 413 past :data:`MAX_BATCH` boards.
    """
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError) as error:
        raise HTTPException(400, f"the body is not JSON: {error}") from None
    boards = body.get("boards") if isinstance(body, dict) else None
    if not isinstance(boards, list):
        raise HTTPException(400, 'expected a JSON object {"boards": [board, ...]} with boards as strings or codes')
    if len(boards) > MAX_BATCH:
        raise HTTPException(413, f"{len(boards):,} boards asked; at most {MAX_BATCH:,} per request")
    table = game.table
    codes = np.zeros(len(boards), dtype=np.int64)
    errors: dict[int, bytes] = {}
    by_text: dict[str, int | bytes] = {}
    for index, board in enumerate(boards):
        if type(board) is str:
            known = by_text.get(board)
            if known is None:
                known = by_text[board] = _read(table, board)
        elif type(board) is int:
            known = board if 0 <= board < table.game.codes else _read(table, board)
        else:
            known = _not_a_board(board)
        if type(known) is int:
            codes[index] = known
        else:
            errors[index] = known  # type: ignore[assignment]
    scores = table.lookup_codes(codes, check=False).score
    for index in np.flatnonzero(scores == UNREACHABLE).tolist():
        if index not in errors:
            errors[index] = _read(table, int(codes[index]), check=True)  # type: ignore[assignment]
    return codes, errors


def batch_slice(game: ServedGame, codes: np.ndarray, errors: Mapping[int, bytes], start: int, stop: int, kept: dict[int, bytes]) -> bytes:
    """The results of boards ``start`` to ``stop`` of a batch, JSON objects separated by ``", "`` (as ``json.dumps`` separates them).

    The slice's distinct positions not in ``kept`` are made together
    (:func:`solver.web.batch.answers`, the same bytes as the single look-up) and added to
    it while it holds fewer than :data:`BATCH_KEPT`; a board that could not be read is its error.
    """
    good = [index for index in range(start, stop) if index not in errors]
    distinct = np.unique(codes[good]).tolist()
    missing = [code for code in distinct if code not in kept]
    made = dict(zip(missing, answers(game.table, np.array(missing, dtype=np.int64)), strict=True))
    for code in missing[: max(0, BATCH_KEPT - len(kept))]:
        kept[code] = made[code]
    return b", ".join(
        [errors[index] if index in errors else kept.get(code) or made[code] for index, code in zip(range(start, stop), codes[start:stop].tolist(), strict=True)]
    )


def batch_parts(game: ServedGame, codes: np.ndarray, errors: Mapping[int, bytes]) -> Iterator[bytes]:
    """``{"results": [...]}`` in pieces, :data:`BATCH_SLICE` results each (what :class:`_BatchResponse` streams)."""
    yield b'{"results": ['
    kept: dict[int, bytes] = {}
    for start in range(0, len(codes), BATCH_SLICE):
        piece = batch_slice(game, codes, errors, start, min(start + BATCH_SLICE, len(codes)), kept)
        yield piece if start == 0 else b", " + piece
    yield b"]}\n"


def batch_answer(game: ServedGame, boards: Sequence[Any]) -> bytes:
    """``{"results": [...]}`` for a list of boards (strings or codes), as JSON bytes: what the batch endpoint streams.

    Each distinct board string is read once (:func:`solver.encoding.board.parse`), every code is
    checked at once (:meth:`Table.lookup_codes`), and the distinct positions' objects are
    made together (:func:`solver.web.batch.answers`, the same bytes as the single look-up).
    """
    codes, errors = batch_codes(game, json.dumps({"boards": list(boards)}).encode())
    return b"".join(batch_parts(game, codes, errors))


class _BatchResponse(Response):
    """A batch answer streamed slice by slice, each slice made in a worker thread when the client has read the last.

    ``done`` is called once the answer is sent or the client has gone, whatever happens. When the
    table cannot be read mid-answer (its file changed under the server), ``report`` is told and the
    answer is left unfinished (the connection is closed without the last chunk: the client sees it failed).
    """

    media_type = _JSON

    def __init__(
        self,
        game: ServedGame,
        codes: np.ndarray,
        errors: dict[int, bytes],
        limiter: anyio.CapacityLimiter,
        done: Callable[[], None],
        report: Callable[[TableError], None],
    ) -> None:
        super().__init__(headers={"cache-control": "no-store"}, media_type=_JSON)
        self.raw_headers = [(name, value) for name, value in self.raw_headers if name != b"content-length"]
        self.parts = batch_parts(game, codes, errors)
        self.limiter, self.done, self.report = limiter, done, report

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        gone = asyncio.Event()

        async def watch() -> None:  # the body is read: the next message is the client leaving
            while (await receive())["type"] != "http.disconnect":
                pass
            gone.set()

        watcher = asyncio.ensure_future(watch())
        try:
            await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
            while not gone.is_set():
                part = await anyio.to_thread.run_sync(next, self.parts, None, limiter=self.limiter)
                if part is None:
                    break
                await send({"type": "http.response.body", "body": part, "more_body": True})
            if not gone.is_set():
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            pass  # the client went away mid-answer
        except TableError as error:
            self.report(error)  # returning unfinished: uvicorn closes the connection
        finally:
            watcher.cancel()
            self.done()


def _not_a_board(board: Any) -> bytes:
    """The error in a batch's results for a JSON value that is neither a board string nor an int code, named as JSON names it."""
    if board is None or isinstance(board, (bool, float)):
        found = json.dumps(board)  # null, true, false, 1.5
    else:
        found = "an array" if isinstance(board, list) else "an object"
    return _dumps({"error": f"board is {found}: expected a board string (rows of X, O and '.', separated by '/') or an int code"})


def _read(table: Table, board: str | int, *, check: bool = False) -> int | bytes:
    """A board's code, or the JSON ``{"error": message}`` saying why it cannot be read (or reached, with ``check``)."""
    try:
        return _code_of(table, board, check=check)
    except TableError:
        raise  # the server's table, not the board: the whole request fails (500)
    except SolverError as error:
        return _dumps({"error": one_line(error)})


def _code_of(table: Table, board: str | int, *, check: bool = True) -> int:
    """The code of a board: an int code, or text as ``solve lookup`` reads it (:func:`solver.encoding.drops.code_of_text`:
    ASCII digits are a code, anything else a board string; digits refused as a code that read as a move string say
    that one is given as ``moves=``).

    :raises InvalidBoardError: for a malformed board, or (with ``check``) one no game reaches.
    """
    code = code_of_text(board, table.game, moves="moves=") if isinstance(board, str) else parse(board, table.game)[1]
    if check:
        table.at(code)
    return code


def _code(table: Table, text: str) -> int:
    """:func:`_code_of`, with a bad board as a 400."""
    try:
        return _code_of(table, text)
    except InvalidBoardError as error:
        raise HTTPException(400, one_line(error)) from None


def _request_code(table: Table, request: Request) -> int:
    """The code of a request's ``board`` (:func:`_code`, not searched yet for a game answered by search), or of its
    ``moves``: the move string Connect Four players write (columns from 1, :func:`solver.encoding.drops.move_string_code`).

    :raises HTTPException: 400 for both, or a bad board or move string.
    """
    moves = request.query_params.get("moves")
    if moves is None:
        board = request.query_params.get("board", "0")
        if not table.searches:
            return _code(table, board)
        try:
            return _code_of(table, board, check=False)
        except InvalidBoardError as error:
            raise HTTPException(400, one_line(error)) from None
    if "board" in request.query_params:
        raise HTTPException(400, "give board= or moves= (a move string such as 4453), one of them")
    try:
        return move_string_code(moves, table.game)
    except InvalidBoardError as error:
        raise HTTPException(400, one_line(error)) from None


def _answer_or_400(game: ServedGame, code: int) -> bytes:
    """A searched position's JSON answer, or a 400 for a board no game reaches (found by the search's checks)."""
    try:
        return game.answer(code)
    except InvalidBoardError as error:
        raise HTTPException(400, one_line(error)) from None


def _analysis(game: ServedGame, text: str) -> bytes:
    """``/analyze`` of a game answered by search: each move read as for any gravity game, every position searched."""
    try:
        return _dumps(analyze(split_moves(text, game.table.game), table=game.table).to_dict())
    except InvalidBoardError as error:
        raise HTTPException(400, one_line(error)) from None


async def _searched(request: Request, game: ServedGame, etag: str, make: Callable[[], bytes]) -> Response:
    """:func:`_cached`, the answer made in a worker thread: every search it needs within the game's budget from the
    request's arrival, however many positions it searches (a :class:`~solver.errors.SearchTimeout` becomes a 503,
    :func:`_search_error`)."""
    if request.headers.get("if-none-match") == etag:
        return _cached(request, None, etag)
    budget = game.search_budget
    deadline = time.monotonic() + budget - min(SEARCH_MARGIN, budget / 2)
    body = await admitted(request, request.app.state.admission, game.name, budget, deadline, make)  # solver.web.admission
    return _cached(request, body, etag)


def _cached(request: Request, body: bytes | None, etag: str, make: Callable[[], bytes] | None = None) -> Response:
    """A JSON answer with its ETag and Cache-Control, or a 304 when the client has it already.

    Every JSON body ends with a newline (as ``solve ... --json`` prints it), so ``curl`` leaves the prompt on a line of its own.
    """
    headers = {"etag": etag, "cache-control": CACHE_CONTROL}
    if none_match(request.headers.get("if-none-match"), etag):  # *, lists and weak tags, as RFC 9110 reads them
        return Response(status_code=304, headers=headers)
    return Response((body if body is not None else make() if make else b"") + b"\n", media_type=_JSON, headers=headers)


@lru_cache(maxsize=16)
def outcomes_chart(table: Table) -> bytes:
    """:func:`~solver.present.charts.outcomes_svg` of the table's counts by ply (:meth:`Table.ply_counts`), kept per table."""
    return outcomes_svg(table.ply_counts(), game=table.game.name).encode()


def _game_info(game: ServedGame) -> dict[str, Any]:
    g = game.table.game
    rule = g.rules.to_dict()
    return {
        "name": g.name,
        "rows": g.rows,
        "cols": g.cols,
        "k": g.k,
        "cells": g.cells,
        "rule": rule,
        "checksum": game.checksum,
        "searched": game.table.searches,
    }


def _dumps(data: Any) -> bytes:
    return json.dumps(data, separators=(", ", ": ")).encode()


def _error(status: int, message: str, headers: Mapping[str, str] | None = None) -> Response:
    if len(message) > MAX_MESSAGE_CHARS:
        message = f"{message[: MAX_MESSAGE_CHARS - 60]}... (cut: the message was {len(message):,} characters)"
    return Response(_dumps({"error": message}) + b"\n", status_code=status, media_type=_JSON, headers=headers)


def _more(served: Sequence[str]) -> str:
    """How to serve more games, naming one that is not served yet."""
    other = next((name for name in ("3x4k3", "4x4k4", "4x5k4", "5x5k4") if name not in served), "5x6k4")
    return f"Serve more games with: solve serve --game GAME (repeatable; each table is built once, then kept), e.g. solve serve --game {other}"


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    message = exc.detail
    if exc.status_code == 404 and message == "Not Found":  # the router's own 404: no route matched
        message = f"no such path {quote(request.url.path)}: the API is under /api/v1 (see /api/v1/openapi.json), the page at /"
    elif exc.status_code == 405 and message == "Method Not Allowed":
        message = f"{quote(request.method, 20)} is not allowed on {quote(request.url.path)}"
    return _error(exc.status_code, message, exc.headers)


async def _table_error(request: Request, exc: Exception) -> Response:
    """A table that cannot be read (changed or damaged after the server started): 500, the details to stderr only."""
    assert isinstance(exc, TableError)
    request.app.state.report(exc)
    game = quote(str(request.path_params.get("game", "")), 20)
    return _error(500, f"the server cannot read its table for {game}: the file changed or was damaged after the server started; its operator is told")


async def _search_error(request: Request, exc: Exception) -> Response:
    """A search stopped at the server's budget for one request: 503, saying so and how long it ran."""
    assert isinstance(exc, SearchInterrupted)
    stopped = exc.what if isinstance(exc, SearchTimeout) else str(exc)  # the engine's advice is for Python callers
    return _error(503, f"this server searches a position for at most {_budget_of(request):g} s a request, and this one needs longer: {one_line(stopped)}")


def _budget_of(request: Request) -> float:
    budgets = [getattr(game.table, "budget", None) for game in request.app.state.games.values() if game.table.searches]
    return float(budgets[0]) if budgets and budgets[0] is not None else SEARCH_BUDGET


async def _internal_error(request: Request, exc: Exception) -> Response:
    return _error(500, "internal error: the server could not answer this request")


def static_dir() -> Path:
    """Where the page's files are in the installed package (for documentation and tests)."""
    return Path(str(resources.files(__package__).joinpath("static")))
