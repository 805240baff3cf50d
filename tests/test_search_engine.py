"""The Connect Four engine (solver/search/) checked against the rules, the tables, the independent reference and published results.

1. the engine's bitboard rule against the gravity ``Rules`` on every reachable board of small games: the moves,
   the lines, the finished boards, and the engine's checks of a board against the rule's verdict;
2. the engine against every position of small gravity tables (the dense build): value, plies and every move;
3. the engine against the plain reference of tests/reference.py (no code shared) on random positions of bigger boards;
4. Pons' six test sets (``../shared/data/connect4/pons_tests``, skipped where absent): the fast ones whole or
   sampled, the slow ones a few positions; every score exact;
5. Böck's ply-8 distances to the end (``../shared/data/connect4/boeck_books``), sampled, and his per-ply counts
   against the book builder's enumeration of positions;
6. a time budget and Ctrl-C stop a search with a clear error and the engine answers right afterwards; the same
   answer twice; bad boards, move strings and games refused with what and where.
"""

from __future__ import annotations

import _thread
import os
import random
import subprocess
import sys
import threading
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from reference import Reference, board_of, code

from solver.encoding.coderules import code_rules
from solver.errors import InvalidBoardError, InvalidGameError, SearchInterrupted, SearchTimeout
from solver.retrograde.dense import build_arrays
from solver.rules.base import DRAWN, IN_PLAY, INVALID, LINE
from solver.rules.game import parse_game
from solver.rules.score import UNREACHABLE, decode, parent_score
from solver.search import ArrayBook, Engine, code_of_key, from_moves, key_of_code, position_of_key, positions, score_byte
from solver.search.bitboard import G_BOTTOM, NO_BOUND, can_win_next, claimeven_bound, has_line, mirror_key, popcount, possible
from solver.search.negamax import BUDGET, CONTROL_SLOTS, GAVE_UP, HELPER, NODES, PONS_PROBE_NODES, PROBE_NODES, STOP, new_control, settle, solve
from solver.search.position import bit_of, cell_of, geometry_of, key_of, position_of
from solver.search.transposition import get

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "connect4"
"""Published Connect Four results, beside the checkout (never copied into it)."""

PONS = DATA / "pons_tests"
BOECK = DATA / "boeck_books"

SMALL = ["3x3k3-gravity", "3x4k3-gravity", "4x3k3-gravity", "2x5k3-gravity", "2x2k2-gravity", "3x4k4-gravity"]
"""Gravity games whose every reachable board is compared with the rules and the dense table (7,157 positions at most)."""

TABLE_GAMES = [*SMALL, pytest.param("4x4k4-gravity", marks=pytest.mark.slow), pytest.param("4x4k3-gravity", marks=pytest.mark.slow)]
"""The dense tables compared position by position: the 16-cell ones (161,029 and 41,750 positions) in the slow set."""

TABLE_BYTES = 1 << 22
"""A small transposition table for the tests: answers do not depend on its size."""


def engine(name: str) -> Engine:
    return _engine(name)


@cache
def _engine(name: str) -> Engine:
    return Engine(name, table_bytes=TABLE_BYTES)


@cache
def reachable(name: str) -> list[int]:
    """Every reachable code of a small gravity game, from the independent reference (finished boards included)."""
    game = parse_game(name)
    ref = Reference(game.rows, game.cols, game.k, gravity=True)
    return sorted(code(board) for board in ref.reachable())


def _bits(game_name: str, code_: int) -> tuple[int, int]:
    """X's and O's pieces as engine bitboards."""
    game = parse_game(game_name)
    board = board_of(code_, game.cells)
    x = sum(1 << bit_of(game, cell) for cell, d in enumerate(board) if d == 1)
    o = sum(1 << bit_of(game, cell) for cell, d in enumerate(board) if d == 2)
    return x, o


# -- 1. the bitboard rule against the gravity Rules --------------------------------------------------------------------


