"""A crowd cannot take the server (issue 42, point 2): which long searches are admitted, and when they stop.

The queue's rules on :class:`solver.web.admission.Gate` directly, then the app in-process: a request refused at once
when its search could not start in time, a short search answered during a long one, a disconnected client's search
stopped within a second.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import anyio
import pytest

pytest.importorskip("starlette")

from starlette.testclient import TestClient  # noqa: E402

import solver  # noqa: E402
from solver import web  # noqa: E402
from solver.web.admission import FairTurns, Gate, Refused  # noqa: E402

HARD = "7357561511"
"""A position of ten pieces, past a depth-9 book, whose search takes seconds (a loss in 28 plies; 5.3 s of CPU on one
core with every move valued, measured here): it runs to a budget of a second; the other long ones beside it (``SECOND``,
``THIRD``) likewise."""
SECOND = "2773315563"
"""A draw of ten pieces (4.4 s of CPU, every move valued): past a budget of a second."""
THIRD = "5236371113"
"""A draw of ten pieces (4.2 s of CPU, every move valued): past a budget of a second."""
LATE = "2252576253462244111563365343671351441"
"""End-Easy's first position: a short search answers it."""


def _on_loop(test: Callable[[], Awaitable[None]]) -> None:
    anyio.run(test)


def _search_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "solver-search" and thread.is_alive()]


def test_a_search_that_could_start_only_past_its_budget_is_refused_naming_the_wait() -> None:
    async def test() -> None:
        gate, now = Gate(min_search=0.25), 100.0
        running = gate.admit("127.0.0.1", now + 5, now)
        assert running.ready.is_set() and gate.running is running
        with pytest.raises(Refused) as refused:
            gate.admit("127.0.0.2", now + 5, now)  # could start only at now + 5: nothing left of its budget
        assert refused.value.wait == pytest.approx(5) and refused.value.ahead == 1
        later = gate.admit("127.0.0.2", now + 1 + 5, now + 1)  # a second later, 1 s of search is left for it
        assert not later.ready.is_set() and gate.queue == [later]
        gate.leave(running, now + 2)
        assert later.ready.is_set() and gate.running is later

    _on_loop(test)


def _admitted(gate: Gate, address: str, count: int) -> int:
    """How many of ``count`` searches from ``address`` the gate admits."""
    for taken in range(count):
        try:
            gate.admit(address, 1000.0 + len(gate.queue) + 1, 0.0)  # later arrivals, later deadlines
        except Refused:
            return taken
    return count


def test_an_address_holds_only_its_share_of_the_queue_and_another_address_gets_a_place() -> None:
    async def test() -> None:
        alone = Gate(length=7, min_search=0.0)
        assert _admitted(alone, "busy", 1 + 10) == 1 + 6, "alone, an address may take the running place and fill the queue"
        shared = Gate(length=7, min_search=0.0)
        assert _admitted(shared, "busy", 1) == 1 and _admitted(shared, "other", 1) == 1
        assert _admitted(shared, "busy", 10) == 3, "with another address queued, the busy one holds only its share: 6 places, 2 addresses"
        assert _admitted(shared, "other", 1) == 1, "the other address still gets a place"

    _on_loop(test)


def test_short_searches_are_served_an_address_at_a_time_so_a_crowd_delays_another_address_by_one_turn() -> None:
    async def test() -> None:
        turns, order = FairTurns(slots=1), []
        await turns.take("holder")

        async def ask(address: str) -> None:
            await turns.take(address)
            order.append(address)
            turns.give()

        async with anyio.create_task_group() as group:
            for _ in range(5):
                group.start_soon(ask, "crowd")
            await anyio.sleep(0.01)
            group.start_soon(ask, "honest")
            await anyio.sleep(0.01)
            turns.give()
        assert order.index("honest") <= 1, f"the honest address waited behind the crowd: {order}"

    _on_loop(test)


def test_a_short_search_that_gives_up_waiting_leaves_the_line_and_no_slot_is_lost() -> None:
    async def test() -> None:
        turns = FairTurns(slots=1)
        await turns.take("holder")
        with anyio.move_on_after(0.01):
            await turns.take("gone")  # gives up waiting: it leaves the line
        assert not turns.waiting
        turns.give()
        assert turns.free == 1, "the slot was lost"

    _on_loop(test)


def test_the_server_refuses_a_long_search_at_once_when_the_ones_ahead_could_take_its_budget_and_answers_a_short_one() -> None:
    budget = 1.0
    app = web.create_app([solver.table_for("connect4")], search_budget=budget)
    with TestClient(app) as client:
        answers: dict[str, tuple[Any, float]] = {}

        def ask(moves: str) -> None:
            start = time.monotonic()
            answer = client.get("/api/v1/connect4", params={"moves": moves})
            answers[moves] = (answer, time.monotonic() - start)

        long = [threading.Thread(target=ask, args=(moves,)) for moves in (HARD, SECOND, THIRD)]
        for thread in long:  # arriving 0.1 s apart: the third could start only when the second's deadline has passed
            thread.start()
            time.sleep(0.1)
        try:
            start = time.monotonic()
            short = client.get("/api/v1/connect4", params={"moves": LATE})
            assert short.status_code == 200 and time.monotonic() - start < 1.0, short.text
        finally:
            for thread in long:
                thread.join()
    refused = [moves for moves, (answer, seconds) in answers.items() if "could start only in" in answer.text]
    assert refused, f"every long search was admitted: {answers}"
    for moves in refused:
        answer, seconds = answers[moves]
        assert answer.status_code == 503 and seconds < 1.0 and int(answer.headers["retry-after"]) >= 1, (moves, seconds, answer.text)
    for moves, (answer, seconds) in answers.items():
        assert answer.status_code == 503, (moves, answer.text)
        assert seconds < budget + 1.0, f"{moves} waited {seconds:.2f} s for a budget of {budget:g} s"


def test_a_disconnected_clients_search_stops_within_a_second() -> None:
    # A table of its own, so its engine's transposition table is empty: no other test's search shortens this one
    # (a shared engine once answered it in under a second, before its client could leave).
    app = web.create_app([solver.Tablebase().table("connect4")], search_budget=30.0)
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": "/api/v1/connect4",
        "raw_path": b"/api/v1/connect4",
        "query_string": f"moves={HARD}".encode(),
        "headers": [(b"host", b"127.0.0.1")],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 80),
    }
    sent: list[MutableMapping[str, Any]] = []
    left: list[float] = []

    async def test() -> None:
        gone = anyio.Event()

        async def receive() -> dict[str, Any]:
            if not sent and not gone.is_set():
                sent.append({"type": "asked"})
                return {"type": "http.request", "body": b"", "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        async def send(message: MutableMapping[str, Any]) -> None:
            sent.append(message)

        async def leave() -> None:
            with anyio.fail_after(10.0):  # the search starts (the engine is made before any request)
                while not _search_threads():
                    await anyio.sleep(0.01)
            await anyio.sleep(0.2)
            left.append(time.monotonic())
            gone.set()

        async with anyio.create_task_group() as group:
            group.start_soon(leave)
            await app(scope, receive, send)

    _on_loop(test)
    ended = time.monotonic()
    answered = [message for message in sent if message.get("type") == "http.response.start" and message.get("status") == 200]
    assert not answered, "the search ended before its client left: this test needs a longer one"
    assert left, "the client never left"
    assert ended - left[0] < 1.0, f"the search went on {ended - left[0]:.2f} s after its client left"
    assert not _search_threads()
