"""``solve serve --workers N``: N processes answering on one listening socket (pre-fork, as gunicorn does).

The parent opens the tables and binds the socket, then forks the workers: each runs its
own event loop and accepts from the shared socket, and the kernel hands each new
connection to one of them. The tables are memory-mapped files, so the workers share
their pages instead of holding a copy each. The parent forwards SIGINT and SIGTERM to
the workers and waits for them; a worker that dies on its own stops the others, and the
parent reports it (a service manager such as systemd then restarts the whole server).
Each worker ends when the parent does (Linux's parent-death signal).
"""

from __future__ import annotations

import os
import signal
import sys
import traceback
from collections.abc import Callable
from types import FrameType

from ..errors import WorkerError
from ..lifetime import die_with_parent


def supervise(count: int, run: Callable[[int], None]) -> None:
    """Fork ``count`` workers, each calling ``run(number)`` (1 to ``count``); return when all have stopped.

    :raises WorkerError: if a worker exited on its own (not asked to stop), after stopping the others.
    """
    children: dict[int, int] = {}  # pid -> worker number
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True
        _signal_all(children, signal.SIGTERM)

    previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGINT, signal.SIGTERM)}
    failed: tuple[int, int] | None = None
    try:
        for number in range(1, count + 1):
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _worker(number, run)  # never returns
            children[pid] = number
        while children:
            try:
                pid, status = os.wait()
            except ChildProcessError:
                break
            number = children.pop(pid, 0)
            if number and not stopping:
                failed, stopping = (number, os.waitstatus_to_exitcode(status)), True
                _signal_all(children, signal.SIGTERM)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if failed is not None:
        raise WorkerError(f"worker {failed[0]} exited on its own (status {failed[1]}); the other workers were stopped")


def _worker(number: int, run: Callable[[int], None]) -> None:
    """The child after the fork: serve, then leave without running the parent's clean-up code."""
    parent = os.getppid()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent(parent, signum=signal.SIGTERM, poll_seconds=None)  # SIGTERM: the worker stops as when asked
    code = 0
    try:
        run(number)
    except BaseException:  # noqa: BLE001 - a worker reports its failure and exits non-zero, never returns to the caller
        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _signal_all(children: dict[int, int], signum: int) -> None:
    for pid in list(children):
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass
