"""Running a player: loading its file, calling it on boards, and doing both in a separate process.

The grader (:mod:`solver.grading.grader`) never trusts the player. A player named as
``"FILE.py:NAME"`` is imported and called in a child process, started as
``python -m solver.grading.player``, so nothing the player does can reach the
grader's own state (its table, its verdict function, its report):

* the child's standard input is ``/dev/null`` (a leftover ``input()`` game
  loop fails at import with ``EOFError`` instead of waiting on a blank screen),
  its standard output and error go nowhere, and what the player prints through
  ``print`` is counted, not shown;
* it starts inside a bubblewrap sandbox where one works (:mod:`solver.grading.sandbox`:
  an allow-list of read-only folders, its own user and PID namespaces, no network,
  a fixed environment, and of this package only the modules it runs); without one,
  a *shield* process stands between it and the grader, so its ``os.getppid()`` is
  not the grader's pid; either way it starts in a PID cgroup where one is writable;
* before the player's file is imported it sets soft and hard limits on itself
  (:class:`solver.grading.limits.Limits`: memory, CPU time, file size, processes), and
  it exits by itself if the grader dies;
* every call has a time limit: a watchdog in the child (``SIGALRM``) stops a
  call that runs over and answers "timed out"; the parent waits a little longer
  and then kills the child and starts a new one, so a player that ignores the
  alarm, loops in C, crashes or calls ``os._exit`` costs one position, not the
  grading;
* boards go to the child in batches, one JSON line per batch; answers come back
  as one JSON line per call, **plain data only** (numbers, strings, lists,
  ``None``, and the ``repr`` of the answer for messages). The parent reads them
  with :func:`json.loads`, with bounded size and digits, and never unpickles
  anything, so an answer cannot be an object that lies about itself. The player
  runs in that process and can write to the reply pipe itself, so every reply
  is checked: the index of the board it answers, a line of at most
  :data:`MAX_LINE` bytes, and every number a bounded non-negative one; a reply
  that fails counts as a crash of that call (the process is restarted).

The same :class:`Caller` makes the boards, applies the call options (``turn``,
``returns`` is the grader's) and turns answers into plain data, in the child
and, for a function object given to :func:`solver.grade`, in the caller's own
process.

The protocol, parent to child: one JSON object with the settings, then one
``{"boards": [[index, cells, mover], ...]}`` per batch (``cells`` one character
per cell, ``X``, ``O`` or ``.``; a ``"form"`` beside them changes the board form
from then on, for the grader's trials of other shapes). Child to parent: ``{"ready": printed}`` or
``{"load_error": message}``, then one :data:`Reply` per board.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ..errors import PlayerError, printable, short
from ..lifetime import die_with_parent
from .limits import Limits, PidCgroup, Scratch
from .sandbox import Layout, bwrap_command, copy_without_links, environment, player_environment, player_files, python_path, seccomp_filter

Turn = Literal["symbol", "max"]
"""What a second argument tells the function: the mover's symbol, or ``True`` when X (the maximiser) moves."""
Symbols = tuple[Any, Any, Any]
Reply = dict[str, Any]
"""One call's outcome as plain data (see :meth:`Caller.call`)."""

DEFAULT_SYMBOLS: Symbols = ("X", "O", None)
DEFAULT_TIMEOUT = 30.0
"""Seconds per call: a plain recursive minimax takes 3 to 10 s on the empty board (no memo, on a loaded 2-core machine)."""
DEFAULT_MEMORY_MB = 2048
"""The child's address-space limit, in MiB."""
LOAD_TIMEOUT = 30.0
"""At least this many seconds for importing the player's file."""
GRACE = 1.0
"""Seconds the parent waits past a call's time limit before it kills the child."""
MAX_LINE = 1 << 20
"""The longest reply line the parent reads, in bytes; a longer one is refused (the call counts as a crash)."""
MAX_COUNT = 10**12
"""The largest count (lines printed) the parent accepts from the child; counts are never negative."""
MAX_SECONDS = 1e9
"""The largest time (seconds in a call) the parent accepts from the child."""
CALL_SHAPES = ("more", "fewer", "other")
"""Why calling the function itself failed: it wants one more positional argument, one fewer, or something else."""
_ARRAY_VALUES = np.array([0, 1, -1])
_PLAIN_ITEMS = 16
_PLAIN_DEPTH = 4
_PLAIN_INT = 10**18
"""The largest int an answer sends as it is; a longer one is sent as this (off every board: no int()-to-text limit in the child)."""
_HERE = Path(__file__).resolve()


