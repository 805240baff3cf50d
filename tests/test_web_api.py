"""The HTTP API of `solve serve` (solver/web), through Starlette's test client and a real server.

Every answer is checked against the Python API it wraps: ``solver.lookup(...).to_dict()``,
``solver.analyze``, and what ``solve lookup --json`` prints.
"""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from web_support import need_web, running_server

import solver
import solver.contents.opening
import solver.storage.tablefile
import solver.store.locate
from solver.cli import main

need_web()

with warnings.catch_warnings():  # Starlette 1.x suggests httpx2 for its test client; httpx works the same
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from solver import web  # noqa: E402
from solver.web import app as web_app  # noqa: E402

TABLE = solver.table_for("3x3k3")
BOARDS = ["XO./.X./...", ".../.../...", "XX./OO./...", "XOX/OXO/X..", "XXX/OO./...", "XOX/XOO/OXX", "X.O/.X./..O"]


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(web.create_app([TABLE]))


def _rank(move: dict[str, Any]) -> tuple[int, int, int]:
    """Best first: wins fastest, then draws, then losses slowest; ties in cell order."""
    group, plies = {"win": (0, move["plies"]), "draw": (1, 0), "loss": (2, -move["plies"])}[move["result"]]
    return group, plies, move["cell"]


def _sorted_like_lichess(moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(moves, key=_rank)


# -- one position ---------------------------------------------------------------------
@pytest.mark.parametrize("board", BOARDS)
def test_lookup_is_the_object_solve_lookup_json_prints_with_moves_best_first(client: TestClient, board: str) -> None:
    printed = CliRunner().invoke(main, ["lookup", board, "--json"])
    assert printed.exit_code == 0, printed.output
    cli = json.loads(printed.output)
    answer = client.get("/api/v1/3x3k3", params={"board": board})
    assert answer.status_code == 200
    data = answer.json()
    assert answer.headers["content-type"] == "application/json"
    assert {k: v for k, v in data.items() if k != "moves"} == {k: v for k, v in cli.items() if k != "moves"}
    assert sorted(data["moves"], key=lambda m: m["cell"]) == cli["moves"]
    assert data["moves"] == _sorted_like_lichess(cli["moves"]), f"moves of {board} not best first"


def test_every_position_answers_the_same_as_to_dict_best_first(client: TestClient) -> None:
    codes = TABLE.reachable_codes().tolist()
    answer = client.post("/api/v1/3x3k3/batch", json={"boards": codes})
    assert answer.status_code == 200
    results = answer.json()["results"]
    assert len(results) == len(codes) == 5478
    for code, result in zip(codes, results, strict=True):
        position = solver.lookup(code)
        assert result == position.to_dict(best_first=True), position.board
        assert result["moves"] == _sorted_like_lichess(result["moves"]), position.board
        assert [m["cell"] for m in result["moves"] if m["best"]] == sorted(position.best_cells) or not position.best_cells


@pytest.mark.parametrize(("game", "sample"), [("3x3k3", None), ("3x4k3", 20_000), ("2x4k2", None), ("1x5k3", None), ("4x1k2", None)])
def test_the_vectorised_batch_answers_are_the_bytes_of_to_dict_best_first(table_dir: Path, game: str, sample: int | None) -> None:
    from solver.web.batch import answers

    table = solver.table_for(game, table_dir=table_dir)
    codes = table.reachable_codes()
    if sample is not None:
        codes = np.random.default_rng(3).choice(codes, sample, replace=False)
    for code, made in zip(codes.tolist(), answers(table, codes), strict=True):
        assert made == json.dumps(table.at(code).to_dict(best_first=True)).encode(), table.at(code).board


def test_moves_best_first_puts_the_fastest_win_before_slower_wins_and_the_slowest_loss_first() -> None:
    won = solver.lookup("XX./OO./...").to_dict(best_first=True)["moves"]  # X wins at once at 2
    assert won[0]["cell"] == 2 and won[0]["result"] == "win" and won[0]["plies"] == 1
    assert [m["result"] for m in won] == sorted((m["result"] for m in won), key=["win", "draw", "loss"].index)
    lost = solver.lookup("XO./.X./...").to_dict(best_first=True)["moves"]  # O loses whatever; 2,2 holds out longest
    assert [(m["cell"], m["plies"]) for m in lost] == [(8, 4), (2, 2), (3, 2), (5, 2), (6, 2), (7, 2)]


@pytest.mark.parametrize("form", ["XO./.X./...", "XO..X....", "xo./.x./...", "XO-/-X-/---", "XO_/_X_/___", "88", " 88 "])
def test_every_board_form_the_cli_accepts_gives_the_same_answer(client: TestClient, form: str) -> None:
    answer = client.get("/api/v1/3x3k3", params={"board": form})
    assert answer.status_code == 200, answer.text
    assert answer.json()["code"] == 88


def test_no_board_means_the_empty_board(client: TestClient) -> None:
    assert client.get("/api/v1/3x3k3").json() == solver.lookup(0).to_dict(best_first=True)


@pytest.mark.parametrize("board", ["XX./.../...", "XXX/OOO/...", "XO./.X", "XQ./.../...", "99999", "", "X" * 200])
def test_a_bad_board_is_400_with_the_invalid_board_error_message(client: TestClient, board: str) -> None:
    answer = client.get("/api/v1/3x3k3", params={"board": board})
    assert answer.status_code == 400
    with pytest.raises(solver.InvalidBoardError) as raised:
        solver.lookup(int(board) if board.isdigit() else board)
    assert answer.json() == {"error": " ".join(str(raised.value).split())}


def test_a_game_not_served_is_404_naming_solve_build_and_builds_nothing(table_dir: Path) -> None:
    client = TestClient(web.create_app(table_dir=table_dir))
    started = time.perf_counter()
    for name in ("4x4k4", "4x4", "5x5k4", "banana", "99x99"):
        answer = client.get(f"/api/v1/{name}", params={"board": "0"})
        assert answer.status_code == 404
        assert "error" in answer.json()
    assert time.perf_counter() - started < 2, "a request must not start a build"
    message = client.get("/api/v1/4x4").json()["error"]
    assert "solve build --game 4x4k4" in message and "solve serve --game 4x4k4" in message
    assert "unknown game 'banana'" in client.get("/api/v1/banana").json()["error"]
    assert not table_dir.exists() or not any(table_dir.iterdir()), "a request built a table"


def test_a_compact_table_past_16_cells_is_served_like_any_other(table_dir: Path) -> None:
    table = solver.store.locate.build_and_open(solver.parse_game("2x9k4"), table_dir / "2x9k4.ttt")
    client = TestClient(web.create_app(web.open_tables(["2x9k4"], table_dir=table_dir)))
    board = "X........./.O.......".replace("./", "/")
    answer = client.get("/api/v1/2x9k4", params={"board": board}).json()
    position = table.lookup(board)
    assert (answer["result"], answer["plies"], answer["best_moves"]) == (position.result, position.plies, [list(m) for m in position.best_moves])
    batch = client.post("/api/v1/2x9k4/batch", json={"boards": [board, 0]}).json()["results"]
    assert batch[0] == answer and batch[1]["result"] == table.at(0).result


def test_a_damaged_table_is_refused_before_the_server_listens(table_dir: Path) -> None:
    path = solver.build_table(game="3x4").save(table_dir / "3x4k3.ttt")
    data = bytearray(path.read_bytes())
    data[solver.contents.opening.open_table(path).header.spec("entries").offset + 4 * 3**11] ^= 1  # a block no request has touched
    path.write_bytes(bytes(data))
    solver.forget()
    with pytest.raises(solver.TableError, match="does not match its checksum"):
        web.open_tables(["3x4k3"], table_dir=table_dir)


def test_tables_in_the_table_directory_are_served_under_their_name_and_aliases(table_dir: Path) -> None:
    solver.table_for("3x4k3", table_dir=table_dir)  # built into the directory, as `solve build` would
    client = TestClient(web.create_app(table_dir=table_dir))
    assert [g["name"] for g in client.get("/api/v1/games").json()["games"]] == ["3x3k3", "3x4k3"]
    board = "X.../.O../...."
    expected = solver.table_for("3x4k3", table_dir=table_dir).lookup(board).to_dict(best_first=True)
    for name in ("3x4k3", "3x4"):
        assert client.get(f"/api/v1/{name}", params={"board": board}).json() == expected
    assert client.get("/api/v1/3x3k3", params={"board": board}).status_code == 400  # a 3x4 board is not a 3x3 one


# -- mainline and analyze ---------------------------------------------------------------
@pytest.mark.parametrize("board", BOARDS)
def test_mainline_plays_a_best_move_every_ply_to_the_end(client: TestClient, board: str) -> None:
    data = client.get("/api/v1/3x3k3/mainline", params={"board": board}).json()
    position = solver.lookup(board)
    assert (data["board"], data["over"], data["plies"], data["value"]) == (position.board, position.is_over, position.plies, position.value)
    assert data["result"] == position.result
    assert data.get("to_move") == position.to_move
    assert len(data["mainline"]) == position.plies or position.result == "draw"
    for step in data["mainline"]:
        assert step["cell"] in position.best_cells, f"{step} is not a best move on {position.board}"
        position = position.play(step["cell"])
        assert step["board"] == position.board
    assert position.is_over and data["final"] == position.board and data["winner"] == position.winner
    assert {1: "X", -1: "O", 0: None}[data["value"]] == data["winner"]


@pytest.mark.parametrize("moves", ["4 1 0", "1,1 0,1 0,0", "(1,1) (0,1) (0,0)", "4;1;0", "1,1;0,1;0,0", " (1, 1)  [0, 1]; 0 "])
def test_analyze_answers_what_solve_analyze_json_prints(client: TestClient, moves: str) -> None:
    answer = client.get("/api/v1/3x3k3/analyze", params={"moves": moves})
    assert answer.status_code == 200, answer.text
    printed = CliRunner().invoke(main, ["analyze", "4", "1", "0", "--json"])
    assert answer.json() == json.loads(printed.output) == solver.analyze([4, 1, 0]).to_dict()
    assert [p["verdict"] for p in answer.json()["plies"]] == ["best", "mistake", "best"]


@pytest.mark.parametrize("moves", ["4,0,4", "0 3 1 4 2 5", "9", "3,3", "x"])
def test_an_illegal_move_list_is_400_naming_the_ply(client: TestClient, moves: str) -> None:
    answer = client.get("/api/v1/3x3k3/analyze", params={"moves": moves})
    assert answer.status_code == 400
    assert answer.json()["error"].startswith("ply ")


@pytest.mark.parametrize("move", ["(1,1)", "1,1", "[1, 1]", "(1, 1)", " 1,1 ", "4"])
def test_a_row_col_move_is_one_move_over_http_as_in_the_cli_and_python(client: TestClient, move: str) -> None:
    """BUG: ``moves=(1,1)`` was the two cells [1, 1] over HTTP, and row 1, col 1 (cell 4) everywhere else."""
    answer = client.get("/api/v1/3x3k3/analyze", params={"moves": move})
    assert answer.status_code == 200, answer.text
    printed = json.loads(CliRunner().invoke(main, ["analyze", move.strip(), "--json"]).output)
    assert answer.json()["moves"] == printed["moves"] == list(solver.analyze([move]).cells) == [4]


@pytest.mark.parametrize(
    "moves, cells",
    [
        ("1,1 0,0 2,2", [4, 0, 8]),
        ("1,1;0,0;2,2", [4, 0, 8]),
        ("(1,1)(0,0)", None),
        ("4+0+8", [4, 0, 8]),
        ("4%200%208", [4, 0, 8]),
        ("4;0;8", [4, 0, 8]),
        ("(0,%201);4", [1, 4]),
        ("2,2;4", [8, 4]),
    ],
)
def test_a_move_list_in_a_url_is_split_at_spaces_and_semicolons_only(client: TestClient, moves: str, cells: list[int] | None) -> None:
    answer = client.get(f"/api/v1/3x3k3/analyze?moves={moves}")
    if cells is None:
        assert answer.status_code == 400 and "ply 1: cannot read move '(1,1)(0,0)'" in answer.json()["error"]
    else:
        assert answer.status_code == 200, answer.text
        assert answer.json()["moves"] == cells


@pytest.mark.parametrize(
    "moves, needles", [("4,0,8", ["ply 1", "'4,0,8'", "4 0 8", "4;0;8"]), ("4,1", ["ply 1", "off the board", "two cells are written 4 1 or 4;1"])]
)
def test_cells_joined_by_commas_are_refused_saying_how_to_write_the_list(client: TestClient, moves: str, needles: list[str]) -> None:
    answer = client.get("/api/v1/3x3k3/analyze", params={"moves": moves})
    assert answer.status_code == 400
    for needle in needles:
        assert needle in answer.json()["error"]


def test_a_move_list_longer_than_the_board_is_400_before_it_is_read_to_the_end(client: TestClient) -> None:
    answer = client.get("/api/v1/3x3k3/analyze", params={"moves": "0 " * 9 + "x " * 500})
    assert answer.status_code == 400
    assert answer.json()["error"] == "more than 9 moves given: a 3x3k3 game has at most 9 plies"


def test_the_openapi_document_states_the_move_list_rule(client: TestClient) -> None:
    parameters = client.get("/api/v1/openapi.json").json()["paths"]["/api/v1/{game}/analyze"]["get"]["parameters"]
    rule = next(p for p in parameters if p["name"] == "moves")["description"]
    for needle in ("solve analyze", "spaces", "`;`", "`1,1` is row 1, col 1 (cell 4)", "`4,0,8` is refused"):
        assert needle in rule


def test_analyze_with_no_moves_is_the_empty_game(client: TestClient) -> None:
    data = client.get("/api/v1/3x3k3/analyze").json()
    assert data["plies"] == [] and data["final"]["board"] == ".../.../..."


# -- boards as text: one reading with the CLI ---------------------------------------------
@pytest.mark.parametrize("board", ["²", "\u0663", "\u0661\u0663\u0662\u0662\u0662", "1²", "８８", "\u00b9" * 9])
def test_a_board_of_non_ascii_digits_is_400_naming_the_digit_not_500_or_a_code(client: TestClient, board: str) -> None:
    """Digits other than 0-9 are no code: ``int()`` reads some (Arabic-Indic ``\u0663`` is 3) and raises
    on others (``²``); either way the answer is a 400 saying so, for a look-up, a mainline and a batch item."""
    for path in ("/api/v1/3x3k3", "/api/v1/3x3k3/mainline"):
        answer = client.get(path, params={"board": board})
        assert answer.status_code == 400, (path, board, answer.status_code, answer.text)
        error = answer.json()["error"]
        assert "ASCII digits 0-9" in error and f"U+{ord(next(c for c in board if not c.isascii())):04X}" in error
    item = client.post("/api/v1/3x3k3/batch", json={"boards": [board, 88]})
    assert item.status_code == 200
    first, second = item.json()["results"]
    assert "ASCII digits 0-9" in first["error"] and second["code"] == 88


def test_a_code_of_thousands_of_ascii_digits_in_a_batch_is_that_boards_error_not_500(client: TestClient) -> None:
    """BUG: a batch's board string of 5,000 ASCII digits reached ``int()``, which refuses over 4,300
    digits with a ValueError: the whole request was a 500. Now it is out of range, like on the command line."""
    answer = client.post("/api/v1/3x3k3/batch", json={"boards": ["1" * 5000, "0" * 5000 + "88", "88"]})
    assert answer.status_code == 200, answer.text
    huge, zeros, plain = answer.json()["results"]
    assert "out of range for 3x3k3" in huge["error"] and "5,000 characters" in huge["error"]
    assert "leading zeros" in zeros["error"] and "5,002 characters" in zeros["error"]
    assert plain == solver.lookup(88).to_dict(best_first=True)


@pytest.mark.parametrize("text", ["88", " 88 ", "00088", "XO./.X./...", "-1", "19683", "XO./.X", "²", "000000001"])
def test_a_board_over_http_reads_as_solve_lookup_reads_it(client: TestClient, text: str) -> None:
    answer = client.get("/api/v1/3x3k3", params={"board": text})
    printed = CliRunner().invoke(main, ["lookup", text, "--json"])
    if printed.exit_code == 0:
        assert answer.status_code == 200 and answer.json()["code"] == json.loads(printed.stdout)["code"]
    else:
        assert answer.status_code == 400 and printed.exit_code == 2
        assert printed.stderr.strip() == f"solve: error: {answer.json()['error']}"


# -- batch ----------------------------------------------------------------------------
def test_batch_answers_each_board_in_order_with_an_error_for_that_board_alone(client: TestClient) -> None:
    boards: list[Any] = ["XO./.X./...", 88, "XX./.../...", 3**9, -1, True, None, 1.5, "X", "xo./.x./..."]
    results = client.post("/api/v1/3x3k3/batch", json={"boards": boards}).json()["results"]
    assert len(results) == len(boards)
    assert results[0] == results[1] == results[9] == solver.lookup(88).to_dict(best_first=True)
    for index in (2, 3, 4, 8):
        with pytest.raises(solver.InvalidBoardError) as raised:
            solver.lookup(boards[index])
        assert results[index] == {"error": " ".join(str(raised.value).split())}, boards[index]
    expected = "expected a board string (rows of X, O and '.', separated by '/') or an int code"
    assert [results[index]["error"] for index in (5, 6, 7)] == [f"board is {found}: {expected}" for found in ("true", "null", "1.5")]


def test_a_null_or_other_json_value_in_a_batch_is_named_as_json_names_it_not_as_python_does(client: TestClient) -> None:
    """Issue 24: a ``null`` read "cannot read a board from NoneType"."""
    results = client.post("/api/v1/3x3k3/batch", json={"boards": [None, False, [1, 2], {"b": 1}]}).json()["results"]
    errors = [result["error"] for result in results]
    assert [error.split(":")[0] for error in errors] == ["board is null", "board is false", "board is an array", "board is an object"]
    assert not any("NoneType" in error or "dict" in error or "list" in error for error in errors), errors
    with pytest.raises(solver.InvalidBoardError, match=r"^the board is None: expected an int code, a string"):
        solver.lookup(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/api/v1/3x3k3/lookup?board=X..%2F...%2F...", None),
        ("GET", "/api/v1/3x3k3/mainline?board=0", None),
        ("GET", "/api/v1/3x3k3/analyze?moves=4+0", None),
        ("GET", "/api/v1/games", None),
        ("GET", "/api/v1/openapi.json", None),
        ("GET", "/api/v1/3x3k3/lookup?board=XXXX", None),
        ("GET", "/api/v1/9x9k3/lookup?board=0", None),
        ("POST", "/api/v1/3x3k3/batch", {"boards": ["X../.../...", None]}),
        ("POST", "/api/v1/3x3k3/batch", {"nope": 1}),
    ],
)
def test_every_json_body_ends_with_one_newline_as_the_cli_prints_it(client: TestClient, method: str, path: str, body: Any) -> None:
    """Issue 24: ``curl`` of any endpoint left the shell's prompt after the closing brace."""
    answer = client.request(method, path, json=body)
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.content.endswith(b"}\n") and not answer.content.endswith(b"\n\n"), answer.content[-40:]
    json.loads(answer.content)


