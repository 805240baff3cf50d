"""Misère play (whoever completes a line loses) is a game like any other: every command, function and
front end takes its name, and its words follow its rule.

The values themselves are checked against the independent minimax in test_tables_match_minimax.py
(every position of the small misère games) and test_compact.py (the layered build, 3x6k3-misere).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner
from web_support import need_web

import solver
from solver.cli import main
from solver.storage.tablefile import open_table

PLAYERS = Path(__file__).resolve().parent / "players"
MISERE = "3x3k3-misere"


def _ok(runner: CliRunner, *args: str, input: str | None = None) -> str:
    result = runner.invoke(main, list(args), input=input)
    assert result.exit_code == 0, (args, result.stdout, result.stderr, result.exception)
    return result.stdout


@pytest.mark.parametrize("name", ["3x3k3-misere", "3x3k3-misère", "3x3-MISÈRE", "3x3k3-Misere"])
def test_every_spelling_of_the_suffix_names_the_same_game(name: str) -> None:
    game = solver.parse_game(name)
    assert game.name == MISERE and game.variant == "misere" and not game.rules.line_wins


def test_an_unknown_rule_is_refused_naming_the_rules_that_exist() -> None:
    with pytest.raises(solver.InvalidGameError, match=r"no rule is named 'gravty'.*'misere'"):
        solver.parse_game("3x3k3-gravty")


def test_normal_and_misere_play_are_different_games_with_different_tables(table_dir: Path) -> None:
    normal, misere = solver.parse_game("3x3k3"), solver.parse_game(MISERE)
    assert normal != misere and hash(normal) != hash(misere)
    assert solver.table_for(normal).sha256 != solver.table_for(misere).sha256


def test_the_python_functions_take_a_misere_game(table_dir: Path) -> None:
    # X to move: completing the top row would lose at once; the bottom row draws.
    position = solver.lookup("XX./OO./...", game=MISERE)
    moves = {move.cell: move for move in position.moves}
    assert (moves[2].result, moves[2].plies) == ("loss", 1)
    assert position.best_cells == (6, 7, 8) and position.result == "draw"
    assert solver.best_move("XX./OO./...", game=MISERE) in {(2, 0), (2, 1), (2, 2)}
    assert solver.get("XXX/XXX/XXX", game=MISERE) is None
    scores = solver.lookup_codes([position.code, solver.encode("XXX/OO./...", game=MISERE)], game=MISERE)
    assert scores.score.tolist() == [0, 100]  # already won for O, the side to move
    analysis = solver.analyze([0, 3, 1, 4, 2], game=MISERE)  # X completes the top row on ply 5
    assert analysis.final.winner == "O" and analysis.final.line_completer == "X"


def test_a_finished_misere_board_names_the_winner_and_the_line_in_words(table_dir: Path) -> None:
    position = solver.lookup("XXX/OO./...", game=MISERE)
    assert (position.is_over, position.winner, position.line_completer, position.value) == (True, "O", "X", -1)
    assert position.to_dict()["winner"] == "O"
    assert "game over: O won (X completed a line and lost)" in repr(position)
    assert "Game over: X completed a line and lost." in position._repr_html_()


def test_the_commands_take_a_misere_game(runner: CliRunner, tmp_path: Path) -> None:
    out = _ok(runner, "lookup", "XXX/OO./...", "--game", MISERE)
    assert "Game over: X completed a line and lost." in out and f"({MISERE})" in out
    assert json.loads(_ok(runner, "lookup", "XX./OO./...", "--game", MISERE, "--json"))["result"] == "draw"
    assert "best" in _ok(runner, "analyze", "4", "0", "8", "--game", MISERE)
    stats = json.loads(_ok(runner, "stats", "--game", MISERE, "--json"))
    assert stats["game"] == MISERE and stats["positions"] == 5478  # the reachable boards of normal play
    path = tmp_path / "out" / f"{MISERE}.ttt"
    _ok(runner, "build", "-q", "--game", MISERE, "--output", str(path))
    assert f"OK ({MISERE}" in _ok(runner, "verify", "--table", str(path))
    assert "OK" in _ok(runner, "verify", "--game", MISERE)
    played = _ok(runner, "play", "--game", MISERE, "--as", "O", "--seed", "1", input="".join(f"{cell}\n" for cell in range(9)) * 2)
    assert played.strip()
    graded = _ok(
        runner,
        "grade",
        f"{PLAYERS / 'simple_players.py'}:first_empty",
        "--support",
        str(PLAYERS / "perfect.py"),
        "--game",
        MISERE,
        "--sandbox",
        "none",
        "--json",
    )
    assert json.loads(graded)["game"] == MISERE


def test_the_table_file_names_its_rule_and_is_not_taken_for_normal_play(tmp_path: Path) -> None:
    path = tmp_path / f"{MISERE}.ttt"
    assert CliRunner().invoke(main, ["build", "-q", "--game", MISERE, "--output", str(path)]).exit_code == 0
    assert open_table(path).header.game == solver.parse_game(MISERE)
    assert b'"variant":"misere"' in path.read_bytes()[:4096]
    assert solver.load_table(path).game == solver.parse_game(MISERE)
    with pytest.raises(solver.TableError, match=MISERE):
        solver.load_table(path, game="3x3k3")


def test_the_http_api_serves_a_misere_game_and_lists_its_rule(table_dir: Path) -> None:
    need_web()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from solver import web

    client = TestClient(web.create_app([solver.table_for(MISERE)]))
    listing = client.get("/api/v1/games").json()["games"]
    assert listing[0]["name"] == MISERE and listing[0]["rule"] == {"suffix": "misere", "title": "misère", "line_wins": False, "drops": False}
    answer = client.get("/api/v1/3x3k3-misère", params={"board": "XXX/OO./..."}).json()
    assert (answer["over"], answer["winner"]) == (True, "O")
    batch = client.post(f"/api/v1/{MISERE}/batch", json={"boards": ["XXX/OO./...", "XX./OO./..."]}).json()["results"]
    assert batch[0]["winner"] == "O" and batch[1]["result"] == "draw"


@pytest.mark.parametrize(
    ("board", "normal", "misere"),
    [
        ("XXX/OO./...", "X_WON", "O_WON"),
        ("OOO/XX./X..", "O_WON", "X_WON"),
        ("XOX/XOO/OXX", "DRAWN", "DRAWN"),
        ("X../.../...", "IN_PLAY", "IN_PLAY"),
        ("XX./.../...", "INVALID", "INVALID"),
    ],
)
def test_the_outcome_of_a_board_names_the_winner_the_rule_gives(board: str, normal: str, misere: str) -> None:
    from solver.encoding.coderules import code_rules
    from solver.rules.base import Outcome

    code = solver.encode(board)
    assert code_rules(solver.parse_game("3x3k3")).outcome(code) is Outcome[normal]
    assert code_rules(solver.parse_game(MISERE)).outcome(code) is Outcome[misere]
