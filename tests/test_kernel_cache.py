"""The compiled kernels are never stale (solver/compiling.py): numba's cache of a kernel is keyed on every
source file the search layer imports, so an edit of a function a kernel calls, in another file, is compiled in.

1. in a scratch copy of the package, a kernel of book.py that calls bitboard.py's popcount answers from the cache
   on a second run, and answers with the edited popcount after popcount alone is edited;
2. the files the key covers are every file of the package the search layer imports (nothing it reaches is left out);
3. the same for the build's kernel (solver/retrograde/compiled.py, compiled by the same decorators of
   solver/compiling.py): an edit of a constant it reads from rules/score.py is compiled in, and the key covers every
   module the build imports.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

from solver.search.kernel import KERNEL_SOURCES, PACKAGE

PROBE = """
import numpy as np
from solver.search.plies import _children
from solver.search.position import engine_game, geometry_of
game = engine_game("4x5k4-gravity")
geo = geometry_of(game)
empty = np.array([int(geo[3])], dtype=np.uint64)  # the empty board's key: its bottom bits
print(sorted(_children(empty, geo).tolist())[:2], sum(_children.stats.cache_hits.values()))
"""
"""A kernel of plies.py that calls bitboard.py's ``key_of``: the sorted keys of the empty board's first children."""


def _run(root: Path, probe: str = PROBE) -> tuple[str, int]:
    """The probe's answer and the kernel's cache hits, in a fresh process on the package copy at ``root``."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run([sys.executable, "-c", probe], cwd=root, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    pieces, hits = done.stdout.strip().rsplit(" ", 1)
    return pieces, int(hits)


def test_an_edit_of_a_function_a_kernel_calls_in_another_file_is_compiled_in_and_an_unedited_kernel_loads_from_cache(tmp_path: Path) -> None:
    root = tmp_path / "copy"
    shutil.copytree(PACKAGE, root / "solver", ignore=shutil.ignore_patterns("__pycache__"))
    first, _ = _run(root)
    assert first == "[1082402, 1082402]"  # the empty board's bottom bits (1 + 2**5 + ... + 2**20) and a piece at a side
    again, hits = _run(root)
    assert (again, hits) == (first, 1), "the second run compiled again instead of loading the cache"
    bitboard = root / "solver" / "search" / "bitboard.py"
    source = bitboard.read_text(encoding="utf-8")
    edited = source.replace("    return np.uint64(pos + mask + geo[G_BOTTOM])\n", "    return np.uint64(pos + mask + geo[G_BOTTOM] + np.uint64(1))\n", 1)
    assert edited != source, "key_of's last line moved: update this test's edit"
    bitboard.write_text(edited, encoding="utf-8")
    after, hits = _run(root)
    assert (after, hits) == ("[1082403, 1082434]", 0), "the kernel kept machine code compiled before its callee was edited"


def _on_a_terminal(root: Path, moves: str, cache: Path | None = None) -> str:
    """What ``solve lookup --game connect4 --moves MOVES`` writes to a terminal's stderr, run on the package copy at
    ``root`` (numba's cache beside its source, or in ``cache`` as ``NUMBA_CACHE_DIR``)."""
    env = {**os.environ, "PYTHONPATH": str(root), "SOLVED_TICTACTOE_DIR": str(root / "tables")}
    env.pop("NUMBA_CACHE_DIR", None)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    primary, secondary = os.openpty()
    try:
        command = [sys.executable, "-c", "from solver.cli import main; main()", "lookup", "--game", "connect4", "--moves", moves]
        done = subprocess.run(command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=secondary, timeout=900, check=False)
        os.close(secondary)
        written = b""
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:
                break
            if not chunk:
                break
            written += chunk
    finally:
        os.close(primary)
    assert done.returncode == 0, written.decode(errors="replace")[-2000:]
    return written.decode(errors="replace")


