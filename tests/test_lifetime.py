"""Child processes end with their parent (solver/lifetime.py): the build's pool workers, the server's workers and a
graded player's process each call :func:`solver.lifetime.die_with_parent` with the settings tested here."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from procfs import gone

ROOT = Path(__file__).resolve().parents[1]

# the parent starts the child, prints its pid and waits; the child asks to die with the parent, says so and sleeps
PARENT = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", sys.argv[1]])
print(child.pid, flush=True)
time.sleep(120)
"""
CHILD = """
import os, time, types
import solver.lifetime
if {no_prctl}:
    def no_libc(*args, **kwargs):
        raise OSError("no prctl here")
    solver.lifetime.ctypes = types.SimpleNamespace(CDLL=no_libc)
solver.lifetime.die_with_parent(os.getppid(), {options})
print("ready", flush=True)
time.sleep(120)
"""
SETTINGS = {
    "a build worker (parent-death signal)": ("False", ""),
    "a build worker (the watching thread alone)": ("True", ""),
    "a server worker (SIGTERM, no thread)": ("False", "signum=15, poll_seconds=None"),
    "a graded player (the watching thread, no signal)": ("False", "signum=None, poll_seconds=0.5, exit_code=3"),
}


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see the child")
@pytest.mark.parametrize("who", SETTINGS)
def test_a_child_ends_within_seconds_when_its_parent_is_killed_with_sigkill(who: str) -> None:
    no_prctl, options = SETTINGS[who]
    child_code = CHILD.format(no_prctl=no_prctl, options=options)
    parent = subprocess.Popen([sys.executable, "-c", PARENT, child_code], env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, text=True)
    child = 0
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert parent.stdout.readline() == "ready\n"  # the child has asked to die with its parent
        assert not gone(child), "the child ended while its parent lived"
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 10
        while not gone(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert gone(child), f"{who}: the child outlived its parent by 10 s"
    finally:
        for pid in (parent.pid, child):
            if pid:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


def test_a_child_whose_parent_is_already_gone_exits_at_once_with_the_status_asked_for() -> None:
    code = "import os, solver.lifetime\nsolver.lifetime.die_with_parent(os.getppid() + 100_000, exit_code=7)\nprint('still here')"
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=30)
    assert done.returncode == 7 and "still here" not in done.stdout, done
