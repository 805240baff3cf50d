"""Players that try to hang, kill or fool the grader, or get out of its sandbox; each plays a best move elsewhere.

Graded through ``solve grade FILE.py:NAME`` (a separate process), each costs the
positions it attacks and nothing more. The positions attacked are few, so the tests stay fast.
The best moves come from the neighbour module ``perfect``, given to the grading as a support file
(``--support``): the sandbox gives a player nothing of ``solver``, and no file of its folder it is not
given. A test tells a player what to attack by ``hostile_settings.json``, given beside it the same way
(a player's environment is a fixed one), or, graded in the test's own process, by an environment
variable ``HOSTILE_<NAME>``. The probes (``probe_*``) report what they found by raising
``RuntimeError("PROBE <json>")`` on the one position they attack.
"""

import json
import os
import signal
import sys
import time

from perfect import best_move


def _setting(name):
    """A test's setting: $HOSTILE_<NAME>, else ``hostile_settings.json`` beside this file, else None."""
    found = os.environ.get(f"HOSTILE_{name.upper()}")
    if found is not None:
        return found
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "hostile_settings.json")) as settings:
            return json.load(settings).get(name)
    except OSError:
        return None


def _pieces(board):
    return sum(cell is not None for row in board for cell in row)


def only_centre_taken(board):
    """True on the one position where X holds the centre and nothing else is played."""
    return _pieces(board) == 1 and board[1][1] == "X"


def sleeps(board):
    """Sleeps for an hour when X holds only the centre."""
    if only_centre_taken(board):
        time.sleep(3600)
    return best_move(board)


def ignores_the_alarm(board):
    """Ignores SIGALRM and spins in a loop when X holds only the centre: only a kill stops it."""
    if only_centre_taken(board):
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        while True:
            pass
    return best_move(board)


def exits(board):
    """os._exit(3) (no clean-up, no exception) on boards whose top or bottom row is X O X with 3 pieces."""
    if _pieces(board) == 3 and ["X", "O", "X"] in (board[0], board[2]):
        os._exit(3)
    return best_move(board)


def kills_itself(board):
    """SIGKILL to its own process when X holds only the centre."""
    if only_centre_taken(board):
        os.kill(os.getpid(), signal.SIGKILL)
    return best_move(board)


def calls_sys_exit(board):
    """sys.exit(0) when X holds only the centre: a SystemExit, recorded as an exception."""
    if only_centre_taken(board):
        sys.exit(0)
    return best_move(board)


def eats_memory(board):
    """Asks for 64 GiB when X holds only the centre: refused by the process's memory limit."""
    if only_centre_taken(board):
        return bytearray(64 << 30)
    return best_move(board)


def always_exits(board):
    """Ends its process on every call."""
    os._exit(1)


# A player that rewrites the grader: every verdict function it can reach now says "best",
# and the table's own judge is replaced. It then plays the first empty cell.
try:  # in the sandbox the package is not there to rewrite: only the grader's own process has it
    import solver.grading.grader
    import solver.tables.analysis

    solver.tables.analysis.verdict = lambda position, move: "best"
    solver.grading.grader.verdict = lambda position, move: "best"
    solver.grading.grader._Judge._judge = lambda self, position, answer, shown: setattr(self, "optimal", self.optimal + 1)
except ImportError:
    pass


def fools_the_grader(board):
    """The first empty cell, with the grader's verdict functions rewritten at import (above)."""
    for i, row in enumerate(board):
        for j, cell in enumerate(row):
            if cell is None:
                return i, j
    return None


def forks_a_sleeper(board):
    """Starts a process that would outlive the grading (its PID goes to $HOSTILE_PID_FILE) when X holds only the centre."""
    if only_centre_taken(board):
        import subprocess

        sleeper = subprocess.Popen(["sleep", "600"])
        with open(_setting("pid_file"), "w") as out:
            out.write(str(sleeper.pid))
        time.sleep(3600)
    return best_move(board)


# -- containment (issue 13): players that attack the table, the grader and the machine --------------
def _first_empty(board):
    for i, row in enumerate(board):
        for j, cell in enumerate(row):
            if cell is None:
                return i, j
    return None


_rewritten = []


