"""A rule is composed of parts, and the code outside the rules asks the rule: it never tests a flag or a rule's name.

Read from the package's source (its syntax trees), so a new ``if game.rules.drops:`` or
``game.variant.startswith("gravity")`` anywhere outside ``solver/rules/`` fails here; and every
combination of a move rule and a scoring is one and the same class, built from the catalogue.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from solver.encoding.coderules import code_rules
from solver.rules.base import Rules
from solver.rules.catalog import GRIDS, MOVE_RULES, RULES, SCORINGS
from solver.rules.game import parse_game

PACKAGE = Path(__file__).resolve().parent.parent / "solver"
FLAGS = {"drops", "gravity", "misere", "is_gravity", "is_misere"}
"""Attribute names a rule's flag would have."""


def _outside_the_rules() -> list[tuple[str, ast.AST]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] == "rules":
            continue
        found.append((str(path.relative_to(PACKAGE.parent)), ast.parse(path.read_text(encoding="utf-8"))))
    return found


def _flag_reads(tree: ast.AST) -> list[int]:
    """Lines reading a rule flag (``x.rules.drops``) or testing a rule's name (``game.variant == ...``, ``.startswith``)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in FLAGS and isinstance(node.value, ast.Attribute) and node.value.attr == "rules":
            lines.append(node.lineno)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("startswith", "endswith"):
            target = node.func.value
            if isinstance(target, ast.Attribute) and target.attr in ("variant", "suffix"):
                lines.append(node.lineno)
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(isinstance(side, ast.Attribute) and side.attr in ("variant", "suffix") for side in sides):
                lines.append(node.lineno)
    return lines


def test_no_module_outside_the_rules_tests_a_rule_flag_or_a_rule_name() -> None:
    found = [f"{path}:{line}" for path, tree in _outside_the_rules() for line in _flag_reads(tree)]
    assert not found, f"ask the rule (game.rules.move, game.rules.scoring) instead of testing a flag or a name: {found}"


def test_the_check_finds_a_flag_read_and_a_name_test() -> None:
    tree = ast.parse("if game.rules.drops:\n    pass\nif game.variant.startswith('gravity'):\n    pass\nok = game.rules.move.form\n")
    assert _flag_reads(tree) == [1, 3]


@pytest.mark.parametrize("suffix", sorted(RULES))
def test_every_combination_of_a_grid_a_move_rule_and_a_scoring_is_the_one_composed_class(suffix: str) -> None:
    game = parse_game(f"3x4k3-{suffix}" if suffix else "3x4k3")
    grid, move, scoring = RULES[suffix]
    rules = game.rules
    assert type(rules) is Rules and type(rules.grid) is grid and type(rules.move) is move and type(rules.scoring) is scoring
    assert rules.suffix == suffix and game.name.endswith(suffix) and game.parts == RULES[suffix]


def test_the_catalogue_composes_every_grid_with_every_move_rule_and_every_scoring() -> None:
    assert len(RULES) == len(GRIDS) * len(MOVE_RULES) * len(SCORINGS)
    every = {(grid, move, scoring) for grid in GRIDS.values() for move in MOVE_RULES.values() for scoring in SCORINGS.values()}
    assert set(RULES.values()) == every


def test_a_move_rule_answers_legality_and_the_rule_names_the_reason() -> None:
    gravity = code_rules(parse_game("3x3k3-gravity"))
    assert gravity.is_legal(0, 6) and not gravity.is_legal(0, 0)
    assert gravity.illegal_move(0, 0) == "(0,0) is not playable: a piece dropped in column 0 lands on (2,0)"
    normal = code_rules(parse_game("3x3"))
    assert normal.is_legal(0, 0) and normal.illegal_move(1, 0) == "the cell is taken"
    assert normal.illegal_move(1 + 2 * 3 + 4 * 9 + 2 * 27 + 81, 5) is None
