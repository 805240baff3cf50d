"""The 4x4 tables: published counts and values, and thousands of positions re-solved independently.

Each table is built once per module (about 1-2 s and a few hundred MB each).
Reachable positions with at least 8 pieces are sampled with a seeded generator
and solved again by the reference's plain minimax (tests/reference.py), one memo
shared by all the positions of a game.
"""

from __future__ import annotations

from collections.abc import Iterator

import golden
import numpy as np
import pytest
from reference import Reference, board_of, code

import solver
from solver.encoding.board import render
from solver.rules.score import UNREACHABLE

pytestmark = pytest.mark.slow

BIG = ["4x4k4", "4x4k3"]
SAMPLES = {"4x4k4": 3000, "4x4k3": 5000}
"""Positions re-solved per game (4x4k4's are slower: draws keep the game going)."""
MIN_PIECES = 8


@pytest.fixture(scope="module", params=BIG)
def big(request: pytest.FixtureRequest) -> Iterator[tuple[str, solver.Table, Reference]]:
    """A freshly built 4x4 table and a reference solver of the same game, one game at a time
    (pytest groups the tests by game, so each table is built once and freed after its tests)."""
    name = request.param
    rows, cols, k = (int(part) for part in name.replace("k", "x").split("x"))
    yield name, solver.build_table(game=name), Reference(rows, cols, k)


def _pieces(codes: np.ndarray, cells: int) -> np.ndarray:
    """Pieces on each board, from the base-3 digits (not from the table)."""
    count = np.zeros(codes.shape, dtype=np.int64)
    rest = codes.astype(np.int64)
    for _ in range(cells):
        count += rest % 3 != 0
        rest //= 3
    return count


def test_reachable_count_matches_the_published_one(big) -> None:
    name, table, _ = big
    assert table.reachable_codes().size == golden.POSITIONS[name]


def test_empty_board_value_matches_the_published_one(big) -> None:
    name, table, _ = big
    start = table.lookup(0)
    assert start.value == golden.START_VALUE[name], f"{name}: the empty board's value for X is {start.value}"
    assert start.to_move == "X"
    if golden.START_VALUE[name] == 0:
        assert (start.result, start.plies) == ("draw", 16)
    else:
        assert start.result == "win"


def test_stats_have_the_documented_keys_and_the_published_counts(big, documented_stats_keys) -> None:
    name, table, _ = big
    keys, subkeys = documented_stats_keys
    stats = table.stats()
    assert keys <= set(stats), f"{name}: Table.stats() lacks the documented keys {sorted(keys - set(stats))}"
    for key, nested in subkeys.items():
        assert set(stats[key]) == nested, f"{name}: stats[{key!r}] has keys {sorted(stats[key])}, documented {sorted(nested)}"
    assert stats["positions"] == golden.POSITIONS[name]
    assert stats["x_wins"] + stats["draws"] + stats["o_wins"] == stats["positions"]
    assert sum(stats["side_to_move"].values()) == stats["positions"]
    assert stats["terminal"]["positions"] == stats["terminal"]["x_wins"] + stats["terminal"]["o_wins"] + stats["terminal"]["draws"]
    assert stats["games"]["total"] == stats["games"]["x_wins"] + stats["games"]["o_wins"] + stats["games"]["draws"]
    # Each orbit of the 8 symmetries holds at most 8 positions.
    assert stats["positions"] / 8 <= stats["unique_positions"] < stats["positions"]
    assert stats["start"]["value"] == golden.START_VALUE[name]


def test_sampled_positions_with_8_or_more_pieces_match_recursive_minimax(big) -> None:
    name, table, ref = big
    codes = table.reachable_codes()
    pool = codes[_pieces(codes, 16) >= MIN_PIECES]
    sample = np.random.default_rng(20240611).choice(pool, SAMPLES[name], replace=False)
    scores = table.lookup_codes(sample)
    wrong = []
    for i, c in enumerate(sample.tolist()):
        board = board_of(c, 16)
        solution = ref.solve(board)
        got = (int(scores.value[i]), int(scores.plies[i]), {cell for cell in range(16) if int(scores.best[i]) >> cell & 1})
        want = (ref.value(board), solution.plies, set(solution.best))
        if got != want:
            wrong.append(f"  {render(table.game, c)} (code {c}): table value/plies/best {got}, minimax {want}")
    assert not wrong, f"{name}: {len(wrong)} of {sample.size} sampled positions differ from the recursive minimax:\n" + "\n".join(wrong[:5])


def test_sampled_positions_have_the_position_api_answers_of_the_arrays(big) -> None:
    name, table, _ = big
    codes = table.reachable_codes()
    sample = np.random.default_rng(7).choice(codes, 300, replace=False)
    scores = table.lookup_codes(sample)
    for i, c in enumerate(sample.tolist()):
        position = table.lookup(render(table.game, c))
        assert position.code == c
        assert (position.value, position.plies, position.best_mask, position.score) == (
            int(scores.value[i]),
            int(scores.plies[i]),
            int(scores.best[i]),
            int(scores.score[i]),
        ), f"{name} {position.board}"


def test_random_boards_are_reachable_exactly_when_a_backward_search_says_so(big) -> None:
    """Boards with legal piece counts, reachable or not: the table's mark against the reference's search."""
    name, table, ref = big
    rng = np.random.default_rng(99)
    wrong = []
    reachable = 0
    for _ in range(4000):
        ply = int(rng.integers(0, 17))
        cells = rng.permutation(16)
        board = [0] * 16
        for turn, cell in enumerate(cells[:ply]):
            board[cell] = 1 if turn % 2 == 0 else 2
        board_t = tuple(board)
        marked = table.score_of(code(board_t)) != UNREACHABLE
        reachable += marked
        if marked != ref.is_reachable(board_t):
            wrong.append(f"  {render(table.game, code(board_t))}: table {'reachable' if marked else 'unreachable'}")
    assert not wrong, f"{name}: {len(wrong)} boards where the table and a backward search disagree:\n" + "\n".join(wrong[:5])
    assert 0 < reachable < 4000, "the sample should hold both reachable and unreachable boards"
