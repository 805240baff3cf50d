"""The HTTP protocol `solve serve` runs: uvicorn's httptools protocol with the two limits it lacks.

uvicorn reads a request's head (request line and headers) for as long as the client
takes and however large it grows: a client sending one byte a second holds a
connection forever, and a 50 MB header is parsed (seconds of CPU). Here:

* a request head must be complete within :data:`HEAD_SECONDS` of the connection
  opening or of the head's first byte, else the connection gets ``408`` and is closed
  (an idle keep-alive connection is still closed by uvicorn's own keep-alive timeout);
* a request head may be at most :data:`MAX_HEAD_BYTES`, else ``431`` and the
  connection is closed before the rest is read.

Without httptools (the ``web`` extra installs it) uvicorn's h11 protocol is used,
with its own head limit set to :data:`MAX_HEAD_BYTES`.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

HEAD_SECONDS = 10.0
"""Longest time a request head may take to arrive."""
MAX_HEAD_BYTES = 64 * 1024
"""Largest request head accepted (request line and headers)."""


def _refusal(status: int, reason: str, message: str) -> bytes:
    body = json.dumps({"error": message}).encode()
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            "connection: close\r\n\r\n").encode() + body


def http_protocol(head_seconds: float = HEAD_SECONDS, max_head_bytes: int = MAX_HEAD_BYTES) -> Any:
    """The protocol class (or uvicorn's name for one) to pass as ``uvicorn.Config(http=...)``."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # httptools missing: h11, which limits heads itself (h11_max_incomplete_event_size)
        return "h11"

    class GuardedHttpToolsProtocol(HttpToolsProtocol):
        """:class:`HttpToolsProtocol` with a deadline and a size limit on every request head."""

        _head_timer: asyncio.TimerHandle | None = None
        _in_head = False  # between a head's first byte and its end
        _in_body = False  # between a head's end and its message's end
        _head_bytes = 0  # bytes of the current head received in earlier chunks

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if not self._in_body:  # this chunk starts or continues a head: refuse it before parsing if too long
                end = data.find(b"\r\n\r\n")
                if self._head_bytes + (len(data) if end < 0 else end + 4) > max_head_bytes:
                    self._refuse(431, "Request Header Fields Too Large", f"the request head is over {max_head_bytes:,} bytes")
                    return
            super().data_received(data)
            if not self._in_body and not self.transport.is_closing():
                self._head_bytes += len(data)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._in_head = True
            self._arm()

        def on_headers_complete(self) -> None:
            self._in_head, self._in_body, self._head_bytes = False, True, 0
            self._disarm()
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            self._in_body = False
            super().on_message_complete()

        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(head_seconds, self._head_timeout)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_timeout(self) -> None:
            self._head_timer = None
            if self.transport.is_closing():
                return
            if self._in_head:
                self._refuse(408, "Request Timeout", f"the request head did not arrive within {head_seconds:g} s")
            elif self.cycle is None:  # connected, and never sent a byte
                self.transport.close()

        def _refuse(self, status: int, reason: str, message: str) -> None:
            self._disarm()
            self.transport.write(_refusal(status, reason, message))
            self.transport.close()

    return GuardedHttpToolsProtocol
