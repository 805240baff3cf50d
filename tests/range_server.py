"""A static file server on 127.0.0.1 for the mirror tests: byte ranges as a web host serves them, and faults on demand.

The standard library's ``http.server`` serves files without ``Range``; this handler answers
``Range: bytes=a-b`` and ``bytes=a-`` with ``206`` (``416`` past the end), as a static host, a
bucket or ``solve serve`` does, and can be told to misbehave: cut a response after some bytes,
change one byte of the file as it is sent, or ignore ranges altogether.
"""

from __future__ import annotations

import re
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

_RANGE = re.compile(r"bytes=(\d+)-(\d*)")


@dataclass
class Faults:
    """What the server does wrong (all off by default)."""

    cut_at: int | None = None
    """Close the connection once the file's byte ``cut_at`` would be sent (once, then serve normally)."""
    flip: int | None = None
    """Send byte ``flip`` of the file changed (xor 0xFF), in every answer that covers it."""
    no_ranges: bool = False
    """Ignore Range headers: send the whole file with 200, as a plain ``python -m http.server`` does."""
    trickle: str | None = None
    """Send the bytes of any answer to a Range header this pattern matches (``re.fullmatch``) one at a time (a slow mirror)."""
    trickle_pause: float = 0.05
    """Seconds between those bytes."""
    trickle_for: float = 12.0
    """Seconds a trickle lasts at most (then the connection is closed): a client without deadlines still ends."""
    ranges_seen: list[str] = field(default_factory=list)
    """Every Range header received (``""`` for none), in order."""


class FileServer(ThreadingHTTPServer):
    """Serves ``files`` (name -> bytes) at ``/<name>`` with :class:`Faults`."""

    daemon_threads = True

    def __init__(self, files: dict[str, bytes]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.files = files
        self.faults = Faults()
        self.redirects: dict[str, str] = {}
        """``/<path>`` -> the ``Location`` a request for it is sent to (302)."""
        self.lock = threading.Lock()
        self.scheme = "http"

    @property
    def url(self) -> str:
        """The base URL, ending with ``/``."""
        host = "localhost" if self.scheme == "https" else "127.0.0.1"  # the name the test certificate is for
        return f"{self.scheme}://{host}:{self.server_address[1]}/"


class _Handler(BaseHTTPRequestHandler):
    server: FileServer

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        if self.path in self.server.redirects:
            self.send_response(302)
            self.send_header("Location", self.server.redirects[self.path])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = self.server.files.get(self.path.lstrip("/"))
        faults = self.server.faults
        wanted = self.headers.get("Range", "")
        with self.server.lock:
            faults.ranges_seen.append(wanted)
        if data is None:
            self.send_error(404)
            return
        start, stop = self._range(wanted, len(data))
        if start is None:
            return
        body = bytearray(data[start:stop])
        if faults.flip is not None and start <= faults.flip < stop:
            body[faults.flip - start] ^= 0xFF
        self._send(body, start, len(data))

    def _range(self, wanted: str, size: int) -> tuple[int | None, int]:
        match = _RANGE.fullmatch(wanted)
        if self.server.faults.no_ranges or match is None:
            self.send_response(200)
            return 0, size
        start = int(match[1])
        stop = min(size, int(match[2]) + 1) if match[2] else size
        if start >= size:
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None, 0
        self.send_response(206)
        self.send_header("Content-Range", f"bytes {start}-{stop - 1}/{size}")
        return start, stop

    def _send(self, body: bytearray, start: int, size: int) -> None:
        faults = self.server.faults
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        if faults.trickle is not None and re.fullmatch(faults.trickle, self.headers.get("Range", "")):
            self.close_connection = True
            until = time.monotonic() + faults.trickle_for
            for byte in bytes(body):
                if time.monotonic() > until:
                    return
                try:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                except OSError:  # the client cut it off: what a trickle is for
                    return
                time.sleep(faults.trickle_pause)
            return
        cut = faults.cut_at
        if cut is not None and start <= cut < start + len(body):
            faults.cut_at = None
            self.wfile.write(bytes(body[: cut - start]))
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(bytes(body))


@contextmanager
def serving(files: dict[str, bytes], *, tls: tuple[Path, Path] | None = None) -> Iterator[FileServer]:
    """A :class:`FileServer` running in a thread for the block's duration (``tls``: over HTTPS with this certificate and key)."""
    server = FileServer(files)
    if tls is not None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*tls)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        server.scheme = "https"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