@pytest.mark.parametrize("name", SMALL)
def test_the_bitboard_moves_and_lines_are_the_gravity_rules_on_every_reachable_board(name: str) -> None:
    game = parse_game(name)
    rules, geo = game.rules, geometry_of(game)
    coded = code_rules(game)
    for code_ in reachable(name):
        x, o = _bits(name, code_)
        status, _ = coded.judge(code_)
        cells_x = sum(1 << cell for cell, d in enumerate(board_of(code_, game.cells)) if d == 1)
        cells_o = sum(1 << cell for cell, d in enumerate(board_of(code_, game.cells)) if d == 2)
        landing = possible(np.uint64(x | o), geo)
        moves = sum(1 << cell_of(game, b) for b in range(64) if int(landing) >> b & 1)
        assert moves == rules.moves(cells_x, cells_o), f"{name} {code_}: the landing cells differ"
        lined = bool(has_line(np.uint64(x), geo)) or bool(has_line(np.uint64(o), geo))
        assert lined == (status == LINE), f"{name} {code_}: a line the rules {'do not ' if lined else ''}see"
        assert status in (IN_PLAY, LINE, DRAWN)


@pytest.mark.parametrize("name", SMALL[:4])
def test_the_engine_refuses_exactly_the_boards_the_rules_call_unreachable_or_finished(name: str) -> None:
    game = parse_game(name)
    rng = random.Random(7)
    codes = reachable(name) + [rng.randrange(game.codes) for _ in range(3000)]
    for code_ in codes:
        status, _ = code_rules(game).judge(code_)
        unreachable = status == INVALID or code_rules(game).violation(code_) is not None
        try:
            position_of(game, code_)
            accepted = True
        except InvalidBoardError:
            accepted = False
        assert accepted == (not unreachable and status == IN_PLAY), f"{name} {code_}: accepted={accepted}, status {status}"


# -- 2. every position of the small tables -----------------------------------------------------------------------------


def positions_in_play(name: str) -> tuple[Any, np.ndarray, list[int]]:
    """A small gravity game, its dense table's scores, and the codes of its positions in play."""
    game = parse_game(name)
    table = build_arrays(game).score
    return game, table, [c for c in np.flatnonzero(table != UNREACHABLE).tolist() if code_rules(game).judge(c)[0] == IN_PLAY]


@pytest.mark.parametrize("name", TABLE_GAMES)
def test_the_engine_gives_every_position_of_a_small_table_its_score_and_every_move_its_childs(name: str) -> None:
    game, table, codes = positions_in_play(name)
    eng = engine(name)
    checked = 0
    for code_ in codes:
        answer = eng.solve(code_)
        assert answer.score == table[code_], f"{name} {code_}: engine {answer.score}, table {table[code_]}"
        digits = board_of(code_, game.cells)
        mover = 1 if digits.count(1) == digits.count(2) else 2
        for move in answer.moves:
            child = code_ + mover * 3**move.cell
            assert move.score == parent_score(int(table[child])), f"{name} {code_}: move {move.column}"
        checked += 1
    assert checked >= 5, "the game has positions to search"


# -- 3. the independent reference on random positions of bigger boards ------------------------------------------------


@pytest.mark.parametrize(
    ("name", "empty", "count"), [("4x5k4-gravity", 12, 30), ("5x5k4-gravity", 11, 25), ("6x7k4-gravity", 10, 20), ("5x6k4-gravity", 11, 15)]
)
def test_the_engine_agrees_with_the_independent_reference_on_random_positions(name: str, empty: int, count: int) -> None:
    game = parse_game(name)
    ref = Reference(game.rows, game.cols, game.k, gravity=True)
    rng = random.Random(name)
    done = 0
    while done < count:
        board = ref.random_position(rng, empty)
        if board is None:
            continue
        expected = ref.solve(board)
        answer = engine(name).solve(code(board))
        assert (answer.result, answer.plies) == (decode(expected.result * 99, 0)[0], expected.plies), f"{name} {board}"
        best_cells = {move.cell for move in answer.moves if move.score == answer.score}
        assert best_cells == set(expected.best), f"{name} {board}: best moves"
        for cell, (result, plies) in ref.move_outcomes(board).items():
            move = next(m for m in answer.moves if m.cell == cell)
            assert (move.result, move.plies) == (decode(result * 99, 0)[0], plies), f"{name} {board}: move at {cell}"
        done += 1


# -- 4. Pons' test sets ------------------------------------------------------------------------------------------------

PONS_SETS = [("Test_L3_R1", None), ("Test_L2_R1", None), ("Test_L1_R1", None), ("Test_L2_R2", 150), ("Test_L1_R2", 3), ("Test_L1_R3", 1)]
"""Pons' sets with how many positions are checked (None: all 1,000); End-Easy, Middle-Easy, Begin-Easy and Middle-Medium
take about 0.02, 0.1, 0.7 and 10 ms a position here, Begin-Medium and Begin-Hard seconds."""


