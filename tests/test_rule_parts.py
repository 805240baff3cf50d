"""A rule is composed of parts, and the code outside the rules asks the rule: it never tests a flag or a rule's name.

Read from the package's source (its syntax trees), so a new ``if game.rules.drops:``,
``game.variant.startswith("gravity")``, ``rules.move.form == "column"``, a read of ``status_is_exact`` or
``forward_pass``, or a game's name used as a key (``{"6x7k4-gravity": 5}``, ``(rows, cols, k) == (6, 7, 4)``)
anywhere outside ``solver/rules/`` fails here: the consumer asks the part a question named for what it needs
(``move.writes_columns``, ``move.written``, ``rules.table_marks_unreached``, ``game.build_walks_forward``) or keys
by the game (``solver.rules.game.CONNECT_FOUR``); and every combination of a grid, a move rule and a scoring is one
and the same class, built from the catalogue.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from solver.encoding.coderules import code_rules
from solver.rules.base import Rules
from solver.rules.catalog import GRIDS, MOVE_RULES, RULES, SCORINGS
from solver.rules.game import parse_game

PACKAGE = Path(__file__).resolve().parent.parent / "solver"
FLAGS = {"drops", "gravity", "misere", "is_gravity", "is_misere"}
"""Attribute names a rule's flag would have."""
RULE_INTERNALS = {"status_is_exact", "forward_pass"}
"""The rule's own constants, which its parts answer questions from: read nowhere else."""
GAME_NAME = re.compile(r"[0-9]+x[0-9]+(k[0-9]+)?(-[a-z-]+)?|connect-?four|connect4")
"""A game's name, as a string a key could be spelled with."""
DATA = {"solver/storage/checksums.py"}
"""Generated data keyed by table file names (not code that asks which game it has)."""


def _outside_the_rules() -> list[tuple[str, ast.AST]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] == "rules" or str(path.relative_to(PACKAGE.parent)) in DATA:
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
        lines += _form_reads(node) + _internal_reads(node) + _name_keys(node)
    return sorted(set(lines))


def _form_reads(node: ast.AST) -> list[int]:
    """A move rule's form read (``rules.move.form``, ``game.move_rule.form``) or any ``.form`` compared with a form."""
    if isinstance(node, ast.Attribute) and node.attr == "form" and isinstance(node.value, ast.Attribute) and node.value.attr in ("move", "move_rule"):
        return [node.lineno]
    if isinstance(node, ast.Compare):
        sides = [node.left, *node.comparators]
        forms = any(isinstance(side, ast.Constant) and side.value in ("column", "cell") for side in sides)
        if forms and any(isinstance(side, ast.Attribute) and side.attr == "form" for side in sides):
            return [node.lineno]
    return []


def _internal_reads(node: ast.AST) -> list[int]:
    """A read of the rule's own constants (:data:`RULE_INTERNALS`)."""
    return [node.lineno] if isinstance(node, ast.Attribute) and node.attr in RULE_INTERNALS else []


def _is_name_key(node: ast.AST | None) -> bool:
    """A game's name as a string, or a collection holding one (``("4x4k4-gravity", ...)``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return GAME_NAME.fullmatch(node.value) is not None
    return isinstance(node, (ast.Tuple, ast.List, ast.Set)) and any(_is_name_key(e) for e in node.elts)


def _is_shape(node: ast.AST | None) -> bool:
    """A game's shape spelled as numbers (``(6, 7, 4)``) or read from a game (``(game.rows, game.cols, game.k)``)."""
    if not isinstance(node, ast.Tuple) or len(node.elts) != 3:
        return False
    numbers = all(isinstance(e, ast.Constant) and type(e.value) is int for e in node.elts)
    return numbers or all(isinstance(e, ast.Attribute) and e.attr in ("rows", "cols", "k") for e in node.elts)


