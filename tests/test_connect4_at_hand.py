"""Connect Four at hand (issue 39 points 3, 4 and 7; issue 42 point 12): no traceback from the search's progress on a
terminal, a budget that is a finite number of seconds, analysis and play from any position, batches of boards.

The terminal runs start ``solve`` on a pseudo-terminal (the standard library's :mod:`pty`), as a user types it.
Nothing is timed: a position is chosen whose search passes the half second after which the progress shows.
"""

from __future__ import annotations

import json
import os
import pty
import random
import select
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import solver
from solver.cli import main
from solver.rules.game import parse_game
from solver.store.searched import SearchSource
from solver.store.tablebase import Tablebase
from solver.tables.analysis import Replayed

CHECKOUT = Path(__file__).resolve().parents[1]
SLOW = "4377113336"
"""A position of ten pieces, past the shipped book (depth 9), whose search takes seconds (a win on ply 41; 2.8 s of CPU
on one core with every move valued, measured here): past the half second after which its progress shows, and past a
budget of 0.8 s."""


def on_a_terminal(*args: str, timeout: float = 300) -> tuple[int, str]:
    """``solve ARGS`` run with stdin, stdout and stderr on one pseudo-terminal: its exit status and all it wrote."""
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(CHECKOUT), "COLUMNS": "100"}
    command = [sys.executable, "-c", "from solver.cli import main; main()", *args]
    process = subprocess.Popen(command, stdin=follower, stdout=follower, stderr=follower, env=env, close_fds=True)
    os.close(follower)
    written, deadline = b"", time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.2)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the follower closed: the process ended
                break
            if not chunk:
                break
            written += chunk
        status = process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if process.poll() is None:
            process.kill()
        os.close(leader)
    return status, written.decode("utf-8", "replace")


def test_a_search_past_half_a_second_on_a_terminal_with_no_budget_shows_its_progress_and_answers_with_no_traceback() -> None:
    status, written = on_a_terminal("lookup", "--game", "connect4", "--moves", SLOW)
    assert status == 0, written
    assert "Traceback" not in written and "Error" not in written, written
    assert "searching 6x7k4-gravity: " in written and " positions" in written  # the progress showed, then the answer
    assert "Best moves (columns)" in written
    assert "ETA" not in written and "left" not in written  # no time to the answer is guessed
    visible = [line.rstrip("\r").rsplit("\r", 1)[-1] for line in written.split("\n")]  # what a terminal shows of each line
    assert not [line for line in visible if "searching" in line], visible  # the status line is erased before the answer


def test_a_search_on_a_terminal_with_a_budget_says_the_budget_and_ends_in_one_line_with_no_traceback() -> None:
    status, written = on_a_terminal("lookup", "--game", "connect4", "--moves", SLOW, "--budget", "0.8")
    assert status == 1, written
    assert "Traceback" not in written, written
    assert "of the --budget 0.8 s" in written
    errors = [line for line in written.replace("\r", "\n").splitlines() if line.startswith("solve: error:")]
    assert len(errors) == 1 and "stopped at its budget of 0.8 s" in errors[0], written


def test_a_quiet_search_on_a_terminal_writes_no_progress_and_no_stray_escape_after_it() -> None:
    status, written = on_a_terminal("lookup", "-q", "--game", "connect4", "--moves", SLOW, "--budget", "0.8")
    assert status == 1, written
    assert "searching" not in written
    assert "\x1b" not in written, repr(written)  # numba's colorama wrote ESC[0m at exit after every search
    assert written.endswith("for no limit\r\n"), repr(written[-200:])


def test_off_a_terminal_a_search_writes_no_progress_line_only_its_answer_or_its_error() -> None:
    result = CliRunner().invoke(main, ["lookup", "--game", "connect4", "--moves", SLOW, "--budget", "0.8"])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [result.stderr.strip()] and result.stderr.startswith("solve: error: the search of")


@pytest.mark.parametrize("budget", ["nan", "inf", "-inf", "1e309", "0", "-1", "five"])
def test_a_budget_that_is_not_a_finite_number_of_seconds_above_0_is_refused_at_once_naming_the_value(budget: str) -> None:
    for command in (["lookup", "--moves", "4453"], ["analyze", "4453"], ["play"]):
        result = CliRunner().invoke(main, [*command, "--game", "connect4", "--budget", budget], input="")
        assert result.exit_code == 2, (command, budget, result.output)
        assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
        assert f"Invalid value for '--budget': '{budget}' is not a number of seconds" in result.stderr, result.stderr