@pytest.mark.parametrize(("name", "sample"), PONS_SETS)
def test_the_engine_gives_pons_test_positions_their_exact_scores(name: str, sample: int | None) -> None:
    path = PONS / name
    if not path.is_file():
        pytest.skip(f"Pons' test set {name} is not beside the checkout (../shared/data/connect4/pons_tests)")
    lines = [line.split() for line in path.read_text().splitlines() if line.strip()]
    if sample is not None:
        lines = random.Random(name).sample(lines, sample)
    eng = engine("connect4")
    for moves, score in lines:
        where = from_moves(eng.game, moves)
        expected = score_byte(int(score), where.pieces, 42)
        assert eng.score(moves=moves) == expected, f"{name} {moves}: Pons' score {score}"


# -- 5. Böck's results -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file", "game", "sample"),
    [("c4_w5_h5_ply8_dte.csv", "5x5k4-gravity", 40), ("c4_w6_h5_ply8_dte.csv", "5x6k4-gravity", 12), ("c4_w7_h6_ply8_dte.csv", "connect4", 2)],
)
def test_the_engine_gives_boecks_ply_8_positions_their_distance_to_the_end(file: str, game: str, sample: int) -> None:
    path = BOECK / file
    if not path.is_file():
        pytest.skip(f"Böck's ply-8 book {file} is not beside the checkout (../shared/data/connect4/boeck_books)")
    rows = [line.split(",") for line in path.read_text().splitlines() if line and not line.startswith(("#", "moves"))]
    eng = engine(game)
    for moves, _board, ply, result, plies, _score in random.Random(file).sample(rows, sample):
        answer = eng.solve(moves=moves)
        assert (answer.result, answer.plies) == (result, int(plies)), f"{game} {moves} (ply {ply})"


def test_the_positions_of_each_ply_counted_with_their_mirrors_are_boecks_counts() -> None:
    path = DATA / "c4_7x6_per_ply_boeck.csv"
    if not path.is_file():
        pytest.skip("Böck's per-ply counts are not beside the checkout (../shared/data/connect4)")
    counts = {int(r[0]): int(r[4]) - int(r[5]) for r in (line.split(",") for line in path.read_text().splitlines() if line[:1].isdigit())}
    game = parse_game("connect4")
    geo = geometry_of(game)
    for ply, keys in positions(game, 8):
        mirrors = np.array([key_of_code(game, code_of_key(game, int(k))) for k in keys[:50]], dtype=np.uint64)
        assert (mirrors == keys[:50]).all(), "a key read back as a board keys the same"
        symmetric = sum(1 for k in keys.tolist() if _mirror(game, k) == k)
        assert 2 * len(keys) - symmetric == counts[ply], f"ply {ply}"
        assert int(keys[0]) >= int(geo[G_BOTTOM])


def test_a_book_builder_scores_each_enumerated_key_as_its_board_and_its_mirror_image_are_scored() -> None:
    """The book builder's path: :func:`positions`, then :func:`position_of_key`, then the engine: the board's own score."""
    game = parse_game("4x5k4-gravity")
    eng = engine("4x5k4-gravity")
    for _ply, keys in positions(game, 3):
        for key in keys.tolist():
            where = position_of_key(game, key)
            code_ = code_of_key(game, key)
            mirror = code_of_key(game, _mirror(game, key))
            assert where.code == code_ and eng.score(where) == eng.score(code_) == eng.score(mirror), f"key {key}"


def _mirror(game: object, key: int) -> int:
    from solver.search.position import mirrored

    return mirrored(parse_game(str(game)), key)


# -- 6. bounds, Ctrl-C, determinism, bad input ------------------------------------------------------------------------


def test_a_search_past_its_budget_raises_and_the_engine_then_answers_right() -> None:
    eng = Engine("connect4", table_bytes=TABLE_BYTES)
    with pytest.raises(SearchTimeout, match=r"stopped at its budget of 0.05 s after .* give it more time"):
        eng.solve(moves="", budget=0.05)
    assert eng.score(moves="4455") == 97
    assert eng.score(moves="2252576253462244111563365343671351441") == score_byte(-1, 37, 42)


def test_ctrl_c_stops_a_search_with_a_clear_error_and_the_engine_then_answers_right() -> None:
    eng = Engine("connect4", table_bytes=TABLE_BYTES)
    timer = threading.Timer(0.2, _thread.interrupt_main)
    timer.start()
    with pytest.raises(SearchInterrupted, match="stopped at Ctrl-C after"):
        eng.solve(moves="4")
    timer.join()
    assert eng.score(moves="44455554221") == -98


