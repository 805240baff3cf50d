"""Deadlines for a server: the response head within a time, the body at a minimum rate, enforced inside every read.

A socket timeout bounds one ``recv`` only: a server that sends one byte every few seconds never
lets it expire, and holds a download (or a look-up) for ever. So, as curl's ``--max-time`` and
``--speed-limit``/``--speed-time`` do, every response of :mod:`solver.storage.remote` is read
through :class:`PacedReader`, which sets the socket's timeout before each ``recv`` to what the
request has left, and counts the bytes that came:

* **the response head** (status line and headers, redirects included) must be in within
  :attr:`Limits.head_seconds` of sending the request (default 30 s);
* **the body** must come at :attr:`Limits.speed_limit` bytes a second or more, averaged over
  every :attr:`Limits.speed_time` seconds (default 1,024 bytes a second over 30 s: a stalled or
  trickling server is cut off within 30 s, a slow but working link is not);
* **one block request** of a table at a URL takes :attr:`Limits.request_seconds` in all (default
  120 s); a download (``solve fetch``) has no such bound, only the rate.

Each is changed by an environment variable (:data:`HEAD_ENV`, :data:`SPEED_LIMIT_ENV`,
:data:`SPEED_TIME_ENV`, :data:`REQUEST_ENV`, read when a URL is opened), or by passing
:class:`Limits` to :class:`solver.storage.remote.HttpRange`. A server that misses one is cut off
with :class:`TooSlow`, whose message says what it did (the caller adds the URL).
"""

from __future__ import annotations

import functools
import http.client
import io
import math
import os
import socket
import ssl
import time
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import TableError, quote

HEAD_ENV = "SOLVED_TICTACTOE_HTTP_HEAD_SECONDS"
SPEED_LIMIT_ENV = "SOLVED_TICTACTOE_HTTP_SPEED_LIMIT"
SPEED_TIME_ENV = "SOLVED_TICTACTOE_HTTP_SPEED_TIME"
REQUEST_ENV = "SOLVED_TICTACTOE_HTTP_REQUEST_SECONDS"


@dataclass(frozen=True)
class Limits:
    """What a server must do in time (see the module docstring); seconds, and bytes a second."""

    head_seconds: float = 30.0
    """Seconds from sending a request until the whole response head is in."""
    speed_limit: int = 1024
    """Bytes a second the body must come at, on average over each :attr:`speed_time` seconds."""
    speed_time: float = 30.0
    """Seconds over which the body's rate is measured."""
    request_seconds: float = 120.0
    """Seconds one block request of a table at a URL may take in all."""

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Limits:
        """The defaults, changed by whichever of the variables are set.

        :raises TableError: naming a variable whose value is not a positive number.
        """
        found = os.environ if environ is None else environ
        default = cls()
        return cls(
            head_seconds=_positive(found, HEAD_ENV, default.head_seconds),
            speed_limit=int(_positive(found, SPEED_LIMIT_ENV, default.speed_limit)),
            speed_time=_positive(found, SPEED_TIME_ENV, default.speed_time),
            request_seconds=_positive(found, REQUEST_ENV, default.request_seconds),
        )


def _positive(environ: Mapping[str, str], name: str, default: float) -> float:
    text = environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text) if text.isascii() else math.nan
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise TableError(f"${name} is {quote(text)}: expected a positive number (default {default:g})")
    return value


class TooSlow(Exception):
    """A server missed a deadline of its :class:`Pace`; the message says what it did (without the URL)."""


