"""What importing the package and answering one position load: only what a look-up uses. The grader, the builder and
its proofs, the mirrors and URLs (urllib, http.client, ssl), the pictures and the other commands of ``solve`` are
imported when first used (PEP 562 ``__getattr__`` in :mod:`solver` and :mod:`solver.api`, imports inside the functions
that need them, and the commands of :class:`solver.cli.group.SolveGroup` by name), and every public name is still
where it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import solver
import solver.api

ROOT = Path(solver.__file__).resolve().parent.parent

LATE_CONNECT_FOUR = "2252576253462244111563365343671351441"
"""A late Connect Four position, answered in pure Python (no numba)."""

DEFERRED = (
    "solver.grading",
    "solver.store.make",
    "solver.store.mirror",
    "solver.store.samplecheck",
    "solver.storage.remote",
    "solver.retrograde",
    "solver.tables.analysis",
    "solver.present.svg",
    "solver.present.charts",
    "solver.present.report",
    "solver.present.analysis",
    "solver.web",
    "urllib.request",
    "http.client",
    "ssl",
    "email",
    "multiprocessing",
    "numba",
)
"""Modules (and packages, with everything under them) that neither ``import solver`` nor a look-up may load."""

OTHER_COMMANDS = tuple(f"solver.cli.{name}" for name in ("analyze", "build", "fetch", "grade", "play", "serve", "stats", "verify"))

API_NAMES_BEFORE = """
Board BuildEstimate BuildHook BuildProgress CONNECT_FOUR Check DEFAULT_BOOK_SAMPLE DEFAULT_GAME DEFAULT_MEMORY_MB
DEFAULT_PROCESSES DEFAULT_REFERENCE DEFAULT_TIMEOUT DEFAULT_TOTAL_TIMEOUT DENSE_MAX_CELLS DenseTable GRADE_LIMIT Game
GameAnalysis GradeReport GradingInterrupted InvalidArgumentError InvalidBoardError LayerCheck LocalTables MAX_EMPTY
MIRROR_ENV MoveSpec OUTCOMES Outcome Position Progress RESULTS Replayed Returns Sandbox Scores SearchTable Source Table
TableAt Tablebase Turn UNREACHABLE WIN Want analysis_text analyze best_move best_text board_maker book_game build_book
build_table check_rules check_sample cluster_scheduler code_of_text column_board decode_score decode_scores
default_depth default_tablebase describe_book describe_report digits draw encode encode_boards estimate estimate_book
fetch_table forget format_duration get grade grid_text is_shipped is_url kind_for load_table lookup lookup_boards
lookup_codes move_code move_string_code move_string_codes move_words open_book outcome_label outcomes_svg parse
parse_game parse_move parse_moves parse_symbols parse_text plies_text positions_to_grade proof proof_disk proof_seconds
proof_work rebuild_command record_book_check refuse_beyond_machine refuse_replacing remove_dead_temporaries
sample_seconds search_compiled searches_by shipped_book_path split_moves stats_text status_line table_for verify_book
verify_plan write_atomic
""".split()
"""Every name :mod:`solver.api` offered before its imports were deferred (its own and those it re-exports for the front ends)."""


def _fresh(script: str) -> dict[str, object]:
    """Run ``script`` in a new interpreter over this checkout; it prints one JSON object, returned."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return found


def _loaded(modules: object, prefixes: tuple[str, ...]) -> list[str]:
    assert isinstance(modules, list)
    return [name for name in modules if any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)]


def test_importing_the_package_and_looking_up_loads_no_grader_builder_picture_or_network_module():
    found = _fresh(
        "import json, sys\n"
        "import solver\n"
        "imported = sorted(sys.modules)\n"
        "board = solver.lookup('X.O/.X./..O')\n"
        f"late = solver.lookup(moves={LATE_CONNECT_FOUR!r}, game='connect4')\n"
        "print(json.dumps({'imported': imported, 'looked_up': sorted(sys.modules), 'answers': [board.result, late.result, late.plies]}))"
    )
    assert found["answers"] == ["draw", "loss", 4]  # the look-ups ran (O to move loses in 4 plies: solve lookup's answer)
    assert "solver.store.tablebase" in found["imported"] and "solver.store.searched" in found["looked_up"]
    assert _loaded(found["imported"], DEFERRED) == []
    assert _loaded(found["looked_up"], DEFERRED) == []


