"""The player's resource limits: memory, CPU time, file size and processes, soft and hard.

The player's process sets every limit on itself, soft **and** hard, before the player's
file is imported (:meth:`Limits.apply`): a process may raise a soft limit up to its hard
one, never the hard one (it has no capability to). Two of them need more than ``setrlimit``:

* **memory.** ``RLIMIT_AS`` bounds each process's address space, but not the files it writes
  to a memory-backed file system. In the sandbox (:mod:`solver.grading.sandbox`) the only such
  places are its private ``/tmp`` and ``/dev/shm``, and their sizes count against ``--memory``:
  :meth:`Limits.for_grading` gives them a share of it (:class:`Scratch`) and the address space
  the rest.
* **processes.** ``RLIMIT_NPROC`` counts the processes and threads of a user, and the kernel
  does not apply it to root (nor to a user namespace's root mapped to root outside, which is what
  bubblewrap makes of a grader run as root). So a grading puts the player's processes in a
  **PID cgroup** of their own when one is writable (:class:`PidCgroup`: ``pids.max`` holds for
  every user, root included), and also sets ``RLIMIT_NPROC``, which binds any other user (in the
  sandbox, counted in its own user namespace: the player's processes only).

This module uses the standard library only: the player's process imports it.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

TMP_MB = 64
"""The largest private ``/tmp`` of a sandboxed player, in MiB (less when ``--memory`` is small: :class:`Scratch`)."""
SHM_MB = 16
"""The largest private ``/dev/shm`` of a sandboxed player, in MiB."""
FILE_MB = 64
"""The largest file the player's process may write, in MiB (``RLIMIT_FSIZE``)."""
DEFAULT_PROCESSES = 64
"""Processes and threads the player may have at once, its own process included (``--processes``)."""
SANDBOX_TASKS = 2
"""Tasks of bubblewrap itself in the player's PID cgroup: its process outside and the namespace's init."""
CPU_SLACK = 60
"""CPU seconds the player's process gets beyond the grading's total time limit (``RLIMIT_CPU``)."""
NO_TOTAL_CPU = 24 * 3600
"""CPU seconds of the player's process when the grading has no total time limit."""


