"""`solve serve` under bad clients: malformed JSON, enormous query strings and headers, slow and
half-closed connections, unknown paths and path traversal get their status codes, and the server
keeps answering correctly (a real server on 127.0.0.1, raw sockets); and under a table file
truncated or rewritten while it runs: an error for the requests that
need the lost bytes, never a dead server."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from table_forms import write_plain_compact
from web_support import need_web, running_server

import solver
import solver.contents.opening
from solver.store.locate import open_compact

_CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(solver.__file__))).encode()
"""Where the package lives: no answer may show it."""

need_web()

HEAD_SECONDS = 1.0
SERVER = f"""
import sys
from solver import web, table_for
sock = web.bind("127.0.0.1", 0)
print(sock.getsockname()[1], flush=True)
web.serve([table_for("3x3k3")], sock=sock, head_seconds={HEAD_SECONDS})
"""
ANSWER_88 = json.dumps(solver.lookup(88).to_dict(best_first=True)).encode() + b"\n"  # every JSON body ends with a newline


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"}
    )
    assert process.stdout is not None
    try:
        yield int(process.stdout.readline())
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=15) == 0
        assert process.stderr is not None
        assert "Traceback" not in process.stderr.read()


def exchange(port: int, data: bytes, *, half_close: bool = False, timeout: float = 5) -> bytes:
    """Send ``data`` on a new connection; everything the server sends back until it closes or goes quiet."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        try:
            sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        chunks = []
        try:
            while chunk := sock.recv(65536):
                chunks.append(chunk)
                if b"\r\n\r\n" in b"".join(chunks) and not half_close and _complete(b"".join(chunks)):
                    break
        except (TimeoutError, ConnectionResetError):
            pass
    return b"".join(chunks)


def _complete(data: bytes) -> bool:
    head, _, body = data.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return len(body) >= int(line.split(b":")[1])
    return True


def status(response: bytes) -> int:
    return int(response[9:12]) if response.startswith(b"HTTP/1.1 ") else 0


def get(path: str, extra: str = "") -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n".encode()


def post(path: str, body: bytes) -> bytes:
    return f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body


def assert_still_answers(port: int) -> None:
    response = exchange(port, get("/api/v1/3x3k3?board=XO./.X./..."))
    assert status(response) == 200 and response.endswith(ANSWER_88)


@pytest.mark.parametrize(
    ("name", "request_", "expected"),
    [
        ("malformed JSON", post("/api/v1/3x3k3/batch", b'{"boards": [1, 2'), {400}),
        ("JSON that is not an object", post("/api/v1/3x3k3/batch", b"[1, 2, 3]"), {400}),
        ("deeply nested JSON", post("/api/v1/3x3k3/batch", b"[" * 200_000), {400}),
        ("a declared body of 1 GB", b"POST /api/v1/3x3k3/batch HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999\r\n\r\n", {413}),
        ("a query string of 8 kB", get("/api/v1/3x3k3?board=" + "X" * 8_000), {414}),
        ("a query string of 1 MB", get("/api/v1/3x3k3?board=" + "X" * 1_000_000), {431}),
        ("a header of 1 MB", get("/", "X-Big: " + "a" * 1_000_000 + "\r\n"), {431}),
        ("unknown path", get("/wp-login.php"), {404}),
        ("path traversal", get("/static/../../../../etc/passwd"), {404}),
        ("encoded path traversal", get("/static/%2e%2e%2f%2e%2e%2fapi.py"), {404}),
        ("encoded traversal in the game", get("/api/v1/..%2f..%2fetc%2fpasswd"), {404}),
        ("absolute URL to a file", get("file:///etc/passwd"), {400, 404}),
        ("garbage", b"\x00\xff\xfe GARBAGE\r\n\r\n", {400}),
        ("unknown method", b"BREW /api/v1/3x3k3 HTTP/1.1\r\nHost: x\r\n\r\n", {400, 405}),
        ("a bad board", get("/api/v1/3x3k3?board=QQQ"), {400}),
        ("a game not served", get("/api/v1/5x5k4?board=0"), {404}),
    ],
)
def test_a_bad_request_gets_its_status_and_the_server_keeps_answering(port: int, name: str, request_: bytes, expected: set[int]) -> None:
    response = exchange(port, request_)
    assert status(response) in expected, f"{name}: {response[:200]!r}"
    assert b"Traceback" not in response and _CHECKOUT not in response, "an error must not show a traceback or where the code lives"
    if b"application/json" in response.split(b"\r\n\r\n")[0]:
        assert "error" in json.loads(response.split(b"\r\n\r\n", 1)[1])
    assert_still_answers(port)


