"""A gravity table's outcomes held to the published ones by ``scripts/check_outcome_counts.py``: the positions in all
and the root (Böck; Tromp and Steininger) of the tables built here, and a per-ply count that differs is found."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from solver.api import Tablebase
from solver.rules.game import parse_game
from solver.store.make import build_compact
from solver.tables.compact import CompactTable

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
SCRIPT = SCRIPTS / "check_outcome_counts.py"
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "connect4"


def _script() -> ModuleType:
    sys.path.insert(0, str(SCRIPTS))
    try:
        spec = importlib.util.spec_from_file_location("check_outcome_counts", SCRIPT)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(SCRIPTS))


@pytest.fixture(scope="module")
def table_4x5(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (DATA / "c4_board_values_steininger_tromp.csv").is_file():
        pytest.skip("the published values are not beside the checkout (../shared/data/connect4)")
    path = tmp_path_factory.mktemp("tables") / "4x5k4-gravity.ttt"
    return build_compact(parse_game("4x5k4-gravity"), path, jobs=2)


def test_a_gravity_tables_positions_and_root_are_the_published_ones(table_4x5: Path) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), str(table_4x5)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "positions: 3,945,711  same" in done.stdout, done.stdout
    assert "root: draw, the game ends on ply 20  same" in done.stdout
    assert done.stdout.count("\nply ") == 20 and "every published figure equal" in done.stdout


def test_a_per_ply_count_unlike_boecks_is_found(table_4x5: Path, tmp_path: Path) -> None:
    """Böck publishes no per-ply counts of 4x5: a file of them made from the table itself, one count changed."""
    script = _script()
    table = Tablebase().open_file(table_4x5, kind="compact")
    assert isinstance(table, CompactTable)
    shutil.copy(DATA / "c4_board_values_steininger_tromp.csv", tmp_path / "c4_board_values_steininger_tromp.csv")
    (tmp_path / "boeck_perply").mkdir()
    rows = [f"5, 4, {layer.ply}, {layer.every.wins}, {layer.every.draws}, {layer.every.losses}, 0.0" for layer in table.layer_counts()]
    published = tmp_path / "boeck_perply" / "results_solve_w5_h4.csv"
    published.write_text("width,height,ply,wincount,drawcount,lostcount,time\n" + "\n".join(rows) + "\n")
    lines, same = script.compare(table, tmp_path)
    assert same and all(line.endswith("same") for line in lines), lines
    rows[12] = rows[12].replace(f", {table.layer_counts()[12].every.draws},", f", {table.layer_counts()[12].every.draws + 1},")
    published.write_text("width,height,ply,wincount,drawcount,lostcount,time\n" + "\n".join(rows) + "\n")
    lines, same = script.compare(table, tmp_path)
    assert not same and "DIFFERS" in lines[12] and sum("DIFFERS" in line for line in lines) == 1, lines


def test_a_board_nothing_published_covers_exits_with_status_2(tmp_path: Path) -> None:
    path = build_compact(parse_game("3x6k3-gravity"), tmp_path / "3x6k3-gravity.ttt", jobs=1)
    done = subprocess.run([sys.executable, str(SCRIPT), str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "nothing published" in done.stderr, done.stdout + done.stderr