def _name_keys(node: ast.AST) -> list[int]:
    """A game's name used as a key: a dict's key, a subscript, or a side of a comparison (``==``, ``in``); or a shape
    compared with a shape (``(game.rows, game.cols, game.k) == (6, 7, 4)``)."""
    if isinstance(node, ast.Dict) and any(_is_name_key(key) for key in node.keys):
        return [node.lineno]
    if isinstance(node, ast.Subscript) and _is_name_key(node.slice):
        return [node.lineno]
    if isinstance(node, ast.Compare):
        sides = [node.left, *node.comparators]
        if any(_is_name_key(side) for side in sides) or sum(map(_is_shape, sides)) >= 2:
            return [node.lineno]
    return []


def test_no_module_outside_the_rules_tests_a_rule_flag_or_a_rule_name() -> None:
    found = [f"{path}:{line}" for path, tree in _outside_the_rules() for line in _flag_reads(tree)]
    assert not found, f"ask the rule (game.rules.move, game.rules.scoring) instead of testing a flag or a name: {found}"


def test_the_check_finds_a_flag_read_and_a_name_test() -> None:
    tree = ast.parse("if game.rules.drops:\n    pass\nif game.variant.startswith('gravity'):\n    pass\nok = game.rules.move.writes_columns\n")
    assert _flag_reads(tree) == [1, 3]


@pytest.mark.parametrize(
    "source",
    [
        "drops = rules.move.form == 'column'",
        "if table.form != 'cell':\n    pass",
        "form = game.move_rule.form",
        "exact = game.rules.status_is_exact",
        "twice = game.rules.move.forward_pass",
        "DEPTH = {'6x7k4-gravity': 5}",
        "depth = DEPTH['connect4']",
        "big = (game.rows, game.cols, game.k) == (6, 7, 4)",
        "known = game.name in ('4x4k4-gravity', '5x4k4-gravity')",
    ],
)
def test_the_check_finds_a_form_comparison_a_rule_internal_and_a_game_name_key(source: str) -> None:
    assert _flag_reads(ast.parse(source)) == [1], source


def test_the_check_lets_a_question_to_the_part_and_a_name_in_words_pass() -> None:
    source = (
        "if game.rules.move.writes_columns:\n    say(f'e.g. {name}', '6x7k4-gravity')\nform = self.form\nwhere = rules.move.written(cell)\n"
        "ok = array.shape != (6, 7, 2)\n"
    )
    assert _flag_reads(ast.parse(source)) == []


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


@pytest.mark.parametrize(
    ("name", "columns", "written", "words", "order"),
    [
        ("3x3k3", False, (1, 2), "1,2", [2, 5, 7]),
        ("3x3k3-gravity", True, 2, "column 2", [7, 2, 5]),
    ],
)
def test_a_move_rule_writes_names_and_orders_its_moves_itself(name: str, columns: bool, written: object, words: str, order: list[int]) -> None:
    move = parse_game(name).rules.move
    assert move.writes_columns is columns
    assert move.written(5) == written and move.move_words(5) == words
    assert move.in_move_order([2, 5, 7]) == order  # cell order, or column order (7 is in column 1, 2 and 5 in column 2)


def test_the_rule_says_whether_its_table_marks_unreached_boards_and_its_build_walks_forward() -> None:
    placed, dropped = parse_game("3x3k3"), parse_game("3x3k3-gravity")
    assert not placed.rules.table_marks_unreached and not placed.build_walks_forward
    assert dropped.rules.table_marks_unreached and dropped.build_walks_forward
    assert parse_game("connect4").build_walks_forward  # past 32 cells too: the move rule's type answers


def test_what_is_known_of_connect_four_is_keyed_by_the_game_whatever_its_name() -> None:
    from solver.rules.game import CONNECT_FOUR
    from solver.storage.checksums import EXPECTED_BOOK_ROOTS
    from solver.store.book import SMALL_DEPTH, default_depth
    from solver.store.estimate import KNOWN_POSITIONS

    shipped_depth = EXPECTED_BOOK_ROOTS[CONNECT_FOUR.name][0]
    assert shipped_depth != SMALL_DEPTH
    for name in ("connect4", "6x7k4-gravity", "Connect-Four"):
        assert parse_game(name) == CONNECT_FOUR and default_depth(parse_game(name)) == shipped_depth
    assert KNOWN_POSITIONS[parse_game("connect4")] == 4_531_985_219_092 and parse_game("6x7k4-gravity-misere") not in KNOWN_POSITIONS
