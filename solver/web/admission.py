"""Which searches a server starts: a crowd of hard Connect Four positions cannot take it.

A request to a game answered by search (Connect Four) has a budget, counted from its arrival: what its user waits,
queueing included (``solve serve --search-budget``). It is answered in two steps:

1. **A short search, at once.** The engine first searches in the request's thread, up to a few thousand positions
   (:data:`solver.search.engine.SHORT_NODES`, milliseconds), beside any long search: a position the book or a short
   search answers (most positions past the opening) is served during any flood. At most :data:`SHORT_THREADS` of
   these run at once; the others wait their turn on the event loop (not in threads), an address at a time in turn
   (:class:`FairTurns`), so that a crowd from one address delays another's request by a turn at most.
2. **A long search, admitted or refused at once.** A search that needs more runs alone (the engine's threads use
   every core), one at a time a game, after the ones admitted before it. It is admitted only when it can start
   within its budget, counting that each search ahead of it may run to its own deadline, and keep at least
   :data:`MIN_SEARCH_SECONDS` to search; otherwise it is refused at once (503, ``Retry-After``), the wait named. The
   queue holds at most :data:`QUEUE_LENGTH` searches, shared fairly between client addresses as connections are
   (:mod:`solver.web.protocol`): an address holds at most its share of it (the places divided by the addresses
   queued, itself included), so a crowd from one address leaves room for the others. The queue is first come first
   served: a search admitted was promised its start, and no later one passes it. A search whose client goes (its
   connection closed) leaves the queue, or is stopped within :data:`~solver.search.engine.STOP_POLL_SECONDS` while
   it runs.

Everything here runs on the server's event loop (one thread): the queue needs no lock.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

import anyio
import anyio.to_thread
from starlette.exceptions import HTTPException
from starlette.requests import Request

from ..api import searches_by
from ..errors import SearchDeferred

QUEUE_LENGTH = 16
"""Most long searches a game's queue holds (per server process), the running one included."""

MIN_SEARCH_SECONDS = 0.25
"""The least time a long search is promised once it starts: one that could start only later than its deadline minus
this is refused at once."""

SHORT_THREADS = 2
"""Short searches made at once (a core each on this machine's two): a flood's short searches take turns instead of
crowding every core."""


@dataclass(eq=False)
class Ticket:
    """One long search admitted to a game's queue: its client's address, its deadline (:func:`time.monotonic`
    seconds), and the event set when its turn comes."""

    address: str
    deadline: float
    ready: anyio.Event = field(default_factory=anyio.Event)


class Refused(Exception):
    """A search that cannot start within its budget: :attr:`wait` seconds at worst before it could."""

    def __init__(self, wait: float, ahead: int) -> None:
        super().__init__(f"{ahead} searches are ahead of it")
        self.wait = wait
        self.ahead = ahead


