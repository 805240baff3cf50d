"""A search that is stopped stops (issue 42, point 1), and a short search costs no thread (issue 39, point 5).

Whatever ends the caller's wait (a progress hook that raises, a signal handler's exception, a stop event, the
budget), the engine's worker threads have stopped before the call returns, and the same engine's next answers are
Pons' scores. A bad budget is refused before any thread starts. A search that ends within the engine's first
:data:`~solver.search.engine.SHORT_NODES` positions runs in the caller's thread.
"""

from __future__ import annotations

import random
import signal
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from solver.errors import InvalidArgumentError, InvalidValueError, SearchDeferred, SearchInterrupted, SearchTimeout
from solver.search import Engine, score_byte
from solver.search import engine as engine_module

PONS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "connect4" / "pons_tests"
TABLE_BYTES = 1 << 22
HARD = "4"
"""A position whose search takes minutes without a book: it is always stopped."""


class Cancelled(Exception):
    """What the progress hook raises to cancel a search (as ``solver.lookup(..., progress=hook)`` invites)."""


def _pons(file: str, count: int = 20) -> list[tuple[str, int]]:
    if not (PONS / file).is_file():
        pytest.skip(f"Pons' test set {file} is not at {PONS}")
    lines = [line.split() for line in (PONS / file).read_text().splitlines() if line.strip()]
    return [(moves, int(score)) for moves, score in random.Random(42).sample(lines, count)]


def _search_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "solver-search" and thread.is_alive()]


def _assert_answers_are_pons(eng: Engine, file: str) -> None:
    for moves, pons in _pons(file):
        expected = score_byte(pons, len(moves), eng.game.cells)
        assert eng.score(moves=moves) == expected, moves
        assert eng.solve(moves=moves).score == expected, moves


def _raise(*_: Any) -> None:
    raise Cancelled("the user cancelled")


@pytest.fixture(params=["short first", "threads only"])
def handed_off(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each answer searched as the engine does (a short try in the caller's thread first), or always by the threads."""
    if request.param == "threads only":
        monkeypatch.setattr(engine_module, "SHORT_NODES", 1)
    return str(request.param)


@pytest.mark.parametrize("file", ["Test_L2_R1", "Test_L3_R1"])
def test_a_search_cancelled_by_its_progress_hook_leaves_no_thread_and_the_next_20_answers_are_pons_scores(file: str, handed_off: str) -> None:
    eng = Engine("connect4", table_bytes=TABLE_BYTES, threads=2)
    with pytest.raises(Cancelled):
        eng.solve(moves=HARD, progress=_raise)
    assert not _search_threads(), "a search thread still runs after the hook raised"
    _assert_answers_are_pons(eng, file)
    assert not _search_threads()


def test_a_signal_handlers_exception_during_a_search_stops_its_threads(handed_off: str) -> None:
    def alarm(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError("the alarm rang")

    eng = Engine("connect4", table_bytes=TABLE_BYTES, threads=2)
    previous = signal.signal(signal.SIGALRM, alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(TimeoutError):
            eng.score(moves=HARD)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert not _search_threads()
    _assert_answers_are_pons(eng, "Test_L2_R1")


@pytest.mark.parametrize(
    ("budget", "error"),
    [
        ("5", InvalidArgumentError),
        ("x", InvalidArgumentError),
        (float("nan"), InvalidValueError),
        (-1, InvalidValueError),
        (True, InvalidArgumentError),
        ([5], InvalidArgumentError),
    ],
)
def test_a_bad_budget_is_refused_before_any_thread_starts(budget: Any, error: type[Exception], monkeypatch: pytest.MonkeyPatch) -> None:
    def no_threads(*_: Any) -> None:
        raise AssertionError("a search thread was started")

    eng = Engine("connect4", table_bytes=TABLE_BYTES, threads=2)
    monkeypatch.setattr(engine_module, "_Workers", no_threads)
    for call in (eng.solve, eng.score):
        with pytest.raises(error, match="budget must be a number of seconds"):
            call(moves=HARD, budget=budget)


def test_an_infinite_budget_is_no_limit() -> None:
    assert Engine("connect4", table_bytes=TABLE_BYTES).score(moves="4455", budget=float("inf")) == 97


def test_a_stop_event_stops_a_search_within_a_fraction_of_a_second() -> None:
    eng = Engine("connect4", table_bytes=TABLE_BYTES, threads=2)
    stop = threading.Event()
    timer = threading.Timer(0.3, stop.set)
    timer.start()
    start = time.monotonic()
    with pytest.raises(SearchInterrupted, match="stopped as its caller asked"):
        eng.solve(moves=HARD, stop=stop)
    assert time.monotonic() - start < 0.3 + 0.5 + engine_module.STOP_POLL_SECONDS
    assert not _search_threads()
    _assert_answers_are_pons(eng, "Test_L3_R1")


def test_a_search_that_waits_for_another_search_of_its_engine_stops_at_its_budget() -> None:
    eng = Engine("connect4", table_bytes=TABLE_BYTES, threads=1)
    stop = threading.Event()
    first = threading.Thread(target=lambda: pytest.raises(SearchInterrupted, eng.score, moves=HARD, stop=stop))
    first.start()
    try:
        time.sleep(0.2)
        with pytest.raises(SearchTimeout, match="waiting for another search of this engine"):
            eng.score(moves="44", budget=0.2)
    finally:
        stop.set()
        first.join()
    assert not _search_threads()


def test_a_short_search_runs_in_the_callers_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    eng = Engine("connect4", table_bytes=TABLE_BYTES, threads=2)

    def no_threads(*_: Any) -> None:
        raise AssertionError("a search thread was started for a short search")

    monkeypatch.setattr(engine_module, "_Workers", no_threads)
    for moves, pons in _pons("Test_L3_R1"):
        assert eng.solve(moves=moves, budget=5).score == score_byte(pons, len(moves), 42)


def test_a_short_only_search_that_is_not_short_is_deferred_without_a_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    eng = Engine("connect4", table_bytes=TABLE_BYTES, threads=2)
    monkeypatch.setattr(engine_module, "_Workers", _raise)
    with pytest.raises(SearchDeferred, match=f"after its first {engine_module.SHORT_NODES:,} positions"):
        eng.score(moves=HARD, short_only=True)
    assert eng.score(moves="4455", short_only=True) == 97
