"""Whether a game is over, and who won, is the rule's to say: the tables, the counts and the front ends ask it.

The build kernels (solver/retrograde/, solver/search/) keep fast copies of the rule (lines found on half-boards,
finished layers filled with the full board's score); here every board of small games under every scoring and
both move rules is checked against the rule itself: a finished board stores the score the rule gives it, a
board in play does not, and a look-up's outcome is the rule's outcome of the board. Outside the rules and the
kernels no module finds a line or decides a winner itself (read from the syntax trees).
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import solver
from solver.encoding.coderules import code_rules
from solver.encoding.layouts import layout
from solver.retrograde.sweep import build_layers
from solver.rules.base import IN_PLAY, INVALID, OUTCOMES, Outcome
from solver.rules.game import parse_game
from solver.rules.score import UNREACHABLE
from solver.tables.compact import CompactTable

GAMES = ["3x3k3", "3x3k3-misere", "3x3k3-armageddon", "2x5k2-armageddon", "3x4k3-gravity", "3x3k3-gravity-misere", "3x4k3-gravity-armageddon"]
"""Every scoring under both move rules, small enough to check every board."""

PACKAGE = Path(__file__).resolve().parent.parent / "solver"
KERNELS = ("rules", "retrograde", "search")
"""The rules, and the build and search kernels, which keep fast copies of the rule (checked against it here)."""
DECIDING = {"has_line", "completes_line", "win_table", "lines_in", "line_winner", "line_wins"}
"""What a module reads of the rule when it finds a line or decides a winner itself."""


def _compact(name: str, directory: Path) -> tuple[CompactTable, list[np.ndarray]]:
    game = parse_game(name)
    layers = build_layers(game, directory, jobs=1).layers()
    return CompactTable.from_layers(game, layers), layers


def _check_layer(name: str, ply: int, codes: np.ndarray, scores: np.ndarray) -> None:
    """The kernel's scores of a layer's boards agree with the rule's status and outcome of each board."""
    rules, coded = parse_game(name).rules, code_rules(parse_game(name))
    status = coded.statuses(codes)
    reached = scores != UNREACHABLE
    finished = reached & (status != IN_PLAY) & (status != INVALID)
    wanted = np.take(np.array(rules.status_scores, dtype=np.int16), status)
    assert np.array_equal(scores[finished], wanted[finished]), f"{name} layer {ply}: a finished board stores another score than the rule's"
    playing = reached & (status == IN_PLAY)
    assert not np.isin(scores[playing], list(rules.finished_scores(ply))).any(), f"{name} layer {ply}: a board in play stores a finished board's score"
    if rules.status_is_exact:
        assert (scores[status == INVALID] == UNREACHABLE).all(), f"{name} layer {ply}: a board the rule refuses is stored as reached"
    outcome = rules.outcomes_of_scores(scores[reached], ply)
    judged = [OUTCOMES.index(coded.outcome(code)) for code in codes[reached].tolist()]
    assert outcome.tolist() == judged, f"{name} layer {ply}: the outcome of a score is not the rule's outcome of the board"


@pytest.mark.parametrize("name", GAMES)
def test_the_layered_kernels_score_every_board_as_the_rule_judges_it(name: str, tmp_path: Path) -> None:
    _, layers = _compact(name, tmp_path)
    index = layout(parse_game(name))
    for ply, scores in enumerate(layers):
        codes = index.codes(index.layer_offsets[ply], index.layer_offsets[ply + 1])[0]
        _check_layer(name, ply, codes, np.asarray(scores).astype(np.int16))


@pytest.mark.parametrize("name", GAMES)
def test_the_dense_kernel_scores_every_board_as_the_rule_judges_it(name: str) -> None:
    game = parse_game(name)
    table = solver.build_table(game=game)
    codes = np.arange(game.codes, dtype=np.int64)
    found = table.lookup_codes(codes, check=False)
    pieces = np.asarray(found.pieces)
    for ply in range(game.cells + 1):
        here = codes[(pieces == ply) & (code_rules(game).statuses(codes) != INVALID)]
        _check_layer(name, ply, here, np.asarray(table.score)[here].astype(np.int16))


@pytest.mark.parametrize("name", ["3x3k3", "3x3k3-misere", "3x3k3-armageddon", "3x3k3-gravity-armageddon"])
def test_a_position_is_over_and_won_exactly_where_the_rule_says(name: str, tmp_path: Path) -> None:
    game = parse_game(name)
    dense, (compact, _) = solver.build_table(game=game), _compact(name, tmp_path)
    for table in (dense, compact):
        for code in dense.reachable_codes().tolist():
            position, outcome = table.at(code), code_rules(game).outcome(code)
            assert position.outcome is outcome, f"{name} {position.board}: {position.outcome}, the rule says {outcome}"
            assert position.is_over == (outcome is not Outcome.IN_PLAY)
            assert position.winner == {Outcome.X_WON: "X", Outcome.O_WON: "O"}.get(outcome)


def test_a_compact_armageddon_table_scores_the_move_that_fills_the_board_as_o_s_win(tmp_path: Path) -> None:
    table, _ = _compact("3x3k3-armageddon", tmp_path)
    position = table.lookup("XOX/XOO/OX.")  # X's last move fills the board without a line: O wins
    assert [(move.cell, move.result, move.plies) for move in position.moves] == [(8, "loss", 1)]
    assert position.best_move == (2, 2) and table.best_mask_of(position.code) == 1 << 8
    assert position.move(8).result == solver.lookup("XOX/XOO/OX.", game="3x3k3-armageddon").move(8).result


@pytest.mark.parametrize("name", ["3x3k3-armageddon", "3x4k3-gravity-armageddon", "3x3k3", "3x3k3-misere"])
def test_the_counts_of_finished_boards_name_the_winner_the_rule_names(name: str, tmp_path: Path) -> None:
    game = parse_game(name)
    dense = solver.build_table(game=game).stats()
    compact = _compact(name, tmp_path)[0].stats()
    assert dense["terminal"] == compact["terminal"], f"{name}: the dense and the compact table count finished boards differently"
    codes = solver.build_table(game=game).reachable_codes()
    judged = [code_rules(game).outcome(code) for code in codes.tolist()]
    expected = {key: judged.count(which) for key, which in (("x_wins", Outcome.X_WON), ("o_wins", Outcome.O_WON), ("draws", Outcome.DRAWN))}
    assert {key: dense["terminal"][key] for key in expected} == expected
    if game.rules.scoring.full_winner() == "O":
        assert dense["games"]["draws"] == 0, f"{name}: no game of armageddon is drawn"


def _deciding_reads() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        shown = str(path.relative_to(PACKAGE.parent))
        if path.relative_to(PACKAGE).parts[0] in KERNELS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in DECIDING:
                found.append(f"{shown}:{node.lineno} .{node.attr}")
    return found


def test_no_module_outside_the_rules_and_the_kernels_finds_a_line_or_decides_a_winner_itself() -> None:
    found = _deciding_reads()
    assert not found, f"ask the rule (rules.outcome, outcome_of_score, settled_moves, over_words) instead: {found}"
