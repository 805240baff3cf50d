"""Containing a player's process: a bubblewrap sandbox built as an allow-list.

The grader (:mod:`solver.grading.grader`) runs a player given as ``"FILE.py:NAME"`` in a
process of its own (:mod:`solver.grading.player`). With ``sandbox="bwrap"`` (what
``"auto"`` picks wherever it works) that process starts inside `bubblewrap
<https://github.com/containers/bubblewrap>`_ (``bwrap``, Debian's ``bubblewrap``, the tool
Flatpak runs every app in), and sees only what it is given:

=====================  ========================================================================
what                   how
=====================  ========================================================================
file system            a read-only root holding only ``/usr`` (the system's libraries and
                       tools), the Python interpreter and its standard library, the
                       environment's ``site-packages``, the player's file alone in a folder of
                       its own (:data:`PLAYER_FOLDER`, with the files the grading names as its
                       support, and nothing else of the folder it came from: not the other
                       students' files), and the few modules of this package the player's
                       process runs (:data:`CHILD_MODULES`, at ``/grader``): no ``/etc``,
                       ``/home``, ``/root``, ``/run``, ``/var``, no checkout, no table; a table
                       directory, a package or a table inside one of those folders is covered
                       by an empty folder. Writable: a private ``/tmp`` and ``/dev/shm`` only,
                       whose sizes count against ``--memory``
                       (:class:`solver.grading.limits.Scratch`)
environment            a new one (:func:`player_environment`: :data:`ENVIRONMENT`, ``HOME`` and
                       ``TMPDIR`` its ``/tmp``, ``PWD`` its folder), nothing inherited
user                   ``nobody`` (uid 65534) in a user namespace of its own, with no
                       capability, and no way to make another namespace
processes              its own PID namespace: it sees only itself, cannot signal the grader, and
                       every process it starts, ``setsid`` daemons included, is killed with it;
                       at most ``--processes`` at once (:mod:`solver.grading.limits`)
network and IPC        none: its own network, IPC and UTS namespaces; on x86-64 and ARM64 a
                       seccomp filter (:func:`seccomp_filter`) refuses unix-domain sockets (so
                       no socket file of the host is reachable, even one inside an allowed
                       folder) and the kernel keyrings
=====================  ========================================================================

Where bubblewrap is missing or cannot run (unprivileged user namespaces are disabled on some
systems), ``"auto"`` grades with the process isolation alone and warns once, in one line
(:class:`SandboxWarning`, on stderr from ``solve grade``); ``"bwrap"`` refuses to grade instead.
"""

from __future__ import annotations

import errno
import functools
import os
import platform
import shutil
import site
import stat
import struct
import subprocess
import sys
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..errors import PlayerError, SandboxWarning
from .limits import Scratch

Sandbox = Literal["auto", "bwrap", "none"]
"""How the player's process is contained: bubblewrap if it works (``auto``), bubblewrap or refuse, or not at all."""
SANDBOXES: tuple[Sandbox, ...] = ("auto", "bwrap", "none")

NOBODY = 65534
"""The user and group the player runs as inside the sandbox."""
CHILD_ROOT = Path("/grader")
"""Where the sandbox puts :data:`CHILD_MODULES` (a folder of the sandbox only, on its ``PYTHONPATH``)."""
CHILD_MODULES = ("errors.py", "lifetime.py", "grading/player.py", "grading/limits.py", "grading/sandbox.py")
"""The modules of this package the player's process imports (``python -m solver.grading.player``), relative to
the package: all it gets of it. ``solver`` is then a namespace package with these modules only."""
PLAYER_FOLDER = Path("/player")
"""The sandboxed player's folder and working directory: its file and its support files, read-only, and nothing else."""
ENVIRONMENT = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONDONTWRITEBYTECODE": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
}
"""What every player's environment holds, sandboxed or not; :func:`player_environment` adds the variables that
name its places. Numeric libraries run one thread: threads count as processes."""
UNSANDBOXED = "it can read and change your files and reach the network (apt-get install -y bubblewrap contains it)"
"""What a player run without the sandbox can do, said once (:class:`SandboxWarning`)."""

_FLAGS = (
    "--unshare-user",
    "--uid",
    str(NOBODY),
    "--gid",
    str(NOBODY),
    "--unshare-ipc",
    "--unshare-pid",
    "--unshare-net",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--cap-drop",
    "ALL",
    "--die-with-parent",
    "--new-session",
)
_ROOT_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
"""Top-level folders of the host kept as they are (on most systems, links into ``/usr``)."""
_COVER_BYTES = 4096
_warned = False


