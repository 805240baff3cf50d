"""Pons' and Steininger's C++ Connect Four solvers, timed in the same run as the engine (``bench.py --pons``, ``--c4``).

Each solver is built on the machine outside this repository (their sources are AGPL-3.0), with a timing driver of
``scripts/baselines/`` (``pons_times.cpp``, ``c4_times.cpp``; the build commands are at their top and in
docs/performance.md). A driver reads move strings on stdin (columns 1 to 7, one position a line, the same positions
in the same order as the engine's rows) and writes one line a position: ``score nodes cpu_ns wall_ns``, the CPU time
read around the solve from the process's CPU clock (every thread), the clock :func:`time.process_time` reads around
the engine's search. The driver runs in an empty temporary directory: no opening book beside it. The process's
whole CPU time, start-up included, is read with ``getrusage(RUSAGE_CHILDREN)`` and printed beside.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import select
import statistics
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


class BaselineError(RuntimeError):
    """A driver's output that is not ``score nodes cpu_ns wall_ns`` lines, or a driver that failed."""


@dataclass(frozen=True)
class Solved:
    """One position solved by a baseline: its score (Pons' scale, for the side to move), nodes, CPU and wall seconds."""

    score: int
    nodes: int
    cpu: float
    wall: float


@dataclass(frozen=True)
class BaselineRun:
    """A driver's run on a list of positions: the positions it solved (in order), its settings line (stderr), the
    CPU seconds of the whole process (start-up and table included), and whether it finished before its deadline."""

    solved: tuple[Solved, ...]
    settings: str
    process_cpu: float
    finished: bool


