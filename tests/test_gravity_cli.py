"""Gravity play (Connect Four's family) at the command line: solve lookup draws each column's outcome above it
and names the best columns; analyze and play take columns and name them; stats and verify (the proof and the
sample) work on gravity tables, and the sample finds a wrong reachability mark."""

from __future__ import annotations

import json
import re

import numpy as np
from click.testing import CliRunner

import solver
from solver.cli import main
from solver.store.samplecheck import check_sample
from solver.tables import DenseTable

GAME = "3x4k3-gravity"


def run(runner: CliRunner, *args: str, input: str | None = None):
    result = runner.invoke(main, list(args), input=input)
    assert "Traceback" not in result.output, result.output
    return result


# -- lookup ------------------------------------------------------------------------------------
def test_lookup_draws_the_outcome_of_each_column_above_it_and_nothing_over_a_full_one(runner):
    result = run(runner, "lookup", "--game", GAME, "-q", "X.../O.../XO..")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "    W7*  L4 W7*",
        "  X   .   .   .",
        "  O   .   .   .",
        "  X   O   .   .",
        "  0   1   2   3",
        "",
        "X to move: a win in 7 plies with best play (value for X: +1).",
        "Best moves (columns): 1, 3",
        "Above each column, dropping a piece there: W<n> win, D draw, L<n> loss in n plies for the mover; * marks the best.",
        "code 46090 (3x4k3-gravity)",
    ]


def test_lookup_never_shows_a_score_on_a_cell_where_no_piece_lands(runner):
    text = run(runner, "lookup", "--game", GAME, "-q", "..../..../.X..").stdout
    rows = text.splitlines()[1:4]
    assert rows == ["  .   .   .   .", "  .   .   .   .", "  .   X   .   ."], "the board rows hold pieces and dots only"
    assert len(re.findall(r"[WDL]\d*\*?", text.splitlines()[0])) == 4, "one outcome a column"


def test_lookup_of_a_finished_gravity_board_shows_the_board_and_the_end(runner):
    lines = run(runner, "lookup", "--game", GAME, "-q", "..../O.../XXXO").stdout.splitlines()
    assert lines[:4] == [". . . .", "O . . .", "X X X O", "0 1 2 3"]
    assert "Game over: X has won." in lines and not any(line.startswith("Best moves") for line in lines)


def test_lookup_json_gives_the_best_columns_and_moves_only_where_a_piece_lands(runner):
    data = json.loads(run(runner, "lookup", "--game", GAME, "-q", "--json", "..../O.../XX.O").stdout)
    assert (data["best_moves"], data["best_cells"], data["best_columns"]) == ([[2, 2]], [10], [2])
    assert sorted(move["col"] for move in data["moves"]) == [0, 1, 2, 3]
    assert {(move["row"], move["col"]) for move in data["moves"]} == {(0, 0), (1, 1), (2, 2), (1, 3)}


def test_lookup_json_of_an_mnk_game_is_unchanged(runner):
    data = json.loads(run(runner, "lookup", "--json", "XX./OO./...").stdout)
    assert data["best_moves"] == [[0, 2]] and "best_columns" not in data


# -- analyze ------------------------------------------------------------------------------------
def test_analyze_takes_columns_and_prints_each_column_with_its_landing_cell(runner):
    result = run(runner, "analyze", "--game", GAME, "-q", "1", "1", "0", "1")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["ply", "player", "column", "best", "columns", "before", "after", "verdict"]
    assert lines[1].split()[:4] == ["1", "X", "1", "(2,1)"]
    assert lines[2].split()[:4] == ["2", "O", "1", "(1,1)"]
    assert ". O . .\n. O . .\nX X . .\n0 1 2 3" in result.stdout


def test_analyze_refuses_a_cell_a_piece_does_not_land_on_saying_where_it_lands(runner):
    result = run(runner, "analyze", "--game", GAME, "-q", "0", "0,1")
    assert result.exit_code == 2
    assert result.stderr.strip() == "solve: error: ply 2: (0,1) is not playable on ..../..../X...: a piece dropped in column 1 lands on (2,1)"


def test_analyze_json_lists_the_columns_played_beside_the_cells(runner):
    data = json.loads(run(runner, "analyze", "--game", GAME, "-q", "--json", "1", "1").stdout)
    assert (data["moves"], data["columns"]) == ([9, 5], [1, 1])
    assert [ply["col"] for ply in data["plies"]] == [1, 1] and data["plies"][1]["best_columns"] == [0, 2, 3]


