"""The HTTP API under gravity (games named ``...-gravity``): a move is a column, the piece lands on the lowest empty cell.

Every answer is checked against the tables and the rule it wraps (``game.rules.moves``,
``game.rules.landing``), not against the page: the listing names the rule, a position lists
only the landing cells as moves and its best moves as columns too (``best_columns``), a move
elsewhere is a 400 saying where the piece would land, and the batch answers are the single
look-ups' bytes.
"""

from __future__ import annotations

import json
import random
import warnings
from pathlib import Path

import pytest
from web_support import need_web

import solver
from solver.encoding.board import parse
from solver.tables.analysis import analyze

need_web()

with warnings.catch_warnings():  # Starlette 1.x suggests httpx2 for its test client; httpx works the same
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from solver import web  # noqa: E402
from solver.web.batch import answers, position_dict  # noqa: E402

GRAVITY = ("3x3k3-gravity", "3x4k3-gravity", "4x3k3-gravity", "3x3k3-gravity-misere")
"""Gravity games served here besides tic-tac-toe: every position of each is checked (a few thousand each)."""


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, solver.Table]:
    directory = tmp_path_factory.mktemp("tables")
    return {game: solver.table_for(game, table_dir=directory) for game in ("3x3k3", *GRAVITY)}


@pytest.fixture(scope="module")
def client(tables: dict[str, solver.Table]) -> TestClient:
    return TestClient(web.create_app(list(tables.values())))