def test_no_request_path_reaches_the_file_system(port: int) -> None:
    for path in (
        "/static/app.py",
        "/static/__init__.py",
        "/static/../app.py",
        "/static/%2e%2e/app.py",
        "/static/.%2e/app.py",
        "/static/..\\app.py",
        "/static//etc/passwd",
        "/static/index.html",
        "/pyproject.toml",
        "/data/3x3k3.ttt",
        "/api/v1/3x3k3.ttt",
        "/api/v1/..%2F3x3k3",
    ):
        response = exchange(port, get(path))
        assert status(response) == 404, f"{path}: {response[:120]!r}"
    assert status(exchange(port, get("/static/app.js"))) == 200


def test_a_half_closed_connection_still_gets_its_answer(port: int) -> None:
    response = exchange(port, get("/api/v1/3x3k3?board=88"), half_close=True)
    assert status(response) == 200 and ANSWER_88 in response
    assert exchange(port, b"", half_close=True) == b""  # closed before any request: closed quietly
    assert status(exchange(port, b'POST /api/v1/3x3k3/batch HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"bo', half_close=True)) in {0, 400}
    assert_still_answers(port)


def test_a_slow_request_head_is_cut_off_while_others_are_answered(port: int) -> None:
    slow = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(20)]
    try:
        for sock in slow:
            sock.sendall(b"GET /api/v1/3x3k3 HTTP/1.1\r\nHost: x\r\n")  # the head never ends
        started = time.monotonic()
        while time.monotonic() - started < HEAD_SECONDS / 2:
            assert_still_answers(port)
        answers = [sock.recv(4096) for sock in slow]
        waited = time.monotonic() - started
    finally:
        for sock in slow:
            sock.close()
    assert all(status(answer) == 408 for answer in answers), answers[0][:100]
    assert HEAD_SECONDS * 0.5 <= waited < HEAD_SECONDS + 5
    idle = socket.create_connection(("127.0.0.1", port), timeout=10)  # a connection that never sends a byte
    with idle:
        assert idle.recv(100) == b""  # closed by the server after HEAD_SECONDS
    assert_still_answers(port)


