"""The ``solve`` command: parses arguments, calls the public API, prints.

Every command takes ``--game`` (default ``3x3k3``) and ``--table-dir``; errors
from the API become one line on stderr and a non-zero exit status (2 for a bad
board or game, 1 for a broken table or a failed verification); Ctrl-C stops every command with exit status 130
(``solve serve`` stops cleanly, with 0).

One module per command (:mod:`.lookup`, :mod:`.analyze`, :mod:`.play`, :mod:`.grade`, :mod:`.build`,
:mod:`.verify`, :mod:`.fetch`, :mod:`.stats`, :mod:`.serve`), each adding its command to the group of
:mod:`.group` (which turns errors into one line), over the shared options (:mod:`.options`) and progress
meters (:mod:`.progress`). ``main`` is the console script ``solve``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .group import main

COMMANDS = ("analyze", "build", "fetch", "grade", "lookup", "play", "serve", "stats", "verify")
"""The commands, each added to ``main`` by the module of its name, imported when the command is first asked for
(:class:`~.group.SolveGroup`): ``solve lookup`` imports neither the grader nor the builder nor the web app."""

main.lazy_commands.update({name: f"{__name__}.{name}" for name in COMMANDS})

__all__ = ["main"]


def __getattr__(name: str) -> ModuleType:
    """A command's module (``solver.cli.build``), and the shared :mod:`.options` and :mod:`.progress`, imported on first
    use as an attribute of the package, as every one was when the package imported them all."""
    if name in (*COMMANDS, "options", "progress"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
