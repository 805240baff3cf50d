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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
from llvmlite import ir
from llvmlite.binding import llvm_version_info
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

Function = TypeVar("Function", bound=Callable[..., object])


def kernel(function: Function) -> Function:
    """``function`` compiled as a kernel of the search (module docstring); it is called as before."""
    compiled = njit(cache=True, nogil=True, _nrt=False)(function)  # type: ignore[call-overload]  # numba's stubs omit _nrt
    return cast(Function, compiled)


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
