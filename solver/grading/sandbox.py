"""Containing a player's process: a bubblewrap sandbox, and hard resource limits.

The grader (:mod:`solver.grading.grader`) runs a player given as ``"FILE.py:NAME"`` in a
process of its own (:mod:`solver.grading.player`). With ``sandbox="bwrap"`` (what
``"auto"`` picks wherever it works) that process starts inside `bubblewrap
<https://github.com/containers/bubblewrap>`_ (``bwrap``, Debian's ``bubblewrap``,
the tool Flatpak runs every app in):

=====================  ========================================================================
what                   how
=====================  ========================================================================
processes              its own PID namespace: it sees only itself (its parent is the
                       namespace's init, not the grader), cannot signal the grader, and every
                       process it starts, ``setsid`` daemons included, is killed when the
                       namespace's init ends: after each restart and when grading ends
                       (``--unshare-pid --die-with-parent --new-session``)
file system            every file read-only (``--ro-bind / /``); a private ``/tmp`` of
                       :data:`TMP_MB` MiB; the table directory, the shipped table and the
                       directory of the table being graded hidden under empty private
                       directories; Python, its ``sys.path`` and the player's own folder
                       read-only, and so is the working directory
network, IPC, host     none: ``--unshare-all`` (network, IPC, UTS, user and cgroup namespaces)
capabilities           all dropped (``--cap-drop ALL``), so even root cannot remount, raise a
                       hard limit or leave the namespace
=====================  ========================================================================

Whatever the sandbox, the player's process sets soft **and** hard limits on
itself before the player's file is imported (:class:`Limits`): address space
(``--memory``), CPU seconds, the size of a file it writes, and the number of
processes of its user (``RLIMIT_NPROC``; the kernel does not enforce that one for
root, so the PID namespace, killed with the player, is the real bound there).

Where bubblewrap is missing or cannot run (unprivileged user namespaces are
disabled on some systems), ``"auto"`` grades with the process isolation alone and
warns once (:class:`SandboxWarning`, one line on stderr from ``solve grade``)
saying what is then not contained; ``"bwrap"`` refuses to grade instead.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import PlayerError

Sandbox = Literal["auto", "bwrap", "none"]
"""How the player's process is contained: bubblewrap if it works (``auto``), bubblewrap or refuse, or not at all."""
SANDBOXES: tuple[Sandbox, ...] = ("auto", "bwrap", "none")

TMP_MB = 64
"""Size of the player's private ``/tmp`` (and of each empty directory put over a hidden one), in MiB."""
FILE_MB = 64
"""The largest file the player's process may write, in MiB (``RLIMIT_FSIZE``)."""
EXTRA_PROCESSES = 64
"""Processes and threads the player may start beyond those its user already runs (``RLIMIT_NPROC``)."""
CPU_SLACK = 60
"""CPU seconds the player's process gets beyond the grading's total time limit (``RLIMIT_CPU``)."""
NO_TOTAL_CPU = 24 * 3600
"""CPU seconds of the player's process when the grading has no total time limit."""

_FLAGS = ("--unshare-all", "--cap-drop", "ALL", "--die-with-parent", "--new-session")
_warned = False


class SandboxWarning(UserWarning):
    """The player runs without the sandbox: the warning says what is not contained."""


NOT_CONTAINED = (
    "it runs as this user, so it can read and write this user's files (table files included: the verdicts "
    "still come from a private copy made before it starts, and a table it damaged is reported), signal the "
    "grader if it finds its process, leave processes behind with setsid, and, run as root, raise its limits; "
    "install bubblewrap (apt-get install bubblewrap) to contain it"
)