def _rewrite_tables():
    """Rewrite, in place, every table file in the table directory this process can find (or $HOSTILE_TABLE):
    in a dense table every reachable score becomes a draw and every move a best move, so a grader
    reading the file would find every answer best; in a compact one every stored byte of the scores
    is flipped. One line is printed per file rewritten. In the sandbox the package is not there to find them."""
    import glob
    import mmap

    try:
        import numpy as np

        import solver.contents.opening
        import solver.storage.tablefile
        import solver.store.locate
    except ImportError:
        return
    paths = glob.glob(os.path.join(str(solver.store.locate.table_dir()), "*.ttt")) + ([_setting("table")] if _setting("table") else [])
    for path in paths:
        try:
            header = solver.storage.tablefile.read_header(path, solver.contents.opening.fits)
            with open(path, "r+b") as file, mmap.mmap(file.fileno(), 0) as mapped:
                if header.kind == "dense":
                    spec = header.spec("entries")
                    entries = np.frombuffer(mapped, dtype=spec.dtype, count=spec.shape[0], offset=spec.offset).copy()
                    reachable = entries["score"] != -128
                    entries["score"][reachable] = 0
                    entries["best"][reachable] = 0xFFFF
                    mapped[spec.offset : spec.offset + spec.nbytes] = entries.tobytes()
                else:
                    spec = header.spec("scores")
                    stored = spec.nbytes if spec.encoding is None else spec.encoding.data_bytes
                    mapped[spec.offset : spec.offset + stored] = bytes(b ^ 0x55 for b in mapped[spec.offset : spec.offset + stored])
            print("rewrote", path)
            _rewritten.append(path)
        except (OSError, ValueError, KeyError, solver.SolverError):
            continue


def rewrites_the_table(board):
    """The first empty cell, after rewriting the table files it can reach on its first call (problem 1)."""
    if not _rewritten:
        _rewritten.append(None)
        _rewrite_tables()
    return _first_empty(board)


def _signals_the_parent(board, signum):
    if only_centre_taken(board):
        os.kill(os.getppid(), signum)
    return best_move(board)


def stops_the_parent(board):
    """SIGSTOP to its parent process when X holds only the centre (problem 2)."""
    return _signals_the_parent(board, signal.SIGSTOP)


def kills_the_parent(board):
    """SIGKILL to its parent process when X holds only the centre (problem 2)."""
    return _signals_the_parent(board, signal.SIGKILL)


def terminates_the_parent(board):
    """SIGTERM to its parent process when X holds only the centre (problem 2)."""
    return _signals_the_parent(board, signal.SIGTERM)


def _sleeper(setsid):
    """Fork a child that (after setsid, if asked) becomes `sleep $HOSTILE_TOKEN`; the parent returns at once."""
    if os.fork() == 0:
        try:
            if setsid:
                os.setsid()
            os.execvp("sleep", ["sleep", _setting("token")])
        finally:
            os._exit(0)


def daemonizes(board):
    """A classic daemon when X holds only the centre: fork, setsid, fork again, the middle process exits (problem 3)."""
    if only_centre_taken(board):
        middle = os.fork()
        if middle == 0:
            os.setsid()
            _sleeper(setsid=False)
            os._exit(0)
        os.waitpid(middle, 0)
    return best_move(board)


def forks_twenty(board):
    """Twenty children that sleep when X holds only the centre, ten of them in sessions of their own (problem 3)."""
    if only_centre_taken(board):
        for child in range(20):
            _sleeper(setsid=child % 2 == 0)
    return best_move(board)


def lifts_the_memory_cap(board):
    """When X holds only the centre: raises its address-space limits as far as it can, then
    fills 1.5 GiB; answers the text 'filled 1.5 GiB' if that worked (problem 4)."""
    if only_centre_taken(board):
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        for wanted in ((resource.RLIM_INFINITY, resource.RLIM_INFINITY), (hard, hard)):
            try:
                resource.setrlimit(resource.RLIMIT_AS, wanted)
                break
            except (ValueError, OSError):
                continue
        filled = b"\x01" * (1536 << 20)
        return f"filled {len(filled) >> 20} MiB"
    return best_move(board)


def _reply_pipe():
    """The reply pipe's file descriptor: the player's process is started as `playerproc REQUESTS REPLIES`."""
    return int(sys.argv[2])


def _board_index():
    """The index of the board being answered, found in the caller's frames (the protocol's `index`)."""
    frame = sys._getframe(1)
    while frame is not None and "index" not in frame.f_locals:
        frame = frame.f_back
    return frame.f_locals["index"]


def forges_a_reply_index(board):
    """When X holds only the centre, writes a reply for another board (index 999,999) straight to the reply pipe."""
    if only_centre_taken(board):
        os.write(_reply_pipe(), b'{"i": 999999, "a": [0, 0], "s": 0.0, "m": 0, "p": 0}\n')
        time.sleep(3600)
    return best_move(board)


def writes_a_huge_line(board):
    """When X holds only the centre, writes 64 MiB with no line break straight to the reply pipe."""
    if only_centre_taken(board):
        chunk = b"7" * (1 << 20)
        for _ in range(64):
            os.write(_reply_pipe(), chunk)
        time.sleep(3600)
    return best_move(board)


