"""``solve verify`` (the proof and ``--sample``) and ``solve grade`` start with a line on stderr saying what they do
and how long they should take, then, off a terminal, a line a minute (issue 31, point 2); ``-q`` silences both."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import solver.cli.progress
from solver.api import parse_game
from solver.cli import main
from solver.store.estimate import format_duration, proof_seconds, sample_seconds

SHIPPED = Path(__file__).resolve().parent.parent / "data" / "3x3k3.ttt"
PLAYER = "def move(board):\n    return next((r, c) for r in range(3) for c in range(3) if board[r][c] is None)\n"


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def compact(tmp_path: Path) -> Path:
    """A small compact table (1x17k3), built here."""
    path = tmp_path / "1x17k3.ttt"
    code, _, err = invoke("build", "-q", "--game", "1x17k3", "--output", str(path))
    assert code == 0, err
    return path


def test_verify_says_what_it_proves_and_how_long_it_should_take_on_stderr_first(compact: Path) -> None:
    code, out, err = invoke("verify", "--table", str(compact))
    assert code == 0, err
    seconds = proof_seconds(parse_game("1x17k3"), "compact")
    assert err.splitlines()[0] == f"Proving {compact} (1x17k3): every block and every score; about {format_duration(seconds)} on 1 core"
    assert out.splitlines()[-1].startswith(f"{compact}: OK (1x17k3, sha256 "), "stdout keeps the checks and the verdict only"


def test_verify_of_a_dense_table_says_so_too(tmp_path: Path) -> None:
    code, _, err = invoke("verify", "--table", str(SHIPPED))
    assert code == 0, err
    assert err.splitlines()[0].startswith(f"Proving {SHIPPED} (3x3k3): every block and every score; about ")


def test_verify_off_a_terminal_prints_the_share_proved_each_interval(compact: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solver.cli.progress, "PROGRESS_LINE_SECONDS", 0.0)  # a line at every chunk proved
    code, _, err = invoke("verify", "--table", str(compact))
    assert code == 0, err
    lines = [line for line in err.splitlines() if line.startswith("proving 1x17k3: ")]
    assert lines, err
    assert all(re.fullmatch(r"proving 1x17k3: [\d.]+% done, about .+ left", line) for line in lines), lines
    assert lines[-1].startswith("proving 1x17k3: 100.0% done"), "the boards counted are the proof's boards, all of them"


def test_verify_prints_no_progress_line_within_the_interval(compact: Path) -> None:
    code, _, err = invoke("verify", "--table", str(compact))
    assert code == 0, err
    assert not [line for line in err.splitlines() if line.startswith("proving ")], err


def test_verify_sample_says_what_it_checks_and_how_long_it_should_take(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solver.cli.progress, "PROGRESS_LINE_SECONDS", 0.0)
    code, out, err = invoke("verify", "--table", str(SHIPPED), "--sample", "50", "--reference", "20")
    assert code == 0, err
    seconds = sample_seconds(parse_game("3x3k3"), boards=50, reference=20, max_empty=10)
    assert err.splitlines()[0] == (
        f"Checking a sample of {SHIPPED} (3x3k3): up to 50 boards in each of its 10 layers, 20 of them in each layer "
        f"with at most 10 empty cells also by the reference minimax; about {format_duration(seconds)}"
    )
    layers = [line for line in err.splitlines() if line.startswith("sampling 3x3k3: ")]
    assert len(layers) == 10 and layers[-1].startswith("sampling 3x3k3: 100.0% done"), err
    assert out.splitlines()[0].startswith("layer  9: "), "stdout keeps the layers and the verdict only"


def test_quiet_verify_prints_neither_the_opening_line_nor_progress(compact: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solver.cli.progress, "PROGRESS_LINE_SECONDS", 0.0)
    for extra in ([], ["--sample", "20"]):
        code, out, err = invoke("verify", "-q", "--table", str(compact), *extra)
        assert code == 0 and err == "", err
        assert "OK" in out


def test_the_sample_estimate_grows_with_the_boards_and_the_reference_minimax() -> None:
    game = parse_game("3x6k3")
    small = sample_seconds(game, boards=1_000, reference=0, max_empty=10)
    assert sample_seconds(game, boards=10_000, reference=0, max_empty=10) > small
    assert sample_seconds(game, boards=1_000, reference=200, max_empty=10) > 10 * small, "the minimax is the larger part"


def test_grade_says_how_many_positions_and_the_bound_the_time_limit_gives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    player = tmp_path / "first.py"
    player.write_text(PLAYER)
    monkeypatch.setattr(solver.cli.progress, "PROGRESS_LINE_SECONDS", 0.0)
    code, out, err = invoke("grade", f"{player}:move", "--sample", "12", "--timeout", "2", "--sandbox", "none")
    assert code == 0, err
    head, _, bound = err.splitlines()[0].partition("; ")
    assert re.fullmatch(rf"Grading move in {re.escape(str(player))} on 12 positions of 3x3k3: about \d+ s expected \(the first call took \d+ ms\)", head), err
    assert bound == "at most 2 s a call, so at most 24 s", "the expected time first, then the bound the time limit gives"
    lines = [line for line in err.splitlines() if line.startswith("grading move: ")]
    assert lines and lines[-1].startswith("grading move: 100.0% done"), err
    assert "Grading" not in out


def test_grade_says_the_expected_time_measured_on_the_first_call_before_the_bound(tmp_path: Path) -> None:
    """A player taking 0.3 s a call on 12 positions: about 4 s expected, said before the bound of 30 s a call (6 min)."""
    player = tmp_path / "slow.py"
    player.write_text("import time\n\n" + PLAYER.replace("def move(board):", "def move(board):\n    time.sleep(0.3)"))
    code, _, err = invoke("grade", f"{player}:move", "--sample", "12", "--sandbox", "none")
    assert code == 0, err
    expected = r"Grading move in .* of 3x3k3: about (\d+) s expected \(the first call took (\d+) ms\); at most 30 s a call, so at most 6 min"
    found = re.fullmatch(expected, err.splitlines()[0])
    assert found, err
    assert 300 <= int(found[2]) < 3000 and 3 <= int(found[1]) < 40, err


def test_grade_names_the_total_timeout_when_it_comes_first(tmp_path: Path) -> None:
    player = tmp_path / "first.py"
    player.write_text(PLAYER)
    code, _, err = invoke("grade", f"{player}:move", "--sample", "12", "--timeout", "30", "--total-timeout", "60", "--sandbox", "none")
    assert code == 0, err
    assert err.splitlines()[0].endswith("; at most 30 s a call, so at most 6 min; --total-timeout stops it at 60 s"), err
    code, _, err = invoke("grade", "-q", f"{player}:move", "--sample", "12", "--sandbox", "none")
    assert code == 0 and "Grading" not in err, err
