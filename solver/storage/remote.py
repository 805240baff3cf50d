"""Table files on a server: bytes fetched by HTTP Range requests, checked exactly as a file's are.

Any server that serves files answers (a static host, a bucket, a release page, another
machine's ``solve serve``): nothing is asked of it but ``GET`` with a ``Range`` header.
Two uses, both of :mod:`solver.store.mirror`:

* **Reading a table at a URL** (:func:`open_url`): the header, the digests and (for a
  compressed table) the offset table and CRCs are read once; the root checksum is recomputed
  from them and compared with the expected one (shipped with the package, or given) before
  anything is used. The compressed blocks are then a :class:`RemoteRegion`, a
  :class:`~solver.storage.blockarray.RegionSource` of the block array: a block is fetched by a
  Range request the first time a look-up touches it, and goes through the same checks as a
  block of a local file (CRC, bounded decode, SHA-256 against its digest). Fetched blocks are
  kept in a bounded on-disk cache (:class:`BlockCache`), so a later process does not fetch
  them again; what the cache holds is checked again on every read, like a file.
* **Downloading one** (:func:`read_remote_head` then :meth:`HttpRange.stream`): the same
  head, checked the same way before a byte of the body is fetched.

**What a hostile server can do is bounded.** Only ``http`` and ``https`` URLs that can be
asked for (:func:`url_problem`: no space, control character or non-ASCII character, a valid host
and port), at most :data:`MAX_REDIRECTS` redirects (to such URLs only), every read within the
deadlines of :mod:`solver.storage.pace` (the response head, the body's minimum rate, a block
request in all); a malformed answer is a :class:`TableError` naming the URL; a header of at most
:data:`~solver.storage.tablefile.MAX_HEADER_BYTES`, whose sizes must be those a table of the
game has (the contents are pinned by the expected checksum, the placement must be the one a
table file uses, and the compressed size at most :func:`max_data_bytes`) before anything else is
fetched; every answer must be a ``206`` whose ``Content-Range`` is the range asked for of a
file of the size the header gives, and no more bytes are read than were asked for. Bytes that
fail a check are never used, and never kept: nothing is written to the cache before it has
passed (:meth:`RemoteRegion.passed`).
"""

from __future__ import annotations

import builtins
import hashlib
import http.client
import io
import os
import sqlite3
import threading
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http.client import HTTPMessage
from pathlib import Path
from typing import IO, Any, cast
from urllib.parse import SplitResult, urlsplit

import numpy as np

from ..errors import InvalidArgumentError, TableError, quote
from . import pace, tablefile
from .blockarray import Encoding
from .pace import Limits, Pace, TooSlow, pace_connection, paced_opener
from .tablefile import DIGEST_BYTES, Header, TableFile
from .trust import TableGame

TIMEOUT = 30.0
"""Seconds a connection may take to open (each read is bounded by its :class:`~solver.storage.pace.Pace`)."""
REQUEST_SECONDS = Limits().request_seconds
"""Seconds one block request may take in all, by default (:attr:`solver.storage.pace.Limits.request_seconds`)."""
MAX_REDIRECTS = 5
FIRST_BYTES = 64 << 10
"""Bytes asked for first: the magic, the header's length and, in every table so far, the whole header."""
READ_STEP = 1 << 20
"""Bytes read from a response at a time."""
RUN_BYTES = 1 << 20
"""Most bytes one request fetches for a batch's neighbouring blocks (:meth:`RemoteRegion.prefetch`)."""
RUN_GAP = 16 << 10
"""Blocks this close are fetched in one request (the bytes between are read and dropped)."""
FETCH_THREADS = 4
"""Requests a batch has in flight at once."""
DEFAULT_CACHE_BYTES = 1 << 30
"""The on-disk cache of blocks fetched from servers: 1 GiB (5x5k4 stores about 1 KiB per block in play)."""
CACHE_ENV = "SOLVED_TICTACTOE_CACHE_DIR"
"""Where the on-disk cache lives, when set (default: the platform's user cache directory)."""
USER_AGENT = "solved-tictactoe (table reader)"


def check_url(url: object, *, name: str = "URL") -> str:
    """``url`` if it is an ``http`` or ``https`` URL with a host that can be asked for.

    :param name: what the message calls it (``--from``, ``$SOLVED_TICTACTOE_MIRROR``).
    :raises InvalidArgumentError: if it is not a str.
    :raises TableError: for any other URL (a file path, ``ftp:``, a space or a line break in it,
        a malformed host or port...), one line naming it.
    """
    if not isinstance(url, str):
        raise InvalidArgumentError(f"{name} must be an http or https URL (a str), not {type(url).__name__} {quote(url)}")
    problem = url_problem(url)
    if problem is not None:
        raise TableError(f"{name} {quote(url, 100)}: {problem}")
    return url


