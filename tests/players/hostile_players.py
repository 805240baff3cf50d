"""Players that try to hang, kill or fool the grader; each plays the table's best move elsewhere.

Graded through ``solve grade FILE.py:NAME`` (a separate process), each costs the
positions it attacks and nothing more. The positions attacked are few, so the tests stay fast.
"""

import os
import signal
import sys
import time

import solver


def _pieces(board):
    return sum(cell is not None for row in board for cell in row)


def only_centre_taken(board):
    """True on the one position where X holds the centre and nothing else is played."""
    return _pieces(board) == 1 and board[1][1] == "X"


def sleeps(board):
    """Sleeps for an hour when X holds only the centre."""
    if only_centre_taken(board):
        time.sleep(3600)
    return solver.best_move(board)


def ignores_the_alarm(board):
    """Ignores SIGALRM and spins in a loop when X holds only the centre: only a kill stops it."""
    if only_centre_taken(board):
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        while True:
            pass
    return solver.best_move(board)


def exits(board):
    """os._exit(3) (no clean-up, no exception) on boards whose top or bottom row is X O X with 3 pieces."""
    if _pieces(board) == 3 and ["X", "O", "X"] in (board[0], board[2]):
        os._exit(3)
    return solver.best_move(board)


def kills_itself(board):
    """SIGKILL to its own process when X holds only the centre."""
    if only_centre_taken(board):
        os.kill(os.getpid(), signal.SIGKILL)
    return solver.best_move(board)


def calls_sys_exit(board):
    """sys.exit(0) when X holds only the centre: a SystemExit, recorded as an exception."""
    if only_centre_taken(board):
        sys.exit(0)
    return solver.best_move(board)


def eats_memory(board):
    """Asks for 64 GiB when X holds only the centre: refused by the process's memory limit."""
    if only_centre_taken(board):
        return bytearray(64 << 30)
    return solver.best_move(board)


def always_exits(board):
    """Ends its process on every call."""
    os._exit(1)


# A player that rewrites the grader: every verdict function it can reach now says "best",
# and the table's own judge is replaced. It then plays the first empty cell.
import solver.analysis  # noqa: E402
import solver.grading  # noqa: E402

solver.analysis.verdict = lambda position, move: "best"
solver.grading.verdict = lambda position, move: "best"
solver.grading._Judge._judge = lambda self, position, answer, shown: setattr(self, "optimal", self.optimal + 1)


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
        with open(os.environ["HOSTILE_PID_FILE"], "w") as out:
            out.write(str(sleeper.pid))
        time.sleep(3600)
    return solver.best_move(board)
