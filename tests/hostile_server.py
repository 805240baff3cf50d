"""A hostile HTTP server on 127.0.0.1 for the mirror tests: it reads a request and answers whatever bytes it is told,
as slowly as it is told (a status line a byte at a time, 101 headers, a 64 KB header line, a broken chunked body).

Every connection's answer is bounded: a trickle ends after :data:`MOST_SECONDS`, and the server stops when the block ends,
so a client without deadlines still finishes (with some other error) and a test of one never hangs.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

MOST_SECONDS = 12.0
"""Seconds any one answer lasts at most."""


@contextmanager
def answering(answer: bytes, *, pause: float = 0.0) -> Iterator[str]:
    """A server whose every answer is ``answer``, sent a byte every ``pause`` seconds (0: at once); yields its base URL."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    stop = threading.Event()

    def handle(connection: socket.socket) -> None:
        with connection:
            connection.settimeout(5)
            try:
                request = b""
                while b"\r\n\r\n" not in request and len(request) < 65536:
                    part = connection.recv(4096)
                    if not part:
                        return
                    request += part
                if not pause:
                    connection.sendall(answer)
                    return
                until = time.monotonic() + MOST_SECONDS
                for byte in answer:
                    if stop.is_set() or time.monotonic() > until:
                        return
                    connection.sendall(bytes([byte]))
                    time.sleep(pause)
            except OSError:
                return

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=handle, args=(connection,), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/"
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()
