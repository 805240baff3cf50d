"""What a caller hands the engine, without loading it: the progress hook's type and the transposition table's default size.

The rest of :mod:`solver.search` loads numba and its compiled kernels (about a quarter of a second and 60 MB a
process). The layers above import this module at their top and the engine only where a search or a book is used,
so that a table's look-up, the command line and a build's worker processes start without numba.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from numbers import Real

from ..errors import InvalidArgumentError, InvalidValueError, quote

__all__ = ["DEFAULT_TABLE_BYTES", "Progress", "checked_budget"]

DEFAULT_TABLE_BYTES = 128 << 20
"""The transposition table's default size, 128 MiB (16 M entries): it fits a laptop beside a browser, and on
Pons' test sets a bigger table saves little (a position of Connect Four's middle game searches tens of
thousands of nodes); the empty board from scratch wants more (``table_bytes=1 << 30``)."""

Progress = Callable[[int, float], None]
"""A progress hook: called with the nodes searched so far and the seconds elapsed."""


def checked_budget(budget: object) -> float | None:
    """A search's budget read once, at its door, before any thread starts: seconds, or None for no limit (None,
    ``inf``, or an int past a float's range).

    >>> checked_budget(5), checked_budget(None), checked_budget(float("inf"))
    (5.0, None, None)

    :raises InvalidArgumentError: for anything but a real number or None (``"5"``, ``True``), saying what it got;
    :raises InvalidValueError: for ``nan`` or a negative number (a search would never stop, or stop before it starts).
    """
    if budget is None:
        return None
    if isinstance(budget, bool) or not isinstance(budget, Real):
        raise InvalidArgumentError(f"budget must be a number of seconds (or None for no limit), not {type(budget).__name__} {quote(budget)}")
    try:
        seconds = float(budget)
    except OverflowError:  # an int past a float's range: no limit, as inf
        return None
    if math.isnan(seconds) or seconds < 0:
        raise InvalidValueError(f"budget must be a number of seconds at least 0 (or None for no limit), not {quote(budget)}")
    return None if math.isinf(seconds) else seconds
