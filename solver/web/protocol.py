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
* **connections** (:class:`OpenConnections`): at most ``max_per_address`` open connections
  per client address (an IPv4 address, or an IPv6 address's /64, what one client usually
  holds) and ``max_connections`` in all (per worker). Past its address's cap a new
  connection gets ``503``. When the total is reached, the connection idle longest (one
  waiting for its first request, or between requests) of the address holding the most
  connections is closed to make room; only when none is idle does the new connection get
  ``503``. A connection with a request under way is never closed for room. A refused connection
  is closed 1 s after its 503 (so that the client reads it rather than a reset); past
  ``max_refusing`` of those at once (:data:`MAX_REFUSING`, fewer under a low open-file
  limit), the next is reset at once, so refusals too hold a bounded number of file
  descriptors (:func:`open_file_budget` counts them in).

uvicorn has no supported setting for any of these but the keep-alive timeout (and a head
size limit for its h11 protocol only), so this subclasses its ``HttpToolsProtocol``,
using the hooks :data:`HOOKS` names; ``pyproject.toml`` pins the uvicorn versions they are
tested with, and ``tests/test_web_protocol.py`` fails loudly if a uvicorn release moves
them. Without httptools (the ``web`` extra installs it) uvicorn's h11 protocol runs, with
its own head size limit only.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import socket
import struct
from dataclasses import dataclass
from typing import Any, ClassVar

from ..words import count

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
"""Most connections open at once (per worker), unless the open-file limit allows fewer (:func:`open_file_budget`)."""
MAX_PER_ADDRESS = 64
"""Most connections open at once from one client address (per worker): ten browsers behind one
address (six connections each), while one client alone holds at most 1/64 of :data:`MAX_CONNECTIONS`."""
MAX_REFUSING = 64
"""Refused connections left open at once for their 503 to be read (past these, a refused one is reset);
at most an eighth of the open-file limit."""
SPARE_FILES = 64
"""File descriptors kept for what is not a connection (the tables, the event loop, the log); at most an
eighth of the open-file limit."""
MIN_CONNECTIONS = 16
"""Fewer connections than this at once is too few to serve: said at start-up."""
HOOKS = {
    "methods": (
        "connection_made",
        "connection_lost",
        "data_received",
        "on_message_begin",
        "on_headers_complete",
        "on_message_complete",
        "on_response_complete",
        "pause_writing",
        "resume_writing",
    ),
    "attributes": ("transport", "loop", "cycle", "pipeline"),
    "cycle_attributes": ("response_complete",),
}
"""What of uvicorn's ``HttpToolsProtocol`` the subclass relies on (checked by the tests)."""


def _refusal(status: int, reason: str, message: str, extra: str = "") -> bytes:
    body = json.dumps({"error": message}).encode() + b"\n"  # ends with a newline, as every JSON body here
    head = f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\nconnection: close\r\n{extra}\r\n"
    return head.encode() + body


def client_key(peer: Any) -> str:
    """What the per-address cap counts a connection under: its IPv4 address (an IPv4-mapped IPv6
    one too), the /64 of its IPv6 address, or ``""`` for a Unix socket's."""
    host = peer[0] if isinstance(peer, tuple) and peer and isinstance(peer[0], str) else ""
    if ":" not in host:
        return host
    try:
        address = ipaddress.IPv6Address(host.partition("%")[0])
    except ValueError:
        return host
    if address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return f"{ipaddress.IPv6Address(int(address) >> 64 << 64)}/64"


