"""The layers hold where the import contracts say (pyproject.toml, ``lint-imports`` in CI), read here from the package's
own import graph (grimp, import-linter's) and syntax trees, so that a plain test run shows a leak too:

- the rules read board words and take no base-3 code (codes become words in ``solver.encoding.coderules``);
- storage is bytes: it imports no rule, no encoding and no table contents (a table file's header states its game as
  numbers and a name; ``solver.contents.opening`` makes the game and gives the sizes its table has);
- the front ends (the CLI, the web app, interop) import nothing of the store or of the table files: they go through
  ``solver.api``, and import nothing of any layer below it (only ``solver.api`` and the base modules).
"""

from __future__ import annotations

import ast
from pathlib import Path

import grimp
import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "solver"
FRONT_ENDS = ("solver.cli", "solver.web", "solver.interop")


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("solver", include_external_packages=False)


def _imports_into(graph: grimp.ImportGraph, sources: tuple[str, ...], targets: tuple[str, ...]) -> set[tuple[str, str]]:
    """Every direct import from a module of ``sources`` (a package and its modules) into one of ``targets``."""
    found = set()
    for source in sources:
        for importer in {source} | graph.find_descendants(source):
            for imported in graph.find_modules_directly_imported_by(importer):
                if any(imported == target or imported.startswith(target + ".") for target in targets):
                    found.add((importer, imported))
    return found


def test_the_front_ends_import_nothing_of_the_store_or_the_table_files(graph: grimp.ImportGraph) -> None:
    leaks = _imports_into(graph, FRONT_ENDS, ("solver.store", "solver.storage"))
    assert not leaks, f"a front end reaches the store or a table file without the API (import it from solver.api): {sorted(leaks)}"


BELOW_THE_API = (
    "solver.grading",
    "solver.present",
    "solver.store",
    "solver.tables",
    "solver.retrograde",
    "solver.search",
    "solver.contents",
    "solver.storage",
    "solver.encoding",
    "solver.rules",
)
"""Every layer between the API and the base modules (pyproject.toml's layers contract)."""


def test_the_front_ends_import_the_api_and_the_base_modules_only(graph: grimp.ImportGraph) -> None:
    leaks = _imports_into(graph, FRONT_ENDS, BELOW_THE_API)
    assert not leaks, f"a front end reaches below the API (re-export what it needs from solver.api): {sorted(leaks)}"


def test_the_layers_below_the_api_are_every_package_of_solver_but_the_front_ends_and_the_base() -> None:
    """A new package of solver/ is placed: below the API (and then kept from the front ends) or named here."""
    packages = {f"solver.{path.name}" for path in PACKAGE.iterdir() if (path / "__init__.py").is_file()}
    assert packages - {"solver.cli", "solver.web"} == set(BELOW_THE_API)


def test_storage_imports_no_rule_no_encoding_and_no_table_contents(graph: grimp.ImportGraph) -> None:
    leaks = _imports_into(graph, ("solver.storage",), ("solver.rules", "solver.encoding", "solver.contents"))
    assert not leaks, f"storage is bytes: pass what it needs from above instead of {sorted(leaks)}"


def test_the_rules_import_nothing_of_the_encoding(graph: grimp.ImportGraph) -> None:
    assert not _imports_into(graph, ("solver.rules",), ("solver.encoding",))


def test_the_rules_take_no_code_only_board_words() -> None:
    """No function of solver/rules/ takes a base-3 code or its digit fields: the rules read words, the encoding reads codes."""
    found = []
    for path in sorted((PACKAGE / "rules").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                names = {a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
                if names & {"code", "codes", "patterns", "moduli"}:
                    found.append(f"solver/rules/{path.name}:{node.lineno} {node.name}")
    assert not found, f"the rules take codes here (move the reading of codes to solver.encoding.coderules): {found}"


def test_a_code_asked_of_the_encoding_is_the_word_asked_of_the_rules() -> None:
    """``code_rules(game)`` is the rule on the code's board word, on every code of a small game and a gravity game."""
    import numpy as np

    from solver.encoding.board import masks
    from solver.encoding.coderules import code_rules
    from solver.rules.game import parse_game

    for name in ("3x3k3", "3x3k3-gravity", "2x4k3-misere"):
        game = parse_game(name)
        coded, rules = code_rules(game), game.rules
        codes = np.arange(game.codes)
        words = coded.words(codes)
        status, pieces = coded.classify(codes)
        for code in range(game.codes):
            word = rules.join(*masks(game, code))
            assert coded.word_of(code) == word == words[code], (name, code)
            assert coded.judge(code) == rules.judge_word(word), (name, code)
            if status[code] != 3:  # illegal piece counts: INVALID with 0 pieces in a batch
                assert (status[code], pieces[code]) == rules.judge_word(word), (name, code)
            assert coded.violation(code) == rules.violation_of_word(word), (name, code)


def test_each_command_of_solve_is_a_module_of_solver_cli_named_after_it() -> None:
    """``solve verify`` is ``solver/cli/verify.py``: a reader finds a command's code from its name (issue 41)."""
    from solver.cli import main

    assert main.commands, "solve has no command"
    found = {name: command.callback.__module__ for name, command in main.commands.items() if command.callback is not None}
    assert found == {name: f"solver.cli.{name}" for name in main.commands}, found
