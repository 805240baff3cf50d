"""Names a module provides on first use (PEP 562's module ``__getattr__`` and ``__dir__``), so that importing it loads
none of the modules that hold them: :mod:`solver` and :mod:`solver.api` re-export the grader, the builder, the mirrors
and the pictures this way, and a look-up imports none of them (``tests/test_lazy_imports.py``)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(namespace: dict[str, Any], names: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a module whose globals are ``namespace``, which provide each name of
    ``names`` (a name, the module that holds it) from its module on first use, and keep it in ``namespace`` (found
    from then on without a call)."""
    where = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {where!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *names})

    return __getattr__, __dir__