# -- play ---------------------------------------------------------------------------------------
def test_play_asks_for_a_column_numbers_the_columns_and_announces_its_move_as_a_column(runner):
    result = run(runner, "play", "--game", GAME, "-q", "--seed", "0", input="1\n0,0\n1\n5\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("You are X. Enter a column 0-3: your piece drops to its lowest empty cell.\n. . . .\n. . . .\n. . . .\n0 1 2 3\n")
    assert "I play column 2." in out
    assert "(0,0) is not playable on ..../..../.XO.: a piece dropped in column 0 lands on (2,0)" in out
    assert "column 5 is off the board: expected a column 0-3" in out
    assert out.rstrip().endswith("End of input: the game is left unfinished.")


def test_a_played_game_ends_with_a_replay_command_in_columns_that_replays_it(runner):
    result = run(runner, "play", "--game", GAME, "-q", "--seed", "4", input="0\n1\n2\n3\n" * 4)
    assert result.exit_code == 0, result.output
    replay = re.search(r"Replay it ply by ply: solve analyze ([0-9 ]+) --game 3x4k3-gravity", result.stdout)
    assert replay is not None, result.stdout
    columns = [int(col) for col in replay[1].split()]
    assert all(0 <= col < 4 for col in columns)
    final = solver.analyze(columns, game=GAME).final
    assert "\n".join(" ".join(row) for row in final.board.split("/")) in result.stdout, "the replayed game ends on the board played"


# -- stats and verify -------------------------------------------------------------------------------
def test_stats_counts_a_gravity_game(runner):
    result = run(runner, "stats", "--game", "3x3k3-gravity", "-q", "--json")
    counts = json.loads(result.stdout)
    assert counts["game"] == "3x3k3-gravity"
    assert counts["positions"] == int(solver.table_for("3x3k3-gravity").reachable_codes().size)
    assert counts["layers"][1]["positions"] == 3, "three columns, three first moves"


def test_verify_proves_a_gravity_table_and_its_sample_finds_nothing(runner, tmp_path):
    path = tmp_path / "t.ttt"
    assert run(runner, "build", "--game", GAME, "-q", "--output", str(path)).exit_code == 0
    proved = run(runner, "verify", "--game", GAME, "--table", str(path))
    assert proved.exit_code == 0 and proved.stdout.splitlines()[-1].startswith(f"{path}: OK (3x4k3-gravity"), proved.output
    sampled = run(runner, "verify", "--game", GAME, "--table", str(path), "--sample", "500")
    assert sampled.exit_code == 0, sampled.output
    assert "sample OK (3x4k3-gravity" in sampled.stdout


def _with_score(table: DenseTable, board: str, score: int) -> DenseTable:
    entries = table.entries.copy()
    entries["score"][solver.encode(board, game=table.game)] = score
    return DenseTable(table.game, entries)


def test_the_sample_finds_a_reachable_board_marked_unreachable_and_an_unreachable_one_given_a_score():
    table = solver.build_table(game="3x3k3-gravity")
    assert check_sample(table, boards=10_000, reference=0).ok
    hidden = check_sample(_with_score(table, ".../.../X..", -128), boards=10_000, reference=0)
    assert "layer 1: .../.../X.. (code 729) stores -128, but a game reaches it" in hidden.problems
    invented = check_sample(_with_score(table, ".../X../O..", 0), boards=10_000, reference=0)
    assert len(invented.problems) == 1, invented.problems
    assert invented.problems[0].startswith("layer 2: .../X../O.. (code 1485) stores 0, but no game reaches it (no order of moves stacks these columns")


def test_the_sample_checks_children_only_where_a_piece_lands():
    table = solver.build_table(game="3x3k3-gravity")
    report = check_sample(table, boards=10_000, reference=10)
    assert report.ok, report.problems[:3]
    assert sum(layer.reference for layer in report.layers) > 0
    assert np.all([layer.wrong == 0 for layer in report.layers])


def test_a_gravity_name_read_otherwise_than_meant_is_said_on_stderr_naming_connect4(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``--game 7x6k4-gravity`` (Connect Four as many write it) is 7 rows by 6 columns: one line on stderr says so and
    names connect4, whatever the command then does (here: refuse a board)."""
    from solver.rules import game as games

    for name in ("7x6k4-gravity", "6x7-gravity"):
        monkeypatch.delitem(games._PARSED, name, raising=False)
        result = CliRunner().invoke(main, ["lookup", "--game", name, "X"])
        notices = [line for line in result.stderr.splitlines() if line.startswith("solve: warning: ")]
        assert len(notices) == 1 and notices[0].startswith(f"solve: warning: {name} is ") and "is connect4 (6x7k4-gravity)" in notices[0], result.stderr
    quiet = CliRunner().invoke(main, ["lookup", "--game", "connect4", "X"])
    assert "warning" not in quiet.stderr, quiet.stderr


def test_solve_build_of_a_board_past_the_tables_says_why_no_table_is_built_with_its_disk_before_the_book(runner, tmp_path, monkeypatch):
    """5x8k3-gravity (40 cells, past the tables' 39) is answered by the engine and a book: ``solve build`` says what its
    table would take (the disk of its column layout) and what this machine lacks, then asks about the book."""
    import solver.cli.build as command
    from solver.rules.game import parse_game
    from solver.storage.fsutil import format_size
    from solver.store.estimate import estimate

    monkeypatch.setattr(command, "estimate_book", lambda game, path, **options: solver.api.BuildEstimate(game, 1e6, 0, 0, 2))
    result = run(runner, "build", "--game", "5x8k3-gravity", "--output", str(tmp_path / "5x8k3-gravity.ttt"))
    table = estimate(parse_game("5x8k3-gravity"), tmp_path / "5x8k3-gravity.ttt")
    assert result.exit_code != 0 and "opening book takes about" in result.output, "the book is not built unasked"
    said = result.output.split("opening book takes")[0]
    assert "No 5x8k3-gravity table is built: it would take" in said and f"{format_size(table.disk_bytes)} of disk" in said
    assert "tables of boards of at most 39 cells, whose codes fit 64 bits (this one has 40)" in said and "its opening book is built instead" in said
    assert list(tmp_path.iterdir()) == []


def test_solve_build_of_6x6_estimates_its_table_and_asks_before_building_it(runner, tmp_path):
    """6x6k4-gravity (36 cells) has a table: ``solve build`` estimates the table's build (its plan: 600 G slots,
    disk and memory from the layers) and asks before it, as any long build; no book is named."""
    result = run(runner, "build", "--game", "6x6k4-gravity", "--output", str(tmp_path / "6x6k4-gravity.ttt"))
    assert result.exit_code != 0 and "book" not in result.output, result.output
    assert "6x6k4-gravity" in result.output and "--yes" in result.output and "of disk" in result.output, result.output
    assert list(tmp_path.iterdir()) == []