class OpenConnections:
    """One worker's open connections: how many each client address holds, and which are idle.

    A connection is idle from when it is made until its first byte, and again from when an
    answer is complete until the next byte; ``idle[address]`` keeps an address's idle
    connections in the order they became idle (dicts keep insertion order).
    """

    def __init__(self, total: int = MAX_CONNECTIONS, per_address: int = MAX_PER_ADDRESS, max_refusing: int = MAX_REFUSING) -> None:
        self.total = total
        self.per_address = per_address
        """0: no cap per address (behind a reverse proxy every client has the proxy's address)."""
        self.max_refusing = max_refusing
        self.live: set[GuardedHttpToolsProtocol] = set()
        self.count: dict[str, int] = {}
        self.idle: dict[str, dict[GuardedHttpToolsProtocol, None]] = {}
        self.refusing = 0
        """Refused connections left open for their 503 to be read."""

    def admit(self, connection: GuardedHttpToolsProtocol, address: str) -> str | None:
        """Count ``connection`` in (closing an idle one first if the total is reached), or say why it is refused.

        An address at its own cap is refused rather than having its idle connections closed:
        closing them would let one client churn through connections as fast as it can open
        them, every other client's connections waiting behind its in the accept queue.
        """
        if self.per_address and self.count.get(address, 0) >= self.per_address:
            return f"your address has {self.per_address:,} connections open here; reuse one or try again later"
        if len(self.live) >= self.total and not self._close_idle(max(self.idle, key=self.count.__getitem__, default=None)):
            return f"the server has {self.total:,} connections open; try again later"
        self.live.add(connection)
        self.count[address] = self.count.get(address, 0) + 1
        return None

    def forget(self, connection: GuardedHttpToolsProtocol, address: str) -> None:
        """Count ``connection`` out (closed); nothing if it was not counted."""
        if connection in self.live:
            self.live.discard(connection)
            self.busy(connection, address)
            left = self.count[address] - 1
            if left:
                self.count[address] = left
            else:
                del self.count[address]

    def rest(self, connection: GuardedHttpToolsProtocol, address: str) -> None:
        """``connection`` has nothing to do (it is the last to have become idle)."""
        if connection in self.live:
            self.idle.setdefault(address, {})[connection] = None

    def busy(self, connection: GuardedHttpToolsProtocol, address: str) -> None:
        """``connection`` has a request under way (no longer idle)."""
        waiting = self.idle.get(address)
        if waiting is not None:
            waiting.pop(connection, None)
            if not waiting:
                del self.idle[address]

    def _close_idle(self, address: str | None) -> bool:
        """Close the connection of ``address`` idle longest; whether there was one."""
        waiting = self.idle.get(address) if address is not None else None
        if not waiting:
            return False
        oldest = next(iter(waiting))
        self.forget(oldest, address)  # type: ignore[arg-type]
        oldest.close_idle()
        return True


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` with deadlines on heads, bodies and stalled writes, and connection caps.

    The bounds are class attributes: :func:`http_protocol` makes a subclass with its own values
    and its own :class:`OpenConnections`, which is the class uvicorn is given.
    """

    head_seconds: ClassVar[float] = HEAD_SECONDS
    max_head_bytes: ClassVar[int] = MAX_HEAD_BYTES
    body_seconds: ClassVar[float] = BODY_SECONDS
    write_seconds: ClassVar[float] = WRITE_SECONDS
    max_connections: ClassVar[int] = MAX_CONNECTIONS
    max_per_address: ClassVar[int] = MAX_PER_ADDRESS
    open_connections: ClassVar[OpenConnections] = OpenConnections()
    live: ClassVar[set[GuardedHttpToolsProtocol]] = open_connections.live  # this worker's open connections

    _timer: asyncio.TimerHandle | None = None  # the head or body deadline
    _write_timer: asyncio.TimerHandle | None = None
    _watchdog: asyncio.TimerHandle | None = None
    _unsent = 0  # bytes waiting in the send buffer at the last check
    _stuck = False  # nothing was sent since the check before
    _in_head = False  # between a head's first byte and its end
    _in_body = False  # between a head's end and its message's end
    _head_bytes = 0  # bytes of the current head received in earlier chunks
    _full = False  # refused at connection time: what the client sends is read and dropped
    _lingering = False  # refused, and left open for its 503 to be read (counted in OpenConnections.refusing)
    _address = ""  # the client's address, as the per-address cap counts it (client_key)
    _resting = False  # idle: waiting for a first request, or between requests

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._address = client_key(transport.get_extra_info("peername"))
        refusal = self.open_connections.admit(self, self._address)
        if refusal is not None:
            self._refuse_connection(refusal)
            return
        self._arm(self.head_seconds)
        self._watchdog = self.loop.call_later(self.write_seconds, self._check_sending)
        self._rest()

    def _refuse_connection(self, message: str) -> None:
        """503 before reading; what the client sends is dropped, and the connection closed 1 s later (or reset at once
        when ``max_refusing`` refused connections are open already)."""
        self._full = True
        if self.open_connections.refusing >= self.open_connections.max_refusing:
            self._drop()
            return
        self._lingering = True
        self.open_connections.refusing += 1
        self.transport.write(_refusal(503, "Service Unavailable", message, "retry-after: 1\r\n"))
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(1.0, self.transport.close)  # closed once the client's request is read: no reset

    def close_idle(self) -> None:
        """Close this idle connection to make room for a new one (reset if an answer is still unsent)."""
        self._resting = False
        if self.transport.get_write_buffer_size():
            self._drop()
        else:
            self.transport.close()

    def _rest(self) -> None:
        """Become idle if nothing is under way: no head or body arriving, no answer being made or sent, none waiting."""
        busy = self._in_head or self._in_body or (self.cycle is not None and not self.cycle.response_complete) or self.pipeline
        if not busy and not self.transport.is_closing():
            self._resting = True
            self.open_connections.rest(self, self._address)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._lingering:
            self._lingering = False
            self.open_connections.refusing -= 1
        self.open_connections.forget(self, self._address)
        self._disarm()
        self._stop_write_timer()
        if self._watchdog is not None:
            self._watchdog.cancel()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._full:
            return
        if self._resting:
            self._resting = False
            self.open_connections.busy(self, self._address)
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
        self._rest()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._rest()

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
    max_per_address: int = MAX_PER_ADDRESS,
    max_refusing: int = MAX_REFUSING,
) -> Any:
    """The protocol class (or uvicorn's name for one) to pass as ``uvicorn.Config(http=...)``.

    A subclass of :class:`GuardedHttpToolsProtocol` with these bounds and an
    :class:`OpenConnections` of its own (``max_per_address`` 0: no cap per address);
    ``"h11"`` when httptools is missing (h11 limits heads itself: ``h11_max_incomplete_event_size``).
    """
    if not HTTPTOOLS:
        return "h11"
    bounds = {
        "head_seconds": head_seconds,
        "max_head_bytes": max_head_bytes,
        "body_seconds": body_seconds,
        "write_seconds": write_seconds,
        "max_connections": max_connections,
        "max_per_address": max_per_address,
    }
    connections = OpenConnections(max_connections, max_per_address, max_refusing)
    return type("GuardedHttpToolsProtocol", (GuardedHttpToolsProtocol,), {**bounds, "open_connections": connections, "live": connections.live})


# -- the open-file limit --------------------------------------------------------------------
@dataclass(frozen=True)
class FileBudget:
    """What the open-file limit leaves for connections (per worker process: each has the limit)."""

    limit: int
    """The soft open-file limit, raised to the hard limit (``-1``: unlimited)."""
    hard: int
    """The hard limit (``-1``: unlimited): only root can raise it."""
    in_use: int
    """Descriptors open before serving (the tables, the listening socket, the standard streams)."""
    refusing: int
    """Refused connections that may stay open for their 503 to be read (:data:`MAX_REFUSING`, or fewer)."""
    wanted: int
    """The connections asked for."""
    connections: int
    """The connection cap it leaves room for: ``wanted``, or fewer (at least 1)."""

    def warning(self) -> str | None:
        """What to say at start-up when the limit allows fewer connections than asked, else None."""
        if self.connections >= self.wanted:
            return None
        raised = "its hard limit" if self.limit == self.hard else f"the hard limit is {self.hard:,} but it could not be raised"
        few = ", too few to serve more than a handful of clients" if self.connections < MIN_CONNECTIONS else ""
        return (
            f"the open-file limit is {self.limit:,} ({raised}): room for {count(self.connections, 'connection')} at once "
            f"per worker instead of {self.wanted:,}{few}; past them a new connection gets 503 unless an idle one can be closed. "
            "Raise the hard limit (ulimit -Hn as root, or LimitNOFILE= in a systemd unit) to serve more"
        )


def open_file_budget(wanted: int = MAX_CONNECTIONS) -> FileBudget:
    """Raise this process's soft open-file limit to its hard limit, and what that leaves for ``wanted`` connections.

    Each connection is one descriptor; besides them, the descriptors open now,
    :data:`SPARE_FILES` and :data:`MAX_REFUSING` refused connections must fit (each at most
    an eighth of the limit). Workers forked later inherit the limit.
    """
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX: nothing to raise or count
        return FileBudget(-1, -1, 0, MAX_REFUSING, wanted, wanted)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    if soft == resource.RLIM_INFINITY:
        return FileBudget(-1, -1, 0, MAX_REFUSING, wanted, wanted)
    in_use = _open_descriptors()
    spare, refusing = min(SPARE_FILES, soft // 8), min(MAX_REFUSING, soft // 8)
    room = soft - in_use - spare - refusing
    return FileBudget(soft, -1 if hard == resource.RLIM_INFINITY else hard, in_use, refusing, wanted, max(1, min(wanted, room)))


def _open_descriptors() -> int:
    """How many file descriptors this process has open (Linux and macOS list them; else a guess of 16)."""
    for listing in ("/proc/self/fd", "/dev/fd"):
        try:
            return len(os.listdir(listing))
        except OSError:
            continue
    return 16  # pragma: no cover
