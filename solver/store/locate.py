"""Where tables live: the shipped 3x3 table, and every other game built on first use.

A game's table is looked for, in order:

1. among the tables shipped with the package (3x3k3 only): a file in the
   table directory never overrides them;
2. in the table directory: ``--table-dir`` / ``table_dir=``, else the
   ``SOLVED_TICTACTOE_DIR`` environment variable, else the platform's user data
   directory (:func:`default_table_dir`: ``~/.local/share/solved-tictactoe`` on
   Linux, ``~/Library/Application Support/solved-tictactoe`` on macOS,
   ``%LOCALAPPDATA%\\solved-tictactoe`` on Windows), as ``<game>.ttt``. In that
   default case a table found only in the directory earlier versions used
   (:func:`old_table_dir`, ``~/.config/solved-tictactoe`` on Linux) is used from
   there, with one :class:`OldTableDirWarning` per process giving the command that
   moves the tables;
3. otherwise it is built, written atomically into the table directory,
   checksummed, and opened from there. Later runs open it without rebuilding.
   A build estimated to take more than a minute or a GiB of disk
   (:mod:`solver.store.estimate`) is started only when asked: ``build=True``, or a
   ``consent`` callback that says yes (the CLI asks on a terminal); otherwise
   :class:`solver.errors.BuildNeedsConsent` gives the estimate and the
   ``solve build`` command, and nothing is written.

A table can also come from elsewhere: ``solver.table_for(game, url=...)`` reads it from a web server
block by block (:mod:`solver.store.urltable`), and ``solve fetch`` downloads it into the
table directory (:mod:`solver.store.mirror`), where step 2 finds it.

This module holds the mechanisms; the tables opened are owned by a
:class:`solver.store.tablebase.Tablebase` (its :class:`~solver.store.tablebase.LocalTables` source
asks here in the order above), which keeps them open and forgets them.

Building is :mod:`solver.store.make`'s: games of up to 16 cells get a dense table
(:class:`solver.tables.DenseTable`, built in memory in seconds); larger ones, up to 25
cells, a compact one (:class:`solver.tables.CompactTable`, built layer by layer in
``<table dir>/<game>.ttt.build``, with all cores or on a Dask cluster; a killed build
resumes). Both answer the same questions (:class:`solver.tables.Table`). This module
only finds and opens tables, and asks the builder for a missing one.

Every table file is checked against the checksum the package expects for its
game (:mod:`solver.storage.tablefile`). A table of a game and kind without a shipped
checksum is believed when this user built it here (:mod:`solver.storage.trust`), or else
after the full consistency pass proved it, run before its first answer when it
takes at most a minute (:func:`trust_or_prove`); a longer proof is refused with the
``solve verify`` and ``solve build`` commands. In the table directory, only regular files are
opened (a FIFO or a device named like a table is refused before it is opened),
and a symbolic link is followed only when it stays inside the directory
(:func:`solver.storage.fsutil.link_stays_inside`).

Concurrent builders each write a private, locked temporary file and rename it
into place, so the table directory never holds a torn file; the temporary files
of builders that died are removed at every build and ``solve verify``. When the
table directory cannot be written (read-only, or the environment variable names
a file), the table is built in memory for this process with one
:class:`TableWarning` saying which directory and what to do.
"""

from __future__ import annotations

import os
import shlex
import shutil
import warnings
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..contents.opening import open_table
from ..errors import BuildError, BuildNeedsConsent, OldTableDirWarning, TableError, TableWarning
from ..rules.game import DEFAULT_GAME, Game
from ..storage import trust
from ..storage.tablefile import rebuild_command
from ..tables import DenseTable, Kind, Table, from_file
from .estimate import CONSENT_SECONDS, BuildEstimate, format_duration, proof_seconds, refuse_beyond_machine

if TYPE_CHECKING:
    from .make import BuildHook

ENV_VAR = "SOLVED_TICTACTOE_DIR"
APP_NAME = "solved-tictactoe"
SHIPPED = ("3x3k3",)

Consent = Callable[[BuildEstimate], bool]
"""Asked before a build that needs consent (:attr:`solver.store.estimate.BuildEstimate.needs_consent`): True starts it."""


_explained: set[Path] = set()
"""The old table directories whose move was explained in this process (once each)."""


