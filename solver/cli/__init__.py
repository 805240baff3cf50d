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

from . import analyze, build, fetch, grade, lookup, play, serve, stats, verify  # noqa: F401  (each adds its command to main)
from .group import main

__all__ = ["main"]
