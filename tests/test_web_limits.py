"""`solve serve` bounded per client: every connection
ends within a bounded time whatever it sends or fails to read, the connection and batch caps close an idle
connection first and refuse the excess only, one client address cannot hold the others out, the open-file
limit is raised and a low one said at start-up, a client that never reads its batch answer holds one slice
of it, error messages do not echo long input, and caches are bounded. Real servers on 127.0.0.0/8 (all of
it is the loopback interface on Linux, so 127.0.0.2 is another client address) with small limits; raw sockets."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
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
          max_connections={MAX_CONNECTIONS}, max_per_address={{per_address}}, max_batches={MAX_BATCHES})
"""
PER_ADDRESS = 4
ANSWER_88 = json.dumps(solver.lookup(88).to_dict(best_first=True)).encode() + b"\n"  # every JSON body ends with a newline


@contextmanager
def small_server(per_address: int) -> Iterator[tuple[int, int]]:
    """The port and pid of a server with small limits and ``per_address`` connections per client address (0: no such cap)."""
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER.format(per_address=per_address)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    try:
        yield int(process.stdout.readline()), process.pid
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=15) == 0
        assert process.stderr is not None
        assert "Traceback" not in process.stderr.read()


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[int, int]]:
    """The port and pid of a server with small limits and no cap per address (every client here is 127.0.0.1)."""
    with small_server(0) as found:
        yield found


@pytest.fixture(scope="module")
def shared() -> Iterator[tuple[int, int]]:
    """The port and pid of a server with small limits and :data:`PER_ADDRESS` connections per client address."""
    with small_server(PER_ADDRESS) as found:
        yield found


def connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    """A connection to the test server from ``source`` (any address of 127.0.0.0/8)."""
    return socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))


def is_open(sock: socket.socket) -> bool:
    """Whether the server has not closed ``sock`` (nothing read, nothing waited for)."""
    sock.setblocking(False)
    try:
        return sock.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        sock.setblocking(True)


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
def test_past_the_cap_an_idle_connection_is_closed_first_then_the_excess_gets_503(server: tuple[int, int]) -> None:
    port = server[0]
    idle = connect(port)
    look_up(idle)  # answered, then idle: the first to be closed when the cap is reached
    held = []
    try:
        statuses = []
        for _ in range(MAX_CONNECTIONS * 2):  # each answered, then a stray line break: busy until the head deadline
            sock = connect(port)
            held.append(sock)
            sock.sendall(request("/api/v1/3x3k3?board=0"))
            statuses.append(read_answer(sock)[0])
            sock.sendall(b"\r\n")
        assert statuses[:MAX_CONNECTIONS] == [200] * MAX_CONNECTIONS, statuses  # the last of them took the idle one's place...
        assert statuses[MAX_CONNECTIONS:] == [503] * MAX_CONNECTIONS, statuses  # ... and with none idle, the excess is refused
        time.sleep(0.3)
        assert not is_open(idle), "the idle connection was not the one closed to make room"
        assert all(is_open(sock) for sock, status in zip(held, statuses, strict=True) if status == 200), "a busy connection was closed"
        with connect(port) as new:  # a new one is over the cap for now
            new.sendall(request("/api/v1/3x3k3?board=88"))
            status, body = read_answer(new)
            assert status == 503 and b"try again" in body
        time.sleep(SECONDS + 1)  # the held connections are closed at their deadline
        with connect(port) as new:
            look_up(new)
    finally:
        idle.close()
        for sock in held:
            sock.close()


def test_a_connection_with_a_request_under_way_is_served_while_new_ones_get_503(server: tuple[int, int]) -> None:
    port = server[0]
    held = [connect(port) for _ in range(MAX_CONNECTIONS - 1)]
    try:
        for sock in held:
            sock.sendall(b"GET /api/v1/3x3k3?board=88 HTTP/1.1\r\nHost: x\r\n")  # a head under way: busy, never closed for room
        with connect(port) as last:
            last.sendall(b"GET /api/v1/3x3k3?board=88 HTTP/1.1\r\n")
            with connect(port) as new:
                assert read_answer(new)[0] == 503
            last.sendall(b"Host: x\r\n\r\n")  # its request completes: answered as before
            assert read_answer(last) == (200, ANSWER_88)
        assert all(is_open(sock) for sock in held)
    finally:
        for sock in held:
            sock.close()
    time.sleep(SECONDS + 1)  # the unfinished heads end with 408 at their deadline


# -- one client address cannot hold the others out ------------------------
def test_many_idle_connections_from_one_address_do_not_lock_another_out(shared: tuple[int, int]) -> None:
    port = shared[0]
    flood = [connect(port, "127.0.0.1") for _ in range(MAX_CONNECTIONS * 4)]  # never send a byte
    try:
        time.sleep(0.3)
        told = [sock.recv(300) if _ready(sock) else b"" for sock in flood]
        assert [answer[:12] for answer in told] == [b""] * PER_ADDRESS + [b"HTTP/1.1 503"] * (len(flood) - PER_ADDRESS), told
        assert b"\r\nretry-after: 1\r\n" in told[-1] and b"your address has 4 connections open" in told[-1], told[-1]
        assert all(is_open(sock) for sock in flood[:PER_ADDRESS])
        for _ in range(MAX_CONNECTIONS * 2):  # another address: every look-up answered, each on a new connection
            with connect(port, "127.0.0.2") as other:
                look_up(other)
    finally:
        for sock in flood:
            sock.close()