# -- loading a player -----------------------------------------------------------------
def split_player(spec: str) -> tuple[str, str]:
    """The file and the function of a player named ``"path/to/file.py:NAME"``.

    :raises PlayerError: for a name without both, saying the form expected.
    """
    path_text, sep, name = spec.rpartition(":")
    if not sep or not path_text or not name:
        raise PlayerError(f"cannot read player {spec!r}: expected FILE.py:FUNCTION, e.g. player.py:minimax")
    return path_text, name


def load_player(spec: str, *, shown: str | None = None) -> Callable[..., Any]:
    """The function named by ``"path/to/file.py:NAME"``.

    ``NAME`` may be dotted. ``Class.method`` names a method of a class built with no
    arguments (``Class()``); a static or class method is taken as it is.

    The file is imported as a module, so code at its top level runs (keep games
    and ``input()`` under ``if __name__ == "__main__":``). Its folder is put on
    ``sys.path`` while it loads, so it can import its neighbours (graded in its own process, its
    folder holds only its file and its support files: :func:`solver.grading.sandbox.player_files`).

    :param shown: the file as messages name it (the grader's name for it, where the player's process loads a copy).
    :raises PlayerError: naming the file or function that could not be loaded and why.
    """
    path_text, name = split_player(spec)
    path = Path(path_text)
    label = shown or path_text
    if not path.is_file():
        raise PlayerError(f"{label}: no such file")
    module_name = f"_solve_player_{abs(hash(str(path.resolve())))}"
    loader_spec = importlib.util.spec_from_file_location(module_name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise PlayerError(f"{label}: cannot import it as Python (expected a .py file)")
    module = importlib.util.module_from_spec(loader_spec)
    folder = str(path.resolve().parent)
    sys.path.insert(0, folder)
    sys.modules[module_name] = module
    try:
        loader_spec.loader.exec_module(module)
    except EOFError as error:
        sys.modules.pop(module_name, None)
        raise PlayerError(
            f"{label}: the file reads standard input at import ({describe_exception(error)}): "
            "remove the interactive loop, or put it under if __name__ == '__main__':"
        ) from error
    except (Exception, SystemExit) as error:  # noqa: BLE001 - report any failure of the user's file
        sys.modules.pop(module_name, None)
        raise PlayerError(f"{label}: importing it failed: {describe_exception(error)}") from error
    finally:
        if folder in sys.path:
            sys.path.remove(folder)
    found: Any = module
    for part in name.split("."):
        if not hasattr(found, part):
            defined = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_") and getattr(v, "__module__", None) == module_name)
            hint = f"; functions defined there: {', '.join(defined)}" if defined else ""
            raise PlayerError(f"{label}: no function {name!r}{hint}")
        if inspect.isclass(found) and inspect.isfunction(inspect.getattr_static(found, part)):
            found = _instance(found, label)  # a plain method: bind it to Class()
        found = getattr(found, part)
    if not callable(found):
        raise PlayerError(f"{label}: {name!r} is a {type(found).__name__}, not a function")
    return found  # type: ignore[no-any-return]


def _instance(cls: type, label: str) -> Any:
    try:
        return cls()
    except (Exception, SystemExit) as error:  # noqa: BLE001 - the user's constructor
        raise PlayerError(f"{label}: cannot build {cls.__name__}() with no arguments to call its method: {describe_exception(error)}") from error


def describe_exception(error: BaseException) -> str:
    """``"Type: message (file.py, line N)"``, naming the innermost frame that raised outside the grader,
    on one line with every control character escaped (:func:`solver.errors.printable`).

    An error raised by the call itself (such as a ``TypeError`` about the number of
    arguments) names no frame: it is not in the player's code.
    """
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if not _outside_the_player(frame.filename)]
    if frames and not isinstance(error, SyntaxError):  # a SyntaxError's message names its file and line already
        text += f" ({Path(frames[-1].filename).name}, line {frames[-1].lineno})"
    return printable(" ".join(text.split()))


def _outside_the_player(filename: str) -> bool:
    """Whether a frame's file is the grader's own or Python's import machinery (``<frozen importlib._bootstrap>``)."""
    return filename.startswith("<frozen ") or Path(filename).resolve() == _HERE


def _raised_by_the_call(error: BaseException) -> bool:
    """Whether ``error`` was raised by calling the function, before any of its code ran."""
    if not isinstance(error, TypeError):
        return False
    frames = traceback.extract_tb(error.__traceback__)
    return all(Path(frame.filename).resolve() == _HERE for frame in frames)


