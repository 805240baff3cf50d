"""Shared test set-up: the helper modules of tests/ import as ``reference`` and ``golden``,
a private table directory per test, and the documented layout of ``Table.stats()``."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent))

collect_ignore_glob = ["players/*"]
"""The player files are students' code, loaded by the grader in its own process; some read
standard input at import on purpose (tests/players/input_loop.py), so pytest must not import them."""


def pytest_configure(config: pytest.Config) -> None:
    """Every test run gets a private table directory, so no test reads or writes the user's own
    (tests that need another one set ``SOLVED_TICTACTOE_DIR`` themselves, or the ``table_dir`` fixture).

    A run started in the background by a shell without job control (``nohup bash .ci/run &``) inherits SIGINT
    ignored, and then no Ctrl-C reaches Python, this process's or a child's: the tests of Ctrl-C would see a search
    or a build run to its end. Ctrl-C is what they test, so it is given back its default meaning here (a child
    process started after this gets the default too: a handler is not inherited across ``exec``, "ignored" is)."""
    import os
    import signal
    import tempfile

    os.environ.setdefault("SOLVED_TICTACTOE_DIR", tempfile.mkdtemp(prefix="solved-tictactoe-tests-"))
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


STATS_SUBKEYS = {
    # The nested keys, as solver/tables/summary.py's docstring spells them out in its "meaning" column.
    "side_to_move": {"wins", "draws", "losses"},
    "terminal": {"positions", "x_wins", "o_wins", "draws"},
    "games": {"total", "x_wins", "o_wins", "draws"},
    "start": {"value", "result", "plies"},
}


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A private on-disk block cache for tables at a URL, and no mirror from the environment (``$SOLVED_TICTACTOE_MIRROR``)."""
    import solver
    from solver.storage import remote
    from solver.store.urltable import MIRROR_ENV

    directory = tmp_path / "cache"
    monkeypatch.setenv(remote.CACHE_ENV, str(directory))
    monkeypatch.delenv(MIRROR_ENV, raising=False)
    solver.forget()
    yield directory
    solver.forget()


@pytest.fixture
def table_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A fresh, private table directory (tables of other games get built into it)."""
    import solver

    directory = tmp_path / "tables"
    monkeypatch.setenv("SOLVED_TICTACTOE_DIR", str(directory))
    solver.forget()
    yield directory
    solver.forget()


@pytest.fixture
def runner(table_dir: Path) -> CliRunner:
    """click's CliRunner for ``solve`` (``runner.invoke(main, [...])``), over a fresh, private table directory
    (:func:`table_dir`): the one copy every CLI test uses."""
    return CliRunner()


@pytest.fixture(scope="session")
def documented_stats_keys() -> tuple[set[str], dict[str, set[str]]]:
    """The top-level keys listed in the key column of solver/tables/summary.py's docstring table,
    and the nested keys of the dict-valued ones."""
    import solver.tables.summary

    doc = solver.tables.summary.__doc__ or ""
    rule = re.compile(r"^=+\s+=+\s*$")
    rows = doc.splitlines()
    edges = [i for i, line in enumerate(rows) if rule.match(line)]
    assert len(edges) >= 3, "solver/tables/summary.py's docstring no longer has its table of keys"
    keys: set[str] = set()
    for line in rows[edges[1] + 1 : edges[2]]:
        first_column = line.split("  ")[0]
        keys.update(re.findall(r"``(\w+)``", first_column))
    return keys, STATS_SUBKEYS


@pytest.fixture(scope="session")
def stand_in_layers(tmp_path_factory: pytest.TempPathFactory) -> list[np.ndarray]:
    """Every board's score of 2x9k4, the build tests' stand-in game (18 cells: layered, built in seconds), raw."""
    from solver.retrograde.sweep import build_layers
    from solver.rules.game import parse_game

    built = build_layers(parse_game("2x9k4"), tmp_path_factory.mktemp("raw") / "build", jobs=1)
    return [np.array(layer) for layer in built.layers()]


@pytest.fixture(scope="session")
def stand_in_table(tmp_path_factory: pytest.TempPathFactory, stand_in_layers: list[np.ndarray]) -> bytes:
    """The 2x9k4 table written from :func:`stand_in_layers` in memory in one pass: what every build must write, byte for byte."""
    from solver.rules.game import parse_game
    from solver.store.make import write_compact

    return write_compact(tmp_path_factory.mktemp("one pass") / "2x9k4.ttt", parse_game("2x9k4"), stand_in_layers).read_bytes()