@dataclass(frozen=True)
class Baseline:
    """A timing driver: its name in the figures (``Pons``, ``c4``), its executable and its arguments (``-a``: Pons'
    driver values every move)."""

    name: str
    path: Path
    args: tuple[str, ...] = ()

    def run(self, moves: list[str], *, timeout: float) -> BaselineRun:
        """Solve ``moves`` (move strings) in one process, in an empty directory (the path is taken from the current
        one); stop it after ``timeout`` wall seconds and keep the positions solved by then. Raises
        :class:`BaselineError` if the driver fails."""
        before = _children_cpu()
        with tempfile.TemporaryDirectory(prefix="c4-baseline-") as cwd:
            command = [str(self.path.resolve()), *self.args]
            process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            finished = True
            try:
                out, err = process.communicate("".join(f"{line}\n" for line in moves), timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                out, err = process.communicate()
                finished = False
        if finished and process.returncode != 0:
            raise BaselineError(f"{self.path} exited with status {process.returncode}: {err.strip()[-300:]}")
        solved = parse_output(out if finished else out[: out.rfind("\n") + 1])
        return BaselineRun(solved, err.splitlines()[0] if err else "", _children_cpu() - before, finished and len(solved) == len(moves))

    @contextlib.contextmanager
    def session(self) -> Iterator[Session]:
        """The driver kept running in an empty directory, asked a few positions at a time (:meth:`Session.solve`),
        so that the engine and the driver can take turns and meet the same machine; its table is kept from one
        position to the next, as in :meth:`run`. Raises :class:`BaselineError` if it fails."""
        with tempfile.TemporaryDirectory(prefix="c4-baseline-") as cwd:
            before = _children_cpu()
            command = [str(self.path.resolve()), *self.args]
            process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
            session = Session(self, process)
            try:
                yield session
            finally:
                try:
                    _, err = process.communicate(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    _, err = process.communicate()
                session.settings = err.decode(errors="replace").splitlines()[0] if err.strip() else ""
                session.process_cpu = _children_cpu() - before


class Session:
    """A running driver (:meth:`Baseline.session`): a line for each position in, a ``score nodes cpu_ns wall_ns`` line
    for each out."""

    def __init__(self, baseline: Baseline, process: subprocess.Popen[bytes]) -> None:
        self.baseline, self.process = baseline, process
        self._pending = b""
        self.solved: list[Solved] = []
        self.settings = ""
        """The driver's settings line (its stderr's first), known once the session is closed."""
        self.process_cpu = 0.0
        """The CPU seconds of the driver's whole process, start-up included, known once the session is closed."""

    def solve(self, moves: Sequence[str], *, timeout: float) -> list[Solved]:
        """The driver's answers for these move strings (all written at once, then read), each within ``timeout``
        wall seconds of the one before."""
        assert self.process.stdin is not None
        try:
            self.process.stdin.write("".join(f"{line}\n" for line in moves).encode())
        except BrokenPipeError:
            raise BaselineError(f"{self.baseline.path} exited: {self._error()}") from None
        answers = [parse_solved(self._line(line, timeout)) for line in moves]
        self.solved.extend(answers)
        return answers

    def _line(self, moves: str, timeout: float) -> str:
        """The driver's next output line (read unbuffered, so that waiting for it cannot miss one already read)."""
        assert self.process.stdout is not None
        while b"\n" not in self._pending:
            ready, _, _ = select.select([self.process.stdout], [], [], timeout)
            if not ready:
                raise BaselineError(f"{self.baseline.path}: no answer for {moves!r} in {timeout:.0f} s")
            data = os.read(self.process.stdout.fileno(), 1 << 16)
            if not data:
                raise BaselineError(f"{self.baseline.path} exited with status {self.process.wait()}: {self._error()}")
            self._pending += data
        line, _, self._pending = self._pending.partition(b"\n")
        return line.decode()

    def result(self, positions: int) -> BaselineRun:
        """The session as a run of ``positions`` positions (finished if it answered every one); once closed."""
        return BaselineRun(tuple(self.solved), self.settings, self.process_cpu, len(self.solved) == positions)

    def _error(self) -> str:
        self.process.kill()
        _, err = self.process.communicate()
        return err.decode(errors="replace").strip()[-300:]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def parse_solved(line: str) -> Solved:
    """One line of a driver: ``score nodes cpu_ns wall_ns`` (integers) as a :class:`Solved` (seconds)."""
    fields = line.split()
    if len(fields) != 4 or not all(field.lstrip("-").isdigit() for field in fields):
        raise BaselineError(f"not a 'score nodes cpu_ns wall_ns' line: {line!r}")
    score, nodes, cpu, wall = (int(field) for field in fields)
    return Solved(score, nodes, cpu / 1e9, wall / 1e9)


def parse_output(text: str) -> tuple[Solved, ...]:
    """Every line of a driver's output."""
    return tuple(parse_solved(line) for line in text.splitlines() if line.strip())


def baselines_of(args: argparse.Namespace) -> list[Baseline]:
    """The drivers named by ``--pons`` and ``--c4``, each checked to be an executable file."""
    chosen = [Baseline(name, path) for name, path in (("Pons", args.pons), ("c4", args.c4)) if path is not None]
    for baseline in chosen:
        if not baseline.path.is_file():
            raise SystemExit(f"bench.py: --{baseline.name.lower()} {baseline.path}: no such file (see docs/performance.md for its build)")
    return chosen


def parse_sets(spec: str, names: list[str]) -> dict[str, int | None]:
    """``--connect4-sets``: ``NAME[:COUNT],...`` as {set name: positions sampled (None: the default)}; the names are
    Pons' sets' (``End-Easy``, ...), matched without case."""
    chosen: dict[str, int | None] = {}
    by_lower = {name.lower(): name for name in names}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        name, _, count = item.partition(":")
        if name.lower() not in by_lower:
            raise argparse.ArgumentTypeError(f"unknown set {name!r}: one of {', '.join(names)}")
        if count and not (count.isdigit() and 1 <= int(count) <= 1000):
            raise argparse.ArgumentTypeError(f"{item!r}: the count is a number of positions from 1 to 1000")
        chosen[by_lower[name.lower()]] = int(count) if count else None
    if not chosen:
        raise argparse.ArgumentTypeError("name at least one set")
    return chosen


NAMES = {"Pons": "Pons' C++ solver (no book)", "c4": "Steininger's c4"}
"""How the figures name each driver's solver."""

POSSESSIVE = {"Pons": "Pons'", "c4": "c4's"}

Report = Callable[..., None]


def compare_set(
    report: Report,
    name: str,
    baselines: Sequence[Baseline],
    lines: list[tuple[str, int]],
    times: list[float],
    *,
    pons_target: float | None,
    runs: int = 1,
    done: Mapping[str, BaselineRun] | None = None,
    wall: bool = False,
) -> None:
    """Each baseline on the positions the engine searched (``lines``: move strings and Pons' scores, in order;
    ``times``: the engine's CPU seconds on each): their mean and slowest CPU time a position, any score that differs
    from the set's, and the engine's mean over theirs on the same positions (``pons_target``: the bound on that
    ratio against Pons' solver). Each baseline runs ``runs`` times, a fresh process each; its figures are the
    run with the lowest mean. ``done``: each baseline's run already made (by name), taken instead of running it.
    ``wall``: their mean wall time a position too (the sets whose bound is the time a user waits)."""
    deadline = 60 + 30 * sum(times)
    for baseline in baselines:
        prefix, label = f"C4 {name}", NAMES.get(baseline.name, baseline.name)
        if done is not None:
            if baseline.name not in done:
                continue
            attempts = [done[baseline.name]]
        else:
            try:
                attempts = [baseline.run([moves for moves, _ in lines], timeout=deadline) for _ in range(runs)]
            except BaselineError as error:
                print(f"   {label}: failed: {error}")
                continue
        run = min(attempts, key=lambda attempt: (-len(attempt.solved), statistics.fmean(each.cpu for each in attempt.solved) if attempt.solved else 0.0))
        solved = len(run.solved)
        if not solved:
            print(f"   {label}: no position solved in {deadline:.0f} s")
            continue
        cpu = [each.cpu for each in run.solved]
        count = f"{solved} positions" if run.finished else f"{solved} of {len(lines)} before its deadline of {deadline:.0f} s"
        if runs > 1:
            count += f", best of {runs} runs"
        report(f"{prefix}: {label}, mean ({count}, CPU)", statistics.fmean(cpu) * 1e3, "ms")
        report(f"{prefix}: {label}, slowest", max(cpu) * 1e3, "ms")
        if wall:
            report(f"{prefix}: {label}, mean wall", statistics.fmean(each.wall for each in run.solved) * 1e3, "ms")
        wrong = sum(each.score != score for each, (_, score) in zip(run.solved, lines, strict=False))
        if wrong:
            report(f"{prefix}: {label}, WRONG scores", wrong, "positions", "0", False)
        ratio = statistics.fmean(times[:solved]) / max(statistics.fmean(cpu), 1e-9)
        target = pons_target if baseline.name == "Pons" else None
        bound = "" if target is None else f"<= {target:g}"
        report(
            f"{prefix}: the engine's search / {POSSESSIVE.get(baseline.name, baseline.name)} (means)",
            ratio,
            "x",
            bound,
            None if target is None else ratio <= target,
        )
        agree = "every score agrees with the set's" if not wrong else f"{wrong} scores differ from the set's"
        print(f"   {run.settings.rstrip('.')}: {agree}; its process took {run.process_cpu:.3g} s of CPU with its start-up (getrusage)")


def compare_empty(
    report: Report, baselines: Sequence[Baseline], engine_cpu: float, *, target: float, engine_wall: float | None = None, every_cpu: float | None = None
) -> None:
    """Steininger's c4 on the empty board from scratch beside the engine's ``engine_cpu`` seconds (one thread): its
    CPU and wall time, nodes and score (Pons' scale: 1, the first player wins on ply 41), the engine's time over its
    CPU time (``target``: the bound), and with ``engine_wall`` and ``every_cpu`` (the engine on every core) the ratios
    of wall times and of CPU times. Pons' solver is not run there: without its book it takes hours."""
    for baseline in baselines:
        if baseline.name != "c4":
            print(f"   {NAMES.get(baseline.name, baseline.name)}: not run on the empty board (hours without its book)")
            continue
        deadline = max(600.0, 30 * engine_cpu)
        run = baseline.run([""], timeout=deadline)
        if not run.solved:
            print(f"   Steininger's c4: the empty board not solved in {deadline:.0f} s")
            continue
        solved = run.solved[0]
        report("C4 empty board: Steininger's c4 (CPU, every thread)", solved.cpu, "s")
        report("C4 empty board: Steininger's c4 (wall)", solved.wall, "s")
        report("C4 empty board: Steininger's c4, nodes", solved.nodes, "")
        report("C4 empty board: c4's score (first player wins on ply 41: 1)", solved.score, "", "1", solved.score == 1)
        ratio = engine_cpu / max(solved.cpu, 1e-9)
        report("C4 empty board: the engine / c4 (CPU)", ratio, "x", f"<= {target:g}", ratio <= target)
        if engine_wall is not None:
            report("C4 empty board: the engine on every core / c4 (wall)", engine_wall / max(solved.wall, 1e-9), "x")
        if every_cpu is not None:
            report("C4 empty board: the engine on every core / c4 (CPU)", every_cpu / max(solved.cpu, 1e-9), "x")
        print(f"   {run.settings.rstrip('.')}: its process took {run.process_cpu:.3g} s of CPU with its start-up (getrusage)")
