"""The HTTP protocol `solve serve` runs: uvicorn's httptools protocol with the bounds it lacks.

uvicorn reads a request's head (request line and headers) for as long as the client
takes and however large it grows, keeps a connection that sent stray bytes (a lone
CRLF after an answer) open for ever, and keeps a response buffered for a client that
never reads it; past ``limit_concurrency`` connections it answers 503 to every request,
the well-behaved clients' included. Here every connection ends within a bounded time
whatever it sends or fails to read:

* **head**: a request head must be complete within :data:`HEAD_SECONDS` of the
  connection opening, or of its first byte (a stray byte after an answer starts one),
  else ``408`` and the connection is closed (silently when only line breaks came);
* **head size**: at most :data:`MAX_HEAD_BYTES`, else ``431`` and the connection is
  closed before the rest is read;
* **body**: a request body must be complete within :data:`BODY_SECONDS` of its head
  (an endpoint that reads the body answers ``408`` itself; otherwise the connection is
  closed once the answer is out);
* **slow reader**: when the client leaves :data:`WRITE_SECONDS` pass with the answer
  stuck in the send buffer (writing paused, the buffer over its high-water mark), the
  connection is aborted and its buffer freed; an answer below that mark that has not moved
  at two checks :data:`WRITE_SECONDS` apart, or a closed connection still flushing to a
  client that reads nothing, is aborted the same way;
* **idle**: uvicorn's keep-alive timeout (``timeout_keep_alive``) closes a connection
  with nothing to do;
* **connections**: past ``max_connections`` open connections (per worker), a new one
  gets ``503`` and is closed at once; the connections already open are served as before.

uvicorn has no supported setting for any of these but the keep-alive timeout (and a head
size limit for its h11 protocol only), so this subclasses its ``HttpToolsProtocol``,
using the hooks :data:`HOOKS` names; ``pyproject.toml`` pins the uvicorn versions they are
tested with, and ``tests/test_web_protocol.py`` fails loudly if a uvicorn release moves
them. Without httptools (the ``web`` extra installs it) uvicorn's h11 protocol runs, with
its own head size limit only.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
from typing import Any, ClassVar

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # httptools missing (the web extra installs it): http_protocol() falls back to uvicorn's h11
    HTTPTOOLS = False
    HttpToolsProtocol = object  # type: ignore[assignment,misc]  # only a base for the class below, never instantiated
else:
    HTTPTOOLS = True

HEAD_SECONDS = 10.0
"""Longest time a request head may take to arrive."""
MAX_HEAD_BYTES = 64 * 1024
"""Largest request head accepted (request line and headers)."""
BODY_SECONDS = 30.0
"""Longest time a request body may take to arrive after its head."""
WRITE_SECONDS = 10.0
"""Longest time an answer may sit in a full send buffer, the client reading nothing."""
MAX_CONNECTIONS = 4096
"""Most connections open at once (per worker); the next ones get 503."""
HOOKS = {
    "methods": (
        "connection_made",
        "connection_lost",
        "data_received",
        "on_message_begin",
        "on_headers_complete",
        "on_message_complete",
        "pause_writing",
        "resume_writing",
    ),
    "attributes": ("transport", "loop", "cycle"),
    "cycle_attributes": ("response_complete",),
}
"""What of uvicorn's ``HttpToolsProtocol`` the subclass relies on (checked by the tests)."""