def masks(game: solver.Game, board: str) -> tuple[int, int]:
    """X's and O's cells of a board string, as bit masks."""
    digits = [(parse(board, game)[1] // 3**cell) % 3 for cell in range(game.cells)]
    return sum(1 << c for c, d in enumerate(digits) if d == 1), sum(1 << c for c, d in enumerate(digits) if d == 2)


def test_the_games_list_names_the_gravity_rule_and_that_pieces_drop(client: TestClient) -> None:
    listing = {game["name"]: game for game in client.get("/api/v1/games").json()["games"]}
    assert list(listing) == ["3x3k3", *GRAVITY]
    assert listing["3x3k3"]["rule"]["drops"] is False
    assert listing["3x4k3-gravity"]["rule"] == {"suffix": "gravity", "title": "gravity", "line_wins": True, "drops": True}
    assert listing["3x4k3-gravity"]["rows"] == 3 and listing["3x4k3-gravity"]["cols"] == 4
    assert listing["3x3k3-gravity-misere"]["rule"] == {"suffix": "gravity-misere", "title": "gravity, misère", "line_wins": False, "drops": True}


@pytest.mark.parametrize("game", GRAVITY)
def test_every_position_lists_only_landing_cells_as_moves_and_its_best_moves_as_columns(client: TestClient, tables: dict[str, solver.Table], game: str) -> None:
    table = tables[game]
    rules = table.game.rules
    codes = table.reachable_codes().tolist()
    results = client.post(f"/api/v1/{game}/batch", json={"boards": codes}).json()["results"]
    assert len(results) == len(codes)
    for code, result in zip(codes, results, strict=True):
        position = table.at(code)
        x, o = masks(table.game, position.board)
        cells = [move["cell"] for move in result["moves"]]
        assert sorted(cells) == ([] if position.is_over else [c for c in range(table.game.cells) if rules.moves(x, o) >> c & 1]), position.board
        assert len({cell % table.game.cols for cell in cells}) == len(cells), f"one move a column on {position.board}"
        assert result["best_cells"] == list(position.best_cells)
        assert result["best_columns"] == sorted(cell % table.game.cols for cell in position.best_cells), position.board
        for move in result["moves"]:
            assert move["col"] == move["cell"] % table.game.cols and rules.landing(x | o, move["col"]) == move["cell"]
            assert move["best"] == (move["cell"] in position.best_cells)
            child = position.play(table.game.coords(move["cell"]))  # reachable: its score is the table's
            assert move["value"] == child.value, f"{move} on {position.board}"
        assert result == position_dict(position)


@pytest.mark.parametrize("game", GRAVITY)
def test_the_vectorised_batch_answers_are_the_bytes_of_a_single_look_up(tables: dict[str, solver.Table], game: str) -> None:
    table = tables[game]
    codes = table.reachable_codes()
    for code, made in zip(codes.tolist(), answers(table, codes), strict=True):
        assert made == json.dumps(position_dict(table.at(code))).encode(), table.at(code).board


def test_a_look_up_answers_the_position_dict_and_only_gravity_has_best_columns(client: TestClient, tables: dict[str, solver.Table]) -> None:
    board = ".../.../XO."
    answer = client.get("/api/v1/3x3k3-gravity", params={"board": board})
    assert answer.status_code == 200
    data = answer.json()
    assert data == position_dict(tables["3x3k3-gravity"].lookup(board))
    assert list(data).index("best_columns") == list(data).index("best_cells") + 1
    assert sorted(move["cell"] for move in data["moves"]) == [3, 4, 8]  # above X, above O, the empty column's bottom
    assert "best_columns" not in client.get("/api/v1/3x3k3", params={"board": board}).json()
    empty = client.get("/api/v1/3x4k3-gravity").json()
    assert [move["row"] for move in empty["moves"]] == [2, 2, 2, 2] and empty["best_columns"] == [1, 2]


@pytest.mark.parametrize(
    ("board", "why"),
    [
        ("X../.../...", "the piece at (0,0) floats: (1,0) below it is empty"),
        (".../O../X..", None),  # reachable: answered
        (".../.../O..", "impossible piece counts"),
    ],
)
def test_a_board_with_a_floating_piece_is_400_saying_which(client: TestClient, board: str, why: str | None) -> None:
    answer = client.get("/api/v1/3x3k3-gravity", params={"board": board})
    if why is None:
        assert answer.status_code == 200
    else:
        assert answer.status_code == 400 and why in answer.json()["error"]
    [result] = client.post("/api/v1/3x3k3-gravity/batch", json={"boards": [board]}).json()["results"]
    assert ("error" in result) == (why is not None) and (why is None or why in result["error"])


@pytest.mark.parametrize(
    ("moves", "message"),
    [
        ("0,1", "ply 1: (0,1) is not playable on .../.../...: a piece dropped in column 1 lands on (2,1)"),
        ("2,0 0,0", "ply 2: (0,0) is not playable on .../.../X..: a piece dropped in column 0 lands on (1,0)"),
        ("2,0;1,1", "ply 2: (1,1) is not playable on .../.../X..: a piece dropped in column 1 lands on (2,1)"),
    ],
)
def test_a_move_that_is_not_a_landing_cell_is_400_saying_where_the_piece_would_land(client: TestClient, moves: str, message: str) -> None:
    answer = client.get("/api/v1/3x3k3-gravity/analyze", params={"moves": moves})
    assert answer.status_code == 400
    assert answer.json() == {"error": message}


def test_a_move_after_the_game_ended_or_on_a_taken_cell_keeps_the_analysis_message(client: TestClient) -> None:
    ended = client.get("/api/v1/3x3k3-gravity/analyze", params={"moves": "2,0 2,1 1,0 1,1 0,0 0,1"})  # X fills column 0 at ply 5
    assert ended.status_code == 400 and "the game ended at ply 5" in ended.json()["error"]
    taken = client.get("/api/v1/3x3k3-gravity/analyze", params={"moves": "2,0 2,0"})
    assert taken.status_code == 400 and "ply 2" in taken.json()["error"] and "took it at ply 1" in taken.json()["error"]


def test_a_gravity_game_is_analysed_ply_by_ply(client: TestClient, tables: dict[str, solver.Table]) -> None:
    moves = [9, 10, 5, 11, 1]  # 3x4: X 2,1, O 2,2, X 1,1, O 2,3, X 0,1: three in column 1 (sent as row,col: a move list's plainest form here)
    answer = client.get("/api/v1/3x4k3-gravity/analyze", params={"moves": "2,1;2,2;1,1;2,3;0,1"})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data == analyze([tables["3x4k3-gravity"].game.coords(cell) for cell in moves], table=tables["3x4k3-gravity"]).to_dict()
    assert data["moves"] == moves and data["final"]["board"] == ".X../.X../.XOO" and data["final"]["winner"] == "X"
    assert [ply["col"] for ply in data["plies"]] == [1, 2, 1, 3, 1]


def test_the_mainline_drops_every_piece_on_its_column(client: TestClient, tables: dict[str, solver.Table]) -> None:
    table = tables["3x4k3-gravity"]
    data = client.get("/api/v1/3x4k3-gravity/mainline").json()
    position = table.at(0)
    for step in data["mainline"]:
        x, o = masks(table.game, position.board)
        assert table.game.rules.landing(x | o, step["col"]) == step["cell"] and step["cell"] in position.best_cells
        position = position.play((step["row"], step["col"]))
        assert step["board"] == position.board
    assert position.is_over and data["final"] == position.board and data["winner"] == position.winner == "X"


def test_the_openapi_document_describes_best_columns_and_the_rule(client: TestClient) -> None:
    document = client.get("/api/v1/openapi.json").json()
    schemas = document["components"]["schemas"]
    assert "gravity" in schemas["Position"]["properties"]["best_columns"]["description"]
    rule = schemas["Games"]["properties"]["games"]["items"]["properties"]["rule"]
    assert set(rule["required"]) == set(client.get("/api/v1/games").json()["games"][0]["rule"]) == {"suffix", "title", "line_wins", "drops"}
    assert "3x4k3-gravity" in document["paths"]["/api/v1/{game}"]["get"]["parameters"][0]["schema"]["enum"]


def test_a_compact_gravity_table_past_16_cells_is_served_with_the_same_answers(table_dir: Path) -> None:
    table = solver.table_for("2x9k4-gravity", table_dir=table_dir, build=True)
    assert isinstance(table, solver.CompactTable)
    client = TestClient(web.create_app(web.open_tables(["2x9k4-gravity"], table_dir=table_dir)))
    rng = random.Random(5)
    boards = []
    for _ in range(40):  # random games of up to 12 plies, each move a column
        position = table.at(0)
        for _ in range(rng.randint(0, 12)):
            if position.is_over:
                break
            position = position.play(position.game.coords(rng.choice(position_dict(position)["moves"])["cell"]))
        boards.append(position.board)
    results = client.post("/api/v1/2x9k4-gravity/batch", json={"boards": boards}).json()["results"]
    for board, result in zip(boards, results, strict=True):
        position = table.lookup(board)
        x, o = masks(table.game, board)
        assert result == client.get("/api/v1/2x9k4-gravity", params={"board": board}).json() == position_dict(position), board
        assert sorted(move["cell"] for move in result["moves"]) == ([] if position.is_over else sorted(_bits(table.game.rules.moves(x, o)))), board
        assert result["best_columns"] == sorted(cell % 9 for cell in position.best_cells)


def _bits(mask: int) -> list[int]:
    return [cell for cell in range(mask.bit_length()) if mask >> cell & 1]


@pytest.mark.parametrize(("game", "moves"), [("3x3k3-gravity", "2 2"), ("3x3k3-gravity", "1;1;0"), ("3x4k3-gravity", "1 2 1 3 1"), ("3x3k3-gravity", "2,2 1")])
def test_a_bare_number_is_a_column_over_http_as_on_the_command_line(client: TestClient, tables: dict[str, solver.Table], game: str, moves: str) -> None:
    """One move language under gravity: ``analyze?moves=2+2`` drops twice in column 2, as ``solve analyze --game G 2 2`` does
    (each move read by solver.encoding.drops, as the command line reads its arguments); a row,col pair is the cell the piece lands on."""
    from click.testing import CliRunner

    from solver.cli import main

    answer = client.get(f"/api/v1/{game}/analyze", params={"moves": moves})
    assert answer.status_code == 200, answer.text
    args = moves.replace(";", " ").split()
    assert answer.json() == analyze(args, table=tables[game]).to_dict()
    cli = CliRunner().invoke(main, ["analyze", "--game", game, "--json", *args], env={"SOLVED_TICTACTOE_DIR": str(tables[game].path.parent)})
    assert cli.exit_code == 0, cli.output
    assert json.loads(cli.stdout) == answer.json()
    bare = [int(arg) for arg in args if "," not in arg]
    assert [ply["col"] for ply in answer.json()["plies"] if "," not in args[ply["ply"] - 1]] == bare


def test_a_column_past_the_board_or_full_is_400_in_the_words_of_the_command_line(client: TestClient) -> None:
    off = client.get("/api/v1/3x3k3-gravity/analyze", params={"moves": "1 7"})
    assert off.status_code == 400 and off.json()["error"].startswith("ply 2: column 7 is off the board: expected a column 0-2"), off.text
    full = client.get("/api/v1/3x3k3-gravity/analyze", params={"moves": "1 1 1 1"})
    assert full.status_code == 400 and full.json()["error"].startswith("ply 4: column 1 is full on "), full.text
    joined = client.get("/api/v1/3x3k3-gravity/analyze", params={"moves": "1,1,0"})
    assert joined.status_code == 400 and "moves are separated by spaces or ';'" in joined.json()["error"], joined.text


def test_a_full_column_of_a_move_string_is_400_in_the_move_strings_numbering(client: TestClient) -> None:
    """``moves=2222`` is column 2 (from 1) four times: the error names column 2 and the columns with room as 1 and 3."""
    full = client.get("/api/v1/3x3k3-gravity/analyze", params={"moves": "2222"})
    assert full.status_code == 400, full.text
    assert full.json()["error"].startswith("ply 4 (move 4 of the move string '2222'): column 2 is full on "), full.text
    assert full.json()["error"].endswith(": the columns with room are 1 and 3"), full.text
