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

**A cache that is never stale.** numba keys a cached kernel on its own source file only: a kernel of
``negamax.py`` compiles in the functions of ``bitboard.py`` it calls and the constants it reads from the rules, and
an edit of those files left the old machine code in use. Here every cached kernel of the package is keyed on the
digest of every source file the search layer imports (:data:`KERNEL_SOURCES`: the folders and modules it reaches,
held by ``tests/test_kernel_cache.py``) and on numba's version: an edit of any of them compiles every kernel again,
once; an installed package, which nobody edits, compiles once and loads from then on. The key is numba's
*source stamp* (:class:`numba.core.caching.InTreeCacheLocator`), so a stale entry is overwritten, not kept beside.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import numba
import numpy as np
from llvmlite import ir
from llvmlite.binding import llvm_version_info
from numba import njit, types
from numba.core import caching, cgutils
from numba.extending import intrinsic

Function = TypeVar("Function", bound=Callable[..., object])

PACKAGE = Path(__file__).resolve().parents[1]
"""The ``solver`` package's folder."""

KERNEL_SOURCES = ("search", "contents", "storage", "encoding", "rules", "errors.py", "words.py", "extras.py", "lifetime.py", "scratch.py")
"""The folders and modules of the package whose source a cached kernel is keyed on: everything the search layer
imports, directly or not (``tests/test_kernel_cache.py`` checks that it imports nothing else of the package)."""


def kernel(function: Function) -> Function:
    """``function`` compiled as a kernel of the search (module docstring); it is called as before."""
    compiled = njit(cache=True, nogil=True, _nrt=False)(function)  # type: ignore[call-overload]  # numba's stubs omit _nrt
    return cast(Function, compiled)


def cached(function: Function) -> Function:
    """``function`` compiled with numba's runtime (a kernel that allocates its result), cached as every kernel is."""
    return cast(Function, njit(cache=True, nogil=True)(function))


@functools.cache
def sources_digest() -> str:
    """The SHA-256 of every source file of :data:`KERNEL_SOURCES` (path and bytes, in sorted order) and of numba's
    version: the key of every cached kernel (module docstring). Read once a process (a few milliseconds)."""
    digest = hashlib.sha256(f"numba {numba.__version__}\n".encode())
    for name in KERNEL_SOURCES:
        where = PACKAGE / name
        for path in sorted(where.rglob("*.py")) if where.is_dir() else [where]:
            digest.update(f"{path.relative_to(PACKAGE).as_posix()}\n".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _compiled_marker() -> Path:
    """The file that says this install's kernels were compiled and cached (their key, :func:`sources_digest`, in its name)."""
    return PACKAGE / "search" / "__pycache__" / f"solver-kernels-{sources_digest()[:16]}.compiled"


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


def _keyed(base: type[Any]) -> type[Any]:
    """A subclass of numba's cache locator ``base`` that serves only this package's files and stamps their cache
    with :func:`sources_digest` instead of the one file's own stamp."""

    class Keyed(base):  # type: ignore[misc]  # numba is untyped
        def get_source_stamp(self) -> object:
            return ("solver-kernel-sources", sources_digest())

        @classmethod
        def from_function(cls, py_func: object, py_file: str) -> object:
            if not Path(py_file).resolve().is_relative_to(PACKAGE):
                return None
            return super().from_function(py_func, py_file)

    Keyed.__name__ = Keyed.__qualname__ = f"SolverKeyed{base.__name__}"
    return Keyed


def _install_locators() -> None:
    """Put the keyed locators first in numba's list (once a process), in numba's own order of preference."""
    classes = caching.CacheImpl._locator_classes
    if any(getattr(found, "__name__", "").startswith("SolverKeyed") for found in classes):
        return
    keyed = [_keyed(base) for base in (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator, caching.UserWideCacheLocator)]
    classes[:0] = keyed


_install_locators()


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
