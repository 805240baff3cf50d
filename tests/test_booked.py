"""The positions the book answers whole (solver/search/booked.py): read in Python, without loading the compiled search.

A position with fewer pieces than the book's depth is answered from its children's entries. The answers must be the
engine's, move by move (the engine searches the same positions with its compiled kernels, reading the book inside the
search), on Connect Four's shipped book and on a small game whose book is derived here from a full table of the plain
reference (tests/reference.py, which shares no code with the package); and a process that asks only such positions
must never import numba.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from reference import board_of, reference

import solver
from solver.errors import InvalidBoardError, InvalidMoveError
from solver.rules.game import parse_game
from solver.search import ArrayBook, Engine, booked, code_of_key, from_moves, position_of_key
from solver.search.book import merged
from solver.search.plies import derive_all, positions
from solver.store.searched import SearchTable
from solver.store.tablebase import Tablebase

CHECKOUT = Path(__file__).resolve().parents[1]


def _random_moves(game_name: str, pieces: int, rng: random.Random) -> str:
    """A move string of ``pieces`` moves whose game goes on after each (drawn again until one does)."""
    game = parse_game(game_name)
    while True:
        moves, bits = "", booked.play(game, "")
        for _ in range(pieces):
            free = [c for c in range(game.cols) if (bits.mask >> (c * (game.rows + 1) + game.rows - 1)) & 1 == 0]  # type: ignore[union-attr]
            moves += str(rng.choice(free) + 1)
            bits = booked.play(game, moves)
            if bits is None:
                break
        if bits is not None:
            return moves


@pytest.fixture(scope="module")
def connect4_book() -> object:
    book = Tablebase().book("connect4")
    assert book is not None and book.depth >= 2, "the package ships Connect Four's book"
    return book


def test_every_move_the_book_answers_is_the_engines_answer_on_connect_four(connect4_book: ArrayBook) -> None:
    game = parse_game("connect4")
    engine = Engine(game, table_bytes=1 << 22, threads=1, book=connect4_book)
    rng = random.Random(39)
    checked = 0
    for pieces in range(connect4_book.depth):
        for _ in range(12 if pieces else 1):
            moves = _random_moves("connect4", pieces, rng)
            bits = booked.play(game, moves)
            assert bits is not None
            answer = booked.answer(game, connect4_book, bits.pos, bits.mask, bits.pieces)
            assert answer == engine.move_scores(from_moves(game, moves)), moves
            checked += 1
    assert checked == 1 + 12 * (connect4_book.depth - 1)


def test_the_book_answers_nothing_at_its_depth_or_past_it(connect4_book: ArrayBook) -> None:
    game = parse_game("connect4")
    moves = _random_moves("connect4", connect4_book.depth, random.Random(1))
    bits = booked.play(game, moves)
    assert bits is not None and booked.answer(game, connect4_book, bits.pos, bits.mask, bits.pieces) is None


def _reference_byte(game_name: str, board: tuple[int, ...]) -> int:
    """The score byte of a board for the side to move (solver/rules/score.py's scale) from the plain reference's solution."""
    solution = reference(game_name).solve(board)
    return 0 if solution.result == 0 else solution.result * (100 - solution.plies)


def _reference_book(game_name: str, depth: int) -> ArrayBook:
    """A book of ``game_name`` to ``depth`` whose deepest ply is scored by the plain reference of tests/ (no package
    code), the shallower plies derived by the package (solver.search.plies)."""
    game = parse_game(game_name)
    levels = [keys for _, keys in positions(game, depth)]
    deepest = np.array([_reference_byte(game_name, board_of(code_of_key(game, int(key)), game.cells)) for key in levels[-1]], dtype=np.int8)
    return ArrayBook(game, depth, *merged(levels, derive_all(game, levels, deepest)))


def _reference_moves(game_name: str, moves: str) -> dict[int, int]:
    """Each move's score byte for the player making it, by landing cell, of the position after ``moves``: the plain
    reference's solution of each child (a line made: a win at once)."""
    ref = reference(game_name)
    board = ref.empty
    for column in moves:
        cell = ref.drop(board, int(column) - 1)
        assert cell is not None
        board = board[:cell] + (ref.to_move(board),) + board[cell + 1 :]
    scored = {}
    for cell in ref.moves(board):
        child = board[:cell] + (ref.to_move(board),) + board[cell + 1 :]
        if ref.winner(child):
            scored[cell] = 99
            continue
        solution = ref.solve(child)
        scored[cell] = 0 if solution.result == 0 else -solution.result * (100 - solution.plies - 1)
    return scored


def test_a_small_games_book_answers_every_move_as_the_plain_reference_solves_it() -> None:
    game_name = "4x4k3-gravity"
    game = parse_game(game_name)
    book = _reference_book(game_name, 5)
    rng = random.Random(7)
    for pieces in range(book.depth):
        for _ in range(8):
            moves = _random_moves(game_name, pieces, rng)
            bits = booked.play(game, moves)
            assert bits is not None
            found = booked.answer(game, book, bits.pos, bits.mask, bits.pieces)
            expected = _reference_moves(game_name, moves)
            assert found == (max(expected.values()), tuple(sorted(expected.items()))), moves


def _fresh(code: str) -> dict[str, object]:
    """What ``code`` prints as JSON on its last line, run in a fresh process on this checkout."""
    env = {**os.environ, "PYTHONPATH": str(CHECKOUT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    found: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def test_a_process_that_asks_the_opening_never_loads_numba() -> None:
    found = _fresh(
        "import json, sys, solver\n"
        "a = solver.lookup(game='connect4', moves='4453')\n"
        "b = solver.lookup(0, game='connect4')\n"
        "c = solver.lookup('......./......./......./......./......./...X...', game='connect4')\n"
        "over = solver.lookup(game='connect4', moves='1212121')\n"
        "try:\n    solver.lookup(game='connect4', moves='448')\nexcept solver.InvalidBoardError as error:\n    refused = str(error)\n"
        "print(json.dumps({'numba': 'numba' in sys.modules, 'answers': [[p.result, p.plies, len(p.moves)] for p in (a, b, c, over)],"
        " 'refused': refused}))"
    )
    assert found == {
        "numba": False,
        "answers": [["loss", 36, 7], ["win", 41, 7], ["loss", 40, 7], ["loss", 0, 0]],
        "refused": "move 3 of the move string '448' is '8': a move is a column from 1 to 7",
    }


def test_a_position_at_the_books_depth_loads_the_engine_which_answers_the_books_entry(connect4_book: ArrayBook) -> None:
    game = parse_game("connect4")
    moves = _random_moves("connect4", connect4_book.depth, random.Random(8))
    bits = booked.play(game, moves)
    assert bits is not None
    found = _fresh(
        f"import json, sys, solver\np = solver.lookup(game='connect4', moves='{moves}')\n"
        "print(json.dumps({'numba': 'numba' in sys.modules, 'score': p.score}))"
    )
    assert found == {"numba": True, "score": connect4_book.probe(booked.canonical_key(game, bits.pos, bits.mask))}


def test_a_positions_score_alone_at_the_books_depth_is_its_entry_read_without_loading_the_engine(connect4_book: ArrayBook) -> None:
    # Table.score_of (a value without its moves) of a position the book holds is the book's entry itself
    game = parse_game("connect4")
    moves = _random_moves("connect4", connect4_book.depth, random.Random(13))
    bits = booked.play(game, moves)
    assert bits is not None
    found = _fresh(
        "import json, sys, solver\nfrom solver.search import booked\ntable = solver.table_for('connect4')\n"
        f"code = booked.code_of(table.game, booked.play(table.game, '{moves}'))\nscore = table.score_of(code)\n"
        "print(json.dumps({'numba': 'numba' in sys.modules, 'score': score}))"
    )
    assert found == {"numba": False, "score": connect4_book.probe(booked.canonical_key(game, bits.pos, bits.mask))}


@pytest.mark.parametrize(
    ("moves", "error", "says"),
    [
        ("448", InvalidBoardError, "move 3 of the move string '448' is '8': a move is a column from 1 to 7"),
        ("4444444", InvalidMoveError, "move 7 of the move string '4444444': column 4 is full"),
        ("4a", InvalidBoardError, "move 2 of the move string '4a' is 'a'"),
    ],
)
def test_a_move_string_the_book_would_answer_is_refused_naming_the_move(moves: str, error: type[Exception], says: str) -> None:
    with pytest.raises(error, match=says):
        solver.lookup(game="connect4", moves=moves)


def test_a_board_within_the_books_depth_is_checked_by_the_rules_naming_what_is_wrong() -> None:
    with pytest.raises(InvalidBoardError, match="no order of moves stacks these columns"):
        solver.lookup("......./......./......./......./...X.../...O...", game="connect4")  # O under X: O moved first
    with pytest.raises(InvalidBoardError, match="floats"):
        solver.lookup("......./......./......./......./...X.../.......", game="connect4")


def test_a_finished_board_within_the_books_depth_is_answered_as_over() -> None:
    over = solver.lookup(game="connect4", moves="1212121")  # X's four in column 1 on ply 7
    assert over.is_over and over.result == "loss" and over.plies == 0


def test_a_search_table_made_with_a_maker_loads_its_engine_only_for_a_search(connect4_book: ArrayBook) -> None:
    made: list[str] = []

    def make() -> Engine:
        made.append("engine")
        return Engine("connect4", table_bytes=1 << 20, threads=1, book=connect4_book)

    loading: list[str] = []
    table = SearchTable(make, game=parse_game("connect4"), book=connect4_book, on_load=lambda game: loading.append(game.name))
    assert table.at_moves("44").plies > 0 and table.bounded(5.0).at(0).result == "win"
    assert made == [] and loading == []
    table.at_moves(_random_moves("connect4", connect4_book.depth, random.Random(9)))
    table.bounded(5.0).at_moves(_random_moves("connect4", connect4_book.depth, random.Random(10)))
    assert made == ["engine"] and loading == ["6x7k4-gravity"], "the engine is made once, at the first search of any view"


def test_a_server_loads_the_engine_before_it_listens_so_its_first_search_spends_its_budget_searching() -> None:
    found = _fresh(
        "import json, sys\nfrom solver.web.app import open_tables\n"
        "before = 'numba' in sys.modules\nopen_tables(['connect4'])\n"
        "print(json.dumps({'before': before, 'after': 'numba' in sys.modules}))"
    )
    assert found == {"before": False, "after": True}


def test_the_engine_values_the_moves_of_a_position_the_book_holds_as_the_plain_reference_does() -> None:
    # the engine searches each child of a position the book holds from the book's score (solve_at_least): at the book's
    # depth every child is past the book, so each move's score is searched from that floor
    game_name = "4x4k3-gravity"
    game = parse_game(game_name)
    book = _reference_book(game_name, 5)
    engine = Engine(game, table_bytes=1 << 20, threads=1, book=book)
    rng = random.Random(11)
    for pieces in (book.depth, book.depth - 1):
        for _ in range(10):
            moves = _random_moves(game_name, pieces, rng)
            expected = _reference_moves(game_name, moves)
            assert engine.move_scores(from_moves(game, moves)) == (max(expected.values()), tuple(sorted(expected.items()))), moves


def test_a_position_one_ply_past_the_book_scores_as_the_plain_reference_and_at_least_its_floor() -> None:
    # a position one ply past the book is searched from the floor its parents' book scores give (negamax.book_floor):
    # the floor never exceeds its true score, equals it for a best move's child, and the search's answer is exact
    from solver.search.negamax import NO_MOVE, book_floor, score_byte

    game_name = "4x4k3-gravity"
    game = parse_game(game_name)
    book = _reference_book(game_name, 5)
    engine = Engine(game, table_bytes=1 << 20, threads=1, book=book)
    past = [int(key) for key in list(positions(game, book.depth + 1))[-1][1]]
    rng = random.Random(12)
    exact = 0
    for key in rng.sample(past, 80):
        where = position_of_key(game, key)
        expected = _reference_byte(game_name, board_of(code_of_key(game, key), game.cells))
        assert engine.score(where) == expected, key
        floor = int(book_floor(np.uint64(where.pos), np.uint64(where.mask), engine._geo, engine._book))
        assert floor != NO_MOVE, "every parent of a position one ply past the book is in it"
        floor_byte = score_byte(floor, where.pieces, game.cells)
        assert floor_byte <= expected, key  # score bytes are in the order of their worth to the side to move
        exact += floor_byte == expected
    assert 0 < exact < 80, "some sampled positions are a best move's child, some are not"


def test_an_app_made_from_a_search_table_makes_its_engine_before_any_request(connect4_book: ArrayBook) -> None:
    # an app made from tables opened otherwise than by open_tables (solver.table_for, an ASGI deployment's own code):
    # no request's short search, holding one of the server's two short turns, pays the engine's load
    from solver import web

    made: list[str] = []

    def make() -> Engine:
        made.append("engine")
        return Engine("connect4", table_bytes=1 << 20, threads=1, book=connect4_book)

    table = SearchTable(make, game=parse_game("connect4"), book=connect4_book)
    assert made == []
    web.create_app([table])
    assert made == ["engine"]
