"""Griffe extension for the manual: the ``>>>`` examples of the docstrings render as code.

The docstrings are reStructuredText-flavoured (``:param:``) with doctest sessions in the text,
which Markdown would run together into one paragraph. This wraps each session (the ``>>>`` and
``...`` lines and the output under them, up to a blank line) in a ``pycon`` fence. The docstrings
themselves are untouched: pytest runs them as doctests.
"""

from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """``text`` with every doctest session wrapped in a fenced code block."""
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        if not inside and line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            inside = True
        elif inside and not line.strip():
            out.append(f"{indent}```")
            inside = False
        out.append(line)
    if inside:
        out.append(f"{indent}```")
    return "\n".join(out)


class DoctestFences(griffe.Extension):
    """Fence the doctest sessions of every docstring mkdocstrings renders."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_doctests(obj.docstring.value)
