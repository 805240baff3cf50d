"""How the package's kernels are compiled (the search's, :mod:`solver.search.kernel`, and the build's,
:mod:`solver.retrograde.compiled`): one decorator, so that every kernel is compiled alike, and one cache key.

:data:`kernel` is numba's ``njit`` with three options:

* ``cache=True``: compiled at first use, then loaded from numba's cache beside the source;
* ``nogil=True``: a kernel runs without the GIL, so worker threads run kernels at the same time;
* ``_nrt=False``: compiled without numba's runtime, whose reference counting made every call with array arguments
  count each array with atomic instructions (:mod:`solver.search.kernel` has the measurement). Such a kernel allocates
  nothing (the caller passes every array). The option is named with an underscore (numba's maintainers use it so:
  numba/numba#2350); a numba that drops it fails at import, loudly.

A kernel that allocates an array (the book's, :mod:`solver.search.book`) needs the runtime: :data:`cached`.

**A cache that is never stale.** numba keys a cached kernel on its own source file only: a kernel of
``negamax.py`` compiles in the functions of ``bitboard.py`` it calls and the constants it reads from the rules, and
an edit of those files left the old machine code in use. Here every cached kernel of the package is keyed on the
digest of every source file the search layer and the build import (:data:`KERNEL_SOURCES`: the folders and modules
they reach, held by ``tests/test_kernel_cache.py``) and on numba's version: an edit of any of them compiles every
kernel again, once; an installed package, which nobody edits, compiles once and loads from then on. The key is
numba's *source stamp* (:class:`numba.core.caching.InTreeCacheLocator`), so a stale entry is overwritten, not kept
beside.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar, cast

QUIET_ERRORS = "NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING"
"""Set while numba is first imported, and then taken back: with it unset numba wraps the terminal in colorama, whose
exit handler wrote a stray ``ESC[0m`` after every command that searched (``-q`` too). Taken back, so that importing
the package changes no environment variable (a player's process, which imports it, has exactly its documented one)."""


def _numba_without_colour() -> ModuleType:
    """numba, imported with :data:`QUIET_ERRORS` set for the import alone (the environment as it was after)."""
    was = os.environ.get(QUIET_ERRORS)
    os.environ[QUIET_ERRORS] = "1"
    try:
        return importlib.import_module("numba")
    finally:
        if was is None:
            del os.environ[QUIET_ERRORS]
        else:
            os.environ[QUIET_ERRORS] = was


numba = _numba_without_colour()

from numba import njit  # noqa: E402  (numba is imported above, its colour off)
from numba import types as types  # noqa: E402  (re-exported: solver.search.kernel takes numba's names from here)
from numba.core import caching  # noqa: E402
from numba.core import cgutils as cgutils  # noqa: E402
from numba.extending import intrinsic as intrinsic  # noqa: E402

Function = TypeVar("Function", bound=Callable[..., object])

PACKAGE = Path(__file__).resolve().parent
"""The ``solver`` package's folder."""

KERNEL_SOURCES = (
    "search",
    "retrograde",
    "contents",
    "storage",
    "encoding",
    "rules",
    "compiling.py",
    "errors.py",
    "words.py",
    "extras.py",
    "lifetime.py",
    "scratch.py",
    "memory.py",
)
"""The folders and modules of the package whose source a cached kernel is keyed on: everything the search layer and
the build (:mod:`solver.retrograde`) import, directly or not, and this module (``tests/test_kernel_cache.py`` checks
that they import nothing else of the package)."""


def kernel(function: Function) -> Function:
    """``function`` compiled as a kernel (module docstring); it is called as before."""
    compiled = njit(cache=True, nogil=True, _nrt=False)(function)  # type: ignore[call-overload]  # numba's stubs omit _nrt
    return cast(Function, compiled)


def inlined(function: Function) -> Function:
    """``function`` compiled as a kernel whose body numba copies into each kernel that calls it (``inline="always"``):
    a step of a hot kernel split out to be named, at no call's cost (the search's node: split into three calls, it took
    9 % more CPU, 2026-12-04)."""
    compiled = njit(cache=True, nogil=True, _nrt=False, inline="always")(function)  # type: ignore[call-overload]  # numba's stubs omit _nrt
    return cast(Function, compiled)


def direct(compiled: Function, *args: object) -> Function:
    """The machine code of a kernel for the types of ``args`` (compiled, or loaded from the cache, now), to be called
    without numba's dispatch, which looks up every argument's type on every call (0.5 us a call of ten arguments, the
    half of a look-up's compiled call near the end of a game). It does not check its arguments: every call must pass
    exactly these types (the same dtypes, dimensions and layouts), as a caller does with the arrays it made itself."""
    dispatcher = cast(Any, compiled)
    return cast(Function, dispatcher.compile(tuple(dispatcher.typeof_pyval(arg) for arg in args)))


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


def cache_folder(function: Callable[..., Any]) -> Path:
    """The folder where numba keeps the cached kernels of ``function``'s source folder: the one its cache locators
    choose (this package's keyed ones first: ``NUMBA_CACHE_DIR`` when set, else beside the source when that can be
    written, else the user's cache)."""
    return Path(caching.CompileResultCacheImpl(function).locator.get_cache_path())  # type: ignore[no-untyped-call]  # numba is untyped


def _install_locators() -> None:
    """Put the keyed locators first in numba's list (once a process), in numba's own order of preference."""
    classes = caching.CacheImpl._locator_classes
    if any(getattr(found, "__name__", "").startswith("SolverKeyed") for found in classes):
        return
    keyed = [_keyed(base) for base in (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator, caching.UserWideCacheLocator)]
    classes[:0] = keyed


_install_locators()