def call_shape(function: Callable[..., Any], args: Sequence[Any]) -> str:
    """Why ``function(*args)`` cannot be called (:data:`CALL_SHAPES`), told by its signature, not by a message."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return "other"
    tries = [("more", (*args, None))] + ([("fewer", tuple(args[:-1]))] if len(args) > 1 else [])
    for shape, tried in tries:
        try:
            signature.bind(*tried)
        except TypeError:
            continue
        return shape
    return "other"


# -- boards ---------------------------------------------------------------------------
@dataclass(frozen=True)
class BoardForm:
    """The board a player is given, and the options of the call.

    :param rows: the game's rows.
    :param cols: the game's columns.
    :param symbols: X, O and empty in list-of-rows and flat boards.
    :param array: pass a ``(rows, cols)`` numpy int array of 1 (X), -1 (O), 0 (empty).
    :param flat: pass a string of one character per cell (``"."`` for a ``None`` symbol).
    :param turn: also pass whose turn it is, as a second argument (:data:`Turn`).
    """

    rows: int
    cols: int
    symbols: Symbols = DEFAULT_SYMBOLS
    array: bool = False
    flat: bool = False
    turn: Turn | None = None

    def __post_init__(self) -> None:
        symbols = tuple(self.symbols)
        if len(symbols) != 3:
            raise PlayerError(f"symbols must be three, for X, O and empty; found {len(symbols)}: {symbols!r}")
        x, o, empty = symbols
        if x == o or x == empty or o == empty:
            raise PlayerError(f"symbols for X, O and empty must differ, found {symbols!r}")
        if self.array and self.flat:
            raise PlayerError("choose one board form: array (numpy) or flat (a string), not both")
        if self.flat and any(len(char) != 1 for char in self._chars()):
            raise PlayerError(f"a flat board needs one-character symbols (None stands for '.'), found {symbols!r}")
        if self.turn not in (None, "symbol", "max"):
            raise PlayerError(f"turn must be 'symbol' or 'max', found {self.turn!r}")

    def _chars(self) -> list[str]:
        return ["." if s is None else str(s) for s in self.symbols]

    def maker(self) -> Callable[[Sequence[str | None]], Any]:
        """The function that makes a fresh board from a position's cells (``'X'``, ``'O'`` or ``None``)."""
        rows, cols = self.rows, self.cols
        if self.array:
            return lambda cells: _ARRAY_VALUES[[(c is not None) + (c == "O") for c in cells]].reshape(rows, cols)
        if self.flat:
            chars = self._chars()
            table = {"X": chars[0], "O": chars[1], None: chars[2]}
            return lambda cells: "".join(table[c] for c in cells)
        mapping = {"X": self.symbols[0], "O": self.symbols[1], None: self.symbols[2]}

        def make_rows(cells: Sequence[str | None]) -> list[list[Any]]:
            symbols = [mapping[c] for c in cells]
            return [symbols[r * cols : (r + 1) * cols] for r in range(rows)]

        return make_rows

    def turn_argument(self, mover: str) -> Any:
        """The second argument for ``mover`` (``'X'`` or ``'O'``), in the board's own terms."""
        if self.turn == "max":
            return mover == "X"
        if self.array:
            return 1 if mover == "X" else -1
        if self.flat:
            return self._chars()[mover == "O"]
        return self.symbols[mover == "O"]

    def to_json(self) -> dict[str, Any]:
        """The form as plain data, for the child process.

        :raises PlayerError: if a symbol is not a string, an int or None.
        """
        for symbol in self.symbols:
            if symbol is not None and type(symbol) not in (str, int):
                raise PlayerError(f"symbols must be strings, ints or None to be sent to the player's process, found {symbol!r}")
        return {"rows": self.rows, "cols": self.cols, "symbols": list(self.symbols), "array": self.array, "flat": self.flat, "turn": self.turn}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BoardForm:
        """The form :meth:`to_json` gave."""
        return cls(data["rows"], data["cols"], tuple(data["symbols"]), data["array"], data["flat"], data["turn"])


def _same(given: Any, fresh: Any) -> bool:
    """Whether the board a call was given still equals a fresh one (False if it cannot tell)."""
    try:
        if isinstance(fresh, np.ndarray):
            return isinstance(given, np.ndarray) and given.shape == fresh.shape and bool(np.array_equal(given, fresh))
        return bool(given == fresh)
    except Exception:  # noqa: BLE001 - the player may have put anything in its board
        return False


