"""The compact index (solver/encoding/index.py) is a bijection from legal-count boards onto 0 .. size - 1,
layer by layer, checked against brute force over every code of small games."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from solver.encoding.layouts import layout
from solver.rules.game import Game, parse_game

SMALL = ["1x1k1", "1x2k1", "1x5k3", "2x2k2", "3x3k3", "2x4k2", "3x4k3", "2x5k2", "2x6k3", "3x4k4"]


def _counts(game: Game) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    codes = np.arange(game.codes, dtype=np.int64)
    rest, nx, no = codes.copy(), np.zeros_like(codes), np.zeros_like(codes)
    for _ in range(game.cells):
        nx += rest % 3 == 1
        no += rest % 3 == 2
        rest //= 3
    return codes, nx, no


@pytest.mark.parametrize("name", SMALL)
def test_every_legal_count_board_gets_a_distinct_index_and_every_index_is_used(name: str) -> None:
    game = parse_game(name)
    index = layout(game)
    codes, nx, no = _counts(game)
    legal = (nx == no) | (nx == no + 1)
    found = index.index_of(codes)
    assert (found[~legal] < 0).all(), "a board with impossible counts got an index"
    assert np.array_equal(np.sort(found[legal]), np.arange(index.size))
    layer = np.searchsorted(index.layer_offsets, found[legal], side="right") - 1
    assert np.array_equal(layer, (nx + no)[legal]), "a board is indexed outside its layer"


@pytest.mark.parametrize("name", SMALL)
def test_index_to_code_inverts_code_to_index_with_the_right_masks(name: str) -> None:
    game = parse_game(name)
    index = layout(game)
    codes, x, o = index.codes(0, index.size)
    assert np.array_equal(index.index_of(codes), np.arange(index.size))
    digits = np.zeros_like(codes)
    for cell in range(game.cells):
        digits += ((x >> cell) & 1) * 3**cell + ((o >> cell) & 1) * 2 * 3**cell
    assert np.array_equal(digits, codes), "the X/O masks disagree with the codes"
    shuffled = np.random.default_rng(1).permutation(index.size)
    assert np.array_equal(index.codes_at(shuffled), codes[shuffled])
    for i in range(0, index.size, max(1, index.size // 300)):
        assert index.index_of_code(int(codes[i])) == i
        assert index.code_of_index(i) == int(codes[i])


def test_a_range_inside_a_layer_gives_the_same_boards_as_the_whole_table() -> None:
    index = layout(parse_game("3x4k3"))
    whole = index.codes(0, index.size)[0]
    for start, stop in [(0, 1), (5, 400), (1000, 1001), (3000, 9000), (index.size - 7, index.size)]:
        assert np.array_equal(index.codes(start, stop)[0], whole[start:stop])


@pytest.mark.parametrize(
    "name, boards",
    # Legal-count boards from binomials: the table in shared/notes/big-games.md (beside the project).
    [("3x6k3", 86_574_831), ("4x5k4", 741_365_049), ("3x7k3", 2_173_243_128), ("5x5k4", 161_995_031_226)],
)
def test_big_layouts_have_the_binomial_sizes(name: str, boards: int) -> None:
    game = parse_game(name)
    index = layout(game)
    assert index.size == boards
    expected = [comb(game.cells, (p + 1) // 2) * comb(game.cells - (p + 1) // 2, p // 2) for p in range(game.cells + 1)]
    assert list(index.layer_sizes) == expected


def test_scalar_and_vectorised_indices_agree_on_random_25_cell_codes() -> None:
    index = layout(parse_game("5x5k4"))
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 3**25, 2000, dtype=np.int64)
    vector = index.index_of(codes)
    assert [index.index_of_code(int(c)) for c in codes] == np.maximum(vector, -1).tolist()
    legal = codes[vector >= 0]
    assert all(index.code_of_index(int(i)) == int(c) for i, c in zip(index.index_of(legal[:50]), legal[:50], strict=True))


# The numbering itself, pinned: (index, code) pairs and the layer sizes, computed once from the
# index as it was when compact tables were first written (SCHEME_VERSION 1). A change in the
# numbering must fail here, not only in the shipped checksums of the compact tables.
GOLDEN_NUMBERING = {
    "3x3k3": (
        (1, 9, 72, 252, 756, 1260, 1680, 1260, 630, 126),
        ((0, 0), (1, 1), (863, 15822), (2015, 13479), (3023, 19071), (4030, 2146), (6044, 16441), (6045, 9881)),
    ),
    "3x4k3": (
        (1, 12, 132, 660, 2970, 7920, 18480, 27720, 34650, 27720, 16632, 5544, 924),
        ((0, 0), (1, 1), (20480, 347977), (47788, 370590), (71682, 55912), (95576, 349285), (143363, 443230), (143364, 266084)),
    ),
    "3x6k3": (
        (1, 18, 306, 2448, 18360, 85680, 371280, 1113840, 3063060, 6126120, 11027016, 14702688, 17153136, 14702688, 10501920, 5250960, 1969110, 437580, 48620),
        (
            (0, 0),
            (1, 1),
            (12367833, 262984675),
            (28858277, 278548188),
            (43287415, 232802774),
            (57716554, 138046067),
            (86574829, 322860247),
            (86574830, 193720085),
        ),
    ),
    "5x5k4": (
        (
            1,
            25,
            600,
            6900,
            75900,
            531300,
            3542000,
            16824500,
            75710250,
            257414850,
            823727520,
            2059318800,
            4805077200,
            8923714800,
            15297796800,
            21034470600,
            26293088250,
            26293088250,
            23371634000,
            16360143800,
            9816086280,
            4461857400,
            1622493600,
            405623400,
            67603900,
            5200300,
        ),
        (
            (0, 0),
            (1, 1),
            (23142147318, 494423556695),
            (53998343742, 6869496902),
            (80997515613, 223966003477),
            (107996687484, 816244393345),
            (161995031224, 706074106921),
            (161995031225, 423644570441),
        ),
    ),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_NUMBERING))
def test_the_index_numbers_boards_exactly_as_the_golden_fixture_says(name: str) -> None:
    sizes, pairs = GOLDEN_NUMBERING[name]
    index = layout(parse_game(name))
    assert index.layer_sizes == sizes
    assert index.size == sum(sizes)
    for at, code in pairs:
        assert index.index_of_code(code) == at, f"{name}: code {code} has index {index.index_of_code(code)}, the fixture says {at}"
        assert index.code_of_index(at) == code, f"{name}: index {at} is code {index.code_of_index(at)}, the fixture says {code}"
    codes = np.array([code for _, code in pairs], dtype=np.int64)
    assert index.index_of(codes).tolist() == [at for at, _ in pairs]
    assert index.codes_at(np.array([at for at, _ in pairs], dtype=np.int64)).tolist() == codes.tolist()
