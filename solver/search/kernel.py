"""How the search's kernels are compiled: one decorator, so that every kernel of the search is compiled alike.

:data:`kernel` is numba's ``njit`` with three options:

* ``cache=True``: compiled at first use, then loaded from numba's cache beside the source;
* ``nogil=True``: a kernel runs without the GIL, so the engine's worker threads search at the same time;
* ``_nrt=False``: compiled without numba's runtime, whose reference counting made every call with array arguments
  (each node of the search passes six: the geometry, the table, the book's two arrays, the control and the scratch
  rows) increment and decrement every array's count with atomic instructions. The kernels allocate nothing (the
  caller passes every array), so they need no runtime. Measured on 2026-11-29 on quiet cores (the same positions,
  the same node counts, one run each): 353 against 241 ns a node on Pons' End-Easy set, 301 against 199 on
  Middle-Easy, 363 against 297 on Begin-Easy, 313 against 270 on Middle-Medium. The option is named with an
  underscore (numba's maintainers use it so: numba/numba#2350); a numba that drops it fails at import, loudly.

A kernel that allocates an array (the book's, :mod:`solver.search.book`) needs the runtime and uses ``njit`` as is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, cast

from numba import njit

Function = TypeVar("Function", bound=Callable[..., object])


def kernel(function: Function) -> Function:
    """``function`` compiled as a kernel of the search (module docstring); it is called as before."""
    compiled = njit(cache=True, nogil=True, _nrt=False)(function)  # type: ignore[call-overload]  # numba's stubs omit _nrt
    return cast(Function, compiled)