# -- calls ----------------------------------------------------------------------------
class _CallTimedOut(BaseException):
    """Raised in the child by the watchdog when a call runs over its time limit."""


def plain(answer: Any, depth: int = 0) -> Any:
    """An answer as JSON data: numbers, text, ``None``, lists (tuples and arrays become lists).

    :raises TypeError: for anything else (the grader reports its type), or when too big or deep.
    """
    if isinstance(answer, np.ndarray) and answer.ndim == 0:
        answer = answer.item()
    if isinstance(answer, np.generic):
        answer = answer.item()
    if isinstance(answer, int) and not isinstance(answer, bool) and abs(answer) > _PLAIN_INT:
        return _PLAIN_INT if answer > 0 else -_PLAIN_INT  # off every board, as the parent reads a longer int; ``r`` says what it was
    if answer is None or isinstance(answer, (bool, int, float)):
        return answer
    if isinstance(answer, str):
        return answer[:100]
    if isinstance(answer, (list, tuple, np.ndarray)) and depth < _PLAIN_DEPTH and len(answer) <= _PLAIN_ITEMS:
        return [plain(item, depth + 1) for item in answer]
    raise TypeError(type(answer).__name__)


class Caller:
    """Calls a move function on boards made from cells, and reports each call as a plain :data:`Reply`.

    A reply has ``s`` (seconds in the call), ``m`` (1 if the call changed its board) and one of:

    ======  ===================================================================
    key     meaning
    ======  ===================================================================
    ``a``   the answer as plain data (:func:`plain`), with ``r`` its ``repr``
    ``o``   the answer's type name, for an answer that is not plain data
    ``x``   the exception raised, ``"Type: message (file.py, line N)"``; ``call``
            is set when calling the function itself failed (wrong arguments): one
            of :data:`CALL_SHAPES`, else false
    ``t``   true: the call ran over its time limit (the child's watchdog)
    ======  ===================================================================
    """

    def __init__(self, move_fn: Callable[..., Any], form: BoardForm, *, timeout: float | None = None) -> None:
        self.move_fn = move_fn
        self.form = form
        self.make = form.maker()
        self.timeout = timeout

    def call(self, cells: Sequence[str | None], mover: str) -> Reply:
        """Call the function on a fresh board of ``cells`` with ``mover`` to move."""
        board = self.make(cells)
        args = (board,) if self.form.turn is None else (board, self.form.turn_argument(mover))
        reply: Reply
        started = time.perf_counter()
        try:
            if self.timeout:
                signal.setitimer(signal.ITIMER_REAL, self.timeout)
            try:
                answer = self.move_fn(*args)
            finally:
                if self.timeout:
                    signal.setitimer(signal.ITIMER_REAL, 0)
        except _CallTimedOut:
            return {"t": True, "s": time.perf_counter() - started}
        except (Exception, SystemExit) as error:  # noqa: BLE001 - the player's errors are data
            reply = {"x": describe_exception(error), "call": _raised_by_the_call(error) and call_shape(self.move_fn, args)}
        else:
            try:
                reply = {"a": plain(answer), "r": short(answer)}
            except Exception:  # noqa: BLE001 - any other answer is reported by its type
                reply = {"o": type(answer).__name__, "r": short(answer)}
        reply["s"] = time.perf_counter() - started
        reply["m"] = int(not _same(board, self.make(cells)))
        return reply


