"""The build's compiled chunk kernel (solver/retrograde/compiled.py) gives the bytes of its numpy twin (each move
rule's ``plain_chunk``): chunk by chunk on any child scores, layer file by layer file in a build, and the shipped
checksum of a compact table built with it."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

import solver.retrograde.spool
from solver.contents.opening import open_table
from solver.encoding.layouts import layout
from solver.retrograde.chunkrules import RULES_FOLLOW, rule_parts, rule_scores
from solver.retrograde.chunks import chunks
from solver.retrograde.compiled import BLOCK, spread_rules
from solver.retrograde.gravity import drop_rule_scores
from solver.retrograde.kernel import solve_chunk
from solver.retrograde.sweep import build_layers
from solver.rules.game import parse_game
from solver.storage.checksums import EXPECTED_COMPACT_ROOTS
from solver.store.make import build_compact

GAMES = ["3x4k3", "4x4k3-misere", "3x4k3-gravity", "4x4k4-gravity"]
"""Placement and gravity, normal and misère play: every branch of the kernel's hooks."""


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("boards", [1000, None])
def test_the_compiled_kernel_and_its_plain_twin_score_every_chunk_alike_whatever_the_child_scores(name: str, boards: int | None) -> None:
    # random child scores (every int8, the extremes included) and random reached marks: the two must agree on every
    # board, unreachable and ruled ones too; small chunks (1,000 boards) end blocks of BLOCK rows part-way
    game = parse_game(name)
    sizes = layout(game).layer_sizes
    rng = np.random.default_rng(40)
    compared = 0
    for ply in range(game.cells + 1):
        child = None if ply == game.cells else rng.integers(-128, 128, sizes[ply + 1], dtype=np.int16).astype(np.int8)
        for chunk in chunks(game, ply, boards=boards):
            reached = rng.random(chunk.boards) < 0.8 if game.build_walks_forward else None
            compiled = solve_chunk(game, chunk, child, reached).copy()
            plain = solve_chunk(game, chunk, child, reached, plain=True)
            assert np.array_equal(compiled, plain), f"{name} layer {ply} chunk at {chunk.start}: the kernel and its twin differ"
            compared += chunk.boards
    assert compared == sum(sizes)


@pytest.mark.parametrize("name", [*GAMES, "4x5k4-gravity"])
@pytest.mark.parametrize("boards", [1000, None])
def test_the_rules_spread_by_the_compiled_gather_are_numpys_for_every_chunk(name: str, boards: int | None) -> None:
    # both ways of rule_parts: a table of classes read through each row's and column's class, and (small chunks) the
    # chunk's own boards read in place
    game = parse_game(name)
    index = layout(game)
    for ply in range(game.cells + 1):
        for chunk in chunks(game, ply, boards=boards):
            tile = index.tiles[ply][chunk.tile]
            compiled = spread_rules(*rule_parts(game, chunk, tile)).copy()
            assert np.array_equal(compiled, rule_scores(game, chunk, tile)), f"{name} layer {ply} chunk at {chunk.start}: the rules differ"


def test_a_chunk_of_more_rows_than_a_block_is_scored_like_the_plain_twin() -> None:
    game = parse_game("4x4k3-misere")
    index = layout(game)
    ply = 8
    child = np.random.default_rng(7).integers(-128, 128, index.layer_sizes[ply + 1], dtype=np.int16).astype(np.int8)
    tall = [chunk for chunk in chunks(game, ply) if chunk.row_stop - chunk.row_start > 2 * BLOCK]
    assert tall, "no chunk of layer 8 spans several blocks: pick another layer"
    for chunk in tall:
        assert np.array_equal(solve_chunk(game, chunk, child), solve_chunk(game, chunk, child, plain=True))


