"""Griffe extension for the manual: the Sphinx roles of the docstrings render as cross-references.

The docstrings name other objects with reStructuredText roles (``:func:`analyze```,
``:class:`~solver.storage.blockarray.BlockArray```, ``:mod:`solver.store.make```), which
mkdocstrings' Markdown would show as text (``:func:`` and then the name). This turns each role
into an autorefs cross-reference: the name, resolved in the docstring owner's scope as Python
would (its members and imports, then its parents'), becomes a link where the manual renders that
object and stays code where it does not (the reference renders the public package ``solver``
only; an ``optional`` autoref is never a broken link). ``~`` shows the last part of the name, as in
Sphinx. The docstrings themselves are untouched in the package: ``help()`` and IDEs show them as
written.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?P<role>func|meth|class|mod|data|attr|exc|obj|const):`(?P<tilde>~)?(?P<target>\.?[A-Za-z_][\w.]*)`")
"""A Sphinx cross-reference role of the Python domain, with an optional ``~`` (show the last part only)."""


def cross_references(text: str, resolve: Callable[[str], str]) -> str:
    """``text`` with every Sphinx role replaced by an optional autorefs reference to ``resolve(name)``.

    >>> cross_references("see :class:`~solver.tables.Table`", lambda name: name)
    'see <autoref identifier="solver.tables.Table" optional><code>Table</code></autoref>'
    """

    def replace(match: re.Match[str]) -> str:
        target = match["target"].lstrip(".")
        shown = target.rsplit(".", 1)[-1] if match["tilde"] else target
        identifier = html.escape(resolve(target), quote=True)
        return f'<autoref identifier="{identifier}" optional><code>{html.escape(shown)}</code></autoref>'

    return ROLE.sub(replace, text)


def resolver(obj: griffe.Object, public: dict[str, str]) -> Callable[[str], str]:
    """How a name in ``obj``'s docstring is resolved: its first part in ``obj``'s scope
    (:meth:`griffe.Object.resolve`: members, imports, then the parents'; a full ``solver.`` path as it is),
    the rest appended, then followed through re-exports to where it is defined, and named as the
    manual renders it (``solver.tables.base.Table.verify`` is ``solver.Table.verify``: ``public``).
    A name that does not resolve is kept (it stays code)."""
    package = obj.package

    def resolve(name: str) -> str:
        head, _, rest = name.partition(".")
        if head != package.name:
            try:
                head = _inherited(obj, head) or obj.resolve(head)
            except (griffe.NameResolutionError, AttributeError, KeyError):
                return name
        found = canonical(package, f"{head}.{rest}" if rest else head)
        prefix = max((path for path in public if found == path or found.startswith(path + ".")), key=len, default=None)
        return found if prefix is None else public[prefix] + found[len(prefix) :]

    return resolve


def _inherited(obj: griffe.Object, name: str) -> str | None:
    """``name`` as a member its class inherits (``:meth:`verify``` in a subclass that does not redefine it), if it is one."""
    owner = obj if obj.is_class else obj.parent
    if owner is None or not owner.is_class or name in owner.members:
        return None
    try:
        member = owner.all_members.get(name)
    except (griffe.AliasResolutionError, griffe.CyclicAliasError, KeyError):
        return None
    return None if member is None else f"{owner.path}.{name}"


def canonical(package: griffe.Module, path: str) -> str:
    """Where ``path`` (in ``package``) is defined, following re-exports (``solver.tables.Table`` ->
    ``solver.tables.base.Table``); ``path`` itself if it cannot be followed."""
    for _ in range(16):  # a chain of re-exports, never a cycle
        if not path.startswith(package.path + "."):
            return path
        try:
            found = package[path[len(package.path) + 1 :]]
        except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            return path
        if not found.is_alias:
            return str(found.path)
        path = found.target_path
    return path


def public_names(package: griffe.Module) -> dict[str, str]:
    """The manual's name of each object the package re-exports: where it is defined -> ``package.name``."""
    return {canonical(package, f"{package.path}.{name}"): f"{package.path}.{name}" for name in package.members if not name.startswith("_")}


class SphinxRoles(griffe.Extension):
    """Turn the Sphinx roles of every docstring in the package into cross-references, once it is loaded
    (so that names imported from modules loaded later resolve too)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        public = public_names(pkg)
        for obj in _objects(pkg):
            if obj.docstring is not None:
                obj.docstring.value = cross_references(obj.docstring.value, resolver(obj, public))


def _objects(root: griffe.Object) -> list[griffe.Object]:
    """``root`` and every object defined under it (aliases, the names imported, excluded: their own module has them)."""
    found, todo = [], [root]
    while todo:
        obj = todo.pop()
        found.append(obj)
        todo += [member for member in obj.members.values() if not member.is_alias and isinstance(member, griffe.Object)]
    return found