# -- analysis and play from any position -------------------------------------------------------------------------
CONNECT4 = parse_game("connect4")


@pytest.fixture(scope="module")
def bookless() -> Tablebase:
    """A Tablebase whose Connect Four engine has no book (whatever book the package ships): the opening then takes
    minutes, so a small budget cannot answer it, and the late plies' searches take milliseconds."""
    return Tablebase(sources=[SearchSource(books=lambda game: None)], search=False)


def a_game(plies: int, seed: int = 7) -> str:
    """A move string (columns from 1) of ``plies`` random legal moves that ends no game, replayed by the rules only."""
    rng = random.Random(seed)
    while True:
        board, moves = Replayed(CONNECT4, 0, 0), ""
        while len(moves) < plies and not board.is_over:
            column = rng.choice([col for col in range(7) if board.code // 3**col % 3 == 0])  # the top row's cell is empty
            board, moves = board.play(board.cell_of(column)), moves + str(column + 1)
        if len(moves) == plies and not board.is_over:
            return moves


def final_code(moves: str) -> int:
    board = Replayed(CONNECT4, 0, 0)
    for char in moves:
        board = board.play(board.cell_of(int(char) - 1))
    return board.code


def test_analysis_of_a_30_ply_game_within_a_small_budget_judges_the_late_plies_and_names_the_early_ones(bookless: Tablebase) -> None:
    moves = a_game(30)
    table = bookless.table_of("connect4")
    table.at(final_code(moves))  # the engine loaded before the budget runs
    analysis = solver.analyze(moves, game="connect4", table=table, budget=1.5)
    judged, unjudged = [ply.ply for ply in analysis.plies], [ply.ply for ply in analysis.unjudged]
    assert sorted(judged + unjudged) == list(range(1, 31)) and len(analysis.cells) == 30
    assert 30 in judged and 1 in unjudged, (judged, unjudged)  # the last ply's search is short; the empty board's is not
    assert "stopped at its budget" in analysis.why_unjudged
    for ply in analysis.plies:  # every judged ply is what a look-up one by one says
        alone = solver.lookup(ply.before.code, game="connect4")
        assert (alone.score, alone.best_cells) == (ply.before.score, ply.best_cells)
    data = analysis.to_dict()
    assert [ply["ply"] for ply in data["unjudged"]] == unjudged and data["columns"] == [int(c) - 1 for c in moves]
    assert "not judged" in repr(analysis) and "Not judged: pl" in str(analysis)
    assert "not judged: plies 1, " in (analysis._repr_html_() or "")


def test_solve_analyze_of_a_30_ply_game_with_a_small_budget_prints_the_judged_plies_and_names_the_others(bookless: Tablebase) -> None:
    moves = a_game(30, seed=11)
    result = CliRunner().invoke(main, ["analyze", "--game", "connect4", moves, "--budget", "1.5"], obj=bookless)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    rows = {line.split()[0]: line for line in result.stdout.splitlines() if line[:3].strip().isdigit()}
    assert rows["1"].endswith("not judged") and not rows["30"].endswith("not judged")
    assert "Not judged: plies 1 to" in result.stdout or "Not judged: ply 1 " in result.stdout
    data = json.loads(CliRunner().invoke(main, ["analyze", "--game", "connect4", moves, "--budget", "1.5", "--json"], obj=bookless).stdout)
    assert data["unjudged"][0]["ply"] == 1 and data["plies"][-1]["ply"] == 30 and data["why_unjudged"]


def test_an_analysis_whose_final_position_is_not_answered_within_its_budget_is_one_line_and_exit_1(bookless: Tablebase) -> None:
    result = CliRunner().invoke(main, ["analyze", "--game", "connect4", "4", "4", "--budget", "0.2"], obj=bookless)  # an opening: nothing answered
    assert result.exit_code == 1 and result.stderr.startswith("solve: error: the search of") and "--budget 0.2" in result.stderr
    assert result.stderr.splitlines() == [result.stderr.strip()]


def test_a_bad_move_is_named_before_anything_is_searched(bookless: Tablebase) -> None:
    result = CliRunner().invoke(main, ["analyze", "--game", "connect4", "3", "3", "9"], obj=bookless)  # no budget: a search would run for minutes
    assert result.exit_code == 2 and "ply 3" in result.stderr and "9" in result.stderr, result.output


def test_solve_play_asks_the_first_move_at_once_with_no_search_of_the_empty_board(bookless: Tablebase) -> None:
    result = CliRunner().invoke(main, ["play", "--game", "connect4", "--budget", "0.3"], input="", obj=bookless)
    assert result.exit_code == 0, result.output  # the empty board's search (minutes, no book) would stop at 0.3 s: exit 1
    assert "your move> " in result.stdout and "End of input: the game is left unfinished." in result.stdout
    answered = CliRunner().invoke(main, ["play", "--game", "connect4", "--budget", "0.3"], input="3\n", obj=bookless)
    assert ". . . X . . ." in answered.stdout  # the human's move is played before the computer's search (which stops at 0.3 s)


def test_solve_play_of_a_table_game_still_plays_to_the_end_and_judges_the_humans_moves() -> None:
    result = CliRunner().invoke(main, ["play", "--seed", "1"], input="4\n0\n2\n6\n7\n8\n1\n3\n5\n")
    assert result.exit_code == 0, result.output
    assert "Your " in result.stdout and "Replay it ply by ply: solve analyze 4 " in result.stdout


# -- batches of boards -------------------------------------------------------------------------------------------
def late_positions(count: int, seed: int = 3) -> tuple[np.ndarray, list[str]]:
    """``count`` random positions of plies 20 to 30 still in play, as an RL batch holds them (``int8``, ``(N, 6, 7)``,
    1 X, -1 O, 0 empty, row 0 the top row) and as move strings; drawn here from the rules, not from the package's encoder."""
    rng = random.Random(seed)
    boards, strings = [], []
    while len(strings) < count:
        grid, heights, moves, plies = np.zeros((6, 7), dtype=np.int8), [0] * 7, "", rng.randint(20, 30)
        board = Replayed(CONNECT4, 0, 0)
        while len(moves) < plies and not board.is_over:
            column = rng.choice([col for col in range(7) if heights[col] < 6])
            grid[5 - heights[column], column] = 1 if len(moves) % 2 == 0 else -1
            heights[column] += 1
            board, moves = board.play(board.cell_of(column)), moves + str(column + 1)
        if len(moves) == plies and not board.is_over:
            boards.append(grid)
            strings.append(moves)
    return np.stack(boards), strings


def test_a_batch_of_100_connect4_boards_as_an_int8_array_gives_the_same_answers_as_one_by_one(bookless: Tablebase) -> None:
    boards, strings = late_positions(100)
    found = solver.lookup_boards(boards, game="connect4", budget=600)
    assert found.value.shape == (100,) and found.best_columns.shape == (100, 7)
    for index, moves in enumerate(strings):
        alone = bookless.lookup(final_code(moves), game="connect4")  # another engine: nothing shared with the batch's
        assert (int(found.value[index]), int(found.plies[index])) == (alone.value, alone.plies), moves
        assert int(found.best[index]) == alone.best_mask, moves
        assert [col for col in range(7) if found.best_columns[index, col]] == list(alone.best_columns), moves
    by_moves = solver.lookup_boards(moves=strings, game="connect4", budget=600)
    assert np.array_equal(by_moves.score, found.score) and np.array_equal(by_moves.best, found.best)


def test_a_batch_of_boards_names_its_bad_board_by_its_place_in_the_batch_and_a_transposed_batch_is_said_to_be() -> None:
    boards, _ = late_positions(3, seed=7)
    upside_down = boards.copy()
    upside_down[1] = boards[1][::-1]  # the pieces on row 0, the top: they float
    with pytest.raises(solver.InvalidBoardError, match=r"^boards\[1\] is not a reachable position \(.*\): the piece at \(\d,\d\) floats"):
        solver.lookup_boards(upside_down, game="connect4", budget=600)
    assert solver.lookup_boards(upside_down, game="connect4", budget=600, check=False).reachable.tolist() == [True, False, True]
    tic = np.zeros((2, 2, 3, 3), dtype=np.int8)
    tic[1, 0, 0], tic[1, 0, 1] = 1, -1  # both lines: X's top row, O's middle row
    with pytest.raises(solver.InvalidBoardError, match=r"^boards\[1, 0\] is not a reachable position \(XXX/OOO/\.\.\.\): both players have a line"):
        solver.lookup_boards(tic)
    with pytest.raises(solver.InvalidBoardError, match=r"are they its boards transposed\? Each is 6 rows of 7 .*boards\.swapaxes\(-1, -2\)"):
        solver.lookup_boards(boards.swapaxes(-1, -2), game="connect4")


def test_encode_boards_of_connect4_gives_exact_codes_past_64_bits_never_wrapped() -> None:
    boards, strings = late_positions(20, seed=5)
    codes = solver.encode_boards(boards, game="connect4")
    assert codes.dtype == object and [int(code) for code in codes] == [final_code(moves) for moves in strings]
    full = np.full((2, 6, 7), -1, dtype=np.int8)  # every cell O: the largest code, 3**42 - 1, past int64 and uint64 alike
    assert solver.encode_boards(full, game="connect4").tolist() == [3**42 - 1] * 2
    assert solver.encode(full[0], game="connect4") == 3**42 - 1
    assert solver.encode_boards(np.zeros((4, 3, 3), dtype=np.int8)).dtype == np.int64  # a small game keeps int64


def served(tablebase: Tablebase, budget: float):  # type: ignore[no-untyped-def]
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from solver import web

    return TestClient(web.create_app([tablebase.table_of("connect4")], search_budget=budget))


def test_an_http_batch_of_connect4_positions_is_answered_within_one_requests_budget(bookless: Tablebase) -> None:
    boards, strings = late_positions(30, seed=9)
    client = served(bookless, 60)
    by_moves = client.post("/api/v1/connect4/batch", json={"moves": strings})
    assert by_moves.status_code == 200, by_moves.text
    results = by_moves.json()["results"]
    for moves, result in zip(strings, results, strict=True):
        alone = client.get("/api/v1/connect4", params={"moves": moves}).json()
        assert result == alone, moves
    texts = [solver.lookup(final_code(moves), game="connect4").board for moves in strings[:5]]
    by_boards = client.post("/api/v1/connect4/batch", json={"boards": [*texts, "X", 5]})
    assert by_boards.json()["results"][:5] == results[:5]
    assert all("error" in result for result in by_boards.json()["results"][5:])


def test_an_http_batch_past_its_budget_answers_what_it_could_and_names_the_rest(bookless: Tablebase) -> None:
    _, strings = late_positions(3, seed=13)
    client = served(bookless, 1.0)
    answer = client.post("/api/v1/connect4/batch", json={"moves": [strings[0], "4", strings[1], "44", strings[2]]})
    assert answer.status_code == 200, answer.text
    results = answer.json()["results"]
    assert results[0]["board"] and "not answered within the request's budget of 1 s" in results[1]["error"]
    assert all("error" in result for result in results[2:])  # nothing searched past the budget
    too_many = client.post("/api/v1/connect4/batch", json={"moves": ["44"] * 1001})
    assert too_many.status_code == 413


def test_a_game_name_is_resolved_over_http_without_solving_any_position(bookless: Tablebase) -> None:
    client = served(bookless, 0.01)  # a budget in which not even the opening's first search could run
    found = client.get("/api/v1/games/connect4")
    assert found.status_code == 200 and found.json()["name"] == "6x7k4-gravity" and found.json()["searched"] is True
    assert client.get("/api/v1/games/6x7k4-gravity").json() == found.json()
    assert client.get("/api/v1/games/5x5").status_code == 404


def test_the_http_analysis_of_a_30_ply_game_judges_within_the_requests_budget_and_names_the_rest(bookless: Tablebase) -> None:
    moves = a_game(30, seed=17)
    client = served(bookless, 1.5)
    answer = client.get("/api/v1/connect4/analyze", params={"moves": moves})
    assert answer.status_code == 200, answer.text  # not a 503 for the opening's search
    data = answer.json()
    judged, unjudged = [ply["ply"] for ply in data["plies"]], [ply["ply"] for ply in data["unjudged"]]
    assert 30 in judged and 1 in unjudged and sorted(judged + unjudged) == list(range(1, 31))
    assert "budget" in data["why_unjudged"]