def test_keep_alive_connections_answer_many_requests_in_a_row(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        stream = sock.makefile("rb")
        for code in solver.table_for().reachable_codes()[:300].tolist():
            sock.sendall(get(f"/api/v1/3x3k3?board={code}"))
            head = b""
            while not head.endswith(b"\r\n\r\n"):
                head += stream.readline()
            length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
            assert json.loads(stream.read(length)) == solver.lookup(code).to_dict(best_first=True)


# -- a table changed or truncated under the server --------------------------
def played_codes(table: solver.Table, games: int, seed: int) -> list[int]:
    """The codes of every position in ``games`` random games of ``table``'s game, first moves first (in play only)."""
    rng = random.Random(seed)
    codes: dict[int, None] = {}
    for _ in range(games):
        position = table.at(0)
        while not position.is_over:
            codes[position.code] = None
            position = position.play(rng.choice([cell for cell, piece in enumerate(position.cells) if piece is None]))
    return list(codes)


def fetch(url: str) -> tuple[int, bytes]:
    """GET ``url``: its status and body, an error status included."""
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def post_json(url: str, data: object) -> tuple[int, bytes]:
    """POST ``data`` as JSON to ``url``: its status and body, an error status included."""
    request = urllib.request.Request(url, json.dumps(data).encode(), {"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_a_compact_table_truncated_under_the_server_gives_an_error_for_that_request_and_the_server_goes_on(tmp_path: Path, stand_in_table: bytes) -> None:
    served = tmp_path / "served"
    served.mkdir()
    path = served / "2x9k4.ttt"
    path.write_bytes(stand_in_table)
    pristine = tmp_path / "pristine.ttt"
    pristine.write_bytes(stand_in_table)
    reference = open_compact(pristine)
    codes = played_codes(reference, 300, seed=22)
    with running_server(served) as (url, process):
        early = codes[:5]
        for code in early:  # answered (and their blocks kept decoded) before the file is cut
            assert fetch(f"{url}api/v1/2x9k4?board={code}") == (200, json.dumps(reference.at(code).to_dict(best_first=True)).encode() + b"\n")
        os.truncate(path, len(stand_in_table) // 2)  # in place: the server's descriptor sees it
        statuses = []
        for code in codes:
            status, body = fetch(f"{url}api/v1/2x9k4?board={code}")
            statuses.append(status)
            if status == 200:
                assert body == json.dumps(reference.at(code).to_dict(best_first=True)).encode() + b"\n", code
            else:
                assert status == 500 and "file changed or was damaged" in json.loads(body)["error"], body[:300]
                assert str(path).encode() not in body, "a client must not learn where the server keeps its files"
        assert statuses.count(500) > 0, "no request reached the cut part of the file"
        assert all(statuses[codes.index(code)] == 200 for code in early)
        status, body = post_json(f"{url}api/v1/2x9k4/batch", {"boards": codes})
        assert status == 500 and "error" in json.loads(body)
        assert fetch(f"{url}api/v1/3x3k3?board=88") == (200, ANSWER_88), "the server stopped answering"
        assert process.poll() is None
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=15) == 0
        assert process.stderr is not None
        stderr = process.stderr.read()
    assert "Traceback" not in stderr and "past the end of the file" in stderr and str(path) in stderr, stderr[-2000:]


def test_a_dense_table_truncated_or_overwritten_under_the_server_is_still_answered_from_its_copy(tmp_path: Path) -> None:
    served = tmp_path / "served"
    served.mkdir()
    path = solver.build_table(game="3x4k3").save(served / "3x4k3.ttt")
    reference = solver.load_table(path, verify=True)
    reachable = reference.reachable_codes()
    codes = [*reachable[:: max(1, len(reachable) // 200)].tolist(), int(reachable[-1])]  # spread over the whole file, the last one too
    expected = {code: json.dumps(reference.at(code).to_dict(best_first=True)).encode() + b"\n" for code in codes}
    size = path.stat().st_size
    with running_server(served) as (url, process):
        assert fetch(f"{url}api/v1/3x4k3?board={codes[0]}") == (200, expected[codes[0]])
        os.truncate(path, 4096)  # in place: a memory map of it would fault (SIGBUS) past 4 KiB
        for code in codes:
            assert fetch(f"{url}api/v1/3x4k3?board={code}") == (200, expected[code]), code
        path.write_bytes(bytes(size))  # the same file rewritten with zeros
        for code in codes[::10]:
            assert fetch(f"{url}api/v1/3x4k3?board={code}") == (200, expected[code]), code
        assert process.poll() is None


def test_prepare_to_serve_leaves_no_table_reading_a_memory_map_and_a_plain_compact_file_cut_afterwards_changes_nothing(
    tmp_path: Path, stand_in_layers: list[np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    from solver import web
    from solver.storage import trust
    from solver.tables import CompactTable

    game = solver.parse_game("2x9k4")
    path = write_plain_compact(tmp_path / "2x9k4.ttt", CompactTable.from_layers(game, stand_in_layers))
    monkeypatch.setattr(trust, "expected_root", lambda game, kind="dense": None)  # its checksum is the compressed file's
    table = CompactTable.from_file(solver.contents.opening.open_table(path))
    assert table.reads_memory_map
    codes = played_codes(table, 50, seed=5)
    expected = [table.at(code).to_dict(best_first=True) for code in codes]
    assert web.prepare_to_serve(table) is table and not table.reads_memory_map
    os.truncate(path, 4096)
    assert [table.at(code).to_dict(best_first=True) for code in codes] == expected
    dense = solver.load_table(solver.build_table(game="3x4k3").save(tmp_path / "3x4k3.ttt"))
    assert dense.reads_memory_map and not web.prepare_to_serve(dense).reads_memory_map


def test_a_compact_table_past_the_start_up_bound_is_served_at_once_and_its_damaged_block_refused_when_first_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 6x6k4-gravity decodes to 600.5 GB: verifying it whole kept a server from listening for minutes; past
    # VERIFIED_AT_START a table is checked block by block as it is read, below it every block before listening
    from solver import web
    from solver.store.make import build_compact
    from solver.tables import CompactTable

    path = build_compact(solver.parse_game("4x4k3-gravity"), tmp_path / "4x4k3-gravity.ttt", jobs=1)  # its checksum ships
    with path.open("r+b") as handle:  # a byte of a block in the middle of the file flipped
        handle.seek(path.stat().st_size // 2)
        byte = handle.read(1)
        handle.seek(-1, os.SEEK_CUR)
        handle.write(bytes([byte[0] ^ 0xFF]))

    def opened() -> CompactTable:
        table = CompactTable.from_file(solver.contents.opening.open_table(path))
        assert not table.reads_memory_map
        return table

    small = opened()
    assert web.verified_at_start(small)
    with pytest.raises(solver.TableError):
        web.prepare_to_serve(small)
    monkeypatch.setattr(web.app, "VERIFIED_AT_START", small.file_boards() - 1)
    large = opened()
    assert not web.verified_at_start(large)
    assert web.prepare_to_serve(large) is large  # not verified: served at once
    with pytest.raises(solver.TableError):
        large.verify_blocks()  # the damaged block is still found when read


def test_the_old_name_hold_still_prepares_a_table_and_says_it_is_deprecated(tmp_path: Path) -> None:
    from solver import web

    dense = solver.load_table(solver.build_table(game="2x3").save(tmp_path / "2x3k2.ttt"))
    with pytest.warns(DeprecationWarning, match="prepare_to_serve"):
        assert web.hold(dense) is dense and not dense.reads_memory_map