def test_one_address_past_its_cap_with_requests_under_way_gets_503_and_another_is_answered(shared: tuple[int, int]) -> None:
    port = shared[0]
    busy = []
    try:
        statuses = []
        for _ in range(PER_ADDRESS * 3):
            sock = connect(port, "127.0.0.1")
            busy.append(sock)
            sock.sendall(b"GET /api/v1/3x3k3 HTTP/1.1\r\nHost: x\r\n")  # never finished: busy until the head deadline
        time.sleep(0.3)
        for sock in busy:
            statuses.append(read_answer(sock)[0] if not is_open(sock) or _ready(sock) else None)
        refused = statuses.count(503)
        assert refused == PER_ADDRESS * 2 and statuses.count(None) == PER_ADDRESS, statuses
        with connect(port, "127.0.0.2") as other:
            look_up(other)
    finally:
        for sock in busy:
            sock.close()
    time.sleep(SECONDS + 1)


def _ready(sock: socket.socket) -> bool:
    """Whether the server has sent something on ``sock`` (peeked, not read)."""
    sock.setblocking(False)
    try:
        return bool(sock.recv(1, socket.MSG_PEEK))
    except BlockingIOError:
        return False
    finally:
        sock.setblocking(True)


def test_when_every_connection_is_taken_the_fullest_address_loses_its_longest_idle_connection(shared: tuple[int, int]) -> None:
    port = shared[0]
    holders = {"127.0.0.3": 4, "127.0.0.4": 3, "127.0.0.5": 3, "127.0.0.6": 2}  # 12: every connection taken, all idle
    assert sum(holders.values()) == MAX_CONNECTIONS and max(holders.values()) <= PER_ADDRESS
    idle = {address: [connect(port, address) for _ in range(count)] for address, count in holders.items()}
    try:
        time.sleep(0.3)
        assert all(is_open(sock) for socks in idle.values() for sock in socks)
        with connect(port, "127.0.0.2") as newcomer:
            look_up(newcomer)
        time.sleep(0.3)
        closed = [(address, index) for address, socks in idle.items() for index, sock in enumerate(socks) if not is_open(sock)]
        assert closed == [("127.0.0.3", 0)], closed
    finally:
        for socks in idle.values():
            for sock in socks:
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


