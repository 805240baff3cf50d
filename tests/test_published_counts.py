"""The counts the package reports are the published ones, and those a plain enumeration finds.

Tic-tac-toe's statistics (built fresh and from the shipped table) must equal the
published numbers in tests/golden.py. For small games, where nothing is
published, every figure of ``Table.stats()`` must equal the one the reference
(tests/reference.py) counts on its own: positions by forward enumeration, games by
path counting, unique positions with its own symmetry maps.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import golden
import numpy as np
import pytest
from reference import LOSS, WIN, code, reference

import solver
import solver.store.locate
from solver.encoding.board import render

SMALL_GAMES = ["1x1k1", "2x2k1", "2x2k2", "2x3k2", "2x3k3", "3x3k2", "3x3k3", "1x5k3", "2x4k3", "3x4k3", "4x3k3", "2x6k3"]
MISERE_GAMES = ["1x1k1-misere", "2x2k2-misere", "3x3k2-misere", "3x3k3-misere", "3x4k3-misere", "2x6k3-misere"]


@cache
def reference_stats(name: str) -> dict[str, Any]:
    """``Table.stats()`` as the reference computes it, from the rules alone."""
    ref = reference(name)
    boards = ref.reachable()
    solved = {board: ref.solve(board) for board in boards}
    values = [ref.value(board) for board in boards]
    results = [s.result for s in solved.values()]
    finished = [board for board in boards if ref.is_over(board)]
    winners = [3 - ref.winner(board) if ref.misere and ref.winner(board) else ref.winner(board) for board in finished]  # misère: the line's owner lost
    x_wins, o_wins, draws = ref.games()
    start = solved[ref.empty]
    return {
        "game": name,
        "positions": len(boards),
        "x_wins": values.count(1),
        "draws": values.count(0),
        "o_wins": values.count(-1),
        "side_to_move": {"wins": results.count(WIN), "draws": results.count(0), "losses": results.count(LOSS)},
        "terminal": {"positions": len(finished), "x_wins": winners.count(1), "o_wins": winners.count(2), "draws": winners.count(0)},
        "unique_positions": ref.unique(boards),
        "games": {"total": x_wins + o_wins + draws, "x_wins": x_wins, "o_wins": o_wins, "draws": draws},
        "start": {"value": ref.value(ref.empty), "result": {WIN: "win", 0: "draw", LOSS: "loss"}[start.result], "plies": start.plies},
    }


@cache
def built(name: str) -> solver.Table:
    return solver.build_table(game=name)


def _assert_tictactoe_matches_published(stats: dict[str, Any], where: str) -> None:
    assert stats["positions"] == golden.POSITIONS["3x3k3"], f"{where}: positions"
    assert stats["terminal"] == golden.TERMINAL_3X3, f"{where}: finished positions"
    assert stats["unique_positions"] == golden.UNIQUE_POSITIONS_3X3, f"{where}: positions up to symmetry"
    assert stats["games"] == golden.GAMES_3X3, f"{where}: complete games"
    assert stats["start"] == {"value": golden.START_VALUE["3x3k3"], "result": "draw", "plies": 9}, f"{where}: the empty board"


def test_built_tictactoe_stats_match_the_published_counts() -> None:
    _assert_tictactoe_matches_published(solver.build_table().stats(), "solver.build_table().stats()")


def test_shipped_tictactoe_table_is_the_built_table_and_matches_the_published_counts() -> None:
    path = solver.store.locate.shipped_path(solver.Game())
    assert path is not None and path.is_file(), "the 3x3k3 table is not shipped (data/3x3k3.ttt)"
    shipped = solver.load_table(path, verify=True)
    fresh = built("3x3k3")
    assert shipped.game == fresh.game
    for name in ("score", "best"):
        wrong = np.flatnonzero(np.asarray(getattr(shipped, name)) != np.asarray(getattr(fresh, name)))
        assert wrong.size == 0, f"{path}: {name} differs from a fresh build at {wrong.size} codes, e.g. " + ", ".join(
            render(fresh.game, int(c)) for c in wrong[:5]
        )
    assert shipped.verify() == []
    _assert_tictactoe_matches_published(shipped.stats(), str(path))


def test_default_table_and_lookup_serve_the_shipped_tictactoe(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    # An empty table directory: nothing cached by the user may stand in for the shipped table.
    monkeypatch.setenv(solver.store.locate.ENV_VAR, str(tmp_path))
    solver.forget()
    try:
        table = solver.table_for()
        assert table.path is not None and table.path.resolve() == solver.store.locate.shipped_path(solver.Game()).resolve()
        assert list(tmp_path.iterdir()) == [], "opening tic-tac-toe wrote a table: the shipped one was not used"
        _assert_tictactoe_matches_published(table.stats(), "solver.table_for()")
        start = solver.lookup(0)
        assert (start.value, start.result, start.plies) == (golden.START_VALUE["3x3k3"], "draw", 9)
        codes = built("3x3k3").reachable_codes()
        assert codes.size == golden.POSITIONS["3x3k3"]
        scores = solver.lookup_codes(codes)
        assert np.array_equal(scores.score, built("3x3k3").score[codes])
        assert np.array_equal(scores.best, built("3x3k3").best[codes])
    finally:
        solver.forget()


def test_stats_keys_are_exactly_the_documented_ones(documented_stats_keys) -> None:
    keys, subkeys = documented_stats_keys
    stats = built("3x3k3").stats()
    assert set(stats) == keys, (
        f"Table.stats() keys {sorted(stats)} differ from those documented in solver/tables/summary.py {sorted(keys)}: "
        f"undocumented {sorted(set(stats) - keys)}, missing {sorted(keys - set(stats))}"
    )
    for key, nested in subkeys.items():
        assert set(stats[key]) == nested, f"stats[{key!r}] has keys {sorted(stats[key])}, documented {sorted(nested)}"


@pytest.mark.parametrize("name", SMALL_GAMES + MISERE_GAMES)
def test_stats_of_small_games_equal_the_reference_counts(name: str) -> None:
    stats, expected = built(name).stats(), reference_stats(name)
    differ = {key: (stats.get(key), expected[key]) for key in expected if stats.get(key) != expected[key]}
    assert not differ, f"{name}: Table.stats() differs from the reference (stats, reference): {differ}"


@pytest.mark.parametrize("name", SMALL_GAMES)
def test_stats_count_the_positions_the_table_marks_reachable(name: str) -> None:
    table = built(name)
    assert table.stats()["positions"] == table.reachable_codes().size


@pytest.mark.parametrize("name", ["1x1k1", "2x2k2", "3x3k3"])
def test_reference_enumeration_finds_the_published_number_of_positions(name: str) -> None:
    assert len(reference(name).reachable()) == golden.POSITIONS[name]


def test_reference_counts_match_the_published_tictactoe_numbers() -> None:
    """The reference itself reproduces every published 3x3 figure, so it can vouch for other games."""
    stats = reference_stats("3x3k3")
    _assert_tictactoe_matches_published(stats, "tests/reference.py")
    ref = reference("3x3k3")
    finished = [board for board in ref.reachable() if ref.is_over(board)]
    by_winner = {who: [board for board in finished if ref.winner(board) == digit] for who, digit in (("x_wins", 1), ("o_wins", 2), ("draws", 0))}
    unique = {who: ref.unique(boards) for who, boards in by_winner.items()}
    unique["positions"] = ref.unique(finished)
    assert unique == golden.UNIQUE_TERMINAL_3X3


@pytest.mark.parametrize("name", sorted(set(golden.START_VALUE) - {"4x4k3", "4x4k4"}))
def test_empty_board_value_matches_the_published_result(name: str) -> None:
    start = built(name).lookup(0)
    assert start.value == golden.START_VALUE[name], f"{name}: the empty board's value for X is {start.value}"
    assert start.value == reference(name).value(reference(name).empty)
    assert code(reference(name).empty) == 0