# -- is bubblewrap there, and does it work? ---------------------------------------------
@functools.cache
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot sandbox a process here, or None when it can (tried once per process).

    It is tried with the namespaces and the read-only root the grader uses, running
    ``true``; it fails, for instance, where unprivileged user namespaces are disabled.
    """
    path = shutil.which("bwrap")
    if path is None:
        return "bwrap is not installed"
    try:
        done = subprocess.run(
            [path, *_FLAGS, "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{path} did not run: {error}"
    if done.returncode != 0:
        why = " ".join(done.stderr.decode(errors="replace").split())[:200] or f"exit status {done.returncode}"
        return f"{path} cannot create a sandbox here ({why})"
    return None


def choose(sandbox: str) -> Literal["bwrap", "none"]:
    """The sandbox a grading uses: ``"auto"`` picks bubblewrap when it works, else warns once and picks none.

    :raises PlayerError: for an unknown name, or ``"bwrap"`` where bubblewrap cannot run.
    """
    global _warned
    if sandbox not in SANDBOXES:
        raise PlayerError(f"sandbox must be one of {', '.join(SANDBOXES)}, found {sandbox!r}")
    if sandbox == "none":
        return "none"
    problem = bwrap_problem()
    if problem is None:
        return "bwrap"
    if sandbox == "bwrap":
        raise PlayerError(f"cannot sandbox the player: {problem}; install bubblewrap, or grade with --sandbox none")
    if not _warned:
        _warned = True
        warnings.warn(f"the player runs without a sandbox ({problem}): {NOT_CONTAINED}", SandboxWarning, stacklevel=3)
    return "none"


# -- the bubblewrap command ---------------------------------------------------------------
def bwrap_command(command: Sequence[str], *, cwd: Path, player_dir: Path, needed: Iterable[Path], hidden: Iterable[Path]) -> list[str]:
    """``command`` wrapped in a bubblewrap sandbox (module docstring).

    :param cwd: the working directory, kept readable (a player named by a relative path is found from it).
    :param player_dir: the folder of the player's file, kept readable.
    :param needed: folders import needs (Python's prefix, ``sys.path``, the package): kept readable
        even when they lie under ``/tmp`` or a hidden folder.
    :param hidden: folders and files the player must not see: each folder is covered by an
        empty private one, unless a kept path lies inside it (then its table files are hidden one by one).
    """
    path = shutil.which("bwrap") or "bwrap"
    keep = _existing([cwd, player_dir, *needed])
    args = [path, *_FLAGS, "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--size", str(TMP_MB << 20), "--tmpfs", "/tmp"]
    for folder in keep:
        args += ["--ro-bind", str(folder), str(folder)]
    for target in _existing(hidden):
        args += _hide(target, keep)
    return [*args, "--chdir", str(cwd), "--", *command]


def _existing(paths: Iterable[Path]) -> list[Path]:
    """The paths that exist, absolute and without repeats, in order."""
    found: list[Path] = []
    for path in paths:
        for each in (Path(os.path.abspath(path)), Path(path).resolve()):
            if each.exists() and each not in found:
                found.append(each)
    return found


def _hide(target: Path, keep: Sequence[Path]) -> list[str]:
    if target.is_dir() and not any(kept == target or target in kept.parents for kept in keep):
        return ["--size", str(TMP_MB << 20), "--tmpfs", str(target)]
    files = [target] if target.is_file() else sorted(target.glob("*.ttt*")) if target.is_dir() else []
    return [arg for file in files if file.is_file() for arg in ("--ro-bind", "/dev/null", str(file))]


def python_paths() -> list[Path]:
    """The folders a Python child of this interpreter imports from: prefixes, the executable's folder, ``sys.path``."""
    found = [Path(sys.prefix), Path(sys.exec_prefix), Path(sys.base_prefix), Path(sys.executable).parent]
    found += [Path(entry) for entry in sys.path if entry and Path(entry).is_dir()]
    return found


# -- limits, set by the player's process on itself ------------------------------------------
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
    def for_grading(cls, memory_mb: int | None, total_timeout: float | None) -> Limits:
        """The limits of a grading: its memory cap, CPU time up to its total time limit, and a few processes."""
        cpu = NO_TOTAL_CPU if total_timeout is None else int(total_timeout) + CPU_SLACK
        return cls(memory_mb=memory_mb or None, cpu_seconds=cpu, processes=_user_processes() + EXTRA_PROCESSES)

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


def _user_processes() -> int:
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