@dataclass(frozen=True)
class Scratch:
    """The sizes of a sandboxed player's memory-backed folders, in MiB: its ``/tmp`` and its ``/dev/shm``.

    With a memory cap of ``M`` MiB, ``/tmp`` gets at most ``M / 8`` and ``/dev/shm`` ``M / 16``
    (:data:`TMP_MB` and :data:`SHM_MB` at most), so the address space left is at least ``13 M / 16``.
    """

    tmp_mb: int = TMP_MB
    shm_mb: int = SHM_MB

    @classmethod
    def of(cls, memory_mb: int | None) -> Scratch:
        """The folders' share of a memory cap (the largest sizes when there is none)."""
        if memory_mb is None:
            return cls()
        return cls(tmp_mb=max(1, min(TMP_MB, memory_mb // 8)), shm_mb=max(1, min(SHM_MB, memory_mb // 16)))

    @property
    def total_mb(self) -> int:
        """Both sizes, in MiB."""
        return self.tmp_mb + self.shm_mb


@dataclass(frozen=True)
class Limits:
    """Hard and soft resource limits of the player's process (``None``: unlimited).

    :param memory_mb: address space, in MiB (``RLIMIT_AS``).
    :param cpu_seconds: CPU time of each process, in seconds (``RLIMIT_CPU``: ``SIGXCPU``, then killed).
    :param file_mb: the largest file it may write, in MiB (``RLIMIT_FSIZE``).
    :param processes: processes and threads its user may have at once (``RLIMIT_NPROC``; not enforced for root).
    """

    memory_mb: int | None
    cpu_seconds: int | None
    file_mb: int | None = FILE_MB
    processes: int | None = None

    @classmethod
    def for_grading(cls, memory_mb: int | None, total_timeout: float | None, *, processes: int, scratch: Scratch | None) -> Limits:
        """The limits of a grading: CPU time up to its total time limit, and its memory and processes.

        :param memory_mb: the grading's memory cap (``--memory``), in MiB, or None.
        :param processes: the player's processes and threads at most (``--processes``).
        :param scratch: the sandbox's memory-backed folders, whose sizes come out of ``memory_mb``;
            None without a sandbox (the process then shares this user's process count, which is added).
        """
        cpu = NO_TOTAL_CPU if total_timeout is None else int(total_timeout) + CPU_SLACK
        if scratch is None:
            return cls(memory_mb=memory_mb, cpu_seconds=cpu, processes=user_processes() + processes)
        memory = None if memory_mb is None else max(1, memory_mb - scratch.total_mb)
        return cls(memory_mb=memory, cpu_seconds=cpu, processes=processes + 1)  # + the namespace's init, of the same user

    def to_json(self) -> dict[str, Any]:
        """The limits as plain data, for the player's process."""
        return asdict(self)

    def apply(self) -> None:
        """Set every limit, soft and hard, on this process (a limit is never raised above the current hard one)."""
        import resource

        core = [(resource.RLIMIT_CORE, 0)]
        wanted = [
            (resource.RLIMIT_AS, _mib(self.memory_mb)),
            (resource.RLIMIT_CPU, self.cpu_seconds),
            (resource.RLIMIT_FSIZE, _mib(self.file_mb)),
            (resource.RLIMIT_NPROC, self.processes),
        ]
        for which, value in [*core, *wanted]:
            if value is None:
                continue
            _, hard = resource.getrlimit(which)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(which, (value, value))


def _mib(megabytes: int | None) -> int | None:
    return None if megabytes is None else megabytes << 20


def user_processes() -> int:
    """Tasks (processes and their threads, what ``RLIMIT_NPROC`` counts) this user runs now, from ``/proc`` (0 without it)."""
    uid = os.getuid()
    count = 0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0
    for entry in entries:
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry}/task"))
            except OSError:
                continue
    return count


# -- the PID cgroup ---------------------------------------------------------------------------
_made = itertools.count()


class PidCgroup:
    """A cgroup of the player's processes whose ``pids.max`` bounds them, for every user (root too).

    Made with :meth:`make` under this process's own cgroup, in the unified hierarchy when its
    ``pids`` controller is delegated there, else in the ``pids`` hierarchy of cgroup v1. The
    player's command joins it before it starts (:meth:`wrap`); :meth:`kill` ends every process
    in it, and :meth:`remove` deletes it once it is empty.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def make(cls, tasks: int) -> PidCgroup | None:
        """A new cgroup allowing ``tasks`` processes and threads at once, or None where none is writable here."""
        for parent in _own_pid_cgroups():
            _remove_dead(parent)
            path = parent / f"{_PREFIX}{os.getpid()}-{next(_made)}"
            try:
                path.mkdir()
            except OSError:
                continue
            made = cls(path)
            try:
                (path / "pids.max").write_text(f"{tasks}\n")
            except OSError:
                made.remove()
                continue
            # a process moves in by writing to the new cgroup's list and (cgroup v2) the list of the cgroup it leaves
            if os.access(path / "cgroup.procs", os.W_OK) and os.access(parent / "cgroup.procs", os.W_OK):
                return made
            made.remove()
        return None

    def wrap(self, command: list[str]) -> list[str]:
        """``command`` started by a shell that first moves itself into this cgroup (so every process it starts is in it)."""
        return ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', str(self.path / "cgroup.procs"), *command]

    def pids(self) -> list[int]:
        """The processes in the cgroup now."""
        try:
            return [int(line) for line in (self.path / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def kill(self) -> None:
        """SIGKILL every process in the cgroup, and wait (a few seconds at most) until it is empty."""
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            found = self.pids()
            if not found:
                return
            for pid in found:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def remove(self) -> None:
        """Kill what is left in the cgroup and delete it (a cgroup still busy is left, to be removed by its hierarchy)."""
        self.kill()
        with contextlib.suppress(OSError):
            self.path.rmdir()


_PREFIX = "solved-tictactoe-"


def _remove_dead(parent: Path) -> None:
    """Remove the cgroups of graders that died without removing theirs (killed): empty ones whose grader's pid is gone."""
    for stale in parent.glob(f"{_PREFIX}*-*"):
        pid = stale.name.removeprefix(_PREFIX).split("-")[0]
        if not pid.isdigit() or Path(f"/proc/{pid}").exists():
            continue
        with contextlib.suppress(OSError):
            stale.rmdir()


def _own_pid_cgroups() -> list[Path]:
    """This process's cgroups that have a ``pids`` controller a child cgroup could use: unified first, then v1."""
    try:
        memberships = Path("/proc/self/cgroup").read_text().splitlines()
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return []
    found: list[Path] = []
    for line in memberships:
        _, controllers, relative = line.split(":", 2)
        if controllers == "":
            root = _mount_point(mounts, "cgroup2", None)
            if root is not None and "pids" in _read(root / relative.lstrip("/") / "cgroup.subtree_control").split():
                found.insert(0, root / relative.lstrip("/"))
        elif "pids" in controllers.split(","):
            root = _mount_point(mounts, "cgroup", "pids")
            if root is not None:
                found.append(root / relative.lstrip("/"))
    return found


def _mount_point(mounts: list[str], fstype: str, option: str | None) -> Path | None:
    """Where a cgroup hierarchy is mounted (``/proc/self/mountinfo``): of this type, with this super option if given."""
    for line in mounts:
        head, _, tail = line.partition(" - ")
        fields, types = head.split(), tail.split()
        if len(fields) >= 5 and len(types) >= 3 and types[0] == fstype and (option is None or option in types[2].split(",")):
            return Path(fields[4])
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