def test_progress_is_reported_while_a_search_runs() -> None:
    seen: list[tuple[int, float]] = []
    eng = Engine("connect4", table_bytes=TABLE_BYTES)
    with pytest.raises(SearchTimeout):
        eng.solve(moves="", budget=1.2, progress=lambda nodes, seconds: seen.append((nodes, seconds)))
    assert seen and seen[-1][0] > seen[0][0] > 0


def test_the_same_position_gets_the_same_answer_twice_from_a_warm_and_a_cold_table() -> None:
    eng = Engine("connect4", table_bytes=TABLE_BYTES)
    first = eng.solve(moves="43443421")
    second = eng.solve(moves="43443421")
    eng.clear()
    third = Engine("connect4", table_bytes=1 << 20).solve(moves="43443421")
    assert first.moves == second.moves == third.moves and first.score == second.score == third.score


def test_a_book_is_taken_as_exact_by_the_search() -> None:
    """A score planted in a book (a wrong one on purpose) is what the search answers: the hook is read, at the root and below it."""
    game = parse_game("4x5k4-gravity")
    centre = from_moves(game, "3")
    honest = Engine(game, table_bytes=TABLE_BYTES).score(centre.code)
    planted = -82 if honest != -82 else 0  # a loss in 18 plies: a score the position could have
    book = ArrayBook(game, 1, np.array([key_of_code(game, centre.code)], dtype=np.uint64), np.array([planted], dtype=np.int8))
    assert Engine(game, table_bytes=TABLE_BYTES, book=book).score(moves="3") == planted
    assert Engine(game, table_bytes=TABLE_BYTES, book=book).solve(moves="").moves[2].score == parent_score(planted)


@pytest.mark.parametrize(
    ("board", "said"),
    [
        ("......./......./......./......./...X.../.......", r"piece at \(row 4, col 3\) floats"),
        ("......./......./......./......./......./...XX..", "2 X and 0 O"),
        ("......./......./..O..../..OX.../..OX.../..OXX..", "the game is over, O has a line of 4"),
        ("......./......./......./......./X....../O......", "no order of moves stacks these columns"),
    ],
)
def test_a_bad_connect_four_board_is_refused_saying_what_and_where(board: str, said: str) -> None:
    with pytest.raises(InvalidBoardError, match=said):
        engine("connect4").solve(board)


@pytest.mark.parametrize(
    ("moves", "said"),
    [
        ("4448", "move 4 of the move string '4448' is '8': a move is a column from 1 to 7"),  # as solver.lookup reads it
        ("4444444", "move 7 of '4444444' is in column 4, which is full"),
        ("1212121", "the game is over, X has a line"),
        ("12121213", "move 7 of '12121213' completes a line"),
    ],
)
def test_a_bad_move_string_is_refused_naming_the_move(moves: str, said: str) -> None:
    with pytest.raises(InvalidBoardError, match=said):
        engine("connect4").solve(moves=moves)


def test_a_full_board_is_refused_as_a_game_that_is_over() -> None:
    with pytest.raises(InvalidBoardError, match="the board is full"):
        engine("3x4k4-gravity").solve("XOXO/OXOX/XOXO")


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("4x4k4-gravity-misere", "its scoring is misère, and the engine was written for normal play only"),
        ("3x3k3", "its move rule is placement"),
        ("9x7k4-gravity", "does not fit"),
    ],
)
def test_a_game_the_engine_does_not_play_is_refused_by_name(name: str, said: str) -> None:
    with pytest.raises(InvalidGameError, match=said):
        Engine(name)


# -- 5. the claimeven bound and the parallel search ---------------------------------------------------------------------


def test_the_claimeven_bound_never_promises_more_than_a_positions_score() -> None:
    """The bound is never below the position's exact Pons score: "at best a draw" where the table has no win, "a loss
    by ply T at the latest" where the table has a loss at least that early."""
    bounded = {name: _claimeven_checked(name) for name in SMALL if parse_game(name).rows % 2 == 0}
    assert sum(bounded.values()) > 100, f"the bound applies somewhere: {bounded}"