# -- is bubblewrap there, and does it work? ---------------------------------------------
@functools.cache
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot sandbox a process here, or None when it can (tried once per process).

    It is tried with the namespaces, the read-only root and the seccomp filter the grader
    uses, running ``true``; it fails, for instance, where unprivileged user namespaces are disabled.
    """
    path = shutil.which("bwrap")
    if path is None:
        return "bwrap is not installed"
    try:
        done = _run_sandboxed(path, ["true"], with_seccomp=seccomp_filter() is not None)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{path} did not run: {error}"
    if done.returncode != 0:
        why = " ".join(done.stderr.decode(errors="replace").split())[:200] or f"exit status {done.returncode}"
        return f"{path} cannot create a sandbox here ({why})"
    return None


def _run_sandboxed(path: str, command: list[str], *, with_seccomp: bool) -> subprocess.CompletedProcess[bytes]:
    """``command`` in a sandbox with nothing but the system's folders (the check of :func:`bwrap_problem`)."""
    args = [path, *_flags(), *_system_binds(), "--proc", "/proc", "--dev", "/dev", "--remount-ro", "/"]
    if not with_seccomp:
        return subprocess.run([*args, "--", *command], stdin=subprocess.DEVNULL, capture_output=True, timeout=30, check=False)
    read, write = os.pipe()
    try:
        os.write(write, seccomp_filter() or b"")
        os.close(write)
        return subprocess.run(
            [*args, "--seccomp", str(read), "--", *command], stdin=subprocess.DEVNULL, capture_output=True, timeout=30, check=False, pass_fds=(read,)
        )
    finally:
        os.close(read)


