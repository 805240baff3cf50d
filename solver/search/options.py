"""What a caller hands the engine, without loading it: the progress hook's type and the transposition table's default size.

The rest of :mod:`solver.search` loads numba and its compiled kernels (about a quarter of a second and 60 MB a
process). The layers above import this module at their top and the engine only where a search or a book is used,
so that a table's look-up, the command line and a build's worker processes start without numba.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["DEFAULT_TABLE_BYTES", "Progress"]

DEFAULT_TABLE_BYTES = 128 << 20
"""The transposition table's default size, 128 MiB (16 M entries): it fits a laptop beside a browser, and on
Pons' test sets a bigger table saves little (a position of Connect Four's middle game searches tens of
thousands of nodes); the empty board from scratch wants more (``table_bytes=1 << 30``)."""

Progress = Callable[[int, float], None]
"""A progress hook: called with the nodes searched so far and the seconds elapsed."""