def _claimeven_checked(name: str) -> int:
    game, table, codes = positions_in_play(name)
    geo = geometry_of(game)
    bounded = 0
    for code_ in codes:
        where = position_of(game, code_)
        bound = int(claimeven_bound(np.uint64(where.pos), np.uint64(where.mask), geo))
        if bound == NO_BOUND:
            continue
        result, plies = decode(int(table[code_]), game.cells - where.pieces)
        exact = 0 if result == "draw" else (game.cells - (where.pieces + plies)) // 2 + 1  # Pons: by the last move's ply
        exact = -exact if result == "loss" else exact
        assert exact <= bound, f"{name} {code_}: bound {bound}, table {result} in {plies} plies (Pons score {exact})"
        bounded += 1
    return bounded


def test_a_parallel_search_values_every_move_as_one_thread_does() -> None:
    one, two = Engine("connect4", table_bytes=TABLE_BYTES, threads=1), Engine("connect4", table_bytes=TABLE_BYTES, threads=2)
    for moves in ("43443421", "444444333333522222", "2252576253462244111563365343671351441"):
        alone, together = one.solve(moves=moves, budget=600), two.solve(moves=moves, budget=600)
        assert alone.moves == together.moves and alone.score == together.score, moves


def test_a_parallel_search_past_its_budget_stops_every_thread_and_then_answers_right() -> None:
    eng = Engine("connect4", table_bytes=TABLE_BYTES, threads=2)
    with pytest.raises(SearchTimeout, match=r"stopped at its budget of 0.05 s"):
        eng.solve(moves="", budget=0.05)
    assert not [t for t in threading.enumerate() if t.name == "solver-search" and t.is_alive()]
    assert eng.score(moves="44455554221") == -98


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("helper", [1, 2])
def test_a_helping_threads_own_windows_give_every_position_of_a_small_table_its_score(name: str, helper: int) -> None:
    """The k-th helper probes at k / (k + 1) of its window, not where Pons' heuristic probes: still exact everywhere."""
    game, table, codes = positions_in_play(name)
    eng = Engine(name, table_bytes=TABLE_BYTES, threads=1)
    control = np.zeros(CONTROL_SLOTS, dtype=np.int64)
    control[HELPER] = helper
    for code_ in codes:
        where = position_of(game, code_)
        found = solve(np.uint64(where.pos), np.uint64(where.mask), eng._geo, eng._table, eng._book, control, eng._scratch)
        assert score_byte(int(found), where.pieces, game.cells) == table[code_], f"{name} {code_}"
    assert control[NODES] > 0


@pytest.mark.parametrize("name", SMALL)
def test_a_probe_given_up_for_steiningers_order_leaves_every_position_of_a_small_table_its_score(name: str) -> None:
    """A probe in Pons' order that reaches ``control[PROBE_NODES]`` positions is given up and the search goes on in
    Steininger's order: with a limit of one position (given up at once), every score is still the table's, the
    caller's stop flag is left alone, and the search took another way than Pons' order throughout somewhere."""
    game, table, codes = positions_in_play(name)
    eng = Engine(name, table_bytes=TABLE_BYTES, threads=1)
    other_way = 0
    for code_ in codes:
        where = position_of(game, code_)
        nodes = []
        for limit in (0, 1):
            eng._table.fill(0)
            control = new_control()
            control[PROBE_NODES] = limit
            found = solve(np.uint64(where.pos), np.uint64(where.mask), eng._geo, eng._table, eng._book, control, eng._scratch)
            assert score_byte(int(found), where.pieces, game.cells) == table[code_], f"{name} {code_}, limit {limit}"
            assert control[STOP] == control[GAVE_UP] == control[BUDGET] == 0, f"{name} {code_}: {control}"
            nodes.append(int(control[NODES]))
        other_way += nodes[0] != nodes[1]
    assert other_way > 0 or game.cells < 9, name


def test_every_search_of_an_engine_limits_its_probes_in_pons_order() -> None:
    """The engine's searches (the short try in the caller's thread and the worker threads' long one) start from a
    control whose probes in Pons' order are limited to PONS_PROBE_NODES positions, however often it searched."""
    eng = Engine("connect4", table_bytes=TABLE_BYTES, threads=2)
    for moves in ("2252576253462244", "444444333333522222", "2252576253462244"):
        eng.score(moves=moves, budget=600)
        assert [int(control[PROBE_NODES]) for control in eng._controls] == [PONS_PROBE_NODES] * 2
        assert all(int(lane.control[PROBE_NODES]) == PONS_PROBE_NODES for lane in eng._lanes)


