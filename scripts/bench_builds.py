"""Builds, this checkout against the code of another (``bench.py --builds --before CHECKOUT``).

Each build runs in a fresh process through the public API only (``solver.table_for(game, build=True)``), so the same
text builds with either checkout; the two sides alternate (after, before, before, after, ...), and each figure is the side's fastest run. Beside the wall
time: the user and system CPU seconds of the process and of every process it waited for (the build's workers), and
the SHA-256 of the table file each side wrote, which must be the same bytes. The system time is mostly the kernel
handing out fresh memory (compacting it into huge pages, which numpy asks for), and it varies between runs of the same
code by more than the code changes it: the user CPU time is the steadier comparison.
"""

from __future__ import annotations

import hashlib
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

BUILDS = ("4x4k4", "4x4k4-misere", "3x6k3", "4x6k4-gravity", "5x5k4-gravity", "4x5k4")
"""Games built by :func:`bench_builds`: two dense tables (normal and misère play), two compact plain tables (3x6k3 in
about 3 s, 4x5k4 in about 15 s on 2 cores) and two compact gravity tables (about 7 s each)."""

BUILD_CHILD = r"""
import sys, time
sys.path.insert(0, sys.argv[1])  # the checkout measured
import solver

started = time.perf_counter()
table = solver.table_for(sys.argv[2], table_dir=sys.argv[3], build=True)
print(time.perf_counter() - started)
"""

Report = Callable[..., None]


def _one_build(python: str, checkout: Path, game: str) -> tuple[float, float, float, float, str]:
    """One build of ``game`` in a fresh process of ``python`` on ``checkout``: wall seconds of the build alone, wall
    seconds of the process, user and system CPU seconds of it and its workers, and the SHA-256 of the file it wrote."""
    with tempfile.TemporaryDirectory() as directory:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run([python, "-c", BUILD_CHILD, str(checkout), game, directory], capture_output=True, text=True, cwd=checkout)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode:
            raise RuntimeError(f"building {game} with {checkout} failed: {done.stderr.strip()[-2000:]}")
        user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
        digest = hashlib.sha256(Path(directory, f"{game}.ttt").read_bytes()).hexdigest()
    return float(done.stdout.strip().splitlines()[-1]), wall, user, system, digest


def bench_builds(report: Report, before: Path, before_python: str, *, games: Sequence[str] = BUILDS, repeats: int = 2) -> None:
    """Each of ``games`` built ``repeats`` times by this checkout and by ``before``, alternated; per side the
    fastest build, its process's CPU seconds, and whether both sides wrote the same bytes."""
    sides = (("after", sys.executable, Path(__file__).resolve().parent.parent), ("before", before_python, before))
    print(f"\nbuilds, this checkout against {before} ({os.cpu_count()} cores; load average before: {os.getloadavg()[0]:.2f})")
    for game in games:
        found: dict[str, list[tuple[float, float, float, float, str]]] = {side: [] for side, _, _ in sides}
        for repeat in range(repeats):
            for side, python, checkout in sides if repeat % 2 == 0 else sides[::-1]:  # A B B A: neither side always first
                found[side].append(_one_build(python, checkout, game))
        fastest = {side: min(results) for side, results in found.items()}
        for side, (build, wall, user, system, _) in fastest.items():
            report(f"build {game} ({side})", build, "s")
            print(f"   (process {wall:.2f} s wall, {user:.2f} s of user CPU and {system:.2f} s of system with its workers; fastest of {repeats})")
        report(f"  speed-up (after / before), {game}", fastest["before"][0] / fastest["after"][0], "x")
        users = {side: min(run[2] for run in results) for side, results in found.items()}
        report(f"  user CPU, fewest seconds (after / before), {game}", users["after"] / users["before"], "x")
        digests = {digest for results in found.values() for *_, digest in results}
        report(f"  {game}: the same bytes from every build", float(len(digests) == 1), "", "1", len(digests) == 1)
    print(f"   (load average after: {os.getloadavg()[0]:.2f})")
