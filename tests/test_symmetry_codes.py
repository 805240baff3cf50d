"""Symmetries acting on codes (solver.encoding.symmetry), checked against a digit-by-digit reference.

The reference moves base-3 digits with ``game.rules.symmetries`` one cell at a time; the
module under test uses digit-chunk tables. Boards are random legal-count boards
(X has as many pieces as O or one more) of square and non-square games up to 25 cells.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solver
from solver.encoding.board import render
from solver.encoding.symmetry import Symmetries, symmetries
from solver.rules.game import Game, parse_game

GAMES = ["3x3k3", "4x5k4", "5x5k4", "3x6k3", "2x9k4", "4x4k4", "1x5k3", "2x2k2", "1x1k1"]
EXAMPLES = settings(max_examples=150, deadline=None)


def digits(game: Game, code: int) -> list[int]:
    return [(code // 3**cell) % 3 for cell in range(game.cells)]


def reference_image(game: Game, code: int, perm: tuple[int, ...]) -> int:
    """The image's digit at cell c is the board's digit at perm[c]."""
    board = digits(game, code)
    return sum(board[perm[cell]] * 3**cell for cell in range(game.cells))


@st.composite
def legal_boards(draw: st.DrawFn) -> tuple[Game, int]:
    """A game and a random board of it where X has as many pieces as O or one more."""
    game = parse_game(draw(st.sampled_from(GAMES)))
    order = draw(st.permutations(range(game.cells)))
    pieces = draw(st.integers(0, game.cells))
    code = sum((1 if i % 2 == 0 else 2) * 3**cell for i, cell in enumerate(order[:pieces]))
    return game, code


@EXAMPLES
@given(legal_boards())
def test_images_agree_with_the_digit_by_digit_reference(case: tuple[Game, int]) -> None:
    game, code = case
    sym = symmetries(game)
    expected = [reference_image(game, code, perm) for perm in game.rules.symmetries]
    assert sym.images_of(code) == expected, render(game, code)
    for s, image in enumerate(expected):
        assert sym.image_of(code, s) == image
        assert int(sym.image(np.array([code]), s)[0]) == image


@EXAMPLES
@given(legal_boards())
def test_canonical_is_the_smallest_image_and_the_first_symmetry_giving_it(case: tuple[Game, int]) -> None:
    game, code = case
    images = [reference_image(game, code, perm) for perm in game.rules.symmetries]
    expected = (min(images), images.index(min(images)))
    assert symmetries(game).canonical_of(code) == expected, render(game, code)
    best, which = symmetries(game).canonical(np.array([code]))
    assert (int(best[0]), int(which[0])) == expected


@EXAMPLES
@given(legal_boards())
def test_every_image_of_a_board_has_the_same_canonical_code(case: tuple[Game, int]) -> None:
    game, code = case
    sym = symmetries(game)
    canonical, _ = sym.canonical_of(code)
    images = np.array(sym.images_of(code), dtype=np.int64)
    assert {sym.canonical_of(int(image))[0] for image in images} == {canonical}, render(game, code)
    assert set(sym.canonical(images)[0].tolist()) == {canonical}


@EXAMPLES
@given(legal_boards())
def test_canonical_is_idempotent_and_reached_by_its_symmetry(case: tuple[Game, int]) -> None:
    game, code = case
    sym = symmetries(game)
    canonical, s = sym.canonical_of(code)
    assert sym.canonical_of(canonical) == (canonical, 0)
    assert sym.image_of(code, s) == canonical
    assert sym.image_of(canonical, sym.inverse[s]) == code, "the inverse symmetry brings the caller's board back"
    assert bool(sym.is_canonical(np.array([code]))[0]) == (canonical == code)


@EXAMPLES
@given(legal_boards(), st.data())
def test_a_cell_maps_there_and_back_and_keeps_its_content(case: tuple[Game, int], data: st.DataObject) -> None:
    game, code = case
    sym = symmetries(game)
    canonical, s = sym.canonical_of(code)
    cell = data.draw(st.integers(0, game.cells - 1))
    theirs = sym.cell_to_caller(cell, s)
    assert sym.cell_from_caller(theirs, s) == cell
    assert sym.cell_to_caller(sym.cell_from_caller(cell, s), s) == cell
    assert digits(game, canonical)[cell] == digits(game, code)[theirs], "cell of the canonical board vs the caller's"


@EXAMPLES
@given(legal_boards(), st.data())
def test_masks_map_like_their_cells(case: tuple[Game, int], data: st.DataObject) -> None:
    game, _ = case
    sym = symmetries(game)
    s = data.draw(st.integers(0, sym.count - 1))
    mask = data.draw(st.integers(0, game.full_mask))
    expected = sum(1 << sym.cell_to_caller(cell, s) for cell in range(game.cells) if mask >> cell & 1)
    assert sym.mask_to_caller(mask, s) == expected
    assert sym.mask_from_caller(expected, s) == mask
    assert int(sym.masks_to_caller(np.array([mask]), np.array([s]))[0]) == expected


@EXAMPLES
@given(legal_boards())
def test_canonical_children_are_the_canonical_codes_of_each_move(case: tuple[Game, int]) -> None:
    game, code = case
    sym = symmetries(game)
    board = digits(game, code)
    piece = 1 if board.count(1) == board.count(2) else 2
    cells, best, which = sym.canonical_children(code, piece)
    assert cells.tolist() == [cell for cell in range(game.cells) if board[cell] == 0]
    for cell, canonical, s in zip(cells.tolist(), best.tolist(), which.tolist(), strict=True):
        assert sym.canonical_of(code + piece * 3**cell) == (canonical, s), f"{render(game, code)} move {cell}"


@EXAMPLES
@given(legal_boards())
def test_canonical_child_codes_in_plain_ints_are_the_canonical_codes_of_each_move(case: tuple[Game, int]) -> None:
    game, code = case
    sym = symmetries(game)
    board = digits(game, code)
    piece = 1 if board.count(1) == board.count(2) else 2
    cells = [cell for cell in range(game.cells) if board[cell] == 0]
    found = list(sym.canonical_child_codes(code, piece, cells))
    assert found == [sym.canonical_of(code + piece * 3**cell)[0] for cell in cells], render(game, code)


@pytest.mark.parametrize("name", GAMES)
def test_vectorised_calls_match_one_code_at_a_time_on_many_boards(name: str) -> None:
    game = parse_game(name)
    sym = symmetries(game)
    rng = np.random.default_rng(14)
    codes = rng.integers(0, game.codes, size=(3, 2000), dtype=np.int64)  # any shape is kept
    best, which = sym.canonical(codes)
    assert best.shape == which.shape == codes.shape
    expected = [sym.canonical_of(code) for code in codes.ravel().tolist()]
    assert list(zip(best.ravel().tolist(), which.ravel().tolist(), strict=True)) == expected
    assert np.array_equal(sym.image(codes, which), best), "per-code symmetries"
    assert np.array_equal(sym.image(best, np.array(sym.inverse)[which]), codes), "and back"
    assert np.array_equal(sym.is_canonical(codes), best == codes)


@pytest.mark.parametrize(("name", "count"), [("5x5k4", 8), ("4x4k4", 8), ("4x5k4", 4), ("2x9k4", 4)])
def test_a_square_has_eight_symmetries_and_a_rectangle_four(name: str, count: int) -> None:
    sym = symmetries(parse_game(name))
    assert isinstance(sym, Symmetries) and sym.count == count
    assert all(sorted(perm) == list(range(sym.game.cells)) for perm in sym.perms)
    assert [sym.inverse[sym.inverse[s]] for s in range(count)] == list(range(count))


@cache
def table(name: str) -> solver.Table:
    return solver.build_table(game=name)


@pytest.mark.parametrize("name", ["3x3k3", "3x4k3"])
def test_best_moves_of_the_canonical_board_map_back_to_the_callers_best_moves(name: str) -> None:
    # What a table that stores canonical boards only does: look up the canonical board,
    # map its best-move mask back. It must equal the caller's own best moves, on every reachable board.
    tab = table(name)
    sym = symmetries(tab.game)
    scores = tab.lookup_codes(np.arange(tab.game.codes), check=False)
    reachable = np.flatnonzero(scores.score != -128)
    canonical, which = sym.canonical(reachable)
    through = tab.lookup_codes(canonical)
    assert np.array_equal(through.score, scores.score[reachable])
    assert np.array_equal(sym.masks_to_caller(through.best, which), scores.best[reachable].astype(np.uint32))


@pytest.mark.parametrize("name", ["5x5k4", "4x5k4", "3x7k3", "3x3k3", "1x5k3"])
def test_the_canonical_test_of_a_block_grid_matches_the_test_of_each_board(name: str) -> None:
    from solver.encoding.layouts import layout

    game = parse_game(name)
    index, sym = layout(game), symmetries(game)
    rng = np.random.default_rng(3)
    high = rng.integers(0, 3**index.high_cells, 60)
    low = rng.integers(0, 3**index.low_cells, 70)
    grid = sym.is_canonical_grid(high, low, index.radix)
    codes = high[:, None] * index.radix + low[None, :]
    assert grid.shape == (60, 70)
    assert np.array_equal(grid, sym.is_canonical(codes))
    assert grid.any() and not grid.all() or game.cells < 9