def test_a_position_searched_with_a_helping_thread_gets_the_one_threads_score() -> None:
    """A search longer than HELP_AFTER_SECONDS gets the second thread (its nodes are counted), and the same answer."""
    one, two = Engine("connect4", table_bytes=TABLE_BYTES, threads=1), Engine("connect4", table_bytes=TABLE_BYTES, threads=2)
    for moves in ("2252576253462244", "43443421"):
        assert one.score(moves=moves, budget=600) == two.score(moves=moves, budget=600), moves
    assert two._controls[1][NODES] > 0, "the helper searched"


def test_a_helped_search_past_its_budget_stops_every_thread_and_then_answers_right() -> None:
    eng = Engine("connect4", table_bytes=TABLE_BYTES, threads=2)
    with pytest.raises(SearchTimeout, match=r"stopped at its budget of 0.2 s"):
        eng.score(moves="4", budget=0.2)
    assert eng._controls[1][NODES] > 0, "the helper had joined"
    assert not [t for t in threading.enumerate() if t.name == "solver-search" and t.is_alive()]
    assert eng.score(moves="44455554221") == -98


def test_a_forced_move_is_played_through_and_leaves_no_table_entry_of_its_own() -> None:
    """O to move has one move that does not lose at once (blocking X's three in column 1): the search plays it
    through, so the forced position gets no entry, and the position after the block gets one."""
    eng = Engine("connect4", table_bytes=TABLE_BYTES, threads=1)
    score = eng.score(moves="12121")
    forced, after = (np.uint64(key_of(eng.game, from_moves(eng.game, moves))) for moves in ("12121", "121211"))
    assert get(eng._table, forced) == 0, "the forced position was stored"
    assert get(eng._table, after) != 0, "the search did not pass through the forced move"
    assert score == parent_score(eng.score(moves="121211"))


def _pons(byte: int, pieces: int, cells: int) -> int:
    """A table's score byte as the Pons score of the side to move (by the ply of the last move)."""
    result, plies = decode(byte, cells - pieces)
    exact = 0 if result == "draw" else (cells - (pieces + plies)) // 2 + 1
    return -exact if result == "loss" else exact