def url_problem(url: str) -> str | None:
    """What is wrong with ``url`` as the address of a table (None: nothing)."""
    if not url.isascii():
        return "has characters that are not ASCII: give it percent-encoded, and a host name in its xn-- form"
    if any(char <= " " or char == "\x7f" for char in url):
        return "has a space or a control character (a line break, a tab...): percent-encode it"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises for a port that is not a number from 0 to 65535
    except ValueError as error:
        return f"cannot be read as a URL ({error})"
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return "not an http or https URL; tables are fetched from web servers only"
    host = parts.hostname or ""
    if not host:
        return "names no host"
    if ":" not in host:  # a name or IPv4 address (an IPv6 one was checked by urlsplit)
        labels = host.removesuffix(".").split(".")
        if len(host) > 253 or any(not 0 < len(label) <= 63 for label in labels):
            return "has a host name that is not valid (at most 253 characters, in dot-separated labels of 1 to 63)"
    return None


def is_url(text: str) -> bool:
    """Whether ``text`` names a table by URL (``http://`` or ``https://``) rather than by path."""
    return text.lower().startswith(("http://", "https://"))


def max_data_bytes(encoding: Encoding) -> int:
    """The most compressed bytes a region of ``encoding``'s blocks can hold: zstd's and zlib's worst case
    (incompressible data) is a block and a 128th, plus a frame; anything more is not a table."""
    return encoding.blocks * (encoding.block_bytes + encoding.block_bytes // 128 + 1024)


class _Redirects(urllib.request.HTTPRedirectHandler):
    """urllib's redirects, at most :data:`MAX_REDIRECTS`, to ``http`` and ``https`` only."""

    max_redirections = MAX_REDIRECTS

    def redirect_request(
        self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str, headers: HTTPMessage, newurl: str
    ) -> urllib.request.Request | None:
        if urlsplit(newurl).scheme not in ("http", "https"):
            raise urllib.error.HTTPError(newurl, code, "a redirect to a URL that is not http or https, refused", headers, fp)
        problem = url_problem(newurl)
        if problem is not None:
            raise urllib.error.HTTPError(newurl, code, f"a redirect to {quote(newurl)}, which {problem}, refused", headers, fp)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


@dataclass(frozen=True)
class _Answer:
    """A response to a Range request, checked: where its bytes start, and the whole file's size."""

    response: Any
    start: int
    stop: int
    total: int
    etag: str | None


class HttpRange:
    """Range requests for one URL, each answer checked (status, ``Content-Range``, the file's size and ETag),
    each read within the deadlines of :mod:`solver.storage.pace`.

    :param url: an ``http`` or ``https`` URL.
    :param limits: the deadlines (default: :meth:`Limits.from_environment`).
    :raises TableError: for any other URL, or a deadline variable that is not a positive number.
    """

    def __init__(self, url: str, *, timeout: float = TIMEOUT, limits: Limits | None = None) -> None:
        self.url = check_url(url)
        self.limits = limits if limits is not None else Limits.from_environment()
        self.timeout = min(timeout, self.limits.head_seconds)
        self.total: int | None = None
        """The file's size, from the first answer (every later one must agree)."""
        self.etag: str | None = None
        self.ranges = True
        """Whether the server answers Range requests (False once it sent a whole file for one)."""
        self._final: SplitResult | None = None
        """Where the server last answered from (after redirects): later requests go there over a kept-alive connection."""
        self._local = threading.local()

    def error(self, problem: str) -> TableError:
        """A :class:`TableError` naming the URL."""
        return TableError(f"{self.url}: {problem}")

    def _open(self, start: int, stop: int | None, pace: Pace) -> _Answer:
        """Ask for bytes ``start .. stop - 1`` (``stop`` None: to the end)."""
        wanted = f"bytes={start}-" + ("" if stop is None else str(stop - 1))
        request = urllib.request.Request(self.url, headers={"Range": wanted, "User-Agent": USER_AGENT, "Accept-Encoding": "identity"})
        try:
            response = paced_opener(pace, _Redirects()).open(request, timeout=self.timeout)
        except urllib.error.HTTPError as error:
            error.close()
            if error.code == 416:
                total = _content_range(f"bytes 0-0/{(error.headers.get('Content-Range') or '').rpartition('/')[2]}")[2]
                raise RangeNotSatisfiable(self.url, start, total) from None
            raise self.error(f"the server answered {error.code} {quote(error.reason, 80)}") from None
        except TooSlow as error:
            raise self.error(str(error)) from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", None) or error
            raise self.error(f"cannot reach the server ({_said(str(reason))})") from None
        except (http.client.HTTPException, ValueError) as error:
            raise self.error(_malformed(error)) from None
        try:
            pace.body()
            found = self._checked(response, start, stop)
        except BaseException:
            response.close()
            raise
        self._final = _direct(response.url)
        return found

    def _kept_alive(self, start: int, stop: int, pace: Pace) -> _Answer | None:
        """The answer over this thread's kept-alive connection to where the server last answered from, or None
        (nowhere yet, or a redirect, an error status, a dropped connection: urllib then asks afresh, redirects and all).

        urllib opens a connection (and a TLS session) per request; a table read block by block
        sends one request per block, so the blocks go over one connection per thread instead.
        """
        target = self._final
        if target is None:
            return None
        headers = {"Range": f"bytes={start}-{stop - 1}", "User-Agent": USER_AGENT, "Accept-Encoding": "identity"}
        try:
            connection = self._connection(target)
            pace_connection(connection, pace)
            if connection.sock is not None:
                connection.sock.settimeout(self.timeout)  # a read left it at what its pace had left
            connection.request("GET", target.path + (f"?{target.query}" if target.query else ""), headers=headers)
            response = connection.getresponse()
        except TooSlow as error:
            self.drop_connection()
            raise self.error(str(error)) from None
        except (OSError, http.client.HTTPException, ValueError):
            self.drop_connection()
            return None
        if response.status not in (200, 206):
            self.drop_connection()
            return None
        try:
            pace.body()
            return self._checked(response, start, stop)
        except BaseException:
            self.drop_connection()
            raise

    def _connection(self, target: SplitResult) -> http.client.HTTPConnection:
        found: http.client.HTTPConnection | None = getattr(self._local, "connection", None)
        if found is None or getattr(self._local, "target", None) != target.netloc:
            self.drop_connection()
            if target.scheme == "https":
                found = http.client.HTTPSConnection(target.netloc, timeout=self.timeout, context=pace.tls_context())
            else:
                found = http.client.HTTPConnection(target.netloc, timeout=self.timeout)
            self._local.connection, self._local.target = found, target.netloc
        return found

    def drop_connection(self) -> None:
        """Close this thread's kept-alive connection (the next request opens another)."""
        connection = getattr(self._local, "connection", None)
        self._local.connection = None
        if connection is not None:
            connection.close()

    def _checked(self, response: Any, start: int, stop: int | None) -> _Answer:
        if response.status == 200 and start == 0:  # a server that ignores Range: the whole file
            total = _int_header(response, "Content-Length", self.url)
            self.ranges = False
            return self._agreed(_Answer(response, 0, total, total, response.headers.get("ETag")))
        if response.status != 206:
            raise self.error(f"the server answered {response.status} to a Range request: it must serve byte ranges (206 Partial Content)")
        first, last, total = _content_range(response.headers.get("Content-Range"))
        if first != start or last < first or (stop is not None and last >= stop) or last >= total or total is None:
            asked = "the end" if stop is None else f"{stop - 1:,}"
            raise self.error(f"the server sent bytes {quote(response.headers.get('Content-Range'))} when asked for bytes {start:,} to {asked}")
        return self._agreed(_Answer(response, first, last + 1, total, response.headers.get("ETag")))

    def _agreed(self, answer: _Answer) -> _Answer:
        """The answer, if it is of the same file as the first one (size and ETag)."""
        if self.total is None:
            self.total, self.etag = answer.total, answer.etag
        elif answer.total != self.total or (self.etag is not None and answer.etag is not None and answer.etag != self.etag):
            raise self.error(f"the file changed on the server while it was read (it had {self.total:,} bytes, ETag {quote(self.etag)}); try again")
        return answer

    def get(self, start: int, stop: int, *, short: bool = False) -> bytes:
        """Bytes ``start .. stop - 1`` of the file, exactly (``short``: fewer when the file ends before ``stop``).

        :raises TableError: naming the URL, if the server cannot be reached, does not answer the
            range asked for, sends fewer bytes, or misses a deadline (:mod:`solver.storage.pace`:
            the head, the rate, :attr:`Limits.request_seconds` in all).
        """
        pace = Pace(self.limits, deadline=time.monotonic() + self.limits.request_seconds)
        answer = self._kept_alive(start, stop, pace) or self._open(start, stop, pace)
        try:
            with answer.response as response:
                end = min(answer.stop, stop)
                if end < stop and not short:
                    raise self.error(f"the file ends at byte {answer.total:,}, before byte {stop:,} that a table needs")
                found = self._read_all(response, end - start)
                if answer.stop > end:  # the rest of a whole file sent for a range: the connection cannot be reused
                    self.drop_connection()
                return found
        except BaseException:
            self.drop_connection()
            raise

    def _read_all(self, response: Any, length: int) -> bytes:
        parts, got = [], 0
        while got < length:
            part = self._read(response, min(READ_STEP, length - got), f"after {got:,} of {length:,} bytes")
            parts.append(part)
            got += len(part)
        return b"".join(parts)

    def _read(self, response: Any, size: int, where: str) -> bytes:
        """Up to ``size`` bytes of the body (at least one), read within its pace.

        :raises TableError: naming the URL and ``where`` the body was, for a cut connection, a malformed
            body or a server too slow.
        """
        try:
            part: bytes = response.read(size)
        except TooSlow as error:
            raise self.error(f"{error}, {where}") from None
        except (OSError, ValueError, http.client.HTTPException) as error:
            raise self.error(f"the connection was cut {where} ({_malformed(error)})") from None
        if not part:
            raise self.error(f"the connection was cut {where}")
        return part

    def stream(self, start: int, stop: int) -> Iterator[bytes]:
        """Bytes ``start .. stop - 1`` of the file, in steps of at most :data:`READ_STEP` (a download; a server that
        ignores the range is accepted when it sends the whole file from byte 0). Nothing, when ``start`` is
        ``stop`` and the server says so (``416`` for a file of ``stop`` bytes).

        :raises TableError: as :meth:`get`, except that there is no deadline in all, only the head's and the rate.
        """
        try:
            answer = self._open(start, None, Pace(self.limits))
        except RangeNotSatisfiable as error:
            if error.total == start == stop:
                return
            raise
        with answer.response as response:
            if answer.total != stop:
                raise self.error(f"the file has {answer.total:,} bytes, its header says {stop:,}")
            got = answer.start
            while got < stop:
                part = self._read(response, min(READ_STEP, stop - got), f"at byte {got:,} of {stop:,}")
                got += len(part)
                yield part


class RangeNotSatisfiable(TableError):
    """A ``416``: the server has no bytes from ``start`` (its file has ``total`` bytes, -1: not said)."""

    def __init__(self, url: str, start: int, total: int) -> None:
        super().__init__(f"{url}: the server has no bytes from {start:,} (416 Range Not Satisfiable): the file is shorter than a table")
        self.start, self.total = start, total


def _malformed(error: BaseException) -> str:
    """What a malformed answer was, in one short line."""
    return f"a malformed HTTP answer: {type(error).__name__}: {_said(str(error))}"


def _said(text: str, limit: int = 120) -> str:
    """``text`` as one short line of printable ASCII (what a server said may hold anything)."""
    shown = text.encode("unicode_escape").decode("ascii")
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def _direct(url: str | None) -> SplitResult | None:
    """``url`` split, when requests to it may go over a kept-alive connection of ours: http(s), no
    credentials in it, and no proxy configured for its host (urllib keeps those cases)."""
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or "@" in parts.netloc or not parts.hostname:
        return None
    if urllib.request.getproxies() and not urllib.request.proxy_bypass(parts.hostname):
        return None
    return parts


def _int_header(response: Any, name: str, url: str) -> int:
    text = response.headers.get(name)
    if text is None or not text.isascii() or not text.isdigit():
        raise TableError(f"{url}: the server sent no {name}")
    return int(text)


def _content_range(text: str | None) -> tuple[int, int, int]:
    """``first, last, total`` of ``bytes first-last/total`` (-1s when malformed, so no range matches)."""
    try:
        unit, _, rest = (text or "").partition(" ")
        span, _, total = rest.partition("/")
        first, _, last = span.partition("-")
        if unit.lower() == "bytes" and all(part.isascii() and part.isdigit() for part in (first, last, total)):
            return int(first), int(last), int(total)
    except ValueError:
        pass
    return -1, -2, -1


# -- the head: header, digests, index -----------------------------------------------------------
@dataclass(frozen=True)
class RemoteHead:
    """What is read of a table file at a URL before its blocks: checked against the expected checksum."""

    header: Header
    head: bytes
    """The file's first bytes, up to its first array (magic, header length, header)."""
    digests: bytes
    index: bytes
    """A compressed table's offset table and CRCs (empty for a plain one)."""
    from_cache: bool = False
    """Whether the digests and index were read from the block cache (else from the server)."""

    @property
    def size(self) -> int:
        """The file's size in bytes."""
        return self.header.end


@dataclass(frozen=True)
class RemoteHeader:
    """The header of a table file at a URL, checked: the game, the expected checksum and the sizes."""

    header: Header
    head: bytes
    """The file's first bytes, up to its first array (magic, header length, header)."""
    stated: str
    """The root the header states (checked against the digests by :func:`check_digests`)."""
    expected: str
    """The checksum the table must have."""


def read_remote_header(http: HttpRange, *, game: TableGame | None, expected: Callable[[Header], str | None]) -> RemoteHeader:
    """Read and check the header of the table file at ``http.url`` (one request, two for a header over
    :data:`FIRST_BYTES`): before anything else is fetched, it must be a table of ``game`` with an expected
    checksum, and the sizes it gives must be those of such a table (:func:`_check_sizes`).

    :param game: the game the file must hold (None: whatever it holds).
    :param expected: the checksum the table must have, given its header (None: refuse it).
    :raises TableError: naming the URL.
    """
    first = http.get(0, FIRST_BYTES, short=True)
    assert http.total is not None
    length = int.from_bytes(first[8:12], "little") if len(first) >= 12 else 0
    if 12 + length > len(first) and length <= tablefile.MAX_HEADER_BYTES:
        first += http.get(len(first), 12 + length)
    fail = _failing(http.url)
    header, stored = tablefile.read_head(io.BytesIO(first), http.total, fail)
    if game is not None and header.game != game:
        raise fail(f"holds {header.game.name}, expected {game.name}")
    root = expected(header)
    if root is None:
        raise fail(f"no checksum ships for {header.kind} {header.game.name} tables: give the one its publisher gives (--checksum SHA256)")
    _check_sizes(header, length, http.total, fail)
    return RemoteHeader(header, first[: 12 + length], stored, root)


def read_remote_head(http: HttpRange, *, game: TableGame | None, expected: Callable[[Header], str | None], cache: BlockCache | None = None) -> RemoteHead:
    """Read and check the head of the table file at ``http.url``: header and sizes (:func:`read_remote_header`),
    then the digests and index, whose root must be the expected checksum.

    :param cache: where a head read before is kept (it is checked again all the same).
    :raises TableError: naming the URL, for a file that is not a table of ``game``, has no expected
        checksum, sizes a table of its game cannot have, or does not hash to the expected checksum,
        or a server that does not answer Range requests.
    """
    found = read_remote_header(http, game=game, expected=expected)
    if not http.ranges:
        raise http.error("the server does not answer Range requests: a table is read from it only whole: fetch it with solve fetch --from URL")
    return check_digests(http, found, cache)


def check_digests(http: HttpRange, found: RemoteHeader, cache: BlockCache | None = None) -> RemoteHead:
    """The digests and index of a checked header's table, fetched (or read from ``cache``), their root checked.

    Nothing is written to the cache here: the root covers the digests, not the offset table and CRCs,
    so :class:`RemoteRegion` keeps them only once a block has passed every check against them.

    :raises TableError: naming the URL, if they do not hash to the expected checksum.
    """
    header = found.header
    digests, index, cached = _digests_and_index(http, header, found.head, cache)
    tablefile.check_root(header, digests, found.stated, _failing(http.url), expected=found.expected)
    return RemoteHead(header, found.head, digests, index, cached)


def _failing(url: str) -> tablefile.Fail:
    def fail(problem: str, found: TableGame | None = None, *, table: bool = True) -> TableError:  # noqa: ARG001 - the Fail signature
        return TableError(f"{url}: {problem}; nothing was used from it")

    return fail


def _check_sizes(header: Header, length: int, size: int, fail: tablefile.Fail) -> None:
    """The sizes the header gives must be those of a table of its game, placed as a table file places them."""
    problem = tablefile.placement_problem(header, length)
    for spec in header.arrays:
        if spec.encoding is not None and spec.encoding.data_bytes > max_data_bytes(spec.encoding):
            problem = f"{spec.encoding.data_bytes:,} compressed bytes, more than {spec.encoding.blocks:,} blocks can hold"
    if problem is None and header.end != size:
        problem = f"the file has {size:,} bytes, its header says {header.end:,}"
    if problem is not None:
        raise fail(f"not a table file as written ({problem})", header.game)


def _digests_and_index(http: HttpRange, header: Header, head: bytes, cache: BlockCache | None) -> tuple[bytes, bytes, bool]:
    """The digests and the compressed array's offset table and CRCs, and whether they came from the cache:
    from there when this URL's table with the same first bytes was read before (and a block passed against
    them), else from the server."""
    spec = header.arrays[0]
    index_bytes = spec.encoding.index_bytes if spec.encoding is not None else 0
    digest_bytes = DIGEST_BYTES * header.digest_count
    kept = cache.head(head, http.url) if cache is not None else None
    if kept is not None and len(kept) == digest_bytes + index_bytes:
        return kept[:digest_bytes], kept[digest_bytes:], True
    digests = http.get(header.digests_offset, header.end)
    if spec.encoding is None:
        return digests, b"", False
    start = spec.offset + spec.encoding.data_bytes
    return digests, http.get(start, start + index_bytes), False


# -- the on-disk cache ----------------------------------------------------------------------------
def default_cache_path() -> Path:
    """The cache's file: ``$SOLVED_TICTACTOE_CACHE_DIR``, else the user cache directory (``platformdirs``), ``url-blocks.sqlite3``."""
    directory = os.environ.get(CACHE_ENV)
    if not directory:
        import platformdirs

        directory = platformdirs.user_cache_dir("solved-tictactoe", appauthor=False)
    return Path(directory) / "url-blocks.sqlite3"


class BlockCache:
    """Bytes fetched from servers, kept on disk in an SQLite file of at most ``max_bytes`` (least recently used out).

    Holds compressed blocks (keyed by the table's layout, :attr:`RemoteRegion.key`, and their
    offset) and the heads of tables (keyed by the SHA-256 of their first bytes and the URL they came
    from: one mirror's entry is never another's). Only bytes that passed every check are written
    (:meth:`RemoteRegion.passed`), and nothing is trusted for being here: blocks go through the block
    array's checks on every read, heads through the root checksum and the blocks' checks; an entry
    that fails is discarded. A cache that cannot be opened is not used (every block is then fetched).

    The bound is kept by every writer in time proportional to what it evicts: the total is kept in
    the file by triggers (a replaced row counts its new length less its old one), so a write reads
    one row to know it, and eviction walks an index of the rows by last use (blocks before heads),
    removing the oldest until the file is back under 90 %. A look-up served from the cache only
    marks its row used: it never evicts.
    """

    EVICT_BATCH = 32
    """Rows eviction reads at a time (it stops as soon as enough bytes are freed)."""
    EVICT_QUERY = "SELECT rowid, LENGTH(data) FROM pieces ORDER BY (start < 0), used LIMIT ?"
    """The least recently used rows, blocks before heads: read through the index ``pieces_by_use``, never sorted whole."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, max_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._db = sqlite3.connect(self.path, timeout=10.0, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=OFF")  # a cache: whatever survives a crash is checked on read
        self._schema()
        self.scanned = 0
        """Rows eviction has read (for tests: proportional to the rows it removed)."""
        self.evicted = 0
        """Rows eviction has removed."""

    def _schema(self) -> None:
        """The tables, the index by last use and the running total (counted once, for a cache an earlier version wrote)."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(
                "CREATE TABLE IF NOT EXISTS pieces "
                "(key TEXT NOT NULL, start INTEGER NOT NULL, data BLOB NOT NULL, used INTEGER NOT NULL, PRIMARY KEY (key, start))"
            )
            db.execute("CREATE INDEX IF NOT EXISTS pieces_by_use ON pieces ((start < 0), used)")
            db.execute("CREATE TABLE IF NOT EXISTS total (id INTEGER PRIMARY KEY CHECK (id = 0), bytes INTEGER NOT NULL)")
            db.execute("INSERT OR IGNORE INTO total SELECT 0, COALESCE(SUM(LENGTH(data)), 0) FROM pieces WHERE NOT EXISTS (SELECT 1 FROM total)")
            for name, event, change in (
                ("added", "INSERT", "LENGTH(NEW.data)"),
                ("removed", "DELETE", "-LENGTH(OLD.data)"),
                ("replaced", "UPDATE OF data", "LENGTH(NEW.data) - LENGTH(OLD.data)"),
            ):
                update = f"UPDATE total SET bytes = bytes + {change} WHERE id = 0"
                db.execute(f"CREATE TRIGGER IF NOT EXISTS pieces_{name} AFTER {event} ON pieces BEGIN {update}; END")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @property
    def bytes(self) -> int:
        """Bytes the cache holds (the running total: one row read)."""
        row = self._db.execute("SELECT bytes FROM total WHERE id = 0").fetchone()
        return int(row[0]) if row is not None else 0

    def get(self, key: str, start: int) -> builtins.bytes | None:
        """The bytes kept for ``key`` at ``start``, or None (a hit marks the row used, nothing more)."""
        with self._lock:
            row = self._db.execute("SELECT data FROM pieces WHERE key = ? AND start = ?", (key, start)).fetchone()
            if row is None:
                return None
            self._db.execute("UPDATE pieces SET used = ? WHERE key = ? AND start = ?", (time.time_ns(), key, start))
        return bytes(row[0])

    def put(self, key: str, start: int, data: builtins.bytes) -> None:
        """Keep ``data`` for ``key`` at ``start`` (nothing larger than a tenth of the bound is kept)."""
        if len(data) > self.max_bytes // 10 and start >= 0:
            return
        with self._lock:
            self._db.execute(
                "INSERT INTO pieces VALUES (?, ?, ?, ?) ON CONFLICT (key, start) DO UPDATE SET data = excluded.data, used = excluded.used",
                (key, start, data, time.time_ns()),
            )
            if self.bytes > self.max_bytes:
                self._evict()

    def drop(self, key: str, start: int) -> None:
        """Forget what is kept for ``key`` at ``start`` (bytes that failed their checks)."""
        with self._lock:
            self._db.execute("DELETE FROM pieces WHERE key = ? AND start = ?", (key, start))

    def head(self, head: builtins.bytes, url: str) -> builtins.bytes | None:
        """The digests and index kept for the table at ``url`` whose first bytes are ``head``."""
        return self.get(_head_key(head, url), -1)

    def put_head(self, head: builtins.bytes, url: str, data: builtins.bytes) -> None:
        """Keep a table's digests and index, as read from ``url`` (when they take at most half the bound)."""
        if len(data) <= self.max_bytes // 2:
            self.put(_head_key(head, url), -1, data)

    def drop_head(self, head: builtins.bytes, url: str) -> None:
        """Forget the digests and index kept for the table at ``url`` (they failed a block's checks)."""
        self.drop(_head_key(head, url), -1)

    def _evict(self) -> None:
        """Remove the least recently used rows (blocks before heads) until the cache is under 90 % of its bound."""
        excess = self.bytes - self.max_bytes * 9 // 10
        while excess > 0:
            rows = self._db.execute(self.EVICT_QUERY, (self.EVICT_BATCH,)).fetchall()
            if not rows:
                return
            chosen = []
            for rowid, length in rows:
                chosen.append((rowid,))
                excess -= length
                if excess <= 0:
                    break
            self.scanned += len(rows)
            self._db.executemany("DELETE FROM pieces WHERE rowid = ?", chosen)
            self.evicted += len(chosen)

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()


