"""The web tests' helper: a missing web extra skips a web test module (a collection error before), and fails it
when CI requires the web tests. Checked in a child pytest where ``starlette`` cannot be imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).parent
BLOCKER = """
import sys

class _Missing:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"starlette", "uvicorn", "httpx"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _Missing())
"""
MODULE = """
from web_support import need_web

need_web()


def test_never_runs():
    raise AssertionError("the module should have been skipped")
"""


def run_pytest(tmp_path: Path, require: bool) -> subprocess.CompletedProcess[str]:
    (tmp_path / "conftest.py").write_text(BLOCKER)
    (tmp_path / "test_needs_web.py").write_text(MODULE)
    (tmp_path / "test_plain.py").write_text("def test_runs():\n    pass\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    env.pop("SOLVED_TICTACTOE_REQUIRE_WEB", None)
    if require:
        env["SOLVED_TICTACTOE_REQUIRE_WEB"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "--rootdir", str(tmp_path), "-c", os.devnull, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
    )


def test_a_missing_web_extra_skips_the_module(tmp_path: Path) -> None:
    result = run_pytest(tmp_path, require=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed, 1 skipped" in result.stdout and "needs the web extra" in result.stdout, result.stdout
    assert "error" not in result.stdout.lower(), result.stdout


def test_a_missing_web_extra_fails_when_ci_requires_the_web_tests(tmp_path: Path) -> None:
    result = run_pytest(tmp_path, require=True)
    assert result.returncode != 0 and "SOLVED_TICTACTOE_REQUIRE_WEB=1" in result.stdout, result.stdout