class Pace:
    """One request's clock: the head's deadline, then the body's rate, and an overall ``deadline``
    (a :func:`time.monotonic` time, or None)."""

    def __init__(self, limits: Limits, *, deadline: float | None = None) -> None:
        self.limits = limits
        self.started = time.monotonic()
        self.head_by = self.started + limits.head_seconds
        self.deadline = deadline
        self.in_body = False
        self.window_start = 0.0
        self.window_bytes = 0
        self.head_bytes = 0

    def body(self) -> None:
        """The head is in: from now on the rate counts."""
        self.in_body = True
        self.window_start, self.window_bytes = time.monotonic(), 0

    @property
    def _needed(self) -> float:
        return self.limits.speed_limit * self.limits.speed_time

    def timeout(self) -> float:
        """Seconds the next read may wait.

        :raises TooSlow: if a deadline has passed already.
        """
        now = time.monotonic()
        if self.in_body:
            self._roll(now)
            window_end = self.window_start + self.limits.speed_time
            left = (window_end if self.window_bytes < self._needed else window_end + self.limits.speed_time) - now
        else:
            left = self.head_by - now
        if self.deadline is not None:
            left = min(left, self.deadline - now)
        if left <= 0:
            raise self.missed()
        return left

    def got(self, count: int) -> None:
        """``count`` bytes came now (the windows that ended before are checked first)."""
        if not self.in_body:
            self.head_bytes += count
            return
        self._roll(time.monotonic())
        self.window_bytes += count

    def _roll(self, now: float) -> None:
        while now >= self.window_start + self.limits.speed_time:
            if self.window_bytes < self._needed:
                raise self.missed()
            self.window_start += self.limits.speed_time
            self.window_bytes = 0

    def missed(self) -> TooSlow:
        """What the server did, as :class:`TooSlow`."""
        now = time.monotonic()
        head_first = not self.in_body and (self.deadline is None or self.limits.head_seconds <= self.limits.request_seconds)
        if self.deadline is not None and now >= self.deadline and not head_first:
            return TooSlow(f"the server took over {self.limits.request_seconds:g} s to answer one request (${REQUEST_ENV} sets the limit)")
        if not self.in_body:
            return TooSlow(
                f"the server sent no complete response head within {self.limits.head_seconds:g} s "
                f"({self.head_bytes:,} bytes of it came; ${HEAD_ENV} sets the limit)"
            )
        return TooSlow(
            f"the server sent {self.window_bytes:,} bytes in {self.limits.speed_time:g} s, below the minimum rate of "
            f"{self.limits.speed_limit:,} bytes a second (${SPEED_LIMIT_ENV} and ${SPEED_TIME_ENV} set it)"
        )


class PacedReader(io.RawIOBase):
    """A socket's bytes, each ``recv`` bounded by what its :class:`Pace` has left (raises :class:`TooSlow`)."""

    def __init__(self, sock: socket.socket, pace: Pace) -> None:
        super().__init__()
        self._sock = sock
        self._raw = sock.makefile("rb", buffering=0)  # keeps the socket open while the response reads it
        self.pace = pace

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        self._sock.settimeout(self.pace.timeout())
        try:
            count = self._raw.readinto(buffer)
        except TimeoutError:
            raise self.pace.missed() from None
        self.pace.got(count or 0)
        return count

    def close(self) -> None:
        self._raw.close()
        super().close()


class PacedResponse(http.client.HTTPResponse):
    """An HTTP response read through a :class:`PacedReader`."""

    def __init__(self, sock: socket.socket, debuglevel: int = 0, method: str | None = None, url: str | None = None, *, pace: Pace) -> None:
        super().__init__(sock, debuglevel, method, url)
        self.fp.close()
        self.fp = io.BufferedReader(PacedReader(sock, pace))


def pace_connection(connection: http.client.HTTPConnection, pace: Pace) -> None:
    """Have ``connection``'s next response read under ``pace``."""
    connection.response_class = functools.partial(PacedResponse, pace=pace)  # type: ignore[assignment]


def paced_opener(pace: Pace, redirects: urllib.request.HTTPRedirectHandler) -> urllib.request.OpenerDirector:
    """A urllib opener (proxies, redirects) whose responses are read under ``pace``."""

    def http_connection(*args: Any, **kwargs: Any) -> http.client.HTTPConnection:
        connection = http.client.HTTPConnection(*args, **kwargs)
        pace_connection(connection, pace)
        return connection

    def https_connection(*args: Any, **kwargs: Any) -> http.client.HTTPSConnection:
        connection = http.client.HTTPSConnection(*args, **kwargs)
        pace_connection(connection, pace)
        return connection

    class Plain(urllib.request.HTTPHandler):
        def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            return self.do_open(http_connection, req)

    context = tls_context()

    class Secure(urllib.request.HTTPSHandler):
        def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            return self.do_open(https_connection, req, context=context)

    return urllib.request.build_opener(redirects, Plain(), Secure(context=context))


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The default TLS context (certificates verified), made once: loading the system's certificates costs milliseconds."""
    return ssl.create_default_context()