def _head_key(head: bytes, url: str) -> str:
    return "head:" + hashlib.sha256(head + b"\0" + url.encode()).hexdigest()


def open_cache(max_bytes: int | None = None) -> BlockCache | None:
    """The default :class:`BlockCache`, or None (every block fetched) when its directory cannot be written."""
    try:
        return BlockCache(max_bytes=DEFAULT_CACHE_BYTES if max_bytes is None else max_bytes)
    except (OSError, sqlite3.Error):
        return None


# -- the blocks ----------------------------------------------------------------------------------
class RemoteRegion:
    """The compressed region of a table at a URL, as a :class:`~solver.storage.blockarray.RegionSource`.

    A block's bytes come from the in-process staging of a batch (:meth:`prefetch`), else the
    on-disk cache (its CRC checked first: a damaged copy is fetched again), else one Range
    request. The offset table and CRCs were read with the head. Every block then passes the
    block array's checks; only then is it written to the cache, and with the first block that
    passes, the head (:meth:`passed`). Bytes that fail are dropped from the cache (:meth:`forget`),
    and so are the digests and index when they came from there: the error then names the cache
    entry, not the server.
    """

    remote = True

    def __init__(self, http: HttpRange, remote: RemoteHead, cache: BlockCache | None) -> None:
        spec = remote.header.arrays[0]
        assert spec.encoding is not None
        self.http = http
        self.encoding = spec.encoding
        self.offset = spec.offset
        self.size = spec.encoding.region_bytes
        self.index = remote.index
        self.key = hashlib.sha256(remote.header.root.encode() + remote.index).hexdigest()
        """Names the compressed bytes: the content's root and the layout of its blocks."""
        self.cache = cache
        self._head = remote
        self._head_unsaved = not remote.from_cache
        """Whether the head is still to be written to the cache (once a block passes against it)."""
        self._offsets = np.frombuffer(remote.index, dtype="<u8", count=spec.encoding.blocks + 1)
        self._crcs = np.frombuffer(remote.index, dtype="<u4", offset=self._offsets.nbytes)
        self._staged: dict[int, tuple[bytes, bool]] = {}
        self._fresh: dict[int, bytes] = {}
        """Blocks fetched and handed over, not yet checked: written to the cache once they pass."""
        self._from_cache: set[int] = set()
        """Blocks handed over from the cache, not yet checked."""
        self._lock = threading.Lock()
        self.fetched = 0
        """Requests sent for blocks (for figures and tests)."""

    def read(self, start: int, stop: int) -> bytes:
        """Bytes ``start .. stop - 1`` of the region: a block, or the offset table and CRCs."""
        if start >= self.encoding.data_bytes:
            base = self.encoding.data_bytes
            return self.index[start - base : stop - base]
        with self._lock:
            staged = self._staged.pop(start, None)
        if staged is not None and len(staged[0]) == stop - start:
            return self._handed(start, *staged)
        kept = self._cached(start, stop)
        if kept is not None:
            return self._handed(start, kept, True)
        return self._handed(start, self._fetch(start, stop), False)

    def _handed(self, start: int, data: bytes, cached: bool) -> bytes:
        with self._lock:
            if cached:
                self._from_cache.add(start)
            else:
                self._fresh[start] = data
        return data

    def _crc_matches(self, start: int, data: bytes) -> bool:
        """Whether ``data`` is the block at ``start`` as the offset table and CRCs describe it."""
        block = int(np.searchsorted(self._offsets, start))
        if block >= len(self._crcs) or int(self._offsets[block]) != start or int(self._offsets[block + 1]) - start != len(data):
            return False
        return zlib.crc32(data) == int(self._crcs[block])

    def _cached(self, start: int, stop: int) -> bytes | None:
        """The cache's copy of the block at ``start``, if it is whole (its CRC matches)."""
        kept = self.cache.get(self.key, start) if self.cache is not None else None
        return kept if kept is not None and len(kept) == stop - start and self._crc_matches(start, kept) else None

    def _fetch(self, start: int, stop: int) -> bytes:
        data = self.http.get(self.offset + start, self.offset + stop)
        self.fetched += 1
        return data

    def passed(self, start: int, stop: int) -> None:
        """The block at ``start`` passed every check: keep it in the cache if it was fetched, and the head with the first."""
        with self._lock:
            data = self._fresh.pop(start, None)
            self._from_cache.discard(start)
            save_head, self._head_unsaved = self._head_unsaved, False
        if self.cache is None:
            return
        if data is not None:
            self.cache.put(self.key, start, data)
        if save_head:
            self.cache.put_head(self._head.head, self.http.url, self._head.digests + self._head.index)

    def forget(self, start: int, stop: int) -> None:
        """The block at ``start`` failed its checks: drop it (and a head read from the cache) from the cache.

        :raises TableError: naming the cache, when the block or the offset table and CRCs came from there
            (else the block array's error, which names the server, stands).
        """
        with self._lock:
            self._fresh.pop(start, None)
            cached = start in self._from_cache
            self._from_cache.discard(start)
        if self.cache is None:
            return
        self.cache.drop(self.key, start)
        block = int(np.searchsorted(self._offsets, start))
        if cached:
            raise TableError(
                f"{self.http.url}: the copy of block {block} kept in the block cache ({self.cache.path}) fails its check: "
                "it was discarded; read it again to fetch it afresh"
            )
        if self._head.from_cache:
            self.cache.drop_head(self._head.head, self.http.url)
            raise TableError(
                f"{self.http.url}: block {block} as the server sent it does not fit the offset table and CRCs kept for this URL in "
                f"the block cache ({self.cache.path}): that entry was discarded; open the table again to fetch them afresh "
                "(if this happens again, the server sends bytes that are not the table's: try another mirror)"
            )

    def prefetch(self, spans: Sequence[tuple[int, int]]) -> None:
        """Fetch the blocks at ``spans`` that are not cached, neighbours together (:data:`RUN_GAP`,
        :data:`RUN_BYTES`), :data:`FETCH_THREADS` requests at a time; they wait in memory for their read."""
        missing = []
        for start, stop in sorted(spans):
            kept = self._cached(start, stop)
            if kept is None:
                missing.append((start, stop))
                continue
            with self._lock:
                self._staged[start] = (kept, True)
        runs: list[list[tuple[int, int]]] = []
        for span in missing:
            if runs and span[0] - runs[-1][-1][1] <= RUN_GAP and span[1] - runs[-1][0][0] <= RUN_BYTES:
                runs[-1].append(span)
            else:
                runs.append([span])
        if len(runs) == 1:
            self._fetch_run(runs[0])
        elif runs:
            with ThreadPoolExecutor(min(FETCH_THREADS, len(runs)), thread_name_prefix="solver-fetch") as pool:
                list(pool.map(self._fetch_run, runs))

    def _fetch_run(self, run: list[tuple[int, int]]) -> None:
        first = run[0][0]
        data = self.http.get(self.offset + first, self.offset + run[-1][1])
        self.fetched += 1
        for start, stop in run:
            with self._lock:
                self._staged[start] = (data[start - first : stop - first], False)