def table_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The directory that holds built tables (see the module docstring)."""
    if override is not None:
        return Path(override)
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    return default_table_dir()


def default_table_dir() -> Path:
    """The platform's user data directory for the package (``platformdirs.user_data_dir``).

    A data directory, not a cache one: a table can be rebuilt, but big ones take hours
    (games past 20 cells), and cache directories are emptied by cleaning tools and by
    some systems on their own.
    """
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def old_table_dir() -> Path:
    """Where earlier versions kept tables: ``click.get_app_dir`` (``~/.config/solved-tictactoe`` on Linux)."""
    import click

    return Path(click.get_app_dir(APP_NAME))


def table_dirs(override: str | os.PathLike[str] | None = None) -> tuple[Path, ...]:
    """The directories :func:`table_path` looks in: the table directory, then, for the
    default one only, the directory earlier versions used (when it is another)."""
    new = table_dir(override)
    if override is not None or os.environ.get(ENV_VAR):
        return (new,)
    old = old_table_dir()
    return (new,) if old == new else (new, old)


def shipped_path(game: Game) -> Path | None:
    """The table shipped with the package for ``game``, if there is one."""
    return packaged_file(f"{game.name}.ttt") if game.name in SHIPPED else None


def packaged_file(name: str) -> Path | None:
    """A file the package ships in ``solver/data`` (the wheel's place; ``data/`` in a checkout), if it is there."""
    installed = resources.files("solver") / "data" / name
    if installed.is_file():
        return Path(str(installed))
    checkout = Path(__file__).resolve().parents[2] / "data" / name
    return checkout if checkout.is_file() else None


def table_path(game: Game = DEFAULT_GAME, *, table_dir_: str | os.PathLike[str] | None = None) -> Path:
    """The file that holds (or will hold) ``game``'s table: the shipped one, else ``<table dir>/<game>.ttt``
    (or the one in the old table directory, when only that one exists: see the module docstring)."""
    shipped = shipped_path(game)
    if shipped is not None:
        return shipped
    new, *old = table_dirs(table_dir_)
    path = new / f"{game.name}.ttt"
    if old and not os.path.lexists(path) and os.path.lexists(old[0] / path.name):
        _explain_move(old[0], new)
        return old[0] / path.name
    return path


def _explain_move(old: Path, new: Path) -> None:
    """One warning per process and old directory: where the tables are, where new ones go, how to move them."""
    if old in _explained:
        return
    _explained.add(old)
    if os.name == "nt":
        move = f'move "{old}\\*.ttt" "{new}"'
    else:
        move = f"mkdir -p {shlex.quote(str(new))} && mv {shlex.quote(str(old))}/*.ttt {shlex.quote(str(new))}/"
    warnings.warn(
        f"using tables from {old}, where earlier versions kept them; new tables go in {new}; move them there with: {move}",
        OldTableDirWarning,
        stacklevel=3,
    )


def open_file(
    path: str | os.PathLike[str],
    *,
    game: Game | None = None,
    follow_symlinks: bool = True,
    kind: Kind | None = None,
    verify: bool | None = None,
    prove_untrusted: bool = True,
) -> Table:
    """Open a table file of either kind, dense or compact (the header says which); the one way
    a table file is opened (:meth:`solver.store.tablebase.Tablebase.open_file` calls it).

    :param kind: ``"dense"`` or ``"compact"`` to refuse a file of the other kind.

    :param verify: for a dense table, as :func:`load_table`'s (compact tables are
        always verified block by block on first use).
    :param prove_untrusted: prove a table without a shipped checksum that this user did not
        build before it answers (:func:`trust_or_prove`); False leaves that to the caller (``solve verify``).
    :raises TableError: for a missing, broken, forged or mismatched file (see :func:`solver.contents.opening.open_table`),
        or an untrusted one the consistency pass refutes or that takes too long to prove.
    """
    opened = open_table(path, game=game, follow_symlinks=follow_symlinks)
    if kind is not None and opened.header.kind != kind:
        raise opened.error(f"holds a {opened.header.kind} table, expected a {kind} one")
    table = from_file(opened, verify=verify, prove=_prove)
    if prove_untrusted:
        trust_or_prove(table)
    return table


def _prove(table: Table) -> list[str]:
    """:func:`solver.store.make.prove`, imported when a table is proved: opening one loads no builder."""
    from . import make as builder

    return builder.prove(table)


def trust_or_prove(table: Table) -> None:
    """Check a table opened from a file before its first answer, unless its checksum vouches for it: the
    policy's :func:`solver.storage.trust.trust_or_prove`, with the full consistency pass (:meth:`Table.verify`) as the
    proof, run when it takes at most a minute (:data:`solver.store.estimate.CONSENT_SECONDS`).

    :raises TableError: naming the file, if the pass refutes the table, or if proving it
        would take longer (with the ``solve verify`` and ``solve build`` commands).
    """
    if table.file is not None:
        trust.trust_or_prove(table.file, prove=table.verify, too_long=lambda: _proof_too_long(table))


def _proof_too_long(table: Table) -> str | None:
    """How long proving ``table`` takes, in words, when that is longer than a user waits for an answer (else None)."""
    seconds = proof_seconds(table.game, table.kind)
    return format_duration(seconds) if seconds > CONSENT_SECONDS else None


def load_table(path: str | os.PathLike[str], *, game: Game | None = None, verify: bool | None = None, follow_symlinks: bool = True) -> DenseTable:
    """Open a dense table file (memory-mapped; nothing is unpickled): :func:`open_file` with ``kind="dense"``.

    The header, the layout and the table's checksum (against the one the package
    expects for the game) are checked at once; the entries block by block on first
    use, so every answer comes from verified bytes.

    :param game: the game the file must hold (checked against the header).
    :param verify: hash every block now; ``None`` (default) does so for tables of
        up to 8 MiB, such as 3x3, and leaves larger ones to first use.
    :param follow_symlinks: with False, a symbolic link at ``path`` is refused.
    :raises TableError: for a missing, truncated, corrupt, forged or mismatched file,
        or one holding a compact table.
    """
    table = open_file(path, game=game, kind="dense", verify=verify, follow_symlinks=follow_symlinks)
    assert isinstance(table, DenseTable)
    return table


def open_compact(path: str | os.PathLike[str], *, game: Game | None = None) -> Table:
    """Open a compact table file (:func:`open_file` with ``kind="compact"``): header and layout checked now,
    score blocks verified on first use.

    :raises TableError: for a missing, damaged or mismatched file, one holding a dense
        table, or one written with another index.
    """
    return open_file(path, game=game, kind="compact")


def build_and_open(game: Game, path: str | os.PathLike[str], **options: Any) -> Table:
    """Build ``game``'s table into ``path`` (:func:`solver.store.make.write_table_file`, same options) and open it
    from there, verified against the checksum the package expects.

    This is the one build path: the local tables of a :class:`~solver.store.tablebase.Tablebase` use it for a missing
    table, and so does ``solve build``.
    A build refused for want of disk or memory leaves no build directory behind (when it made it).
    """
    build_dir = Path(path).with_name(Path(path).name + ".build")
    fresh = not os.path.lexists(build_dir)
    from . import make as builder  # here: the builder (and the build's modules) loads only when a table is built

    try:
        written = builder.write_table_file(game, path, **options)
    except BuildError:
        if fresh and build_dir.is_dir() and not build_dir.is_symlink():
            shutil.rmtree(build_dir, ignore_errors=True)
        raise
    return open_file(written, game=game)


def build_or_keep_in_memory(game: Game, path: Path, *, on_build: BuildHook | None = None, notify: Callable[[str], None] | None = None) -> Table:
    """Build ``game``'s missing table into ``path`` (:func:`build_and_open`); when the directory cannot
    hold it, a dense table is built in memory for this process instead, with one :class:`TableWarning`."""
    from . import make as builder  # here: the builder loads only when a table is built

    try:
        return build_and_open(game, path, on_build=on_build, notify=notify)
    except TableError as error:
        if path.exists() or builder.kind_for(game) != "dense":
            raise
        table = builder.build_table(game)  # the directory cannot hold it: keep it in memory
        warnings.warn(f"{error}; the {game.name} table is used from memory for this process only", TableWarning, stacklevel=4)
        return table


def ask_consent(game: Game, path: Path, consent: Consent | None) -> None:
    """Return if building ``game``'s table into ``path`` needs no consent or ``consent`` gives it.

    :raises BuildNeedsConsent: otherwise, with the estimate and the ``solve build`` command.
    """
    cost = refuse_beyond_machine(game, path)
    if not cost.needs_consent or (consent is not None and consent(cost)):
        return
    raise BuildNeedsConsent(
        f"the {game.name} table is not built yet, and building it would take {cost.describe()}; "
        f"it is not started without consent: build it with: {rebuild_command(game.name, path)}{' --yes' if cost.is_long else ''}",
        cost,
    )


def forget_warnings() -> None:
    """Let the warnings said once per process be said again (the old table directory's move, the trust registries' problems)."""
    _explained.clear()
    trust.forget_warnings()