def _refusal(status: int, reason: str, message: str) -> bytes:
    body = json.dumps({"error": message}).encode() + b"\n"  # ends with a newline, as every JSON body here
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\nconnection: close\r\n\r\n").encode() + body


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` with deadlines on heads, bodies and stalled writes, and a connection cap.

    The bounds are class attributes: :func:`http_protocol` makes a subclass with its own values
    and its own set of open connections, which is the class uvicorn is given.
    """

    head_seconds: ClassVar[float] = HEAD_SECONDS
    max_head_bytes: ClassVar[int] = MAX_HEAD_BYTES
    body_seconds: ClassVar[float] = BODY_SECONDS
    write_seconds: ClassVar[float] = WRITE_SECONDS
    max_connections: ClassVar[int] = MAX_CONNECTIONS
    live: ClassVar[set[GuardedHttpToolsProtocol]] = set()  # this worker's open connections

    _timer: asyncio.TimerHandle | None = None  # the head or body deadline
    _write_timer: asyncio.TimerHandle | None = None
    _watchdog: asyncio.TimerHandle | None = None
    _unsent = 0  # bytes waiting in the send buffer at the last check
    _stuck = False  # nothing was sent since the check before
    _in_head = False  # between a head's first byte and its end
    _in_body = False  # between a head's end and its message's end
    _head_bytes = 0  # bytes of the current head received in earlier chunks
    _full = False  # refused at connection time: what the client sends is read and dropped

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.live) >= self.max_connections:  # answer before reading; drop what the client sends, then close
            self._full = True
            transport.write(_refusal(503, "Service Unavailable", f"the server has {self.max_connections:,} connections open; try again later"))
            if transport.can_write_eof():
                transport.write_eof()
            self.loop.call_later(1.0, transport.close)  # closed once the client's request is read: no reset
            return
        self.live.add(self)
        self._arm(self.head_seconds)
        self._watchdog = self.loop.call_later(self.write_seconds, self._check_sending)

    def connection_lost(self, exc: Exception | None) -> None:
        self.live.discard(self)
        self._disarm()
        self._stop_write_timer()
        if self._watchdog is not None:
            self._watchdog.cancel()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._full:
            return
        if not self._in_body:  # this chunk starts or continues a head: refuse it before parsing if too long
            end = data.find(b"\r\n\r\n")
            if self._head_bytes + (len(data) if end < 0 else end + 4) > self.max_head_bytes:
                self._refuse(431, "Request Header Fields Too Large", f"the request head is over {self.max_head_bytes:,} bytes")
                return
            if self._timer is None:  # bytes outside a request (a stray line break counts): a head has begun
                self._arm(self.head_seconds)
        super().data_received(data)
        if not self._in_body and not self.transport.is_closing():
            self._head_bytes += len(data)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head = True
        self._arm(self.head_seconds)

    def on_headers_complete(self) -> None:
        self._in_head, self._in_body, self._head_bytes = False, True, 0
        self._arm(self.body_seconds)
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._in_body = False
        self._disarm()
        if self.cycle is not None and self.cycle.response_complete:
            self._arm(self.head_seconds)  # answered before its body ended: the body's bytes put off the keep-alive timeout
        super().on_message_complete()

    def pause_writing(self) -> None:
        super().pause_writing()
        self._stop_write_timer()
        self._write_timer = self.loop.call_later(self.write_seconds, self._write_timeout)

    def resume_writing(self) -> None:
        self._stop_write_timer()
        super().resume_writing()

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._timer = self.loop.call_later(seconds, self._timeout, seconds)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _stop_write_timer(self) -> None:
        if self._write_timer is not None:
            self._write_timer.cancel()
            self._write_timer = None

    def _timeout(self, seconds: float) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            self._arm(seconds)  # an answer is being made or sent: the endpoint and the write deadline bound it
        elif self._in_head:
            self._refuse(408, "Request Timeout", f"the request head did not arrive within {self.head_seconds:g} s")
        else:  # never sent a byte, only line breaks, or a body that did not come after its answer
            self.transport.close()

    def _write_timeout(self) -> None:
        self._write_timer = None
        self._drop()  # the client has read nothing for write_seconds: drop its buffered answer

    def _drop(self) -> None:
        """Abort the connection with a reset: the kernel's send buffer is freed too, not flushed for minutes."""
        sock = self.transport.get_extra_info("socket")
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except (AttributeError, OSError):
            pass
        self.transport.abort()

    def _check_sending(self) -> None:
        """Abort a connection whose unsent bytes have not moved (or that is closed but cannot flush) at two checks in a row."""
        unsent = self.transport.get_write_buffer_size()
        stuck = unsent > 0 and (unsent == self._unsent or self.transport.is_closing())
        if stuck and self._stuck:
            self._drop()
            return
        self._unsent, self._stuck = unsent, stuck
        self._watchdog = self.loop.call_later(self.write_seconds, self._check_sending)

    def _refuse(self, status: int, reason: str, message: str) -> None:
        self._disarm()
        self.transport.write(_refusal(status, reason, message))
        self.transport.close()


def http_protocol(
    head_seconds: float = HEAD_SECONDS,
    max_head_bytes: int = MAX_HEAD_BYTES,
    *,
    body_seconds: float = BODY_SECONDS,
    write_seconds: float = WRITE_SECONDS,
    max_connections: int = MAX_CONNECTIONS,
) -> Any:
    """The protocol class (or uvicorn's name for one) to pass as ``uvicorn.Config(http=...)``.

    A subclass of :class:`GuardedHttpToolsProtocol` with these bounds and a set of open
    connections of its own; ``"h11"`` when httptools is missing (h11 limits heads itself:
    ``h11_max_incomplete_event_size``).
    """
    if not HTTPTOOLS:
        return "h11"
    bounds = {
        "head_seconds": head_seconds,
        "max_head_bytes": max_head_bytes,
        "body_seconds": body_seconds,
        "write_seconds": write_seconds,
        "max_connections": max_connections,
    }
    return type("GuardedHttpToolsProtocol", (GuardedHttpToolsProtocol,), {**bounds, "live": set()})