def test_the_first_search_after_an_install_or_with_an_empty_numba_cache_says_on_a_terminal_that_it_compiles_and_the_next_process_does_not(
    tmp_path: Path,
) -> None:
    root = tmp_path / "copy"
    shutil.copytree(PACKAGE, root / "solver", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(PACKAGE.parent / "data", root / "data")  # the book a checkout ships (solver/data in a wheel)
    late = "2252576253462244111563365343671351441"  # near the end: searched in Python (solver/search/late.py)
    middle = late[:24]  # past the book, 18 empty cells: searched by the engine (milliseconds)
    assert "Compiling" not in _on_a_terminal(root, "443322"), "a position the book answers whole loads no kernel"
    assert "Compiling" not in _on_a_terminal(root, late), "a position near the end loads no kernel"
    assert "Compiling the search of 6x7k4-gravity: once after an install" in _on_a_terminal(root, middle)
    assert "Compiling" not in _on_a_terminal(root, middle[:-1])
    # numba's cache elsewhere (NUMBA_CACHE_DIR) and empty: the kernels compile again there, and that is said too
    elsewhere = tmp_path / "numba-cache"
    assert "Compiling the search of 6x7k4-gravity: once after an install" in _on_a_terminal(root, middle, elsewhere)
    assert "Compiling" not in _on_a_terminal(root, middle[:-1], elsewhere)


BUILD_PROBE = """
import numpy as np
from solver.retrograde.compiled import best_of_children, score_chunk
children = (np.zeros((1, 1), np.int8), np.zeros((1, 2), np.intp), np.zeros((0, 2), np.int8), np.zeros((0, 1), np.intp))
rules = np.full((1, 2), -1, np.int8)
print(score_chunk(children, rules, np.array([True, False])).tolist(), sum(best_of_children.stats.cache_hits.values()))
"""


def test_an_edit_of_a_constant_the_builds_kernel_reads_in_another_file_is_compiled_in(tmp_path: Path) -> None:
    # the build's kernel (solver/retrograde/compiled.py) marks a board no game reaches with rules/score.py's UNREACHABLE
    root = tmp_path / "copy"
    shutil.copytree(PACKAGE, root / "solver", ignore=shutil.ignore_patterns("__pycache__"))
    assert _run(root, BUILD_PROBE)[0] == "[0, -128]"
    assert _run(root, BUILD_PROBE) == ("[0, -128]", 1), "the second run compiled again instead of loading the cache"
    score = root / "solver" / "rules" / "score.py"
    source = score.read_text(encoding="utf-8")
    edited = source.replace("\nUNREACHABLE = -128\n", "\nUNREACHABLE = -127\n", 1)
    assert edited != source, "UNREACHABLE's line moved: update this test's edit"
    score.write_text(edited, encoding="utf-8")
    assert _run(root, BUILD_PROBE) == ("[0, -127]", 0), "the kernel kept machine code compiled before the constant was edited"


@pytest.mark.parametrize("layer", ["solver.search", "solver.retrograde"])
def test_the_kernels_cache_key_covers_every_module_a_compiled_layer_imports(layer: str) -> None:
    graph = grimp.build_graph("solver")
    reached = graph.find_upstream_modules(layer, as_package=True) | {layer}
    covered = tuple(f"solver.{name.removesuffix('.py')}" for name in KERNEL_SOURCES)
    outside = sorted(module for module in reached if module != "solver" and not module.startswith(covered))
    assert outside == [], f"{layer} imports modules its kernels' cache key does not cover: {outside}"


def test_a_kernel_called_directly_is_the_one_compiled_for_its_arguments_and_answers_as_the_dispatched_call() -> None:
    """``solver.compiling.direct`` gives the machine code numba compiled (or loaded) for the arguments' types: the
    engine's look-up by move string calls it without numba's dispatch, and it answers every position of a game as the
    dispatched kernel does."""
    import numpy as np

    from solver.compiling import direct
    from solver.search.engine import SHORT, Engine
    from solver.search.negamax import CONTROL_SLOTS, NODES, STOP, short_solve_string

    engine = Engine("connect4", table_bytes=1 << 22, threads=1)
    shared = (engine._geo, engine._table, engine._book, np.zeros(CONTROL_SLOTS, dtype=np.int64), engine._scratches[0])
    called = direct(short_solve_string, b"0", SHORT, *shared)
    assert called is engine._solve_string  # the one entry point of those types
    assert not hasattr(called, "overloads")  # machine code, not numba's dispatcher
    control = shared[3]
    for moves in ("4453", "2252576253462244111563365343671351441", "12345671234567", "4", "44x"):
        answers = []
        for kernel in (called, short_solve_string):  # each from an empty table: the same search, stopped or not
            engine._table.fill(0)
            answers.append((kernel(moves.encode(), SHORT, *shared), control[NODES], control[STOP]))
        assert answers[0] == answers[1], moves
