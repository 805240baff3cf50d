"""`solve serve` bounded per client (issue 13, problems 5, 6 and 13): every connection ends within a bounded
time whatever it sends or fails to read, the connection and batch caps refuse the excess only, a client that
never reads its batch answer holds one slice of it, error messages do not echo long input, and caches are
bounded. A real server on 127.0.0.1 with small limits; raw sockets."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from web_support import need_web, running_server

import solver

need_web()

from starlette.testclient import TestClient  # noqa: E402

from solver import web  # noqa: E402
from solver.web import app as web_app  # noqa: E402
from solver.web import batch as web_batch  # noqa: E402

SECONDS = 1.0  # head and write deadlines of the test server
MAX_CONNECTIONS = 12
MAX_BATCHES = 2
SERVER = f"""
from solver import web, table_for
sock = web.bind("127.0.0.1", 0)
print(sock.getsockname()[1], flush=True)
web.serve([table_for("3x3k3")], sock=sock, head_seconds={SECONDS}, body_seconds={SECONDS}, write_seconds={SECONDS},
          max_connections={MAX_CONNECTIONS}, max_batches={MAX_BATCHES})
"""
ANSWER_88 = json.dumps(solver.lookup(88).to_dict(best_first=True)).encode() + b"\n"  # every JSON body ends with a newline


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[int, int]]:
    """The port and pid of a server with small limits."""
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"}
    )
    assert process.stdout is not None
    try:
        yield int(process.stdout.readline()), process.pid
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=15) == 0
        assert process.stderr is not None
        assert "Traceback" not in process.stderr.read()


def request(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()


def read_answer(sock: socket.socket) -> tuple[int, bytes]:
    """One Content-Length answer from a keep-alive connection: its status and body."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return 0, data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    while len(body) < length:
        body += sock.recv(65536)
    return int(head[9:12]), body


def look_up(sock: socket.socket) -> None:
    sock.sendall(request("/api/v1/3x3k3?board=88"))
    assert read_answer(sock) == (200, ANSWER_88)


def closed_within(sock: socket.socket, seconds: float) -> float:
    """Seconds until the server closed ``sock`` (reading and dropping what it sends); fails after ``seconds``."""
    started = time.monotonic()
    sock.settimeout(seconds)
    try:
        while sock.recv(65536):
            pass
    except ConnectionResetError:
        pass
    except TimeoutError:
        pytest.fail(f"the connection was still open after {seconds} s")
    return time.monotonic() - started


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


# -- every connection ends ---------------------------------------------------------------
@pytest.mark.parametrize("stray", [b"\r\n", b"\n", b"\r\n\r\n", b"G", b"GET /api"])
def test_a_connection_that_sends_a_stray_byte_after_its_answer_is_closed_within_the_head_deadline(server: tuple[int, int], stray: bytes) -> None:
    with socket.create_connection(("127.0.0.1", server[0])) as sock:
        look_up(sock)
        sock.sendall(stray)
        assert closed_within(sock, SECONDS + 5) >= SECONDS * 0.5


def test_a_connection_that_never_sends_a_byte_is_closed(server: tuple[int, int]) -> None:
    with socket.create_connection(("127.0.0.1", server[0])) as sock:
        assert closed_within(sock, SECONDS + 5) >= SECONDS * 0.5


def test_a_body_that_never_comes_after_a_get_is_cut_off(server: tuple[int, int]) -> None:
    with socket.create_connection(("127.0.0.1", server[0])) as sock:
        sock.sendall(b"GET /api/v1/3x3k3?board=88 HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n")
        for _ in range(3):  # a byte now and then: each would have put off the keep-alive timeout for ever
            time.sleep(SECONDS / 3)
            sock.sendall(b"x")
        closed_within(sock, SECONDS + 5)


