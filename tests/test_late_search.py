"""Positions near the end searched in Python (solver/search/late.py): exact as the independent reference and Pons'
test set say, stopped at its budget, and used by a search table only while its engine is not loaded, so that a new
process answers a late position without loading numba.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from reference import Reference, code

from solver.rules.game import parse_game
from solver.rules.score import decode
from solver.search import booked, late
from solver.search.answer import score_byte
from solver.store import searched
from solver.store.searched import SearchTable

PONS = Path(__file__).resolve().parents[2] / "shared" / "data" / "connect4" / "pons_tests"


def end_easy() -> str:
    """Pons' End-Easy set (``Test_L3_R1``), read from beside the checkout; the test is skipped where it is absent."""
    path = PONS / "Test_L3_R1"
    if not path.is_file():
        pytest.skip(f"Pons' test set Test_L3_R1 is not beside the checkout ({PONS})")
    return path.read_text()


LATE = "2252576253462244111563365343671351441"
"""End-Easy's first position (37 pieces)."""


@pytest.mark.parametrize(
    ("name", "empty", "count"),
    [("4x5k4-gravity", 12, 40), ("5x4k3-gravity", 12, 40), ("6x7k4-gravity", 10, 25), ("5x6k4-gravity", 11, 20), ("4x8k4-gravity", 12, 15)],
)
def test_the_python_search_values_every_move_as_the_independent_reference_does(name: str, empty: int, count: int) -> None:
    game = parse_game(name)
    ref = Reference(game.rows, game.cols, game.k, gravity=True)
    rng = random.Random(name)
    done = 0
    while done < count:
        board = ref.random_position(rng, empty)
        if board is None:
            continue
        bits = booked.bits_of_code(game, code(board))
        score, scored = late.answer(game, bits.pos, bits.mask, bits.pieces, 10**7)
        expected = ref.solve(board)
        assert decode(score, empty) == (decode(expected.result * 99, 0)[0], expected.plies), f"{name} {board}"
        outcomes = ref.move_outcomes(board)
        assert [cell for cell, _ in scored] == sorted(outcomes), f"{name} {board}: the moves"
        for cell, byte in scored:
            result, plies = outcomes[cell]
            assert decode(byte, empty) == (decode(result * 99, 0)[0], plies), f"{name} {board}: move at {cell}"
        assert {cell for cell, byte in scored if byte == score} == set(expected.best), f"{name} {board}: best moves"
        done += 1


def test_the_python_search_gives_every_position_of_pons_end_easy_set_its_exact_score() -> None:
    game = parse_game("connect4")
    lines = [line.split() for line in end_easy().splitlines() if line.strip()]
    for moves, pons in lines:
        bits = booked.play(game, moves)
        assert bits is not None, moves
        score, _ = late.answer(game, bits.pos, bits.mask, bits.pieces, 10**7)
        assert score == score_byte(int(pons), len(moves), game.cells), moves
    assert len(lines) == 1000


def test_the_python_search_stops_at_its_budget_of_positions() -> None:
    game = parse_game("connect4")
    bits = booked.play(game, "4455")  # the opening: far more than a hundred positions
    assert bits is not None
    with pytest.raises(late.TooLong):
        late.answer(game, bits.pos, bits.mask, bits.pieces, 100)


def _lazy_table() -> SearchTable:
    """A search table whose engine is made at its first search, as the package's is (no book)."""
    from solver.search import Engine

    return SearchTable(lambda: Engine("connect4", table_bytes=1 << 22, threads=1), game=parse_game("connect4"))


def test_a_search_table_answers_late_positions_in_python_until_its_engine_is_worth_loading(monkeypatch: pytest.MonkeyPatch) -> None:
    """Late positions (by move string and by code) are answered without making the engine, and as the engine answers
    them; a position with more empty cells than ``LATE_EMPTY``, or any once ``LATE_SECONDS`` is spent, makes it."""
    lines = [line.split()[0] for line in end_easy().splitlines() if line.strip()][:40]
    from solver.search import Engine

    table, engine_table = _lazy_table(), SearchTable(Engine("connect4", table_bytes=1 << 22, threads=1))
    for moves in lines:
        by_moves = table.at_moves(moves)
        by_code = table.at(by_moves.code)
        searched_ = engine_table.at_moves(moves)  # its engine made: searched by it
        assert (by_moves.score, by_moves.move_scores) == (by_code.score, by_code.move_scores), moves
        assert (by_moves.score, by_moves.best_mask, by_moves.move_scores) == (searched_.score, searched_.best_mask, searched_.move_scores), moves
    assert not table._shared.loaded, "a late position made the engine"
    table.at_moves(LATE[:24])  # 18 empty cells, more than LATE_EMPTY: the engine
    assert table._shared.loaded
    spent = _lazy_table()
    monkeypatch.setattr(spent._shared, "late_seconds", 0.0)
    spent.at_moves(LATE)
    assert spent._shared.loaded, "a process past LATE_SECONDS searched in Python again"
    short = _lazy_table().bounded(budget=searched.LATE_BUDGET / 2)
    short.at_moves(LATE)
    assert short._shared.loaded, "a look-up with little time left searched in Python"


def test_a_new_process_answers_a_late_position_without_loading_numba() -> None:
    pons = int(end_easy().split()[1])  # the score Pons' file gives LATE
    code_ = (
        "import sys, solver\n"
        f"p = solver.lookup(None, game='connect4', moves='{LATE}')\n"
        "assert 'numba' not in sys.modules, 'a late position loaded numba'\n"
        f"assert p.score == {score_byte(pons, len(LATE), 42)}, p\n"
    )
    done = subprocess.run([sys.executable, "-c", code_], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
