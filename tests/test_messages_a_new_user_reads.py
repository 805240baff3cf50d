"""What a new user reads in their first hour (issue 31, points 5 and 7): shares that do not round a miss away,
``solver.grade(progress=False)``, ``str()`` of a game analysis, and ``solve fetch`` off a terminal."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner
from range_server import serving

import solver
from solver.cli import main
from solver.words import percent


def test_a_share_that_is_not_all_never_reads_100_percent_nor_one_above_none_0_percent():
    assert [percent(4519, 4520), percent(4520, 4520), percent(1, 4520), percent(0, 4520), percent(2651, 4520)] == [
        "99.98%",
        "100.0%",
        "0.02%",
        "0.0%",
        "58.7%",
    ]


def test_a_report_with_one_result_thrown_away_does_not_say_all_were_kept():
    """Before, 4,519 of 4,520 kept printed as ``kept (100.0%)``."""
    corner = [["X", None, None], [None, None, None], [None, None, None]]

    def almost_perfect(board):
        return (0, 1) if board == corner else solver.best_move(board)  # O must take the centre there

    report = solver.grade(almost_perfect, side="O")
    assert report.kept == report.positions - 1
    kept = next(line for line in str(report).splitlines() if line.startswith("kept the result"))
    assert kept.endswith("(99.95%)") and "100.0%" not in kept, kept
    assert "kept (99.95%)" in repr(report)


def test_solver_grade_takes_progress_false_and_says_what_progress_takes():
    report = solver.grade(solver.best_move, side="O", progress=False, sample=20)
    assert report.positions == 20
    with pytest.raises(TypeError, match=r"progress takes a function, called with 0 once the player is loaded .* not True"):
        solver.grade(solver.best_move, side="O", progress=True, sample=20)


def test_str_of_a_game_analysis_is_the_table_solve_analyze_prints_and_repr_stays_one_line():
    analysis = solver.analyze([4, 0, 8])
    printed = CliRunner().invoke(main, ["analyze", "4", "0", "8"])
    assert printed.exit_code == 0, printed.output
    assert str(analysis) + "\n" == printed.stdout
    assert str(analysis).splitlines()[0].split() == ["ply", "player", "move", "best", "moves", "before", "after", "verdict"]
    assert repr(analysis).startswith("<GameAnalysis 3x3k3 [4, 0, 8]") and "\n" not in repr(analysis)


def test_solve_fetch_off_a_terminal_prints_its_result_only(table_dir: Path, tmp_path: Path):
    """docs/mirrors.md: off a terminal, only the last line (before, click printed 'fetching ...' and 'checking ...' labels)."""
    path = solver.build_table(game=solver.rules.game.parse_game("3x4k3")).save(tmp_path / "3x4k3.ttt")
    with serving({"3x4k3.ttt": path.read_bytes()}) as server:
        result = CliRunner().invoke(main, ["fetch", "--game", "3x4k3", "--from", server.url, "--table-dir", str(table_dir)])
    assert result.exit_code == 0, result.output
    assert result.stderr == "", result.stderr
    assert result.stdout.startswith(f"Installed {table_dir / '3x4k3.ttt'} (") and result.stdout.count("\n") == 1


def test_off_a_terminal_a_long_download_prints_a_line_a_minute(capsys):
    now = [0.0]
    lines = solver.cli.progress._MinuteLines("fetching 4x5k4", 1000, clock=lambda: now[0])
    lines(100)
    assert capsys.readouterr().err == ""
    now[0] += 60
    lines(150)
    assert capsys.readouterr().err == "fetching 4x5k4: 25.0% done, about 3 min left\n"


# -- functions that take a course's object: the hint names the adapter, and the adapter grades ----------------------------
PLAYERS = Path(__file__).parent / "players"


@pytest.mark.parametrize(
    "function, attribute, adapter, options, support",
    [
        (
            "seed003_adapter.py:MinimaxPlayer.move",
            "board",
            "seed 003's MinimaxPlayer.move(self, game, state)",
            ["--numpy", "--turn", "symbol"],
            ["tictactoe.py"],
        ),
        ("seed001_adapter.py:iterative_minimax", "next_player", "seed 001's iterative_minimax(state)", ["--symbols", "x,o,-", "--turn", "symbol"], []),
    ],
)
def test_a_function_that_takes_a_state_object_gets_the_adapter_that_fits_and_the_adapter_grades(function, attribute, adapter, options, support):
    """Seed 003's player class and seed 001's State function (their code kept in tests/players/): before, the hint was
    --turn, which led to 4,520 AttributeErrors and no further hint (seed 001 got no hint at all)."""
    supported = [option for name in support for option in ("--support", str(PLAYERS / name))]  # the course's module it imports
    result = CliRunner().invoke(main, ["grade", str(PLAYERS / function), *supported, "--sample", "20", "-q"])
    assert result.exit_code == 2, result.output
    line = result.stderr.strip()
    assert line.count("\n") == 0 and line.startswith("solve: error: on the first 20 positions graded, "), line
    assert f"reads .{attribute} of what it is given, so it takes an object of its course" in line, line
    assert f"as docs/grading.md (Functions of other shapes) does for {adapter}" in line, line
    command = line.rpartition("then grade that function: ")[2]
    assert shlex.split(command) == ["solve", "grade", "FILE.py:move", *options], command
    adapted = str(PLAYERS / function.partition(":")[0]) + ":move"
    graded = CliRunner().invoke(main, ["grade", adapted, *options, *supported, "--sample", "20", "-q"])
    assert graded.exit_code == 0, graded.output  # graded: its verdicts are its own (seed 003's minimax misses wins)
    assert "positions tried       20\n" in graded.stdout and "raised an exception    0\nillegal answers        0\n" in graded.stdout, graded.stdout


# -- time-outs on the first plies say which --timeout would do --------------------------------------------------------------
def _timed_out(board: str) -> solver.PlayerFailure:
    return solver.PlayerFailure(solver.lookup(board), "timeout", "timed out: no answer within 30 s", "")


def test_the_timeout_hint_extrapolates_a_plain_minimaxs_time_to_the_emptier_boards():
    from solver.grading.grader import timeout_hint

    game = solver.rules.game.parse_game("3x3k3")
    line = timeout_hint("minimax", game, [_timed_out("..." * 3)], {7: 0.5, 5: 0.01}, 30.0)
    assert line is not None and "minimax timed out on 1 call (--timeout 30 s), on a board with 9 empty cells, the first plies" in line
    assert line.endswith("grade it with --timeout 60 (about 36 s a call there), or memoise it"), line  # 0.5 s x 8 x 9
    assert timeout_hint("minimax", game, [_timed_out("X.O/.X./...")], {7: 0.5}, 30.0) is None, "a time-out where fuller boards finished"
    assert timeout_hint("minimax", game, [], {7: 0.5}, 30.0) is None


def test_a_player_that_times_out_on_the_first_plies_is_told_which_timeout_would_do():
    """Before, the report of a plain minimax timed out on the empty board said nothing about --timeout."""
    result = CliRunner().invoke(main, ["grade", str(PLAYERS / "slow_early.py:first_empty_slowly"), "--side", "X", "--timeout", "0.5", "--limit", "1", "-q"])
    assert result.exit_code == 0, result.output
    assert "timed out                 1\n" in result.stdout, result.stdout
    hint = next((line for line in result.stdout.splitlines() if line.startswith("hint: first_empty_slowly timed out on 1 call")), None)
    assert hint is not None and "on a board with 9 empty cells, the first plies" in hint, result.stdout
    assert float(re.search(r"grade it with --timeout (\d+) ", hint).group(1)) > 0.5, hint
