"""The size gate of the developer guide: no function over 60 lines, anywhere in the package or scripts/.

The other gates are tools that ``.ci/run`` runs: mypy ``--strict`` over ``solver`` and ``scripts``,
ruff (cyclomatic complexity at most 12: C901, ``[tool.ruff.lint.mccabe]`` in pyproject.toml) and
``ruff format --check``. No ruff rule bounds a function's length, so this test does, over the package
and ``scripts/``, the build kernels (``solver/retrograde/``) included. A function's length is its lines
from ``def`` to its last line, docstring included, decorators not; a nested function or a method
counts on its own (and within the function that holds it).
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 60
CHECKED = ("solver", "scripts")


def sources() -> list[Path]:
    """Every Python file the gate covers: the package and scripts/."""
    return sorted(path for folder in CHECKED for path in (ROOT / folder).rglob("*.py"))


def function_lengths(source: str) -> Iterator[tuple[str, int, int]]:
    """``(qualified name, first line, lines)`` of every function and method in ``source``."""

    def visit(node: ast.AST, prefix: str) -> Iterator[tuple[str, int, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert child.end_lineno is not None
                yield prefix + child.name, child.lineno, child.end_lineno - child.lineno + 1
                yield from visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                yield from visit(child, f"{prefix}{child.name}.")
            else:
                yield from visit(child, prefix)

    yield from visit(ast.parse(source), "")


def test_no_function_is_over_60_lines() -> None:
    too_long = [
        f"{path.relative_to(ROOT)}:{line} {name}() is {lines} lines"
        for path in sources()
        for name, line, lines in function_lengths(path.read_text(encoding="utf-8"))
        if lines > MAX_LINES
    ]
    assert not too_long, f"functions over {MAX_LINES} lines (split them into named steps):\n" + "\n".join(too_long)


def test_the_gate_covers_the_package_and_scripts_the_build_kernels_included() -> None:
    covered = {path.relative_to(ROOT).as_posix() for path in sources()}
    assert {"solver/cli/lookup.py", "solver/web/protocol.py", "scripts/load_test.py", "scripts/bench.py"} <= covered
    kernels = {path.relative_to(ROOT).as_posix() for path in (ROOT / "solver" / "retrograde").glob("*.py")}
    assert {"solver/retrograde/kernel.py", "solver/retrograde/sweep.py", "solver/retrograde/dense.py"} <= kernels <= covered


def test_the_gate_measures_functions_methods_and_nested_functions_from_def_to_last_line() -> None:
    body = "\n".join(f"    x{index} = {index}" for index in range(59))
    source = (
        textwrap.dedent('''
        @decorator
        def short():
            """Docstring."""
            return 1

        class Holder:
            async def method(self):
                pass

        def outer():
            def inner():
        ''')
        + textwrap.indent(body, "    ")
        + "\n    return inner\n"
    )
    found = {name: (line, lines) for name, line, lines in function_lengths(source)}
    assert found["short"] == (3, 3)  # the decorator is not counted, the docstring is
    assert found["Holder.method"] == (8, 2)
    assert found["outer.inner"] == (12, 60)  # exactly at the limit: allowed
    assert found["outer"] == (11, 62)  # over it
    assert [name for name, (_, lines) in found.items() if lines > MAX_LINES] == ["outer"]


def fixtures_that_make_a_cli_runner(source: str) -> list[str]:
    """The names of the pytest fixtures in ``source`` whose body calls ``CliRunner(...)``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef):
            continue
        decorated = any("fixture" in ast.unparse(decorator) for decorator in node.decorator_list)
        calls = any(isinstance(call, ast.Call) and ast.unparse(call.func).endswith("CliRunner") for call in ast.walk(node))
        if decorated and calls:
            found.append(node.name)
    return found


def test_the_cli_runner_fixture_is_written_once_in_conftest() -> None:
    tests = ROOT / "tests"
    copies = {
        path.relative_to(ROOT).as_posix(): names
        for path in sorted(tests.glob("*.py"))
        if (names := fixtures_that_make_a_cli_runner(path.read_text(encoding="utf-8")))
    }
    assert copies == {"tests/conftest.py": ["runner"]}, f"a CLI test takes the ``runner`` fixture of tests/conftest.py: {copies}"


def private_names_imported(source: str) -> list[str]:
    """``module import _name`` for every private name ``source`` imports from another module."""
    return [
        f"{'.' * node.level}{node.module or ''} import {alias.name}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]


def test_no_module_of_the_package_imports_a_private_name_of_another() -> None:
    found = [
        f"{path.relative_to(ROOT)}: from {name}"
        for path in sorted((ROOT / "solver").rglob("*.py"))
        for name in private_names_imported(path.read_text(encoding="utf-8"))
    ]
    assert not found, "a name another module needs is public (no leading underscore), or moves to where it is used:\n" + "\n".join(found)


def test_the_private_import_check_sees_relative_and_absolute_imports() -> None:
    source = "from .scratch import _scratch, public\nfrom solver.x import _y\nfrom . import __version__\n"
    assert private_names_imported(source) == [".scratch import _scratch", "solver.x import _y"]


MAX_MODULE_LINES = 1_000
"""The most lines a module of ``solver/`` may have (issue 41): past it, a module holds more than one concern."""
GENERATED = ("solver/storage/checksums.py",)
"""Generated modules, exempt from the module gate: the shipped tables' checksums (``scripts/checksums.py`` writes them)."""


def modules_over(limit: int, root: Path) -> list[str]:
    """``path: N lines`` for every Python module under ``root`` longer than ``limit`` lines, the generated ones left out."""
    found = []
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root.parent).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit and name not in GENERATED:
            found.append(f"{name}: {lines:,} lines")
    return found


def test_no_module_of_the_package_is_over_1000_lines_but_the_generated_checksums() -> None:
    too_long = modules_over(MAX_MODULE_LINES, ROOT / "solver")
    assert not too_long, f"modules over {MAX_MODULE_LINES:,} lines (split each into modules named for what they hold):\n" + "\n".join(too_long)


def test_the_module_gate_counts_lines_and_spares_only_the_generated_checksums(tmp_path: Path) -> None:
    package = tmp_path / "solver"
    (package / "storage").mkdir(parents=True)
    (package / "big.py").write_text("x = 1\n" * 1_001)
    (package / "storage" / "checksums.py").write_text("x = 1\n" * 5_000)
    (package / "storage" / "small.py").write_text("x = 1\n" * 1_000)
    assert modules_over(MAX_MODULE_LINES, package) == ["solver/big.py: 1,001 lines"]
