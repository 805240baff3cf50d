"""Grading a game answered by search covers the whole game where the engine answers cheaply, and says what it
sampled (issue 42 point 8): every graded Connect Four board had 6 to 16 empty cells, and the report did not say so."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

import solver
from solver.cli import main
from solver.grading.grader import SEARCHED_EMPTY, SEARCHED_LEAST_EMPTY, positions_to_grade, sampled_words
from solver.search import Engine
from solver.storage.checksums import EXPECTED_BOOK_ROOTS
from solver.store.searched import SearchTable

GREEDY = Path(__file__).parent / "players" / "connect4_greedy.py"


def test_a_searched_game_is_graded_on_openings_and_middle_games_where_their_searches_are_cheap() -> None:
    """5x6k4-gravity searched by the engine (its openings take milliseconds): positions from the first third of the game on."""
    table = SearchTable(Engine("5x6k4-gravity", table_bytes=1 << 22, threads=1))
    positions = positions_to_grade(table=table, sample=30)
    plies = sorted(p.pieces for p in positions)
    cells = table.game.cells
    assert len(positions) == 30 and all(cells - ply >= SEARCHED_LEAST_EMPTY for ply in plies)
    assert plies[0] < cells // 3, f"no opening graded: plies {plies}"
    assert any(cells - ply > SEARCHED_EMPTY[1] for ply in plies), f"only endgames graded: plies {plies}"
    report = solver.grade(lambda board, me: next(c for c in range(6) if board[0][c] is None), table=table, sample=30, turn="symbol")
    graded = [row.ply for row in report.faults_by_ply()]  # the sample is drawn again: its openings depend on the search's speed
    assert report.sampled is not None and report.sampled.startswith(f"sampled from random games at plies {graded[0]} to {graded[-1]}: ")
    assert re.search(r"\d+ openings? \(plies 0-9\), \d+ middle games? \(plies 10-19\), \d+ endgames? \(plies 20-30\)", report.sampled), report.sampled
    assert str(report).splitlines()[1] == f"Positions {report.sampled}."


def test_the_connect4_report_says_what_was_sampled_and_which_plies_a_book_answers() -> None:
    result = CliRunner().invoke(main, ["grade", f"{GREEDY}:play", "--game", "connect4", "--turn", "symbol", "--sample", "4", "--sandbox", "none", "--json"])
    assert result.exit_code in (0, 1), result.output
    sampled = json.loads(result.stdout)["sampled"]
    assert sampled.startswith("sampled from random games at plies ") and re.search(r"openings? \(plies 0-13\)", sampled)
    # the package ships a book; a table opened without one (another test's tablebase) says how to build it
    depth = EXPECTED_BOOK_ROOTS["6x7k4-gravity"][0]
    book = rf"the book answers plies 0 to {depth}|no book: build it with solve build --game 6x7k4-gravity to grade more openings"
    assert re.search(rf"is left out \(({book})\)$", sampled), sampled


def test_a_connect4_sample_without_a_book_says_how_to_grade_more_openings() -> None:
    bookless = SearchTable(Engine("connect4", table_bytes=1 << 20, threads=1))
    positions = [solver.table_for("connect4").at(0)]  # answered by the shipped book: only its ply is read
    sampled = sampled_words(bookless, positions)
    assert sampled is not None and "(no book: build it with solve build --game 6x7k4-gravity to grade more openings)" in sampled


def test_a_game_whose_positions_are_listed_says_nothing_of_a_sample() -> None:
    report = solver.grade(lambda board: next(r * 3 + c for r in range(3) for c in range(3) if board[r][c] is None), sample=5)
    assert report.sampled is None and not str(report).splitlines()[1].startswith("Positions")
