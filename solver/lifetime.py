"""Child processes that end with the process that started them.

:func:`die_with_parent` is called in a child (a build's pool worker, a server's worker, a
graded player's process) with the pid of its parent: on Linux the kernel's parent-death
signal (``prctl(PR_SET_PDEATHSIG)``) ends the child at once when the parent dies, even by
SIGKILL; everywhere, a daemon thread can also check that the parent is still there and end
the child if not. A parent that is already gone ends the child at once.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator

PARENT_POLL_SECONDS = 1.0
"""How often the watching thread checks that the parent still lives (where the parent-death signal is missing)."""
_PR_SET_PDEATHSIG = 1


def die_with_parent(
    parent: int,
    *,
    signum: int | None = signal.SIGKILL,
    poll_seconds: float | None = PARENT_POLL_SECONDS,
    exit_code: int = 1,
) -> None:
    """End this process when ``parent`` (the pid of the process that started it) is no longer its parent.

    :param signum: the signal the kernel sends this process when the parent dies (Linux's
        ``PR_SET_PDEATHSIG``; ``SIGTERM`` lets it clean up); None: no parent-death signal.
    :param poll_seconds: how often a daemon thread checks the parent, ending this process
        with ``exit_code`` (:func:`os._exit`) once it is gone; None: no thread.
    :param exit_code: the exit status when the parent is found gone (at once, or by the thread).

    A process started by a build killed with SIGKILL (the out-of-memory killer) would
    otherwise wait for work for ever, holding the build's standard output.
    """
    if signum is not None and sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # no prctl: the thread (if asked for) does the job
    if os.getppid() != parent:
        os._exit(exit_code)  # the parent died before the signal was asked for
    if poll_seconds is not None:
        threading.Thread(target=_watch_parent, args=(parent, poll_seconds, exit_code), name="watch-parent", daemon=True).start()


def _watch_parent(parent: int, poll_seconds: float, exit_code: int) -> None:
    while os.getppid() == parent:
        time.sleep(poll_seconds)
    os._exit(exit_code)


def ignore_ctrl_c() -> None:
    """Ignore SIGINT (Ctrl-C) in this process, and unblock it if the parent blocked it around the fork
    (:func:`ctrl_c_blocked`): a pool worker leaves Ctrl-C to the process that started it, which stops it.

    A terminal sends Ctrl-C to every process of the foreground group; a worker that took it would print
    its own ``KeyboardInterrupt`` traceback beside the build's one-line message.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextlib.contextmanager
def ctrl_c_blocked() -> Iterator[None]:
    """SIGINT held back in this thread for the block (where the system can): processes forked meanwhile start with
    it blocked, so Ctrl-C cannot reach them before they ignore it (:func:`ignore_ctrl_c`); this process gets a
    Ctrl-C pressed meanwhile when the block ends."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