def test_a_connection_answered_before_its_body_ended_is_closed_after_the_body(server: tuple[int, int]) -> None:
    with socket.create_connection(("127.0.0.1", server[0])) as sock:
        sock.sendall(b"POST /api/v1/3x3k3 HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n")
        assert read_answer(sock)[0] == 405  # answered at once...
        sock.sendall(b"0123456789")  # ... and the body comes after: it used to put off every timeout for ever
        closed_within(sock, SECONDS + 5)


def test_a_client_that_never_reads_its_answer_is_dropped_and_its_buffer_freed(server: tuple[int, int]) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    with sock:
        sock.connect(("127.0.0.1", server[0]))
        body = json.dumps({"boards": [88] * 20_000}).encode()  # a 14 MB answer
        sock.sendall(b"POST /api/v1/3x3k3/batch HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        time.sleep(SECONDS + 3)  # read nothing meanwhile
        received = 0
        sock.settimeout(5)
        try:
            while chunk := sock.recv(65536):
                received += len(chunk)
        except ConnectionResetError:
            pass
        assert 0 < received < 20_000 * len(ANSWER_88) / 2, received  # cut off long before the end
    with socket.create_connection(("127.0.0.1", server[0])) as other:
        look_up(other)


# -- the caps refuse the excess only -------------------------------------------------------
def test_held_connections_do_not_starve_a_client_and_the_excess_gets_503(server: tuple[int, int]) -> None:
    port = server[0]
    well_behaved = socket.create_connection(("127.0.0.1", port), timeout=10)
    look_up(well_behaved)
    held = []
    try:
        statuses = []
        for _ in range(MAX_CONNECTIONS * 2):  # each answered, then a stray line break: held until the deadline
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            held.append(sock)
            sock.sendall(request("/api/v1/3x3k3?board=0"))
            statuses.append(read_answer(sock)[0])
            sock.sendall(b"\r\n")
        assert statuses.count(503) >= MAX_CONNECTIONS, statuses  # the excess is refused...
        assert statuses.count(200) >= MAX_CONNECTIONS - 2, statuses
        for _ in range(20):
            look_up(well_behaved)  # ... while a connection already open is served as before
        with socket.create_connection(("127.0.0.1", port), timeout=10) as new:  # a new one is over the cap for now
            new.sendall(request("/api/v1/3x3k3?board=88"))
            status, body = read_answer(new)
            assert status == 503 and b"try again" in body
        time.sleep(SECONDS + 1)  # the held connections are closed at their deadline
        with socket.create_connection(("127.0.0.1", port), timeout=10) as new:
            look_up(new)
    finally:
        well_behaved.close()
        for sock in held:
            sock.close()


def test_batch_clients_that_never_read_hold_little_memory_the_excess_gets_503_and_single_look_ups_go_on(server: tuple[int, int]) -> None:
    port, pid = server
    codes = solver.table_for().reachable_codes()
    body = json.dumps({"boards": np.resize(codes, 100_000).tolist()}).encode()  # a 70 MB answer if made at once
    post = b"POST /api/v1/3x3k3/batch HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    before = rss_mib(pid)
    clients = []
    try:
        for _ in range(MAX_BATCHES * 3):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", port))
            sock.sendall(post)
            clients.append(sock)
        time.sleep(0.5)
        with socket.create_connection(("127.0.0.1", port), timeout=5) as single:
            for _ in range(50):
                look_up(single)
        grown = rss_mib(pid) - before
        refused = 0
        for sock in clients:
            sock.settimeout(5)
            try:
                refused += sock.recv(12).startswith(b"HTTP/1.1 503")
            except ConnectionResetError:  # an accepted batch, dropped for not reading
                pass
        assert refused >= MAX_BATCHES, refused  # past MAX_BATCHES at once
        assert grown < 60, f"the server grew by {grown:.0f} MiB"  # one slice each, not 70 MB each
    finally:
        for sock in clients:
            sock.close()


# -- messages and caches -------------------------------------------------------------------
@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(web.create_app([solver.table_for()])) as test_client:
        yield test_client


@pytest.mark.parametrize(
    ("path", "quoted"),
    [
        ("/api/v1/" + "x" * 3000, True),
        ("/" + "x" * 3000, True),
        ("/static/" + "x" * 3000, True),
        ("/api/v1/3x3k3?board=" + "X" * 3000, False),
        ("/api/v1/3x3k3/analyze?moves=" + "9" * 3000, False),
        ("/api/v1/3x3k3/analyze?moves=" + "4," * 1000, False),
    ],
)
def test_an_error_message_does_not_echo_thousands_of_characters(client: TestClient, path: str, quoted: bool) -> None:
    answer = client.get(path)
    assert 400 <= answer.status_code < 500
    message = answer.json()["error"]
    assert len(message) <= web_app.MAX_MESSAGE_CHARS, message
    if quoted:  # the server's own messages quote a few dozen characters of what was sent, and say how long it was
        assert "x" * 100 not in message and "3,0" in message, message


def test_the_best_move_text_cache_is_bounded() -> None:
    game = solver.parse_game("4x4")
    web_batch._best_texts.cache_clear()
    for mask in range(1, web_batch.BEST_TEXTS_CACHED * 3):
        web_batch._best_texts(game, mask)
    assert web_batch._best_texts.cache_info().currsize == web_batch.BEST_TEXTS_CACHED


def test_a_batch_answer_is_made_one_slice_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[int] = []
    real = web_app.answers

    def counting(table: object, codes: np.ndarray) -> list[bytes]:
        made.append(len(codes))
        return real(table, codes)  # type: ignore[arg-type]

    monkeypatch.setattr(web_app, "answers", counting)
    served = web_app.served(solver.table_for())
    codes = solver.table_for().reachable_codes()
    chunks = web_app.batch_chunks(served, np.resize(codes, web_app.BATCH_SLICE * 4), {})
    assert next(chunks) == b'{"results":[' and made == []
    next(chunks)
    assert len(made) == 1 and made[0] <= web_app.BATCH_SLICE  # only the first slice is made so far
    rest = b"".join(chunks)
    assert len(made) == 4 and rest.endswith(b"]}\n")


# -- the games list, the finished board ----------------------------------------------------
def test_the_games_list_offers_a_game_that_is_not_served(client: TestClient) -> None:
    more = client.get("/api/v1/games").json()["more"]
    assert "solve serve --game 3x4k3" in more
    other = TestClient(web.create_app([solver.table_for(), solver.table_for("3x4k3")]))
    assert "solve serve --game 4x4k4" in other.get("/api/v1/games").json()["more"]


@pytest.mark.parametrize(("board", "winner"), [("XXX/OO./...", "X"), ("XX./OOO/X..", "O"), ("XOX/XOO/OXX", None)])
def test_a_finished_board_says_over_and_the_winner_and_nobody_to_move(client: TestClient, board: str, winner: str | None) -> None:
    data = client.get("/api/v1/3x3k3", params={"board": board}).json()
    assert data["over"] is True and data["winner"] == winner
    assert "to_move" not in data and "result" not in data and data["moves"] == []
    [batched] = client.post("/api/v1/3x3k3/batch", json={"boards": [board]}).json()["results"]
    assert batched == data
    playing = client.get("/api/v1/3x3k3", params={"board": "XO./.X./..."}).json()
    assert playing["over"] is False and playing["to_move"] == "O" and playing["result"] == "loss" and "winner" not in playing


# -- workers -------------------------------------------------------------------------------
def test_two_workers_both_answer_on_the_same_port(tmp_path: Path) -> None:
    import urllib.request

    with running_server(tmp_path, "--workers", "2") as (url, process):
        seen: set[str] = set()
        for _ in range(200):
            with urllib.request.urlopen(url + "api/v1/3x3k3?board=88", timeout=10) as answer:
                assert answer.read() == ANSWER_88
                seen.add(answer.headers["x-worker"])
            if len(seen) == 2:
                break
        assert seen == {"1", "2"}
        children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
        if children.exists():
            assert len(children.read_text().split()) == 2