# -- stopping --------------------------------------------------------------
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_the_server_stops_alike_on_sigterm_and_ctrl_c_with_one_worker_or_several(tmp_path: Path, workers: int, signum: int) -> None:
    """A clean stop says so and exits 0 whatever stopped it (with one worker, SIGTERM used to end in the signal's own
    kill, status -15 and no word, once uvicorn had raised it again after its graceful shutdown)."""
    import urllib.request

    process = subprocess.Popen(
        [sys.executable, "-m", "solver.cli", "serve", "--port", "0", "--table-dir", str(tmp_path), "--workers", str(workers)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None and process.stderr is not None
    try:
        url = re.search(r"at (http://\S+/) ", process.stdout.readline())
        assert url is not None, process.stderr.read()
        with urllib.request.urlopen(url[1] + "api/v1/3x3k3?board=88", timeout=10) as answer:
            assert answer.read() == ANSWER_88  # serving: every worker's handlers in place
        time.sleep(0.5)  # the other worker's too
    finally:
        process.send_signal(signum)
        code = process.wait(timeout=15)
    stderr = process.stderr.read()
    assert code == 0, stderr
    assert stderr.splitlines()[-1:] == ["Stopped."], stderr


# -- the open-file limit ------------------------------------------------
@pytest.mark.parametrize(("soft", "hard", "workers"), [(150, 260, 1), (40, 40, 2)])
def test_the_open_file_limit_is_raised_to_the_hard_one_and_one_too_low_is_said_once_at_start_up(tmp_path: Path, soft: int, hard: int, workers: int) -> None:
    import resource
    import urllib.request

    process = subprocess.Popen(
        [sys.executable, "-m", "solver.cli", "serve", "--port", "0", "--quiet", "--table-dir", str(tmp_path), "--workers", str(workers)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard)),
    )
    assert process.stdout is not None and process.stderr is not None
    try:
        url = re.search(r"at (http://\S+/) ", process.stdout.readline())
        assert url is not None, process.stderr.read()
        with urllib.request.urlopen(url[1] + "api/v1/3x3k3?board=88", timeout=10) as answer:
            assert answer.read() == ANSWER_88  # too few connections for a crowd, but it serves
        limits = Path(f"/proc/{process.pid}/limits").read_text()
        assert re.search(rf"Max open files\s+{hard}\s+{hard}\s", limits), limits  # the soft limit raised to the hard one
    finally:
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=15)
    stderr = process.stderr.read()
    assert code == 0, stderr
    said = [line for line in stderr.splitlines() if "open-file limit" in line]
    assert len(said) == 1, said  # once, not once per worker
    room = re.search(r"the open-file limit is ([\d,]+) \(its hard limit\): room for ([\d,]+) connections? at once", said[0])
    assert room is not None and int(room[1].replace(",", "")) == hard, said[0]
    connections = int(room[2].replace(",", ""))
    assert 1 <= connections <= hard - 2 * (hard // 8), said[0]  # the spare descriptors and the refusals' share kept out
    assert ("too few to serve" in said[0]) == (connections < web.protocol.MIN_CONNECTIONS), said[0]
    assert "ulimit -Hn" in said[0] and said[0].startswith("solve: warning: ")


def test_the_connection_cap_follows_the_open_file_limit_so_the_excess_gets_503_not_a_dead_accept(tmp_path: Path) -> None:
    import resource

    args = ["serve", "--port", "0", "--quiet", "--table-dir", str(tmp_path), "--connections-per-address", "0"]
    process = subprocess.Popen(
        [sys.executable, "-m", "solver.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (200, 200)),
    )
    assert process.stdout is not None and process.stderr is not None
    busy = []
    try:
        port = int(re.search(r":(\d+)/ ", process.stdout.readline())[1])  # type: ignore[index]
        room = re.search(r"room for ([\d,]+) connections", process.stderr.readline())
        assert room is not None
        cap = int(room[1].replace(",", ""))
        for _ in range(cap + 3):  # every one with a request under way: none can be closed to make room
            sock = connect(port)
            sock.sendall(b"GET /api/v1/3x3k3?board=88 HTTP/1.1\r\nHost: x\r\n")
            busy.append(sock)
        time.sleep(0.5)
        told = [sock.recv(300) if _ready(sock) else b"" for sock in busy]
        assert told[:cap] == [b""] * cap and all(answer.startswith(b"HTTP/1.1 503") for answer in told[cap:]), told[cap - 1 :]
        assert f"the server has {cap:,} connections open".encode() in told[-1]
        for sock in busy[:3]:  # three of them finish their request: answered
            sock.sendall(b"\r\n")
            assert read_answer(sock) == (200, ANSWER_88)
    finally:
        for sock in busy:
            sock.close()
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=15)
    stderr = process.stderr.read()
    assert code == 0 and "Traceback" not in stderr and "accept" not in stderr, stderr[-2000:]


def test_a_high_enough_open_file_limit_says_nothing() -> None:
    budget = web.protocol.open_file_budget(16)
    assert budget.connections == 16 and budget.warning() is None


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
    served = web_app.served_game(solver.table_for())
    codes = solver.table_for().reachable_codes()
    chunks = web_app.batch_parts(served, np.resize(codes, web_app.BATCH_SLICE * 4), {})
    assert next(chunks) == b'{"results": [' and made == []
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


@pytest.mark.parametrize(("board", "winner", "result"), [("XXX/OO./...", "X", "loss"), ("XX./OOO/X..", "O", "loss"), ("XOX/XOO/OXX", None, "draw")])
def test_a_finished_board_says_over_and_the_winner_and_nobody_to_move(client: TestClient, board: str, winner: str | None, result: str) -> None:
    data = client.get("/api/v1/3x3k3", params={"board": board}).json()
    assert data["over"] is True and data["winner"] == winner
    assert "to_move" not in data and data["moves"] == []
    assert data["result"] == result == solver.lookup(board).result, "one answer everywhere: for the player who would move next"
    [batched] = client.post("/api/v1/3x3k3/batch", json={"boards": [board]}).json()["results"]
    assert batched == data
    playing = client.get("/api/v1/3x3k3", params={"board": "XO./.X./..."}).json()
    assert playing["over"] is False and playing["to_move"] == "O" and playing["result"] == "loss" and "winner" not in playing


@pytest.mark.parametrize(
    ("game", "moves"),
    [("3x3k3", [0, 3, 1, 4, 2]), ("3x3k3", [0, 1, 2, 4, 3, 5, 7, 6, 8]), ("3x3k3-misere", [0, 3, 1, 4, 2]), ("3x3k3-gravity", [0, 1, 0, 1, 0])],
)
def test_a_finished_boards_result_is_the_same_in_python_json_batch_mainline_and_the_cli(game: str, moves: list[int]) -> None:
    from click.testing import CliRunner

    from solver.cli import main

    table = solver.table_for(game)
    position = table.at(0)
    for move in moves:
        position = position.play(move)
    assert position.is_over
    expected = position.result
    client = TestClient(web.create_app([table]))
    name = table.game.name
    data = client.get(f"/api/v1/{name}", params={"board": position.board}).json()
    [batched] = client.post(f"/api/v1/{name}/batch", json={"boards": [position.board]}).json()["results"]
    line = client.get(f"/api/v1/{name}/mainline", params={"board": position.board}).json()
    printed = json.loads(CliRunner().invoke(main, ["lookup", position.board, "--game", name, "--json"]).output)
    assert position.to_dict()["result"] == data["result"] == batched["result"] == line["result"] == printed["result"] == expected


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
