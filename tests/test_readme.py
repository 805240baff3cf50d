"""The README's examples are real: its Python runs, its console output is what `solve` prints."""

from __future__ import annotations

import doctest
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def console_examples() -> list[tuple[str, str]]:
    """Each ``$ solve ...`` line in a console block, with the output shown under it."""
    examples = []
    for block in re.findall(r"```console\n(.*?)```", README.read_text(), flags=re.S):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, output = chunk.partition("\n")
            examples.append((command, output))
    return examples


def test_readme_python_examples_run_as_shown(table_dir: Path) -> None:
    results = doctest.testfile(str(README), module_relative=False, globs={}, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert results.attempted >= 10
    assert results.failed == 0


@pytest.mark.parametrize(("command", "expected"), console_examples(), ids=lambda value: value.split("\n")[0][:40])
def test_readme_console_output_is_what_solve_prints(command: str, expected: str, table_dir: Path) -> None:
    args = shlex.split(command)
    assert args[0] == "solve"
    result = CliRunner().invoke(main, args[1:])
    assert result.exit_code == 0, result.output
    assert result.stdout == expected


def test_ci_installs_and_tests_exactly_as_the_readme_says() -> None:
    readme = README.read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    install = re.search(r"pip\"? install (\S+)", ci)
    test = re.search(r'"\$venv/bin/python" -m pytest(.*)', ci)
    assert install and test
    assert f".venv/bin/pip install {install[1]} && .venv/bin/python -m pytest{test[1]}" in readme
    assert "python3 -m venv" in ci