@pytest.mark.parametrize("body", [b"{", b"[1, 2]", b'{"boards": "XO./.X./..."}', b'{"board": []}', b"\xff\xfe", b"[" * 100_000])
def test_a_malformed_batch_body_is_400(client: TestClient, body: bytes) -> None:
    answer = client.post("/api/v1/3x3k3/batch", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 400
    assert answer.json()["error"]


def test_a_batch_over_the_documented_limit_is_413(client: TestClient) -> None:
    assert web.MAX_BATCH >= 100_000
    over = client.post("/api/v1/3x3k3/batch", json={"boards": [0] * (web.MAX_BATCH + 1)})
    assert over.status_code == 413 and f"{web.MAX_BATCH:,}" in over.json()["error"]
    huge = client.post("/api/v1/3x3k3/batch", content=b" " * (web.MAX_BODY_BYTES + 1))
    assert huge.status_code == 413


def test_a_batch_of_100000_boards_with_full_objects_answers_within_a_second_or_two(client: TestClient) -> None:
    rng = np.random.default_rng(9)
    codes = rng.choice(TABLE.reachable_codes(), 100_000)
    boards = [solver.lookup(int(code)).board for code in codes[:50_000]] + codes[50_000:].tolist()
    client.post("/api/v1/3x3k3/batch", json={"boards": boards[:10]})  # the app is warm
    started = time.perf_counter()
    answer = client.post("/api/v1/3x3k3/batch", json={"boards": boards})
    elapsed = time.perf_counter() - started
    results = answer.json()["results"]
    assert len(results) == 100_000
    for index in (0, 1, 49_999, 50_000, 99_999):
        assert results[index] == solver.lookup(int(codes[index])).to_dict(best_first=True)
    # The target is 1 s (scripts/load_test.py measures it over a real socket); the bound here
    # leaves room for a loaded test machine.
    assert elapsed < 3, f"100,000 boards took {elapsed:.2f} s"


# -- HTTP behaviour -------------------------------------------------------------------
def test_answers_carry_an_etag_keyed_on_the_table_checksum_and_a_304_when_unchanged(client: TestClient) -> None:
    first = client.get("/api/v1/3x3k3", params={"board": "XO./.X./..."})
    etag = first.headers["etag"]
    assert web.table_checksum(TABLE)[:20] in etag
    assert first.headers["cache-control"] == "public, max-age=86400"
    assert client.get("/api/v1/3x3k3", params={"board": "88"}).headers["etag"] == etag  # same position, same answer
    assert client.get("/api/v1/3x3k3", params={"board": "0"}).headers["etag"] != etag
    again = client.get("/api/v1/3x3k3", params={"board": "XO./.X./..."}, headers={"if-none-match": etag})
    assert again.status_code == 304 and again.content == b""
    for path in ("/api/v1/3x3k3/mainline?board=88", "/api/v1/3x3k3/analyze?moves=4+1"):
        tag = client.get(path).headers["etag"]
        assert client.get(path, headers={"if-none-match": tag}).status_code == 304


def test_any_web_page_may_call_the_api(client: TestClient) -> None:
    origin = {"origin": "https://example.org"}
    assert client.get("/api/v1/3x3k3", params={"board": "88"}, headers=origin).headers["access-control-allow-origin"] == "*"
    preflight = client.options(
        "/api/v1/3x3k3/batch", headers={**origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type"}
    )
    assert preflight.status_code == 200 and "POST" in preflight.headers["access-control-allow-methods"]
    answer = client.post("/api/v1/3x3k3/batch", json={"boards": [88]}, headers=origin)
    assert answer.headers["access-control-allow-origin"] == "*" and answer.json()["results"][0]["code"] == 88


def test_the_openapi_document_describes_every_api_route(client: TestClient) -> None:
    document = client.get("/api/v1/openapi.json").json()
    assert document["openapi"].startswith("3.")
    assert set(document["paths"]) == {
        "/api/v1/games",
        "/api/v1/games/{game}",
        "/api/v1/{game}",
        "/api/v1/{game}/mainline",
        "/api/v1/{game}/analyze",
        "/api/v1/{game}/batch",
        "/api/v1/{game}/outcomes.svg",
    }
    batch = document["paths"]["/api/v1/{game}/batch"]["post"]
    assert batch["requestBody"]["content"]["application/json"]["schema"]["properties"]["boards"]["maxItems"] == web.MAX_BATCH
    schema = document["components"]["schemas"]["Position"]
    playing, over = (set(schema["required"]) | set(branch["required"]) for branch in schema["oneOf"])
    assert playing == set(solver.lookup(0).to_dict()) and over == set(solver.lookup("XXX/OO./...").to_dict())
    assert set(schema["properties"]) == playing | over | {"best_columns"}  # best_columns: under gravity only (test_web_gravity.py)


@pytest.mark.parametrize(
    "path",
    [
        "/nope",
        "/api/v2/3x3k3",
        "/api/v1/3x3k3/nope",
        "/static/nope.js",
        "/static/../solver/api.py",
        "/static/%2e%2e/app.py",
        "/static/..%2fapp.py",
        "/static/%2e%2e%2f%2e%2e%2fpyproject.toml",
        "/static/index.html",
        "/api/v1/..%2f..%2fetc%2fpasswd",
        "/etc/passwd",
        "//etc/passwd",
    ],
)
def test_unknown_paths_and_path_traversal_are_json_404s(client: TestClient, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 404, path
    assert "error" in answer.json()


def test_a_wrong_method_is_405(client: TestClient) -> None:
    assert client.post("/api/v1/3x3k3").status_code == 405
    assert client.get("/api/v1/3x3k3/batch").status_code == 405
    assert "error" in client.delete("/").json()


def test_a_query_string_over_the_limit_is_414(client: TestClient) -> None:
    answer = client.get("/api/v1/3x3k3", params={"board": "X" * (web.MAX_QUERY_BYTES + 1)})
    assert answer.status_code == 414 and "error" in answer.json()


def test_the_page_and_its_files_are_served_with_their_types_and_a_content_security_policy(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    for name, kind in (("app.js", "text/javascript"), ("style.css", "text/css"), ("favicon.svg", "image/svg+xml")):
        answer = client.get(f"/static/{name}")
        assert answer.status_code == 200 and answer.headers["content-type"].startswith(kind)
        assert answer.content == (web_app.static_dir() / name).read_bytes()
    text = page.text + client.get("/static/app.js").text + client.get("/static/style.css").text
    assert "http://" not in text.replace("http://www.w3.org", "") and "https://" not in text, "the page must fetch nothing from elsewhere"


def test_the_games_list_names_each_served_game_and_how_to_serve_more(client: TestClient) -> None:
    listing = client.get("/api/v1/games").json()
    assert listing["games"] == [
        {
            "name": "3x3k3",
            "rows": 3,
            "cols": 3,
            "k": 3,
            "cells": 9,
            "rule": {"suffix": "", "title": "normal play", "line_wins": True, "drops": False},
            "checksum": web.table_checksum(TABLE),
            "searched": False,  # answered from a table (Connect Four is answered by search)
        }
    ]
    assert listing["default"] == "3x3k3" and "solve serve --game" in listing["more"]


# -- the package and the command --------------------------------------------------------
def test_import_solver_does_not_import_the_web_stack() -> None:
    code = "import sys, solver; solver.lookup(0); print(sorted(m for m in ('starlette', 'uvicorn', 'solver.web') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_solve_serve_without_the_web_extra_says_how_to_install_it_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "solver.web" or m.startswith(("solver.web.", "starlette"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.delattr(solver, "web", raising=False)  # `from . import web` would find the loaded module here
    monkeypatch.setitem(sys.modules, "starlette", None)  # what an environment without the extra looks like
    result = CliRunner().invoke(main, ["serve", "--port", "0"])
    assert result.exit_code == 1
    assert result.output.strip().count("\n") == 0
    checkout = Path(solver.__file__).resolve().parent.parent  # the tests run the package from its checkout
    assert f"install it with {shlex.quote(sys.executable)} -m pip install {shlex.quote(f'{checkout}[web]')}" in result.output
    assert "solved-tictactoe[web]" not in result.output and "Traceback" not in result.output


def test_solve_serve_binds_loopback_answers_and_stops_cleanly_on_ctrl_c(table_dir: Path) -> None:
    with running_server(table_dir) as (url, process):
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url + "api/v1/3x3k3?board=XO./.X./...") as response:
            assert json.loads(response.read()) == solver.lookup(88).to_dict(best_first=True)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=15) == 0
        assert process.stderr is not None
        assert "Traceback" not in process.stderr.read()


def test_solve_serve_builds_named_games_before_listening_and_serves_them(table_dir: Path) -> None:
    with running_server(table_dir, "--game", "3x4k3", "--table-dir", str(table_dir)) as (url, _):
        assert (table_dir / "3x4k3.ttt").is_file()
        with urllib.request.urlopen(url + "api/v1/games") as response:
            listing = json.loads(response.read())
        assert [g["name"] for g in listing["games"]] == ["3x4k3", "3x3k3"] and listing["default"] == "3x4k3"
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(url + "api/v1/4x4k4")
        assert missing.value.code == 404


def test_the_outcomes_chart_is_an_svg_of_the_tables_counts_by_ply_cached_like_the_answers(client: TestClient) -> None:
    import xml.etree.ElementTree as ET

    answer = client.get("/api/v1/3x3k3/outcomes.svg")
    assert answer.status_code == 200 and answer.headers["content-type"] == "image/svg+xml"
    assert "<script" not in answer.text.lower() and " style=" not in answer.text, "the page's Content-Security-Policy lets it in"
    root = ET.fromstring(answer.text)
    drawn = {
        (int(rect.attrib["data-ply"]), rect.attrib["data-outcome"]): int(rect.attrib["data-count"])
        for rect in root.iter("{http://www.w3.org/2000/svg}rect")
        if "data-outcome" in rect.attrib
    }
    for ply, counts in enumerate(TABLE.ply_counts()):
        assert drawn[ply, "positions"] == counts.positions
        assert drawn.get((ply, "draws"), 0) == counts.draws
        assert drawn.get((ply, "x_wins" if ply % 2 == 0 else "o_wins"), 0) == counts.wins
    etag = answer.headers["etag"]
    assert web.table_checksum(TABLE)[:20] in etag
    assert client.get("/api/v1/3x3k3/outcomes.svg", headers={"if-none-match": etag}).status_code == 304
    missing = client.get("/api/v1/5x5k4/outcomes.svg")
    assert missing.status_code == 404 and "solve build --game 5x5k4" in missing.json()["error"]


def test_every_json_answer_is_spaced_as_the_docs_show_it(client: TestClient) -> None:
    """One spacing for every endpoint, batches too (``{"results": [{...}, {...}]}``, as docs/http.md shows):
    each body is ``json.dumps`` of itself with its default separators, and a newline."""
    requests = [
        ("GET", "/api/v1/games", None),
        ("GET", "/api/v1/3x3k3?board=88", None),
        ("GET", "/api/v1/3x3k3/mainline?board=88", None),
        ("GET", "/api/v1/3x3k3/analyze?moves=4+0", None),
        ("POST", "/api/v1/3x3k3/batch", {"boards": ["XX./OO./...", 13222, "XX./.../...", None]}),
        ("GET", "/api/v1/3x3k3?board=XX./.../...", None),
        ("GET", "/api/v1/chess", None),
        ("GET", "/tables/", None),
    ]
    for method, path, body in requests:
        answer = client.request(method, path, json=body)
        text = answer.text
        assert text == json.dumps(json.loads(text)) + "\n", (path, text[:200])
    batch = client.post("/api/v1/3x3k3/batch", json={"boards": [0, 88]}).text
    assert batch.startswith('{"results": [{"game": "3x3k3", ') and '}, {"game": "3x3k3", ' in batch
