"""The command that installs an optional extra (``web``, ``interop``, ``cluster``, ``test``).

The package is installed from a checkout, not from PyPI, so ``pip install
'solved-tictactoe[web]'`` fails (or would fetch whatever someone else publishes
under that name). Every "this needs the ... extra" message gives instead the
command that works here: the running interpreter's pip (so the extra lands in
the same environment, activated or not) and the checkout the package comes from,
found as

1. the directory holding the running ``solver`` package, when it is a checkout
   (a ``pyproject.toml`` naming ``solved-tictactoe`` beside it: editable installs,
   or a checkout on ``PYTHONPATH``);
2. else the directory pip installed from, as pip recorded it (PEP 610
   ``direct_url.json``), if it is still there;
3. else, unknown: ``pip install '.[web]'`` run in the checkout.
"""

from __future__ import annotations

import json
import shlex
import sys
import tomllib
from importlib import metadata
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname

DISTRIBUTION = "solved-tictactoe"


def install_command(extra: str) -> str:
    """A shell command that installs ``extra`` into the environment running now.

    >>> install_command("web").endswith("[web]'") and " -m pip install " in install_command("web")
    True
    """
    checkout = source_checkout()
    if checkout is None:
        return f"pip install '.[{extra}]' (run in the {DISTRIBUTION} checkout)"
    return f"{shlex.quote(sys.executable)} -m pip install {shlex.quote(f'{checkout}[{extra}]')}"


def source_checkout() -> Path | None:
    """The checkout the running package comes from, or None when it cannot be told (module docstring)."""
    here = Path(__file__).resolve().parent.parent
    if _is_checkout(here):
        return here
    try:
        recorded = metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    if not recorded:
        return None
    try:
        url = urlparse(json.loads(recorded).get("url", ""))
    except (ValueError, AttributeError):
        return None
    if url.scheme != "file":
        return None
    path = Path(url2pathname(url.path))
    return path if _is_checkout(path) else None


def _is_checkout(path: Path) -> bool:
    """Whether ``path`` holds this project's ``pyproject.toml``."""
    try:
        with (path / "pyproject.toml").open("rb") as handle:
            return bool(tomllib.load(handle).get("project", {}).get("name") == DISTRIBUTION)
    except (OSError, tomllib.TOMLDecodeError):
        return False