# -- the parent's side ----------------------------------------------------------------
class PlayerProcess:
    """A player loaded and called in a child process (module docstring).

    :param spec: ``"FILE.py:NAME"``.
    :param form: the board and call options.
    :param timeout: seconds per call.
    :param memory_mb: the child's address-space limit in MiB (``None``: no limit), when ``limits`` is not given.
    :param limits: the child's resource limits, soft and hard (:class:`solver.grading.limits.Limits`).
    :param sandbox: ``"bwrap"`` to start the child in a bubblewrap sandbox (:mod:`solver.grading.sandbox`),
        ``"none"`` for a plain child process.
    :param hidden: folders and files the sandboxed child must not see (table directories and files).
    :param scratch: the sizes of the sandbox's private ``/tmp`` and ``/dev/shm``.
    :param cgroup: the PID cgroup every child joins (:class:`solver.grading.limits.PidCgroup`), or None; removed by :meth:`shutdown`.
    :param support: files the player's folder holds beside its file (a course module it imports, a data file it reads).

    The player's file is alone in a folder of its own, with ``support``: in the sandbox, at
    :data:`~solver.grading.sandbox.PLAYER_FOLDER`; without it, copies in a private temporary folder
    (removed by :meth:`shutdown`). That folder is its working directory, and its environment is the
    fixed one of :func:`~solver.grading.sandbox.player_environment` either way.

    :attr:`ended` says why :meth:`play` stopped before every board, or is None: the total time ran
    out during a ``"call"`` or a ``"restart"``, or a ``"restart failed"`` (:attr:`ended_why` says why).
    """

    def __init__(
        self,
        spec: str,
        form: BoardForm,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        memory_mb: int | None = DEFAULT_MEMORY_MB,
        limits: Limits | None = None,
        sandbox: Literal["bwrap", "none"] = "none",
        hidden: Sequence[Path] = (),
        scratch: Scratch | None = None,
        cgroup: PidCgroup | None = None,
        support: Sequence[str | os.PathLike[str]] = (),
    ) -> None:
        if not timeout or timeout <= 0:
            raise PlayerError(f"timeout must be a positive number of seconds, found {timeout!r}")
        self.spec = spec
        self.support = tuple(Path(path) for path in support)
        self.hidden = tuple(hidden)
        player_files(Path(spec.rpartition(":")[0]), self.support, hidden=self.hidden)  # refuse a bad support file before anything starts
        limits = limits or Limits(memory_mb=memory_mb, cpu_seconds=None)
        self.settings = {"spec": spec, "form": form.to_json(), "timeout": timeout, "limits": limits.to_json(), "shield": sandbox == "none"}
        self.sandbox = sandbox
        self.scratch = scratch or Scratch()
        self.timeout = timeout
        self.printed = 0
        self.ended: Literal["call", "restart", "restart failed"] | None = None
        self.ended_why = ""
        self._cgroup = cgroup
        self._layout: Layout | None = None
        self._private: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._requests = -1
        self._replies = -1
        self._buffer = b""

    # starting and stopping
    def start(self, deadline: float | None = None) -> bool:
        """Start a child and load the player in it.

        :param deadline: a :func:`time.monotonic` time to give up by (the grading's total time limit).
        :returns: True once the player is loaded, False if ``deadline`` came first (the child is then stopped).
        :raises PlayerError: if the file cannot be loaded (the child's own message),
            takes too long to load or kills its process while loading.
        """
        with interrupts_deferred():  # Ctrl-C waits until this object holds the child, so close() can kill it
            self.close()
            self._spawn()
        self._send({**self.settings})
        limit = time.monotonic() + max(LOAD_TIMEOUT, self.timeout)
        path = self.spec.rpartition(":")[0]
        reply = self._read(limit if deadline is None else min(limit, deadline))
        if isinstance(reply, dict) and _count(reply.get("ready")):
            self.printed += reply["ready"]
            return True
        if isinstance(reply, dict) and isinstance(reply.get("load_error"), str):
            self.close()
            message = printable(reply["load_error"][:2000])  # the player's process may send any text
            raise PlayerError(message + _support_hint(message, Path(path), self.support))
        if reply == "late" and deadline is not None and time.monotonic() >= deadline:
            self.close()
            return False
        if reply == "late":
            self.close()
            raise PlayerError(
                f"{path}: importing it took more than {max(LOAD_TIMEOUT, self.timeout):.0f} s: code at the top level of the file "
                "runs at import (a game loop?); keep it under if __name__ == '__main__':"
            )
        why = self._death()
        self.close()
        raise PlayerError(f"{path}: importing it ended the player's process ({why})")

    def _spawn(self) -> None:
        """Start the child with its two pipes, and keep the handle and this side's ends (call with Ctrl-C deferred)."""
        requests_r, requests_w = os.pipe()
        replies_r, replies_w = os.pipe()
        fds = [requests_r, replies_w]
        try:
            # -P: the player's folder (the working directory) does not shadow the modules the child imports
            command, env = self._command([sys.executable, "-P", "-m", "solver.grading.player", str(requests_r), str(replies_w)], fds)
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=fds,
                env=env,
                cwd=env["PWD"] if self.sandbox != "bwrap" else None,
                close_fds=True,
                start_new_session=True,  # its own process group: processes the player forks die with it
            )
        except BaseException:
            os.close(requests_w)
            os.close(replies_r)
            raise
        finally:
            for fd in fds:
                os.close(fd)
        self._process, self._requests, self._replies, self._buffer = process, requests_w, replies_r, b""

    def _command(self, command: list[str], fds: list[int]) -> tuple[list[str], dict[str, str]]:
        """The child's command line and environment: as they are, or in the sandbox; in the PID cgroup when there is one.

        :param fds: the descriptors the child gets; the seccomp program's is added to them.
        """
        path, _, name = self.spec.rpartition(":")
        if self.sandbox != "bwrap":
            folder = self._private_folder(Path(path))
            self.settings.update(spec=f"{folder / Path(path).name}:{name}", shown=path)
            env = player_environment(home=folder, cwd=folder, python_path=python_path(sandboxed=False))
        else:
            if self._layout is None:
                self._layout = Layout.for_player(Path(path), support=self.support, hidden=self.hidden)
                self.settings.update(spec=f"{self._layout.files[0][1]}:{name}", shown=path)
            program = seccomp_filter()
            seccomp = None
            if program is not None:
                seccomp, write = os.pipe()
                fds.append(seccomp)
                with os.fdopen(write, "wb") as out:
                    out.write(program)  # a few hundred bytes: the pipe holds them until bubblewrap reads them
            command = bwrap_command(command, self._layout, scratch=self.scratch, seccomp_fd=seccomp)
            env = environment(self._layout)
        return (command if self._cgroup is None else self._cgroup.wrap(command)), env

    def _private_folder(self, player_file: Path) -> Path:
        """Without a sandbox: a private folder holding copies of the player's file and its support files (made once)."""
        if self._private is None:
            files = player_files(player_file, self.support, hidden=self.hidden)  # checked before anything is made
            self._private = Path(tempfile.mkdtemp(prefix="solve-player-"))
            (player, name), support = files[0], files[1:]
            shutil.copyfile(player, self._private / name)  # the player's file, as it is named
            for source, name in support:
                copy_without_links(source, self._private / name)  # a support file that became a link since it was checked is refused
        return self._private

    def close(self) -> None:
        """Kill the child (if any) and every process in its cgroup, reap it and close the pipes; a Ctrl-C meanwhile is raised once that is done."""
        with interrupts_deferred():
            if self._process is not None:
                _kill_group(self._process)
                self._process.wait()
                self._process = None
                if self._cgroup is not None:
                    self._cgroup.kill()
            for fd in (self._requests, self._replies):
                if fd >= 0:
                    os.close(fd)
            self._requests = self._replies = -1

    def shutdown(self) -> None:
        """:meth:`close`, and remove the PID cgroup and the private folder: the object is done with."""
        self.close()
        with interrupts_deferred():
            if self._cgroup is not None:
                self._cgroup.remove()
                self._cgroup = None
            if self._private is not None:
                shutil.rmtree(self._private, ignore_errors=True)
                self._private = None

    def __enter__(self) -> PlayerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    # calls
    def play(self, boards: Sequence[tuple[Sequence[str | None], str]], *, deadline: float | None = None, form: BoardForm | None = None) -> Iterator[Reply]:
        """Ask for a move on each board, ``(cells, mover)``, in order: one reply each, as they come.

        A call that times out, kills the process or gets a reply that cannot be
        read yields ``{"t": ...}`` or ``{"dead": why}``; the child is then restarted
        and asked for the rest. Stops early (fewer replies) when ``deadline``
        (:func:`time.monotonic`) passes or a restart fails: :attr:`ended` says which.

        :param form: call the player with this board form from now on (the grader tries other shapes with it).
        """
        self.ended = None
        index = 0
        while index < len(boards):
            if self._process is None and not self._restart(deadline):
                return
            batch = [[i, "".join(c or "." for c in cells), mover] for i, (cells, mover) in enumerate(boards[index:], start=index)]
            message: dict[str, Any] = {"boards": batch}
            if form is not None:
                message["form"] = form.to_json()
            if not self._send(message):
                yield {"dead": self._death(), "s": 0.0}
                index += 1
                self.close()
                continue
            while index < len(boards):
                limit = time.monotonic() + self.timeout + GRACE
                reply = self._read(limit if deadline is None else min(limit, deadline))
                if reply == "late" and deadline is not None and time.monotonic() >= deadline:
                    self.ended = "call"
                    self.close()
                    return
                yield self._outcome(reply, index)
                index += 1
                if self._process is None:
                    break

    def _restart(self, deadline: float | None) -> bool:
        """Start the child again after a failed call: False (and :attr:`ended` set) if the time ran out or loading failed."""
        try:
            if self.start(deadline):
                return True
            self.ended = "restart"
        except PlayerError as error:
            self.ended, self.ended_why = "restart failed", str(error)
        return False

    def _outcome(self, reply: dict[str, Any] | Literal["late", "eof", "garbled", "long"], index: int) -> Reply:
        """The reply to board ``index`` as the grader reads it; the child is closed after a time-out or a broken reply."""
        problem = _BROKEN.get(reply) if isinstance(reply, str) else _refused(reply, index)
        if reply == "late":
            self.close()
            return {"t": True, "s": self.timeout + GRACE, "killed": True}
        if reply == "eof" or problem or not isinstance(reply, dict):
            why = self._death() if reply == "eof" else f"the player's process {problem}"
            self.close()
            return {"dead": why, "s": 0.0}
        self.printed += reply.pop("p")
        return reply

    def _send(self, message: dict[str, Any]) -> bool:
        data = (json.dumps(message) + "\n").encode()
        try:
            while data:
                written = os.write(self._requests, data)
                data = data[written:]
        except OSError:  # BrokenPipeError: the child is gone
            return False
        return True

    def _read(self, deadline: float) -> dict[str, Any] | Literal["late", "eof", "garbled", "long"]:
        """The next reply line as a dict, or why there is none."""
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "late"
            ready, _, _ = select.select([self._replies], [], [], remaining)
            if not ready:
                continue
            data = os.read(self._replies, 1 << 16)
            if not data:
                return "eof"
            self._buffer += data
            if len(self._buffer) > MAX_LINE and b"\n" not in self._buffer[: MAX_LINE + 1]:
                return "long"
        line, _, self._buffer = self._buffer.partition(b"\n")
        if len(line) > MAX_LINE:
            return "long"
        try:
            reply = json.loads(line, parse_int=_bounded_int, parse_constant=float)
        except (ValueError, RecursionError):
            return "garbled"
        return reply if isinstance(reply, dict) else "garbled"

    def _death(self) -> str:
        """Why the child ended, after it closed its end or stopped answering."""
        process = self._process
        if process is None:
            return "the process is gone"
        with interrupts_deferred():  # a Ctrl-C inside Popen.wait(timeout) can leave its lock taken, and the next wait() hang
            try:
                code = process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                _kill_group(process)
                code = process.wait()
        if code > 128:  # bwrap and the shield (main) pass on a death by signal N as 128 + N, as shells do
            code = 128 - code
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"the player's process was killed by {name}"
        return f"the player's process exited with status {code} (os._exit?)"


