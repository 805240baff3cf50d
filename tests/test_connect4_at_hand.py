"""Connect Four at hand (issue 39 points 3, 4 and 7; issue 42 point 12): no traceback from the search's progress on a
terminal, a budget that is a finite number of seconds, analysis and play from any position, batches of boards.

The terminal runs start ``solve`` on a pseudo-terminal (the standard library's :mod:`pty`), as a user types it.
Nothing is timed: a position is chosen whose search passes the half second after which the progress shows.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver.cli import main

CHECKOUT = Path(__file__).resolve().parents[1]
SLOW = "4453445"
"""A position whose search (no book) takes a few seconds: past the half second after which its progress shows."""


def on_a_terminal(*args: str, timeout: float = 300) -> tuple[int, str]:
    """``solve ARGS`` run with stdin, stdout and stderr on one pseudo-terminal: its exit status and all it wrote."""
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(CHECKOUT), "COLUMNS": "100"}
    command = [sys.executable, "-c", "from solver.cli import main; main()", *args]
    process = subprocess.Popen(command, stdin=follower, stdout=follower, stderr=follower, env=env, close_fds=True)
    os.close(follower)
    written, deadline = b"", time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.2)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the follower closed: the process ended
                break
            if not chunk:
                break
            written += chunk
        status = process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if process.poll() is None:
            process.kill()
        os.close(leader)
    return status, written.decode("utf-8", "replace")


def test_a_search_past_half_a_second_on_a_terminal_with_no_budget_shows_its_progress_and_answers_with_no_traceback() -> None:
    status, written = on_a_terminal("lookup", "--game", "connect4", "--moves", SLOW)
    assert status == 0, written
    assert "Traceback" not in written and "Error" not in written, written
    assert "searching 6x7k4-gravity: " in written and " positions" in written  # the progress showed, then the answer
    assert "Best moves (columns)" in written
    assert "ETA" not in written and "left" not in written  # no time to the answer is guessed


def test_a_search_on_a_terminal_with_a_budget_says_the_budget_and_ends_in_one_line_with_no_traceback() -> None:
    status, written = on_a_terminal("lookup", "--game", "connect4", "--moves", SLOW, "--budget", "0.8")
    assert status == 1, written
    assert "Traceback" not in written, written
    assert "of the --budget 0.8 s" in written
    errors = [line for line in written.replace("\r", "\n").splitlines() if line.startswith("solve: error:")]
    assert len(errors) == 1 and "stopped at its budget of 0.8 s" in errors[0], written


def test_a_quiet_search_on_a_terminal_writes_no_progress_and_no_stray_escape_after_it() -> None:
    status, written = on_a_terminal("lookup", "-q", "--game", "connect4", "--moves", SLOW, "--budget", "0.8")
    assert status == 1, written
    assert "searching" not in written
    assert "\x1b" not in written, repr(written)  # numba's colorama wrote ESC[0m at exit after every search
    assert written.endswith("for no limit\r\n"), repr(written[-200:])


def test_off_a_terminal_a_search_writes_no_progress_line_only_its_answer_or_its_error() -> None:
    result = CliRunner().invoke(main, ["lookup", "--game", "connect4", "--moves", SLOW, "--budget", "0.8"])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [result.stderr.strip()] and result.stderr.startswith("solve: error: the search of")


@pytest.mark.parametrize("budget", ["nan", "inf", "-inf", "1e309", "0", "-1", "five"])
def test_a_budget_that_is_not_a_finite_number_of_seconds_above_0_is_refused_at_once_in_one_line(budget: str) -> None:
    for command in (["lookup", "--moves", "4453"], ["analyze", "4453"], ["play"]):
        result = CliRunner().invoke(main, [*command, "--game", "connect4", "--budget", budget], input="")
        assert result.exit_code == 2, (command, budget, result.output)
        assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
        assert f"Invalid value for '--budget': '{budget}' is not a number of seconds" in result.stderr, result.stderr