def forges_a_printed_count(board):
    """When X holds only the centre, answers (0, 0) with a hand-made reply claiming -1,899,999,999,981 lines printed (problem 13)."""
    if only_centre_taken(board):
        import json

        reply = {"i": _board_index(), "a": [0, 0], "r": "(0, 0)", "s": 0.0, "m": 0, "p": -1899999999981}
        os.write(_reply_pipe(), (json.dumps(reply) + "\n").encode())
        os._exit(0)
    return best_move(board)


def reaches_out(board):
    """When X holds only the centre: connects to 127.0.0.1:$HOSTILE_PORT and writes a file next to
    itself; prints one line for each that worked."""
    if only_centre_taken(board):
        import socket

        try:
            socket.create_connection(("127.0.0.1", int(_setting("port"))), timeout=2).close()
            print("connected")
        except OSError:
            pass
        try:
            with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".escaped"), "w") as out:
                out.write("written from the sandbox\n")
            print("wrote a file")
        except OSError:
            pass
    return best_move(board)


# -- probes of the sandbox (issue 22): each reports what it reached on the centre position -------------
def _probe(board, found):
    if only_centre_taken(board):
        raise RuntimeError("PROBE " + json.dumps(found(), separators=(",", ":")))
    return best_move(board)


def _outcome(action):
    """What ``action()`` returned (``"ok"`` for None) if it worked, else the name of the error it raised (``ENOENT``, ...)."""
    import errno

    try:
        found = action()
    except OSError as error:
        return errno.errorcode.get(error.errno, type(error).__name__)
    return "ok" if found is None else found


def _read(path):
    """The bytes read (16 at most) of a file, or the entries of a folder."""
    if os.path.isdir(path):
        return len(os.listdir(path))
    with open(path, "rb") as file:
        return len(file.read(16))


def probe_reads(board):
    """Reads each file (or lists each folder) of the setting ``paths``: the bytes (entries) found, or the error, in order."""
    return _probe(board, lambda: [_outcome(lambda p=p: _read(p)) for p in _setting("paths")])


def _connect(path):
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(2)
        client.connect(path)
        client.sendall(b"hello from the player\n")


def probe_unix_sockets(board):
    """Connects to each unix socket of the setting ``sockets`` and says hello: ``ok`` or the error, in order."""
    return _probe(board, lambda: [_outcome(lambda p=p: _connect(p)) for p in _setting("sockets")])


def _fill(folder, mib):
    """Writes up to ``mib`` MiB in files of 8 MiB (under the file-size limit) in ``folder``: the MiB written."""
    written = 0
    chunk = b"\x01" * (1 << 20)
    try:
        for part in range(-(-mib // 8)):
            with open(os.path.join(folder, f".filled-{os.getpid()}-{part}"), "wb") as out:
                for _ in range(min(8, mib - written)):
                    out.write(chunk)
                    out.flush()
                    written += 1
    except OSError:
        pass
    return written


def probe_fills(board):
    """Fills each folder of the setting ``folders`` with up to ``mib`` MiB: the MiB written in each, in order."""
    return _probe(board, lambda: [_fill(folder, int(_setting("mib"))) for folder in _setting("folders")])


def _forks(wanted):
    """Starts up to ``wanted`` children that sleep: how many started (they are killed before it returns)."""
    children = []
    try:
        for _ in range(wanted):
            child = os.fork()
            if child == 0:
                time.sleep(60)
                os._exit(0)
            children.append(child)
    except OSError:
        pass
    for child in children:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
    return len(children)


def probe_forks(board):
    """Forks up to ``children`` children at once: how many started."""
    return _probe(board, lambda: _forks(int(_setting("children"))))


def probe_environment(board):
    """Its whole environment."""
    return _probe(board, lambda: dict(os.environ))


def probe_folder(board):
    """Its folder (where this file is), its working directory, and what its folder holds."""
    here = os.path.dirname(os.path.abspath(__file__))
    return _probe(board, lambda: {"folder": here, "cwd": os.getcwd(), "files": sorted(os.listdir(here))})


def _write(path):
    with open(path, "wb") as out:
        out.write(b"written by the player\n")


def probe_writes(board):
    """Writes a file at each path of the setting ``paths``: ``ok`` or the error, in order."""
    return _probe(board, lambda: [_outcome(lambda p=p: _write(p)) for p in _setting("paths")])


def sleeps_always(board):
    """Sleeps for an hour on every call: a player that hangs."""
    time.sleep(3600)
