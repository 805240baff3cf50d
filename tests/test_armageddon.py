"""Armageddon, the third scoring (a draw is O's win): one module and a catalogue line, composed with every move rule.

Its values are checked against the independent reference (tests/reference.py, ``armageddon=True``) on every
position of small games, under placement and under gravity, in test_tables_match_minimax.py; here its layered
build equals its dense build code by code, and the rule is the same composed class as every other.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from reference import reference

import solver
from solver.encoding.coderules import code_rules
from solver.encoding.layouts import layout
from solver.retrograde.sweep import build_layers
from solver.rules.armageddon import Armageddon
from solver.rules.catalog import MOVE_RULES, RULES
from solver.rules.game import parse_game
from solver.tables.compact import CompactTable


def test_every_move_rule_composes_with_armageddon_into_the_one_rule_class() -> None:
    for move in MOVE_RULES:
        suffix = "-".join(part for part in (move, "armageddon") if part)
        assert RULES[suffix].scoring is Armageddon
        rules = parse_game(f"3x3k3-{suffix}").rules
        assert isinstance(rules.scoring, Armageddon) and type(rules) is type(parse_game("3x3").rules)
        assert rules.suffix == suffix


def test_tictactoe_under_armageddon_is_o_s_win_in_nine_plies(table_dir: Path) -> None:
    position = solver.lookup(".../.../...", game="3x3k3-armageddon")
    assert (position.value, position.result, position.plies) == (-1, "loss", 9)
    full = solver.lookup("XOX/XOO/OXX", game="3x3k3-armageddon")  # full, no line: O to move has won
    assert full.is_over and full.result == "win" and full.plies == 0
    assert code_rules(full.game).outcome(full.code).value == "O won"
    assert "game over: O won (a full board is O's win)" in repr(full) and full.winner == "O" and full.line_completer is None
    assert solver.lookup(".../.../...").value == 0, "normal play is still a draw"


def test_the_reference_agrees_on_the_empty_board_of_3x3k3_armageddon() -> None:
    ref = reference("3x3k3-armageddon")
    assert ref.armageddon and not ref.misere
    assert ref.value((0,) * 9) == -1


@pytest.mark.parametrize("name", ["3x4k3-armageddon", "2x5k2-armageddon", "3x4k3-gravity-armageddon"])
def test_the_layered_build_of_an_armageddon_game_equals_its_dense_build_code_by_code(name: str, tmp_path: Path) -> None:
    game = parse_game(name)
    compact = CompactTable.from_layers(game, build_layers(game, tmp_path / "b", jobs=1).layers(), prove=True)
    dense = solver.build_table(game=game)
    reachable = dense.reachable_codes()
    mine, theirs = compact.lookup_codes(reachable), dense.lookup_codes(reachable)
    for field in ("score", "pieces", "value", "plies"):
        assert np.array_equal(getattr(mine, field), getattr(theirs, field)), f"{name}: {field} differs"
    assert (np.asarray(mine.score) != 0).all(), f"{name}: armageddon has no draw"
    assert layout(game).size == len(np.asarray(compact.scores))