class Gate:
    """One game's long searches in one server process (module docstring): the running one and the queue."""

    def __init__(self, length: int = QUEUE_LENGTH, min_search: float = MIN_SEARCH_SECONDS) -> None:
        self.length = length
        self.min_search = min_search
        self.running: Ticket | None = None
        self.queue: list[Ticket] = []

    def admit(self, address: str, deadline: float, now: float | None = None) -> Ticket:
        """A ticket for a long search that can start in time, its turn given at once when nothing runs.

        :raises Refused: when it could not start by ``deadline - min_search``, the queue is full, or the address
            holds its share of it already.
        """
        now = time.monotonic() if now is None else now
        ticket = Ticket(address, deadline)
        if self.running is None and not self.queue:
            self._start(ticket)
            return ticket
        addresses = {each.address for each in self.queue} | {address}
        mine = sum(each.address == address for each in self.queue)
        if len(self.queue) >= self.length - 1 or mine >= max(1, (self.length - 1) // len(addresses)):
            raise Refused(self._worst_start(self.queue, len(self.queue), now) - now, len(self.queue) + 1)
        start = self._worst_start(self.queue, len(self.queue), now)
        if start + self.min_search > deadline:
            raise Refused(start - now, len(self.queue) + 1)
        self.queue.append(ticket)
        return ticket

    def _worst_start(self, queue: list[Ticket], index: int, now: float) -> float:
        """The latest time ``queue[index]`` starts: when every search ahead of it has run to its deadline."""
        ends = [each.deadline for each in queue[:index]]
        if self.running is not None:
            ends.append(self.running.deadline)
        return max([now, *ends])

    def _start(self, ticket: Ticket) -> None:
        self.running = ticket
        ticket.ready.set()

    def leave(self, ticket: Ticket, now: float | None = None) -> None:
        """The ticket's search ended, or its client went, or its deadline passed: the next one's turn (a queued one
        whose deadline has passed by ``now`` is skipped: its request has answered 503 already)."""
        if ticket in self.queue:
            self.queue.remove(ticket)
        if self.running is ticket:
            self.running = None
            now = time.monotonic() if now is None else now
            while self.queue and self.running is None:
                following = self.queue.pop(0)
                if following.deadline > now:
                    self._start(following)


class FairTurns:
    """At most ``slots`` short searches at once; the requests waiting for one are served an address at a time in
    turn (round robin), so that a crowd from one address delays another address's request by one turn at most."""

    def __init__(self, slots: int = SHORT_THREADS) -> None:
        self.free = slots
        self.waiting: OrderedDict[str, deque[anyio.Event]] = OrderedDict()

    async def take(self, address: str) -> None:
        """Wait for a slot (give it back with :meth:`give`)."""
        if self.free and not self.waiting:
            self.free -= 1
            return
        turn = anyio.Event()
        self.waiting.setdefault(address, deque()).append(turn)
        try:
            await turn.wait()
        except BaseException:
            if turn.is_set():
                self.give()  # the slot came as the wait was cancelled: pass it on
            else:
                self._forget(address, turn)
            raise

    def give(self) -> None:
        """A slot is free: to the next address in turn, or kept."""
        if not self.waiting:
            self.free += 1
            return
        address, turns = next(iter(self.waiting.items()))
        turn = turns.popleft()
        if turns:
            self.waiting.move_to_end(address)
        else:
            del self.waiting[address]
        turn.set()

    def _forget(self, address: str, turn: anyio.Event) -> None:
        turns = self.waiting.get(address)
        if turns is not None and turn in turns:
            turns.remove(turn)
            if not turns:
                del self.waiting[address]


@dataclass
class Admission:
    """A server process's admission: a :class:`Gate` a game, and the turns of short searches."""

    gates: dict[str, Gate] = field(default_factory=dict)
    short: FairTurns = field(default_factory=FairTurns)

    def gate(self, game: str) -> Gate:
        return self.gates.setdefault(game, Gate())


async def searched(request: Request, admission: Admission, game: str, budget: float, deadline: float, make: Callable[[], bytes]) -> bytes:
    """The body ``make`` gives, every search in it done by ``deadline`` (module docstring): first a short try, then,
    if it needs more, a long search admitted to the game's queue, or a 503 at once.

    :raises HTTPException: 503 when the long search cannot start in time; :raises SearchInterrupted: when it stops
        (its budget, or its client gone).
    """
    address = request.client.host if request.client else "?"
    with anyio.move_on_after(max(0.0, deadline - time.monotonic())) as waited:
        await admission.short.take(address)
    if waited.cancelled_caught:
        raise HTTPException(503, f"this server is busy: the search's turn did not come within its budget of {budget:g} s", headers={"retry-after": "1"})
    try:
        return await anyio.to_thread.run_sync(_within(deadline, make, short_only=True))
    except SearchDeferred:
        pass
    finally:
        admission.short.give()
    gate = admission.gate(game)
    try:
        ticket = gate.admit(address, deadline)
    except Refused as refused:
        retry = max(1, math.ceil(refused.wait - (deadline - time.monotonic())))
        message = (
            f"this position needs a long search, and this server runs one at a time: {refused.ahead} are ahead of it, so it could start only in"
            f" {refused.wait:.1f} s, past its budget of {budget:g} s; try again in {retry} s"
        )
        raise HTTPException(503, message, headers={"retry-after": str(retry)}) from None
    try:
        return await _run(request, ticket, deadline, make)
    finally:
        gate.leave(ticket)


async def _run(request: Request, ticket: Ticket, deadline: float, make: Callable[[], bytes]) -> bytes:
    """The long search once its turn comes, stopped when the client goes; a 503 if the turn does not come in time."""
    stop = threading.Event()
    outcome: list[bytes | BaseException] = []
    async with anyio.create_task_group() as watching:  # an exception is carried out of the group, not grouped
        watching.start_soon(_watch, request, stop, ticket)
        try:
            outcome.append(await _turn_then_search(ticket, deadline, make, stop))
        except Exception as error:  # noqa: BLE001 - raised below, outside the task group
            outcome.append(error)
        finally:
            watching.cancel_scope.cancel()
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


async def _turn_then_search(ticket: Ticket, deadline: float, make: Callable[[], bytes], stop: threading.Event) -> bytes:
    with anyio.move_on_after(max(0.0, deadline - time.monotonic())):
        await ticket.ready.wait()
    if stop.is_set():
        raise HTTPException(503, "the client went before its search's turn")
    if not ticket.ready.is_set():
        raise HTTPException(503, "this search's turn did not come within its budget", headers={"retry-after": "1"})
    return await anyio.to_thread.run_sync(_within(deadline, make, stop=stop))


async def _watch(request: Request, stop: threading.Event, ticket: Ticket) -> None:
    """Set ``stop`` when the client goes (its connection closed: ``http.disconnect``), and wake the wait for its turn."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            stop.set()
            ticket.ready.set()
            return


def _within(deadline: float, make: Callable[[], bytes], *, short_only: bool = False, stop: threading.Event | None = None) -> Callable[[], bytes]:
    def within() -> bytes:
        with searches_by(deadline, short_only=short_only, stop=stop):
            return make()

    return within