def open_url(url: str, *, game: TableGame | None = None, expected: Callable[[Header], str | None], cache: BlockCache | None = None) -> TableFile:
    """Open the compressed table file at ``url`` for reading block by block (see the module docstring).

    :param game: the game the file must hold (None: the one its header names).
    :param expected: the checksum the table must have, given its header (None refuses it).
    :param cache: where fetched blocks are kept (None: nowhere, every first touch is a request).
    :raises TableError: naming the URL, for an unreachable server, a file that is not the expected
        table, or a plain (dense) table: those are fetched whole (``solve fetch``).
    """
    http = HttpRange(url)
    remote = read_remote_head(http, game=game, expected=expected, cache=cache)
    header = remote.header
    if header.arrays[0].encoding is None:
        raise TableError(
            f"{url}: holds a {header.kind} {header.game.name} table stored plain, read only from a file: fetch it with: "
            f"solve fetch --game {header.game.name} --from {url}"
        )
    region = RemoteRegion(http, remote, cache)
    fix = "the server sends bytes that are not the table's: nothing was used from them; try another mirror"
    arrays = cast(dict[str, np.ndarray], {"scores": region})  # a source where a file has its memory map: BlockArray takes either
    return TableFile(Path(header.game.name + ".ttt"), header, remote.digests, arrays, where=url, fix=fix)