def test_a_wide_tile_taken_in_blocks_of_the_fewest_rows_is_scored_like_the_plain_twin(monkeypatch: pytest.MonkeyPatch) -> None:
    # 5x5k4's tiles of up to 90,090 columns are taken MIN_LANES rows a block (TURNED_BYTES): here every tile is
    import solver.retrograde.compiled

    monkeypatch.setattr(solver.retrograde.compiled, "TURNED_BYTES", 1)
    game = parse_game("4x4k3-misere")
    index = layout(game)
    rng = np.random.default_rng(9)
    for ply in (6, 9):
        child = rng.integers(-128, 128, index.layer_sizes[ply + 1], dtype=np.int16).astype(np.int8)
        for chunk in chunks(game, ply):
            assert np.array_equal(solve_chunk(game, chunk, child), solve_chunk(game, chunk, child, plain=True))


def _layers(name: str, directory: Path, monkeypatch: pytest.MonkeyPatch, *, plain: bool) -> tuple[object, list[bytes]]:
    """A build's per-layer checksums and layer files, with the compiled kernel or its plain twin."""
    with monkeypatch.context() as patch:
        if plain:
            patch.setattr(solver.retrograde.spool, "solve_chunk", functools.partial(solve_chunk, plain=True))
        done = build_layers(parse_game(name), directory, jobs=1)
    return done.sha256, [done.layer_path(ply).read_bytes() for ply in range(parse_game(name).cells + 1)]


@pytest.mark.parametrize("name", GAMES)
def test_a_build_writes_the_same_layers_with_the_compiled_kernel_and_with_its_plain_twin(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = _layers(name, tmp_path / "compiled", monkeypatch, plain=False)
    plain = _layers(name, tmp_path / "plain", monkeypatch, plain=True)
    assert compiled == plain


def test_a_build_with_the_plain_twin_does_not_run_the_compiled_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the comparison above compares two kernels only if the twin's build really bypasses the compiled one
    import solver.retrograde.compiled

    def refused(*args: object) -> None:
        raise AssertionError("the compiled kernel ran")

    monkeypatch.setattr(solver.retrograde.compiled, "score_chunk", refused)  # the hooks import it where a chunk is scored
    _layers("3x3k3", tmp_path / "plain", monkeypatch, plain=True)
    with pytest.raises(AssertionError, match="the compiled kernel ran"):
        _layers("3x3k3", tmp_path / "compiled", monkeypatch, plain=False)


@pytest.mark.parametrize("name", ["4x4k4-gravity", pytest.param("4x5k4", marks=pytest.mark.slow)])
def test_a_compact_table_built_with_the_compiled_kernel_has_the_shipped_checksum(name: str, tmp_path: Path) -> None:
    path = build_compact(parse_game(name), tmp_path / f"{name}.ttt", jobs=1)
    assert open_table(path).header.root == EXPECTED_COMPACT_ROOTS[name]


@pytest.mark.parametrize("name", ["3x4k3-gravity", "4x4k4-gravity", "4x4k3-gravity-misere", "4x4k3-gravity-armageddon", "4x5k4-gravity", "5x4k4-gravity"])
def test_a_gravity_chunks_rules_by_the_compiled_pass_are_the_class_grids_for_every_board(name: str) -> None:
    # every board of every chunk, reached or not: the line score, UNREACHABLE where the side to move has a line
    game = parse_game(name)
    index = layout(game)
    ruled = 0
    for ply in range(game.cells):
        for chunk in chunks(game, ply, boards=1000):
            tile = index.tiles[ply][chunk.tile]
            compiled = drop_rule_scores(game, chunk, tile).copy()
            plain = rule_scores(game, chunk, tile)
            assert np.array_equal(compiled, plain), f"{name} layer {ply} chunk at {chunk.start}: the rules differ"
            ruled += int(np.count_nonzero(plain != RULES_FOLLOW))
    assert ruled > 0, "no board of any layer was ruled: the comparison saw only RULES_FOLLOW"


def test_the_compiled_gravity_rules_refuse_a_rule_whose_lines_tell_the_boards_no_game_reaches() -> None:
    game = parse_game("3x4k3")
    chunk = chunks(game, 4)[0]
    with pytest.raises(AssertionError, match="tell every board no game reaches"):
        drop_rule_scores(game, chunk, layout(game).tiles[4][chunk.tile])
