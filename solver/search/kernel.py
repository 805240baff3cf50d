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

:func:`prefetch` is the one instruction numba does not offer: a kernel asks the processor to fetch memory it will read
soon (LLVM's ``llvm.prefetch``, numba's ``intrinsic``), as Steininger's ``c4`` prefetches its table.

**A cache that is never stale.** The decorators and the cache key are :mod:`solver.compiling`'s, shared with the
build's kernels (:mod:`solver.retrograde.compiled`): every cached kernel is keyed on every source file the search and
the build import, so an edit of a function a kernel calls, in another file, is compiled in.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import numpy as np
from llvmlite import ir
from llvmlite.binding import llvm_version_info

from ..compiling import KERNEL_SOURCES as KERNEL_SOURCES  # re-exported: the search's modules import them from here
from ..compiling import PACKAGE as PACKAGE
from ..compiling import cache_folder, cgutils, intrinsic, types  # numba's, imported by compiling with its colour off
from ..compiling import cached as cached
from ..compiling import direct as direct
from ..compiling import inlined as inlined
from ..compiling import kernel as kernel
from ..compiling import sources_digest as sources_digest


def _compiled_marker() -> Path:
    """The file that says this install's kernels were compiled and cached (their key, :func:`sources_digest`, in its
    name), in the folder where numba keeps the search's kernels: the one numba's cache locators choose for a function
    of this folder (``NUMBA_CACHE_DIR`` when set, else beside the source when that can be written, else the user's
    cache), so that the marker says what that cache holds (a marker always beside the source said "compiled" to a
    process whose cache was elsewhere and empty)."""
    return cache_folder(_compiled_marker) / f"solver-kernels-{sources_digest()[:16]}.compiled"


def compiled_before() -> bool:
    """Whether the search's kernels were compiled and cached for these sources before: a process then loads them
    (a tenth of a second) instead of compiling them (tens of seconds, once after an install or an edit)."""
    return _compiled_marker().exists()


def mark_compiled() -> None:
    """Say that the kernels are compiled and cached for these sources (:func:`compiled_before`); a folder that cannot
    be written (a read-only install, whose cache is then the user's) is left alone."""
    marker = _compiled_marker()
    if not marker.exists():
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError:
            pass


_PREFETCH = "llvm.prefetch.p0" if llvm_version_info >= (17,) else "llvm.prefetch.p0i8"
"""The intrinsic's name: LLVM 17 has only opaque pointers (``p0``); before, the pointer's type is in the name."""


def _prefetch_code(context: Any, builder: ir.IRBuilder, signature: Any, args: Any) -> object:
    """The LLVM code of :func:`prefetch`: the element's address, then ``llvm.prefetch`` (a read, kept in every level)."""
    array_type = signature.args[0]
    array = context.make_array(array_type)(context, builder, args[0])
    address = cgutils.get_item_pointer(context, builder, array_type, array, [args[1]], wraparound=False)  # type: ignore[no-untyped-call]  # numba is untyped
    byte_address = builder.bitcast(address, ir.IntType(8).as_pointer())
    i32 = ir.IntType(32)
    signature_of = ir.FunctionType(ir.VoidType(), [byte_address.type, i32, i32, i32])
    function = cgutils.get_or_insert_function(builder.module, signature_of, _PREFETCH)  # type: ignore[no-untyped-call]  # numba is untyped
    builder.call(function, [byte_address, i32(0), i32(3), i32(1)])
    return context.get_dummy_value()


@intrinsic
def _prefetch(typingctx: object, array: Any, index: Any) -> tuple[object, Callable[..., object]]:
    return types.void(array, index), _prefetch_code


prefetch = cast(Callable[[np.ndarray, np.int64], None], _prefetch)
"""``prefetch(array, index)`` in a kernel asks the processor to bring ``array[index]`` into its caches and goes on at
once: a read of it soon after waits less (a probe of a big transposition table otherwise waits for memory). It does
nothing else; outside a kernel it cannot be called."""
