"""Collection rules for the whole checkout: the doctests of solver/web need the web extra."""

from __future__ import annotations

import importlib.util

collect_ignore_glob = [] if importlib.util.find_spec("starlette") and importlib.util.find_spec("uvicorn") else ["solver/web/*"]
