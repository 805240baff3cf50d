"""Connect Four wherever a game is named: every front end answers Pons' End-Easy positions with his scores.

Pons' test sets (``../shared/data/connect4/pons_tests``, beside the checkout; skipped where absent) give
a position as the move string Connect Four players write (columns from 1) and its score for the side
to move: 0 a draw, ``s > 0`` a win whose last stone is the mover's ``(22 - s)``-th, ``s < 0`` likewise a loss.
Here that score is worked out again from what each front end answers (the result and the plies to the
end), by the arithmetic of Pons' definition, sharing no code with the package; the positions are the
first of Test_L3_R1 ("End-Easy": searched in milliseconds). Nothing is timed.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import solver
from solver.cli import main
from solver.encoding.board import render
from solver.errors import InvalidBoardError, InvalidMoveError, SearchTimeout
from solver.rules.game import parse_game
from solver.search import from_moves
from solver.store.searched import searches_by

PONS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "connect4" / "pons_tests"
CONNECT4 = parse_game("connect4")
SAMPLE = 12
"""End-Easy positions each front end is asked (their searches take milliseconds)."""
SLOW = "4377113336"
"""A position of ten pieces, past the shipped book (depth 9), whose search takes seconds (a win on ply 41; 2.8 s of CPU
on one core with every move valued, measured on this project's machine): what a small budget cannot answer."""


@pytest.fixture(autouse=True)
def cold_search() -> None:
    """Each test starts with the shared Connect Four engine's transposition table empty: a search stopped at its budget
    keeps what it found, and after a few stopped searches of SLOW the next one finished within 0.2 s on a fast machine
    (CI of 2026-12-06), so that a test of a budget no longer saw it stop."""
    solver.table_for("connect4").engine.clear()


def pons_end_easy(count: int = SAMPLE) -> list[tuple[str, int]]:
    path = PONS / "Test_L3_R1"
    if not path.is_file():
        pytest.skip("Pons' test sets are not beside the checkout (../shared/data/connect4/pons_tests)")
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    return [(moves, int(score)) for moves, score in rows[:count]]


def pons_score(result: str, plies: int, pieces: int) -> int:
    """Pons' score from a result and plies to the end (the winner's last stone is the ``pieces + plies``-th)."""
    if result == "draw":
        return 0
    magnitude = (42 + 2 - pieces - plies) // 2
    return magnitude if result == "win" else -magnitude


def board_of(moves: str) -> str:
    """The board a move string reaches, played here cell by cell (rows top first), for the board form."""
    cells = [["."] * 7 for _ in range(6)]
    heights = [0] * 7
    for ply, char in enumerate(moves):
        col = int(char) - 1
        cells[5 - heights[col]][col] = "XO"[ply % 2]
        heights[col] += 1
    return "/".join("".join(row) for row in cells)


# -- Python ---------------------------------------------------------------------------------
def test_lookup_answers_pons_end_easy_scores_from_the_move_string_and_the_board() -> None:
    for moves, score in pons_end_easy():
        by_string = solver.lookup(moves=moves, game="connect4")
        by_board = solver.lookup(board_of(moves), game="connect4")
        assert by_string.board == by_board.board == board_of(moves)
        assert pons_score(by_string.result, by_string.plies, len(moves)) == score, moves
        assert (by_board.result, by_board.plies) == (by_string.result, by_string.plies)


def test_best_move_get_and_every_move_agree_with_the_position() -> None:
    for moves, _ in pons_end_easy(4):
        position = solver.lookup(moves=moves, game="connect4")
        column = solver.best_move(position.code, game="connect4")
        assert column in position.best_columns
        child = position.play(column)
        assert -child.score + (1 if child.score > 0 else -1 if child.score < 0 else 0) == position.score  # the best child's score, for the parent
        assert {move.col for move in position.moves if move.best} == set(position.best_columns)
        assert solver.get("XXXXXXX", game="connect4") is None


def test_lookup_codes_answers_a_batch_by_search_exactly() -> None:
    rows = pons_end_easy(5)
    codes = [solver.lookup(moves=moves, game="connect4").code for moves, _ in rows]
    assert max(codes) > 2**63  # Connect Four's codes pass int64: a batch is a list of Python ints
    scores = solver.lookup_codes(codes, game="connect4")
    for index, (moves, score) in enumerate(rows):
        assert (
            pons_score(["loss", "draw", "win"][int(scores.value[index] * (1 if len(moves) % 2 == 0 else -1)) + 1], int(scores.plies[index]), len(moves))
            == score
        )


def test_analyze_reads_a_move_string_and_judges_within_its_budget_what_its_searches_answer() -> None:
    moves, _ = pons_end_easy(1)[0]
    analysis = solver.analyze(moves, game="connect4", budget=2)  # the last plies' searches take milliseconds
    assert analysis.columns == tuple(int(char) - 1 for char in moves)
    assert analysis.plies and analysis.plies[-1].ply == len(moves)
    assert sorted([ply.ply for ply in analysis.plies] + [ply.ply for ply in analysis.unjudged]) == list(range(1, len(moves) + 1))


def test_a_budget_stops_a_long_search_with_a_clear_error_and_the_next_answer_is_still_exact() -> None:
    with pytest.raises(SearchTimeout, match="budget of 0.2 s"):
        solver.lookup(moves=SLOW, game="connect4", budget=0.2)
    moves, score = pons_end_easy(1)[0]
    found = solver.lookup(moves=moves, game="connect4", budget=60)
    assert pons_score(found.result, found.plies, len(moves)) == score


# -- the move string ------------------------------------------------------------------------------
def test_the_move_string_is_columns_from_one_and_a_bare_number_stays_a_zero_based_column() -> None:
    code = solver.encode(board_of("4453"), game="connect4")
    assert solver.lookup(moves="4453", game="connect4").code == code
    assert render(CONNECT4, code).split("/")[-2:] == ["...O...", "..OXX.."]
    from solver.encoding.moves import split_moves

    assert split_moves("4453", CONNECT4) == ["4453"]  # two or more digits: a move string, kept whole for the analysis
    assert split_moves("4 4 5 3", CONNECT4) == ["4", "4", "5", "3"]  # separated numbers: 0-based columns
    assert solver.analyze(split_moves("4413", "4x4k4-gravity"), game="4x4k4-gravity").columns == (3, 3, 0, 2)


@pytest.mark.parametrize(
    ("moves", "error", "words"),
    [
        ("4420", InvalidBoardError, "move 4 of the move string '4420' is '0': a move is a column from 1 to 7"),
        ("4458", InvalidBoardError, "move 4 of the move string '4458' is '8': a move is a column from 1 to 7"),
        ("1111111", InvalidMoveError, "move 7 of the move string '1111111': column 1 is full"),
    ],
)
def test_a_bad_move_string_names_the_move(moves: str, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        solver.lookup(moves=moves, game="connect4")


def test_a_full_column_of_a_move_string_is_named_in_its_numbering_from_one() -> None:
    """The 4 the user wrote is column 4 in the message, and so are the columns with room (not 0 to 6)."""
    said = "column 4 is full: the columns with room are 1, 2, 3, 5, 6 and 7"
    with pytest.raises(InvalidMoveError, match=f"^move 7 of the move string '4444444': {said}$"):
        solver.lookup(moves="4444444", game="connect4")
    result = CliRunner().invoke(main, ["lookup", "--game", "connect4", "--moves", "4444444"])
    assert result.exit_code == 2 and said in result.stderr, result.output


@pytest.mark.parametrize("moves", ["44444", ["44444"], ["44", "444"]])
def test_an_analysis_of_a_move_string_names_a_full_column_in_its_numbering(moves: object, table_dir: Path) -> None:
    """A move string read by the analysis (solve analyze 44444, ?moves=44444) is named as written: the move, its
    place in the move string, and its column from 1; bare numbers stay 0-based columns."""
    said = r"column 4 is full on .*: the columns with room are 1, 2 and 3$"
    with pytest.raises(InvalidMoveError, match=rf"^ply 5 \(move [35] of the move string '4{{3,5}}'\): {said}"):
        solver.analyze(moves, game="4x4k3-gravity")
    with pytest.raises(InvalidMoveError, match=r"^ply 5: column 3 is full on .*: the columns with room are 0, 1 and 2$"):
        solver.analyze(["3"] * 5, game="4x4k3-gravity")


def test_a_move_string_after_the_game_ended_is_refused() -> None:
    with pytest.raises(InvalidMoveError, match="after the game ended"):
        solver.lookup(moves="12121212", game="connect4")


# -- the command line -----------------------------------------------------------------------------
def test_solve_lookup_answers_pons_end_easy_with_moves_and_json() -> None:
    runner = CliRunner()
    for moves, score in pons_end_easy(6):
        result = runner.invoke(main, ["lookup", "--game", "connect4", "--moves", moves, "--json"])
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        assert pons_score(data["result"], data["plies"], len(moves)) == score


def test_solve_lookup_draws_the_columns_outcomes_above_the_board() -> None:
    moves, _ = pons_end_easy(1)[0]
    result = CliRunner().invoke(main, ["lookup", "--game", "connect4", "--moves", moves])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert "*" in lines[0] and lines[7].split() == list("0123456")


def test_solve_lookup_of_a_move_string_given_as_board_says_it_goes_with_moves() -> None:
    """``solve lookup --game connect4 4453`` reads 4453 as a code, whose board has a floating piece: the one line
    says so, and that a move string is given with --moves (as solve analyze reads it)."""
    result = CliRunner().invoke(main, ["lookup", "--game", "connect4", "4453"])
    assert result.exit_code == 2, result.output
    [line] = result.stderr.splitlines()
    assert "floats" in line and line.endswith("4453 was read as a board's code: a move string (columns numbered from 1) is given as --moves 4453"), line
    for not_a_move_string in ("4480", "9"):  # a digit no column is (0, 8, 9): no such hint
        refused = CliRunner().invoke(main, ["lookup", "--game", "connect4", not_a_move_string])
        assert refused.exit_code == 2 and "--moves" not in refused.stderr, refused.output
    assert "--moves" not in CliRunner().invoke(main, ["lookup", "12"]).stderr  # tic-tac-toe has no move string


def test_solve_lookup_past_its_budget_is_one_line_and_exit_1() -> None:
    result = CliRunner().invoke(main, ["lookup", "--game", "connect4", "--moves", SLOW, "--budget", "0.2"])
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("solve: error:")]
    assert len(errors) == 1 and "budget of 0.2 s" in errors[0] and "Traceback" not in result.output


def test_solve_past_its_budget_says_the_seconds_it_had_and_how_to_give_more_on_the_command_line() -> None:
    """Not the Python API's advice (``budget=None``): the option, and the seconds this command gave."""
    for command in (["lookup", "--game", "connect4", "--moves", SLOW],):
        result = CliRunner().invoke(main, [*command, "--budget", "0.3"])
        assert result.exit_code == 1, result.output
        (line,) = result.stderr.splitlines()
        assert "budget of 0.3 s" in line and "this command had --budget 0.3 (seconds)" in line, line
        assert "give it more with --budget SECONDS, or no --budget for no limit" in line and "budget=None" not in line, line


def test_solve_stats_without_a_book_stops_the_roots_search_at_once_and_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import solver.cli.stats
    import solver.store.tablebase as tablebase

    monkeypatch.setattr(solver.cli.stats, "STATS_SEARCH_SECONDS", 0.2)
    monkeypatch.setattr(tablebase, "shipped_book_path", lambda game: None)  # as if the package shipped no book
    monkeypatch.setenv("SOLVED_TICTACTOE_DIR", str(tmp_path))
    solver.forget()
    result = CliRunner().invoke(main, ["stats", "--game", "connect4"])
    assert result.exit_code == 0, result.output
    first, counts = result.stdout.splitlines()
    assert first.startswith("The empty 6x7k4-gravity board: its search was stopped after 0.2 s (") and "positions searched" in first
    assert "solve stats --game 6x7k4-gravity --budget SECONDS" in first and "solve build --game 6x7k4-gravity" in first
    assert counts.startswith("No counts by ply:") and "counts of each ply need the full table" in counts
    data = json.loads(CliRunner().invoke(main, ["stats", "--game", "connect4", "--json"]).stdout)
    assert data["root"] is None and "stopped after 0.2 s" in data["root_not_found"] and data["searched"] is True


def test_solve_stats_of_a_gravity_game_whose_table_this_machine_can_build_says_to_build_or_fetch_the_table_not_a_book(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """4x8k4-gravity has a table here (its checksum ships; ``solve build`` builds it), so with none at hand the counts
    are said to need that table, with its estimate, and not the opening book of a game past the machine."""
    import solver.cli.stats

    monkeypatch.setattr(solver.cli.stats, "STATS_SEARCH_SECONDS", 0.2)
    monkeypatch.setenv("SOLVED_TICTACTOE_DIR", str(tmp_path))
    solver.forget()
    result = CliRunner().invoke(main, ["stats", "--game", "4x8k4-gravity"])
    assert result.exit_code == 0, result.output
    first, counts = result.stdout.splitlines()
    assert "build its table with solve build --game 4x8k4-gravity" in first and "book" not in first, first
    assert counts.startswith("No counts by ply: 4x8k4-gravity's table is not here") and "book" not in counts, counts
    assert "solve build --game 4x8k4-gravity --yes builds it (about " in counts and " of disk and " in counts, counts
    assert "solve fetch --game 4x8k4-gravity --from URL" in counts, counts
    data = json.loads(CliRunner().invoke(main, ["stats", "--game", "4x8k4-gravity", "--json"]).stdout)
    assert data["counts"] == counts.removeprefix("No counts by ply: ").removesuffix("."), data


FIRST_MOVES = {1: 61, 2: 59, 3: 0, 4: -60}
"""The published scores of Connect Four's first moves for O, to move after X's first piece (Allis; test_book.py derives
them from Böck's ply-8 results): columns 1 and 2 win for O, column 3 draws, the centre loses in 40 plies (mirrors alike)."""


def plant_connect4_book(directory: Path) -> Path:
    """A Connect Four book of depth 1 in ``directory``: the first moves' published scores and the root derived from them."""
    import numpy as np

    from solver.search import positions
    from solver.search.book import write_book
    from solver.search.plies import derive_all
    from solver.search.position import code_of_key, engine_game

    game = engine_game("connect4")
    levels = [keys for _, keys in positions(game, 1)]
    ply1 = []
    for key in levels[1].tolist():
        (column,) = [c for c in range(7) if code_of_key(game, key) // 3 ** (35 + c) % 3]  # the one piece, on the bottom row
        ply1.append(FIRST_MOVES[min(column, 6 - column) + 1])
    path = write_book(directory / "6x7k4-gravity.ttt", game, levels, derive_all(game, levels, np.array(ply1, dtype=np.int8)))
    from solver.search.book import open_book
    from solver.storage import trust

    trust.record(directory, game.name, "book", open_book(path).checksum)  # as a build here records the book it wrote
    return path


def test_solve_stats_connect4_gives_the_roots_answer_read_from_the_book_a_first_player_win_on_ply_41(tmp_path: Path) -> None:
    """The root's answer as the engine finds it from the book's first moves (none of it printed from a constant)."""
    plant_connect4_book(tmp_path)
    result = CliRunner().invoke(main, ["stats", "--game", "connect4", "--table-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    root, best, counts = result.stdout.splitlines()
    assert root == "The empty board: X to move: a win in 41 plies with best play (value for X: +1)."
    assert best == "Best first moves (columns): 3" and counts.startswith("No counts by ply:")
    data = json.loads(CliRunner().invoke(main, ["stats", "--game", "connect4", "--table-dir", str(tmp_path), "--json"]).stdout)
    assert (data["root"]["to_move"], data["root"]["result"], data["root"]["plies"]) == ("X", "win", 41), data["root"]
    assert "root_not_found" not in data


def test_a_connect4_book_in_the_table_directory_answers_lookups_there(tmp_path: Path) -> None:
    """``--table-dir`` reaches the search with that directory's book (it used to open the book as a table): the empty
    board and each first move are answered from the book's first moves (without it: minutes of search)."""
    plant_connect4_book(tmp_path)
    empty = "/".join(["......."] * 6)
    result = CliRunner().invoke(main, ["lookup", "--game", "connect4", empty, "--table-dir", str(tmp_path), "--json", "--budget", "30"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["to_move"], data["result"], data["plies"]) == ("X", "win", 41)
    outcomes = {move["col"]: (move["result"], move["plies"]) for move in data["moves"]}
    assert outcomes[3] == ("win", 41) and outcomes[2] == outcomes[4] == ("draw", 42) and outcomes[0] == ("loss", 40), outcomes


def test_solve_analyze_reads_a_move_string_and_judges_its_last_plies_within_its_budget() -> None:
    moves, _ = pons_end_easy(1)[0]
    result = CliRunner().invoke(main, ["analyze", "--game", "connect4", moves, "--budget", "2"])
    assert result.exit_code == 0, result.output
    last = [line for line in result.stdout.splitlines() if line.split()[:1] == [str(len(moves))]]
    assert last and not last[0].endswith("not judged"), result.stdout


# -- HTTP ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def client():  # type: ignore[no-untyped-def]
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from solver import web

    return TestClient(web.create_app([solver.table_for(), solver.table_for("connect4")], search_budget=0.3))


def test_the_http_api_says_a_move_string_given_as_board_goes_with_moves(client) -> None:  # type: ignore[no-untyped-def]
    answer = client.get("/api/v1/connect4", params={"board": "4453"})
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"].endswith("4453 was read as a board's code: a move string (columns numbered from 1) is given as moves=4453"), answer.text


def test_the_http_api_answers_pons_end_easy_by_board_and_by_move_string(client) -> None:  # type: ignore[no-untyped-def]
    for moves, score in pons_end_easy(6):
        for params in ({"moves": moves}, {"board": board_of(moves)}):
            answer = client.get("/api/v1/connect4", params=params)
            assert answer.status_code == 200, answer.text
            data = answer.json()
            assert pons_score(data["result"], data["plies"], len(moves)) == score
            assert data["best_columns"] == sorted({move["col"] for move in data["moves"] if move["best"]})


def test_the_http_api_refuses_a_search_past_its_budget_with_503_saying_so(client) -> None:  # type: ignore[no-untyped-def]
    answer = client.get("/api/v1/connect4", params={"moves": SLOW})
    assert answer.status_code == 503
    assert "at most 0.3 s a request" in answer.json()["error"]
    assert client.get("/api/v1/connect4", params={"moves": "48"}).status_code == 400


def test_the_budget_a_503_quotes_is_rounded_as_a_person_reads_it(client) -> None:  # type: ignore[no-untyped-def]
    """The search's own budget is what is left of the request's (0.3 s less a margin, less what the request took):
    quoted with three significant figures at most ("0.2 s"), never "0.19987 s"."""
    error = client.get("/api/v1/connect4", params={"moves": SLOW}).json()["error"]
    quoted = re.search(r"stopped at its budget of ([0-9.]+) s", error)
    assert quoted is not None and len(quoted[1].replace(".", "").lstrip("0")) <= 3, error


def test_a_code_past_two_to_the_53_is_also_given_as_a_string(client) -> None:  # type: ignore[no-untyped-def]
    """JavaScript's JSON.parse reads numbers as doubles: ``code_str`` keeps a Connect Four code exact, ``code`` stays a number."""
    moves = "444444333333522222"
    code = solver.lookup(moves=moves, game="connect4").code
    assert code > 2**53 and float(code) != code, "a double cannot hold this code"
    for path in ("/api/v1/connect4", "/api/v1/connect4/mainline"):
        answer = client.get(path, params={"moves": moves})
        assert answer.status_code == 200, answer.text
        assert answer.json()["code"] == code and answer.json()["code_str"] == str(code), path
        assert f'"code_str": "{code}"' in answer.text
    batch = client.post("/api/v1/connect4/batch", content=json.dumps({"moves": [moves]}), headers={"content-type": "application/json"})
    assert batch.status_code == 200 and batch.json()["results"][0]["code_str"] == str(code), batch.text
    final = client.get("/api/v1/3x3k3/analyze", params={"moves": "4 0 8"}).json()["final"]
    assert final["code_str"] == str(final["code"]) == str(solver.lookup("O../.X./..X").code)


def test_every_search_of_one_request_shares_its_budget_from_the_requests_arrival(client, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A mainline searches many positions: each gets what is left of the request's one budget, never a fresh one."""
    from solver.store import searched

    given: list[float | None] = []
    real = searched._budget_left
    monkeypatch.setattr(searched, "_budget_left", lambda budget: given.append(real(budget)) or given[-1])
    answer = client.get("/api/v1/connect4/mainline", params={"moves": "2252576253462244111563"})
    assert answer.status_code == 200, answer.text
    assert len(given) > 3 and all(left is not None and left < 0.3 for left in given), f"a search got the whole budget: {given}"
    assert given == sorted(given, reverse=True) and given[-1] < given[0], "a later search got more time than an earlier one"


def test_a_search_after_its_deadline_stops_at_once_saying_so_and_before_it_answers() -> None:
    table = solver.table_for("connect4")
    with searches_by(time.monotonic() - 1), pytest.raises(SearchTimeout, match="budget"):
        table.at(from_moves(table.game, SLOW).code)  # past the book, whichever earlier test left the table with or without it
    with searches_by(time.monotonic() + 600):
        assert table.at(from_moves(table.game, "444444333333522222").code).result in ("win", "draw", "loss")


def test_a_search_stopped_by_a_shared_deadline_says_what_earlier_work_used_of_it_and_one_alone_does_not() -> None:
    table = solver.table_for("connect4")
    code = from_moves(table.game, SLOW).code  # past the book: a search of seconds
    with searches_by(time.monotonic() + 0.6), pytest.raises(SearchTimeout) as shared:
        time.sleep(0.3)  # earlier work of the same command or request
        table.at(code)
    assert "the rest of the 0.6 s its whole command or request shares (0.3" in shared.value.what, shared.value.what
    table.engine.clear()  # the second search starts cold, as the first did, not from what the first found
    with searches_by(time.monotonic() + 0.3), pytest.raises(SearchTimeout) as alone:
        table.at(code)
    assert "stopped at its budget of 0.3 s" in alone.value.what and "shares" not in alone.value.what, alone.value.what


def test_the_http_api_lists_connect4_as_searched(client) -> None:  # type: ignore[no-untyped-def]
    games = client.get("/api/v1/games").json()["games"]
    assert [game["searched"] for game in games] == [False, True]


# -- interop: OpenSpiel's connect_four and PettingZoo's connect_four_v3 -------------------------------
def test_openspiel_connect_four_states_answer_pons_end_easy_and_its_best_actions_are_legal() -> None:
    pyspiel = pytest.importorskip("pyspiel", reason="needs the [interop] extra (open_spiel)")
    from solver import interop

    for moves, score in pons_end_easy(4):
        state = pyspiel.load_game("connect_four").new_initial_state()
        for char in moves:
            state.apply_action(int(char) - 1)  # an OpenSpiel action is a column from 0
        position = interop.openspiel_connect_four_position(state)
        assert pons_score(position.result, position.plies, len(moves)) == score
        best = interop.openspiel_connect_four_best_actions(state)
        assert best and set(best) <= set(state.legal_actions())


def test_pettingzoo_connect_four_observations_answer_pons_end_easy_for_the_agent_to_move() -> None:
    connect_four_v3 = pytest.importorskip("pettingzoo.classic.connect_four_v3", reason="needs the [interop] extra (pettingzoo)")
    from solver import interop

    for moves, score in pons_end_easy(4):
        env = connect_four_v3.env()
        env.reset(seed=0)
        for char in moves:
            env.step(int(char) - 1)
        observation, *_ = env.last()
        position = interop.pettingzoo_connect_four_position(observation)
        assert position.board == board_of(moves)
        assert pons_score(position.result, position.plies, len(moves)) == score
        best = interop.pettingzoo_connect_four_best_actions(observation)
        assert all(observation["action_mask"][column] for column in best)
        other = "player_1" if env.agent_selection == "player_0" else "player_0"
        assert interop.board_from_pettingzoo_connect_four(env.observe(other), agent=other) == position.code


# -- the grader -------------------------------------------------------------------------------------
GREEDY = Path(__file__).parent / "players" / "connect4_greedy.py"


def test_the_grader_grades_a_connect4_player_file_on_sampled_positions_against_the_search() -> None:
    import importlib.util

    report = solver.grade(f"{GREEDY}:play", game="connect4", turn="symbol", sample=6)
    assert report.positions == 6 and not (report.exceptions or report.illegal or report.timeouts or report.crashes)
    spec = importlib.util.spec_from_file_location("greedy", GREEDY)
    assert spec is not None and spec.loader is not None
    greedy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(greedy)
    lost = {item.position.code for item in report.lost}
    optimal = 0
    for code, cell in report.answers:  # each answer judged again here from a fresh look-up
        position = solver.lookup(code, game="connect4")
        assert position.game.cells - position.pieces >= 6, "graded positions leave at least six empty cells"
        rows = [[{"X": "X", "O": "O"}.get(piece) for piece in position.cells[r * 7 : r * 7 + 7]] for r in range(6)]
        column = greedy.play(rows, position.to_move)
        assert cell % 7 == column
        move = next(move for move in position.moves if move.col == column)
        assert (code in lost) == (move.result != position.result)
        optimal += move.best
    assert report.optimal == optimal


def test_solve_grade_grades_a_connect4_player_file_in_one_command() -> None:
    result = CliRunner().invoke(main, ["grade", f"{GREEDY}:play", "--game", "connect4", "--turn", "symbol", "--sample", "4", "--json"])
    assert result.exit_code in (0, 1), result.output  # 1: the greedy player throws results away somewhere
    assert json.loads(result.stdout)["positions"] == 4


# -- the benchmark's root -----------------------------------------------------------------------------
def test_the_benchmark_stops_on_a_root_that_is_not_a_first_player_win_on_ply_41() -> None:
    """scripts/bench.py --connect4-empty (and --connect4-book) assert the empty board's answer, not only print it."""
    import importlib.util
    import sys

    scripts = Path(__file__).resolve().parents[1] / "scripts"
    spec = importlib.util.spec_from_file_location("bench_connect4", scripts / "bench_connect4.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(scripts))  # its sibling bench_baselines.py
    try:
        spec.loader.exec_module(bench)
    finally:
        sys.path.remove(str(scripts))
    reported: list[tuple[object, ...]] = []
    bench.check_root(lambda *figure: reported.append(figure), "root", 100 - 41)
    assert reported == [("root: ply of the last move, win for X", 41, "", "win, 41", True)]
    for wrong in (100 - 39, 0, -(100 - 40)):
        with pytest.raises(SystemExit, match="WRONG: root: the engine says"):
            bench.check_root(lambda *figure: None, "root", wrong)
