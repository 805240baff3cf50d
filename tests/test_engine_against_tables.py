"""The engine (solver/search/) against the gravity tables of the retrograde build: two independent methods that must agree.

The table scores every reachable board from the end of the game backwards; the engine searches each position
forwards. scripts/check_engine_tables.py compares them position by position (the score byte: the value and the
plies to the end, for the side to move) and, on a sample, every move against the child's score in the table:

1. every position of 4x5k4-gravity (3.9 M reachable boards, 3.1 M in play: slow set) and a sample of every layer of
   5x4k4-gravity with every move;
2. 5x5k4-gravity (50.7 M positions in play) in full is the script's (minutes of CPU: docs/connect4.md gives the run); here a seeded
   sample of every layer, every move of some (slow set);
3. 5x6k4-gravity and 4x7k4-gravity, whose tables take minutes and gigabytes to build: sampled positions against the
   independent reference of tests/reference.py (no code shared), every move too;
4. a difference is found and reported: the script fails on a table whose score is wrong;
5. scripts/check_reference_tables.py, the same sample of a table's late layers against the reference (4x8k4-gravity's
   table takes half an hour to build: the script's run is in docs/performance.md), agrees on a table and finds a wrong
   answer.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from reference import Reference, code

from solver.rules.game import parse_game
from solver.rules.score import decode
from solver.search import Engine
from solver.store.locate import open_compact
from solver.store.make import build_compact
from solver.tables import CompactTable

ROOT = Path(__file__).resolve().parents[1]
TABLE_BYTES = 1 << 24


def _script(name: str = "check_engine_tables") -> ModuleType:
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="module")
def compact_table(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """``compact_table(name)``: a gravity game's compact table, built by the retrograde build into a directory of its own (once per module)."""
    built: dict[str, CompactTable] = {}

    def build(name: str) -> CompactTable:
        if name not in built:
            path = build_compact(parse_game(name), tmp_path_factory.mktemp(name) / f"{name}.ttt", jobs=1)
            table = open_compact(path)
            assert isinstance(table, CompactTable)
            built[name] = table
        return built[name]

    return build


def _agree(table: CompactTable, *, sample: int | None, moves: int) -> object:
    checked = _script().check_table(table, sample=sample, moves=moves, say=lambda line: None, engine=Engine(table.game, table_bytes=TABLE_BYTES))
    assert checked.wrong == 0, "\n".join(checked.differences)
    return checked


# -- 1. every position of the 20-cell boards ---------------------------------------------------------------------------


@pytest.mark.slow
def test_the_engine_gives_every_position_of_the_4x5_gravity_table_its_value_and_plies(compact_table) -> None:  # type: ignore[no-untyped-def]
    checked = _agree(compact_table("4x5k4-gravity"), sample=None, moves=20)
    in_play = sum(count for _, count, _ in checked.by_ply)  # type: ignore[attr-defined]
    assert checked.positions == in_play and in_play > 3_000_000 and checked.moves > 0  # type: ignore[attr-defined]


def test_the_engine_gives_sampled_positions_of_every_5x4_gravity_layer_and_every_move_the_tables_scores(compact_table) -> None:  # type: ignore[no-untyped-def]
    checked = _agree(compact_table("5x4k4-gravity"), sample=300, moves=15)
    assert len(checked.by_ply) == 20 and checked.positions > 3000 and checked.moves > 500  # type: ignore[attr-defined]


# -- 2. 5x5 sampled --------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_engine_gives_sampled_positions_of_every_5x5_gravity_layer_and_every_move_the_tables_scores(compact_table) -> None:  # type: ignore[no-untyped-def]
    checked = _agree(compact_table("5x5k4-gravity"), sample=400, moves=10)
    assert len(checked.by_ply) == 25 and checked.positions > 8000 and checked.moves > 500  # type: ignore[attr-defined]


# -- 3. 5x6 and 4x7 against the reference ----------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "empty", "count"), [("4x7k4-gravity", 12, 25), ("5x6k4-gravity", 12, 20)])
def test_the_engine_gives_sampled_positions_of_5x6_and_4x7_gravity_and_every_move_the_references_values_and_plies(name: str, empty: int, count: int) -> None:
    game = parse_game(name)
    ref = Reference(game.rows, game.cols, game.k, gravity=True)
    engine = Engine(name, table_bytes=TABLE_BYTES)
    rng = random.Random(f"{name} against the reference")
    done = 0
    while done < count:
        board = ref.random_position(rng, rng.randint(4, empty))
        if board is None:
            continue
        expected, answer = ref.solve(board), engine.solve(code(board))
        assert (answer.result, answer.plies) == (decode(expected.result * 99, 0)[0], expected.plies), f"{name} {board}"
        for cell, (result, plies) in ref.move_outcomes(board).items():
            move = next(m for m in answer.moves if m.cell == cell)
            assert (move.result, move.plies) == (decode(result * 99, 0)[0], plies), f"{name} {board}: the move at cell {cell}"
        done += 1


# -- 4. a difference is found --------------------------------------------------------------------------------------


class _Forged:
    """A compact table whose score of one position in play is wrong: what the comparison must find."""

    def __init__(self, table: CompactTable, ply: int) -> None:
        self.game, self.layout, self._table, self._ply = table.game, table.layout, table, ply

    def layer(self, ply: int) -> np.ndarray:
        scores = np.array(self._table.layer(ply))
        if ply == self._ply:
            at = int(np.flatnonzero((scores > 0) & (scores < 100))[0])
            scores[at] -= 2  # a win two plies later: the value right, the plies wrong
        return scores

    def score_of(self, code_: int) -> int:
        return self._table.score_of(code_)


def test_a_table_whose_plies_to_the_end_are_wrong_on_one_position_is_reported(compact_table) -> None:  # type: ignore[no-untyped-def]
    script = _script()
    forged = _Forged(compact_table("5x4k4-gravity"), 9)
    checked = script.Checked(forged.game.name)
    for ply in (9, 10):
        script.check_layer(forged, Engine(forged.game, table_bytes=TABLE_BYTES), ply, checked, sample=None, moves=0, rng=np.random.default_rng(0))
    assert checked.wrong == 1 and checked.positions > 10_000, checked.differences
    assert "(ply 9)" in checked.differences[0] and "the table" in checked.differences[0]


# -- 5. a table's late layers against the reference ------------------------------------------------------------------


def test_the_reference_gives_sampled_late_positions_of_a_gravity_table_and_every_move_the_tables_answers(compact_table) -> None:  # type: ignore[no-untyped-def]
    script = _script("check_reference_tables")
    table = compact_table("5x4k4-gravity")
    ref = Reference(table.game.rows, table.game.cols, table.game.k, gravity=True)
    compared = 0
    for ply in range(table.game.cells - 1, table.game.cells - 11, -1):
        for codes, _, _, _ in _script()._boards(table, ply, 15, np.random.default_rng(ply)):
            for found in codes.tolist():
                assert script.differences(table.at(int(found)), ref) == [], found
                compared += 1
    assert compared > 100
    misere = Reference(table.game.rows, table.game.cols, table.game.k, gravity=True, misere=True)
    position = table.at_moves("121212")  # a win at once for the side to move: misere play says otherwise
    assert script.differences(position, ref) == [] and script.differences(position, misere)[0].startswith("the position: the reference")