def _support_hint(message: str, player_file: Path, support: Sequence[Path]) -> str:
    """When the player's file failed to import a module that lies beside it: how to give it (each file is graded alone)."""
    missing = re.search(r"ModuleNotFoundError: No module named '([A-Za-z_][A-Za-z0-9_]*)", message)
    if missing is None:
        return ""
    beside = player_file.parent / f"{missing.group(1)}.py"
    if not beside.is_file() or any(Path(os.path.abspath(path)) == Path(os.path.abspath(beside)) for path in support):
        return ""
    return (
        f"; each file is graded alone, without the other files of its folder: give it {beside.name} with --support {beside} "
        "(in Python, solver.grade's support=[...])"
    )


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the player's process and every process it started in its group (it leads its own session)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # already gone, group and all


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold back Ctrl-C while the player's process is started or stopped: its ``KeyboardInterrupt`` comes when the block ends.

    Raised anywhere inside :class:`subprocess.Popen`, a ``KeyboardInterrupt`` leaves a child
    that nothing holds, so nothing kills it; raised between killing and reaping, it leaves the
    child unreaped, and raised inside ``Popen.wait(timeout)`` it can leave the ``Popen``'s lock
    taken, so the next ``wait()`` never returns. Inside the block SIGINT is only noted, and
    the handler it found is called once the block is done (the blocks are short: a fork, a kill,
    a wait of at most a few seconds). Python runs signal handlers in the main thread only: in
    another thread, or where SIGINT is not handled by Python (ignored, default), the block just runs.
    """
    handler = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(handler):
        yield
        return
    noted: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: noted.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)
        if noted:
            handler(signal.SIGINT, None)  # Python's default handler raises KeyboardInterrupt


_BROKEN = {
    "garbled": "sent a reply that cannot be read",
    "long": f"sent a reply line longer than {MAX_LINE:,} bytes (refused unread)",
}


def _count(value: Any) -> bool:
    """Whether ``value`` is a count the child may send: an int (not a bool) from 0 to :data:`MAX_COUNT`."""
    return type(value) is int and 0 <= value <= MAX_COUNT


def _refused(reply: dict[str, Any], index: int) -> str | None:
    """Why a reply to board ``index`` is refused (the child may have been rewritten by the player), or None.

    Every number is checked: the board's index, the lines printed, the seconds spent,
    the changed-board flag; the kind of a failed call is one of :data:`CALL_SHAPES`.
    """
    given = reply.get("i")
    if given != index or type(given) is not int:
        return f"answered board {str(given)[:20]} when board {index} was asked"
    if not _count(reply.get("p")):
        return f"sent a reply whose count of printed lines is not a count from 0 to {MAX_COUNT:,}: {str(reply.get('p'))[:30]}"
    seconds = reply.get("s")
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not 0 <= seconds <= MAX_SECONDS:
        return f"sent a reply whose time is not a number of seconds from 0 to {MAX_SECONDS:g}: {str(seconds)[:30]}"
    if type(reply.get("m", 0)) is not int or reply.get("m", 0) not in (0, 1):
        return f"sent a reply whose changed-board flag is not 0 or 1: {str(reply.get('m'))[:30]}"
    if reply.get("call", False) not in (False, *CALL_SHAPES):
        return f"sent a reply whose kind of failed call is unknown: {str(reply.get('call'))[:30]}"
    return None


def _bounded_int(text: str) -> int:
    """JSON ints, refusing thousands of digits (Python's int() limit) by standing in an off-board number."""
    return int(text) if len(text) <= 18 else 10**18


# -- the child's side -----------------------------------------------------------------
class _LineCounter:
    """A text sink for ``sys.stdout`` and ``sys.stderr`` that only counts lines."""

    def __init__(self) -> None:
        self.lines = 0

    def write(self, text: str) -> int:
        self.lines += str(text).count("\n")
        return len(text)

    def flush(self) -> None:
        """Nothing to flush."""

    def isatty(self) -> bool:
        """Not a terminal."""
        return False


def _shield(fds: Sequence[int]) -> None:
    """Fork: the child goes on to load the player; this process stands between it and the grader.

    Without a sandbox the player's ``os.getppid()`` would be the grader, one call from
    ``os.kill(os.getppid(), signal.SIGSTOP)``; now it is this process, which only waits for
    it, passes on how it ended (exit status, or 128 + signal) and kills it if the grader goes.
    A player that looks the grader up in ``/proc`` can still reach it: only a PID namespace
    (:mod:`solver.grading.sandbox`) stops that.
    """
    grader = os.getppid()
    child = os.fork()
    if child == 0:
        return
    for fd in fds:
        os.close(fd)  # the grader sees end-of-file as soon as the player's process ends
    while True:
        time.sleep(0.2)
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            os._exit(128 - code if code < 0 else code)
        if os.getppid() != grader:
            os.killpg(0, signal.SIGKILL)


GRADER_POLL_SECONDS = 0.5
"""How often the player's process checks that the process that started it is still there."""


def _watch_parent() -> None:
    """Exit (status 3) when the process that started this one is gone (a daemon thread; not needed in a PID namespace)."""
    parent = os.getppid()
    if parent != 1:
        die_with_parent(parent, signum=None, poll_seconds=GRADER_POLL_SECONDS, exit_code=3)


def _on_alarm(signum: int, frame: Any) -> None:
    raise _CallTimedOut


def main(argv: Sequence[str]) -> int:
    """The child: read settings and boards on fd ``argv[0]``, write replies on fd ``argv[1]``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the grader's to handle
    requests = os.fdopen(int(argv[0]), "rb")
    replies = os.fdopen(int(argv[1]), "wb")

    def send(message: dict[str, Any]) -> None:
        replies.write((json.dumps(message) + "\n").encode())
        replies.flush()

    settings = json.loads(requests.readline())
    if settings["shield"]:
        _shield([requests.fileno(), replies.fileno()])
    _watch_parent()
    form = BoardForm.from_json(settings["form"])
    Limits(**settings["limits"]).apply()
    counter = _LineCounter()
    sys.stdout = sys.stderr = counter
    try:
        move_fn = load_player(settings["spec"], shown=settings.get("shown"))
    except PlayerError as error:
        send({"load_error": str(error)})
        return 0
    signal.signal(signal.SIGALRM, _on_alarm)
    caller = Caller(move_fn, form, timeout=float(settings["timeout"]))
    send({"ready": counter.lines})
    for line in requests:
        message = json.loads(line)
        if "form" in message:
            caller = Caller(move_fn, BoardForm.from_json(message["form"]), timeout=caller.timeout)
        for index, cells, mover in message["boards"]:
            before = counter.lines
            reply = caller.call([None if c == "." else c for c in cells], mover)
            reply["i"], reply["p"] = index, counter.lines - before
            send(reply)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