@functools.cache
def _flags() -> tuple[str, ...]:
    """bubblewrap's flags: :data:`_FLAGS`, and ``--disable-userns`` where this bubblewrap has it (0.8 on)."""
    path = shutil.which("bwrap") or "bwrap"
    try:
        helped = subprocess.run([path, "--help"], stdin=subprocess.DEVNULL, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return _FLAGS
    return (*_FLAGS, "--disable-userns") if b"--disable-userns" in helped.stdout + helped.stderr else _FLAGS


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
        raise PlayerError(f"cannot sandbox the player: {problem}; install bubblewrap (apt-get install -y bubblewrap), or grade with --sandbox none")
    if not _warned:
        _warned = True
        warnings.warn(f"the player runs without a sandbox ({problem}): {UNSANDBOXED}", SandboxWarning, stacklevel=3)
    return "none"


# -- the seccomp filter ---------------------------------------------------------------------
@dataclass(frozen=True)
class _Arch:
    audit: int
    """``AUDIT_ARCH_*``: what ``seccomp_data.arch`` says for this architecture's own system calls."""
    socket: int
    refused: tuple[int, ...]
    """``add_key``, ``request_key``, ``keyctl``, ``unshare``, ``setns``: refused outright."""
    clone: int
    clone3: int
    x32: bool = False


_ARCHES = {
    "x86_64": _Arch(audit=0xC000003E, socket=41, refused=(248, 249, 250, 272, 308), clone=56, clone3=435, x32=True),
    "aarch64": _Arch(audit=0xC00000B7, socket=198, refused=(217, 218, 219, 97, 268), clone=220, clone3=435),
}
_LD_W_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_AF_UNIX = 1
_NEW_NAMESPACES = 0x7E020000
"""``CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET``."""


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    """One classic BPF instruction (``struct sock_filter``), in this machine's byte order."""
    return struct.pack("=HBBI", code, jt, jf, k)


def _deny(number: int) -> bytes:
    return _op(_RET, _ERRNO | number)


def seccomp_filter(machine: str | None = None) -> bytes | None:
    """The seccomp program of the sandbox (classic BPF, as bubblewrap's ``--seccomp`` reads it), or None for another architecture.

    It refuses, with an error the player can catch: ``socket(AF_UNIX, ...)`` (``EACCES``);
    the kernel keyrings, ``unshare`` and ``setns``, and ``clone`` asking for a new namespace
    (``EPERM``); ``clone3``, whose flags a filter cannot read (``ENOSYS``: the C library falls
    back to ``clone``); and every system call of another ABI (32-bit or x32: ``EPERM``).

    :param machine: ``platform.machine()`` by default (``x86_64`` or ``aarch64``).
    """
    arch = _ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    program = [_op(_LD_W_ABS, 4), _op(_JEQ, arch.audit, jt=1), _deny(errno.EPERM), _op(_LD_W_ABS, 0)]
    if arch.x32:
        program += [_op(_JGE, 0x40000000, jf=1), _deny(errno.EPERM)]
    for number in arch.refused:
        program += [_op(_JEQ, number, jf=1), _deny(errno.EPERM)]
    program += [_op(_JEQ, arch.clone3, jf=1), _deny(errno.ENOSYS)]
    program += [_op(_JEQ, arch.clone, jf=3), _op(_LD_W_ABS, 16), _op(_JSET, _NEW_NAMESPACES, jf=1), _deny(errno.EPERM), _op(_LD_W_ABS, 0)]
    program += [_op(_JEQ, arch.socket, jf=3), _op(_LD_W_ABS, 16), _op(_JEQ, _AF_UNIX, jf=1), _deny(errno.EACCES)]
    program += [_op(_RET, _ALLOW)]
    return b"".join(program)


# -- what the sandbox holds ------------------------------------------------------------------
@dataclass(frozen=True)
class Layout:
    """The folders and files a sandboxed player's process is given, read-only, and those covered over.

    :param binds: host paths bound read-only at the same place.
    :param covers: folders inside ``binds`` hidden under an empty read-only folder (tables, this package).
    :param blanked: files inside ``binds`` replaced by an empty one (tables in a folder that must stay).
    :param modules: ``(host file, place in the sandbox)`` of :data:`CHILD_MODULES`.
    :param files: ``(host file, place in the sandbox)`` of the player's file and its support files, in :data:`PLAYER_FOLDER`.
    :param python_path: the child's ``PYTHONPATH``.
    """

    binds: tuple[Path, ...]
    covers: tuple[Path, ...]
    blanked: tuple[Path, ...]
    modules: tuple[tuple[Path, Path], ...]
    files: tuple[tuple[Path, Path], ...]
    python_path: tuple[Path, ...]

    @property
    def cwd(self) -> Path:
        """The working directory: the player's folder."""
        return PLAYER_FOLDER

    @classmethod
    def for_player(cls, player_file: Path, *, support: Sequence[Path] = (), hidden: Iterable[Path]) -> Layout:
        """What the process running ``player_file`` is given, with ``hidden`` (table folders and files) covered.

        :param player_file: the player's file: given alone in :data:`PLAYER_FOLDER`, under its own name.
        :param support: files given beside it (:func:`player_files` checks them).
        :param hidden: folders and files it must not see, covered where they lie inside something given.
        """
        interpreter, told = _python_places()
        binds = _outermost([*_existing(interpreter), *_existing(told)])
        covers, blanked = _covers(binds, [*hidden, *(folder / "solver" for folder in _existing(told) + _site_dirs())], keep=())
        package = Path(__file__).resolve().parents[1]
        modules = tuple((package / name, CHILD_ROOT / "solver" / name) for name in CHILD_MODULES)
        files = tuple((path, PLAYER_FOLDER / name) for path, name in player_files(player_file, support, hidden=hidden))
        return cls(binds, covers, blanked, modules, files, (CHILD_ROOT, *told))

    def arguments(self) -> list[str]:
        """bubblewrap's arguments for the file system (after the flags, before the command)."""
        args = [*_system_binds()]
        for path in self.binds:
            args += ["--ro-bind", str(path), str(path)]
        for path in self.covers:
            args += ["--size", str(_COVER_BYTES), "--tmpfs", str(path)]
        for path in self.blanked:
            args += ["--ro-bind", "/dev/null", str(path)]
        for source, target in self.modules:
            args += ["--ro-bind", str(source), str(target)]
        args += ["--dir", str(PLAYER_FOLDER)]
        for source, target in self.files:
            args += ["--ro-bind", str(source), str(target)]
        for path in self.covers:
            args += ["--remount-ro", str(path)]
        return args


def player_files(player_file: Path, support: Sequence[Path], *, hidden: Iterable[Path] = ()) -> list[tuple[Path, str]]:
    """The files the player's folder holds, sandboxed or not: ``(host file, name)`` of its file, then its support files.

    Each graded file is alone in its folder: a folder of students' files is not shared with any of them.
    Files it needs beside it (a course module it imports, a data file it reads) are given by name.

    :raises PlayerError: for a player's file that is missing; for a support file that is missing, not a regular file
        (a symbolic link, a folder, a device), named with ``..``, reached through a link inside the player's folder, named
        as Python's start-up reads (:func:`startup_name`), named as another, or a table file (named ``*.ttt``, one of
        ``hidden``, or starting as a table file does: the answer key).
    """
    if not player_file.is_file():
        raise PlayerError(f"{player_file}: {'not a file' if player_file.exists() else 'no such file'}")
    found = [(Path(os.path.abspath(player_file)), player_file.name)]
    places = _existing(hidden)
    for given in support:
        path = checked_support_file(Path(given), found[0][0].parent)
        extension = path.suffix  # a table's name ends in .ttt (.ttt.tmp while it is written)
        if extension.startswith(".ttt") or path.resolve() in places or _starts_with(path, _TABLE_MAGIC):
            raise PlayerError(f"support file {given} is a table file: the player must not see the answer key")
        if any(name == path.name for _, name in found):
            raise PlayerError(f"support file {given}: the player's folder already holds a file named {path.name}")
        found.append((path, path.name))
    return found


def checked_support_file(given: Path, folder: Path) -> Path:
    """A support file's absolute path, once it is known to be a regular file that the player may be given.

    It is opened without following a link (``O_NOFOLLOW``) and its type read from the open file: a link to
    ``/etc/shadow`` or to the grader's own private files is refused, not copied into the player's folder. A path with
    ``..`` is refused; so is one inside the player's ``folder`` (a student's) that passes through a link there, and a
    name Python's start-up reads (:func:`startup_name`). A file the teacher names outside that folder (a course
    module) is given as named.

    :raises PlayerError: saying which of these it is, and what to give instead.
    """
    if ".." in given.parts:
        raise PlayerError(f"support file {given}: a path with '..' is refused: name the file from the player's folder or by its full path")
    if startup_name(given.name):
        raise PlayerError(f"support file {given}: Python runs a file named {given.name} at start-up, in the grader's code too: rename it")
    path = Path(os.path.abspath(given))
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise PlayerError(f"support file {given}: {_open_failure(path, error)} (give each file the player needs by name)") from None
    try:
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
    finally:
        os.close(fd)
    if not regular:
        raise PlayerError(f"support file {given}: not a regular file (give each file the player needs by name)")
    inside = path.is_relative_to(folder)
    if inside and Path(os.path.realpath(path)) != Path(os.path.realpath(folder)) / path.relative_to(folder):
        raise PlayerError(f"support file {given}: reached through a symbolic link inside the player's folder, which may lead anywhere: give the file itself")
    return path


def _open_failure(path: Path, error: OSError) -> str:
    if error.errno == errno.ELOOP or path.is_symlink():
        return f"a symbolic link (to {os.readlink(path)}): give the file itself, not a link, which may lead anywhere"
    if error.errno == errno.ENOENT:
        return "no such file"
    if error.errno in (errno.EISDIR, errno.ENOTDIR) or path.is_dir():
        return "not a file"
    return error.strerror or str(error)


STARTUP_NAMES = ("sitecustomize", "usercustomize")
"""Modules Python's ``site`` imports at every start, wherever they are found on the path."""


def startup_name(name: str) -> bool:
    """Whether a file of this name would be read by Python's start-up rather than by the player: ``sitecustomize`` and
    ``usercustomize`` in any form (``.py``, ``.pyc``, an extension module), a ``.pth`` or ``._pth`` path file, ``pyvenv.cfg``.

    >>> startup_name("sitecustomize.py"), startup_name("evil.pth"), startup_name("helper.py")
    (True, True, False)
    """
    lowered = name.lower()
    return lowered.split(".")[0] in STARTUP_NAMES or lowered.endswith((".pth", "._pth")) or lowered == "pyvenv.cfg"


def copy_without_links(source: Path, target: Path) -> None:
    """Copy a regular file, opened without following a link (``O_NOFOLLOW``, its type read from the open file).

    :raises PlayerError: when ``source`` has become a link or anything but a regular file since it was checked.
    """
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise PlayerError(f"support file {source}: {_open_failure(source, error)}") from None
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise PlayerError(f"support file {source}: not a regular file")
        with open(target, "xb") as out:
            shutil.copyfileobj(file, out)


_TABLE_MAGIC = b"SOLVTTT"
"""How a table file starts (:mod:`solver.storage.tablefile`), whatever its name."""


def _starts_with(path: Path, magic: bytes) -> bool:
    try:
        with open(path, "rb") as file:
            return file.read(len(magic)) == magic
    except OSError:
        return False


def player_environment(*, home: Path, cwd: Path, python_path: Sequence[Path]) -> dict[str, str]:
    """A player's whole environment, sandboxed or not (docs/grading.md lists it): :data:`ENVIRONMENT`, ``HOME`` and
    ``TMPDIR`` (its place to write), ``PWD`` (its folder, the working directory) and ``PYTHONPATH``."""
    return {**ENVIRONMENT, "HOME": str(home), "TMPDIR": str(home), "PWD": str(cwd), "PYTHONPATH": os.pathsep.join(map(str, python_path))}


def python_path(*, sandboxed: bool) -> tuple[Path, ...]:
    """The child's ``PYTHONPATH``: where the grader's modules are (:data:`CHILD_ROOT` in the sandbox, else this
    package's folder), then the folders of packages Python would not find by itself (numpy's, the user's site)."""
    _, told = _python_places()
    return (CHILD_ROOT if sandboxed else Path(__file__).resolve().parents[2], *told)


@functools.cache
def _system_binds() -> tuple[str, ...]:
    """``/usr`` read-only, and the top-level folders that are links into it kept as links (or bound where they are folders)."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in _ROOT_LINKS:
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    return tuple(args)


def _python_places() -> tuple[list[Path], list[Path]]:
    """What the child's Python needs: its interpreter, standard library and ``site-packages`` (found by Python itself),
    and the folders of packages it needs from elsewhere (numpy's, the user's ``site-packages``), to put on ``PYTHONPATH``."""
    import numpy

    interpreter = [Path(sys.base_prefix), Path(sys.base_exec_prefix), Path(sys.executable), Path(sys.prefix) / "pyvenv.cfg", *_site_dirs()]
    told: list[Path] = []
    user = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    if user is not None and user in sys.path:
        told.append(Path(user))
    numpy_root = Path(numpy.__file__).resolve().parents[1]
    if not any(_inside(numpy_root, path) for path in [*interpreter, *told]):
        told.append(numpy_root)
    return interpreter, told


def _site_dirs() -> list[Path]:
    """The environment's ``site-packages`` folders (a virtual environment's own, or the system's)."""
    return [Path(path) for path in site.getsitepackages()]


def _existing(paths: Iterable[Path]) -> list[Path]:
    """The paths that exist, absolute and without repeats, in order (both spellings of a path through a link)."""
    found: list[Path] = []
    for path in paths:
        for each in (Path(os.path.abspath(path)), Path(path).resolve()):
            if each.exists() and each not in found:
                found.append(each)
    return found


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _outermost(paths: Sequence[Path]) -> tuple[Path, ...]:
    """The paths not inside another of them, shortest first (a folder bound before anything inside it)."""
    kept: list[Path] = []
    for path in sorted(set(paths), key=lambda p: (len(p.parts), str(p))):
        if not any(_inside(path, outer) for outer in kept):
            kept.append(path)
    return tuple(kept)


def _covers(binds: Sequence[Path], hidden: Iterable[Path], *, keep: Sequence[Path]) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """The folders to cover and the table files to blank, of those ``hidden`` that lie inside something bound.

    A folder is covered whole unless a folder in ``keep`` lies inside it (or is it): then only its table files are blanked.
    """
    covers: list[Path] = []
    blanked: list[Path] = []
    for target in _existing(hidden):
        if not any(_inside(target, bound) for bound in binds):
            continue
        if target.is_dir() and not any(_inside(kept, target) for kept in keep):
            covers.append(target)
            continue
        files = [target] if target.is_file() else sorted(target.glob("*.ttt*")) if target.is_dir() else []
        blanked += [file for file in files if file.is_file()]
    return _outermost(covers), tuple(dict.fromkeys(blanked))


def bwrap_command(command: Sequence[str], layout: Layout, *, scratch: Scratch, seccomp_fd: int | None) -> list[str]:
    """``command`` wrapped in a bubblewrap sandbox holding ``layout`` (module docstring).

    :param scratch: the sizes of the private ``/tmp`` and ``/dev/shm``.
    :param seccomp_fd: a descriptor to read the :func:`seccomp_filter` program from (passed to the child), or None.
    """
    path = shutil.which("bwrap") or "bwrap"
    args = [path, *_flags(), "--proc", "/proc", "--dev", "/dev"]
    args += ["--size", str(scratch.shm_mb << 20), "--tmpfs", "/dev/shm", "--size", str(scratch.tmp_mb << 20), "--tmpfs", "/tmp"]
    args += layout.arguments()
    args += ["--remount-ro", "/dev", "--remount-ro", "/"]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    return [*args, "--chdir", str(layout.cwd), "--", *command]


def environment(layout: Layout) -> dict[str, str]:
    """The sandboxed child's whole environment (:func:`player_environment`): its private ``/tmp``, its folder, its ``PYTHONPATH``."""
    return player_environment(home=Path("/tmp"), cwd=layout.cwd, python_path=layout.python_path)