@pytest.mark.parametrize("name", SMALL)
def test_what_a_position_settles_to_without_a_search_is_what_its_table_says(name: str) -> None:
    """``settle`` on every position of a small table where the side to move cannot win at once, in every null
    window: a score it settles is exact inside the window and a true bound on the window's side outside it; a position
    it leaves open after forced moves is worth its forced line's end (negated when the side to move changed)."""
    game, table, codes = positions_in_play(name)
    geo, bottom = geometry_of(game), int(geometry_of(game)[G_BOTTOM])
    settled = forced = 0
    for code_ in codes:
        where = position_of(game, code_)
        pos, mask = np.uint64(where.pos), np.uint64(where.mask)
        if can_win_next(pos, mask, geo):
            continue
        exact = _pons(int(table[code_]), where.pieces, game.cells)
        for alpha in range(-game.cells // 2 - 1, game.cells // 2 + 1):
            done, score, same, end, ended, _, _, low, high, _ = settle(pos, mask, mirror_key(pos, geo), mirror_key(mask, geo), alpha, alpha + 1, geo, -1)
            if done:
                settled += 1
                where_said = f"{name} {code_} window ({alpha}, {alpha + 1}): settled at {score}, exact {exact}"
                assert exact <= score if score <= alpha else exact >= score, where_said
            elif ended != mask:
                forced += 1
                end_code = code_of_key(game, int(end) + int(ended) + bottom)
                end_exact = _pons(int(table[end_code]), int(popcount(ended)), game.cells)
                assert exact == (end_exact if same else -end_exact), f"{name} {code_}: forced to {end_code}"
    assert settled > 0 and (forced > 0 or game.cells < 12), (settled, forced)


def test_a_kernel_that_prefetches_compiles_to_the_processors_prefetch_instruction() -> None:
    """The table's buckets are prefetched (solver.search.kernel.prefetch); a numba or LLVM that dropped the intrinsic
    silently would slow every search of a big table."""
    import platform

    from solver.search.kernel import kernel, prefetch

    def read_soon(array: np.ndarray, at: np.int64) -> np.uint64:
        prefetch(array, at)
        return np.uint64(array[at])

    compiled: Any = kernel(read_soon)
    assert compiled(np.arange(8, dtype=np.uint64), np.int64(5)) == 5
    instruction = {"x86_64": "prefetch", "AMD64": "prefetch", "aarch64": "prfm", "arm64": "prfm"}.get(platform.machine())
    if instruction is None:
        pytest.skip(f"no known prefetch instruction for {platform.machine()}")
    assert instruction in compiled.inspect_asm(compiled.signatures[0]).lower()


def test_an_engine_with_no_search_thread_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one search thread"):
        Engine("connect4", threads=0)


def test_an_engine_is_ready_when_made_so_that_a_budget_is_the_searchs_own() -> None:
    """numba compiles or loads a kernel at its first call (seconds): an engine does it when made, not in a budget."""
    code = (
        "from solver.search import Engine; from solver.search.negamax import solve, solve_move\n"
        "assert not solve.signatures and not solve_move.signatures, 'loaded before any engine'\n"
        "Engine('4x5k4-gravity', table_bytes=1 << 20)\n"
        "assert solve.signatures and solve_move.signatures, 'an engine was made and its kernels are not loaded'\n"
    )
    _passes_in_a_fresh_process(code)


def test_a_tables_look_up_and_the_command_line_start_without_loading_numba() -> None:
    """numba costs every process about a quarter of a second and 60 MB: only a search loads it, not ``import solver``,
    a table's look-up, a batch, the command line's import, a game name that the engine plays, a position the book
    answers whole (every move of the opening: solver/search/booked.py) or one near the end (solver/search/late.py)."""
    code = (
        "import sys, solver, solver.cli\n"
        "solver.lookup('X........'); solver.lookup_codes([0, 1]); solver.parse_game('connect4')\n"
        "assert 'numba' not in sys.modules, 'a table look-up loaded numba'\n"
        "solver.lookup(None, game='connect4', moves='4453')\n"
        "assert 'numba' not in sys.modules, 'a position the book answers whole loaded numba'\n"
        "solver.lookup(None, game='connect4', moves='2252576253462244111563365343671351441')\n"
        "assert 'numba' not in sys.modules, 'a late position, searched in Python (solver/search/late.py), loaded numba'\n"
        "solver.lookup(None, game='connect4', moves='225257625346224411156336')\n"
        "assert 'numba' in sys.modules, 'a search did not load numba: this test no longer sees it'\n"
    )
    _passes_in_a_fresh_process(code)


def _passes_in_a_fresh_process(code: str) -> None:
    """Run ``code`` in a new Python process (nothing loaded yet); its assertions must hold."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def test_every_search_kernel_is_compiled_without_numbas_reference_counting() -> None:
    """Each node passes six arrays; with numba's runtime every call counted each of them atomically (a third of
    the time a node). A kernel written with a bare ``njit`` instead of ``solver.search.kernel`` would bring it back."""
    import importlib

    from numba.core.registry import CPUDispatcher

    found = []
    for name in ("bitboard", "ordering", "transposition", "negamax"):
        module = importlib.import_module(f"solver.search.{name}")
        for attribute, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__:
                found.append((name, attribute, value.targetoptions.get("_nrt", True)))
    assert len(found) >= 25
    assert [kernel for kernel in found if kernel[2] is not False] == []


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX")
def test_a_forked_process_searches_with_an_empty_table_of_its_own() -> None:
    """The server's workers are forked after the engine is made: a worker writing to the inherited table would copy
    its pages one by one inside a search's budget, so a child gets a fresh table, and the parent keeps its own; a
    look-up by move string in the child (a lane's compiled call, bound to a table when the lane is made) writes to the
    child's table too, never to the inherited one."""
    engine = Engine("4x5k4-gravity", table_bytes=1 << 20)
    expected, string = engine.score(moves="1"), engine.string_answer("1")
    filled = engine._table.copy()
    assert np.count_nonzero(filled) > 0 and engine._lanes and string is not None and string.answer is not None
    pid = os.fork()
    if pid == 0:  # the child: report through the exit status only
        inherited = engine._memory
        fresh = np.count_nonzero(engine._table) == 0
        found = engine.string_answer("1")
        by_string = found is not None and found.answer == string.answer and np.count_nonzero(engine._table) > 0
        answered = engine.score(moves="1") == expected
        os._exit(0 if fresh and by_string and answered and np.array_equal(inherited, filled) else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the child found the parent's entries or answered wrongly"
    assert np.array_equal(engine._table, filled)