def test_solve_lookup_loads_its_own_command_only_and_no_grader_builder_or_network_module():
    found = _fresh(
        "import json, sys\n"
        "from solver.cli import main\n"
        f"main(['lookup', '--game', 'connect4', '--moves', {LATE_CONNECT_FOUR!r}], standalone_mode=False)\n"
        "main(['lookup', 'X.O/.X./..O'], standalone_mode=False)\n"
        "print(json.dumps({'loaded': sorted(sys.modules)}))"
    )
    assert "solver.cli.lookup" in found["loaded"]
    assert _loaded(found["loaded"], DEFERRED + OTHER_COMMANDS) == []


def test_every_name_of_the_package_and_of_the_api_is_still_reachable_from_a_fresh_interpreter():
    """``from solver.api import X`` for every name the API offered before, and ``solver.X`` for every name of
    ``solver.__all__``: each listed by ``dir()`` before its first use, and the very object of the module that holds it."""
    found = _fresh(
        "import importlib, json\n"
        "import solver, solver.api\n"
        f"names = {{'solver': list(solver.__all__), 'solver.api': sorted(set(solver.api.__all__) | set({API_NAMES_BEFORE!r}))}}\n"
        "missing, unlisted, other = [], [], []\n"
        "for module_name, wanted in names.items():\n"
        "    module = importlib.import_module(module_name)\n"
        "    listed = dir(module)\n"
        "    for name in wanted:\n"
        "        if name not in listed:\n"
        "            unlisted.append(f'{module_name}.{name}')\n"
        "        try:\n"
        "            namespace = {}\n"
        "            exec(f'from {module_name} import {name} as value', namespace)\n"
        "        except ImportError:\n"
        "            missing.append(f'{module_name}.{name}')\n"
        "            continue\n"
        "        value = namespace['value']\n"
        "        home = getattr(value, '__module__', None)\n"
        "        if isinstance(home, str) and home.startswith('solver.') and getattr(importlib.import_module(home), name, value) is not value:\n"
        "            other.append(f'{module_name}.{name}')\n"
        "print(json.dumps({'missing': missing, 'unlisted': unlisted, 'other': other}))"
    )
    assert found == {"missing": [], "unlisted": [], "other": []}


def test_the_lazily_provided_names_are_the_objects_of_their_modules_and_an_unknown_name_is_still_an_attribute_error():
    from solver.grading import grader
    from solver.store import make, mirror
    from solver.tables import analysis

    assert solver.grade is solver.api.grade is grader.grade and solver.GradeReport is grader.GradeReport
    assert solver.GameAnalysis is solver.api.GameAnalysis is analysis.GameAnalysis
    assert solver.api.fetch_table is mirror.fetch_table and solver.api.kind_for is make.kind_for
    for module in (solver, solver.api):
        try:
            module.no_such_name  # type: ignore[attr-defined]  # noqa: B018
        except AttributeError as error:
            assert "no_such_name" in str(error)
        else:
            raise AssertionError(f"{module.__name__}.no_such_name did not raise AttributeError")


def test_the_notebook_pictures_are_registered_at_import_and_draw_with_their_modules_loaded_then():
    found = _fresh(
        "import json, sys\n"
        "import solver\n"
        "before = 'solver.present.svg' in sys.modules\n"
        "svg = solver.lookup('XO./.X./...')._repr_svg_()\n"
        "text = str(solver.analyze([4, 0, 8]))\n"
        "print(json.dumps({'before': before, 'svg': svg[:4], 'after': 'solver.present.svg' in sys.modules, 'text': text.split(chr(10))[0].split()}))"
    )
    assert found["before"] is False and found["after"] is True
    assert found["svg"] == "<svg"
    assert found["text"] == ["ply", "player", "move", "best", "moves", "before", "after", "verdict"]  # solve analyze's table, not the repr
