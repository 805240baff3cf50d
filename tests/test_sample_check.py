"""The seeded sample check of a table (solver/store/samplecheck.py, ``solve verify --sample``): it finds nothing
on a good table, finds a planted wrong score wherever its sample reaches it, names the board, and its
reference minimax agrees with the tables near the end of the game."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import solver
from solver.cli import main
from solver.encoding.board import render
from solver.encoding.coderules import code_rules
from solver.encoding.layouts import layout
from solver.encoding.symmetry import symmetries
from solver.retrograde.minimax import MAX_EMPTY, negamax_score
from solver.retrograde.sweep import build_layers
from solver.rules.base import IN_PLAY
from solver.rules.game import Game, parse_game
from solver.storage import checksums
from solver.store.locate import ENV_VAR, open_compact, open_file, table_path
from solver.store.make import write_compact
from solver.store.samplecheck import check_layer, check_sample, sample_layer
from solver.tables import CompactTable


@pytest.fixture(scope="module")
def layers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[np.ndarray]]:
    """Every board's score of 2x9k4 and 3x6k3 (18 cells each, about a second to build), layer by layer."""
    found = {}
    for name in ("2x9k4", "3x6k3"):
        built = build_layers(parse_game(name), tmp_path_factory.mktemp(name), jobs=2)
        found[name] = [np.array(layer) for layer in built.layers()]
    return found


def _planted(game: Game, layers: list[np.ndarray], code: int) -> tuple[list[np.ndarray], int]:
    """The layers with the score of board ``code`` changed, and the new score: a draw, or if it was one the
    slowest win a board of its layer can have (a possible score, so the blocks' plausibility check passes it)."""
    index = layout(game)
    at = index.index_of_code(code)
    ply = index.layer_of(at)
    changed = [layer.copy() for layer in layers]
    old = int(changed[ply][at - index.layer_offsets[ply]])
    new = 0 if old else min(score for score in game.rules.possible_scores(ply) if score > 0)
    changed[ply][at - index.layer_offsets[ply]] = new
    return changed, new


# -- the sample ------------------------------------------------------------------------------
@pytest.mark.parametrize("ply", [3, 12])
def test_the_sample_is_distinct_canonical_boards_in_play_of_the_layer(ply: int) -> None:
    game = parse_game("3x6k3")
    codes = sample_layer(game, ply, 3000, seed=5)
    assert codes.size == np.unique(codes).size
    assert (code_rules(game).statuses(codes) == IN_PLAY).all()
    assert symmetries(game).is_canonical(codes).all()
    index = layout(game)
    assert {index.layer_of(int(i)) for i in index.index_of(codes)} == {ply}


def test_a_layer_with_fewer_boards_than_asked_is_sampled_whole() -> None:
    game = parse_game("3x6k3")
    index = layout(game)
    every = index.codes(index.layer_offsets[3], index.layer_offsets[4])[0]
    canonical_in_play = every[(code_rules(game).statuses(every) == IN_PLAY) & symmetries(game).is_canonical(every)]
    assert np.array_equal(np.sort(sample_layer(game, 3, 10_000, seed=1)), np.sort(canonical_in_play))


def test_the_same_seed_gives_the_same_sample_and_another_seed_another() -> None:
    game = parse_game("2x9k4")
    first = sample_layer(game, 11, 500, seed=3)
    assert np.array_equal(first, sample_layer(game, 11, 500, seed=3))
    assert first.size == 500 and np.intersect1d(first, sample_layer(game, 11, 500, seed=4)).size < 50


# -- a good table, a planted wrong score -------------------------------------------------------
@pytest.mark.parametrize("name", ["2x9k4", "3x6k3"])
def test_the_sample_of_a_good_table_finds_nothing(layers: dict[str, list[np.ndarray]], name: str) -> None:
    game = parse_game(name)
    report = check_sample(CompactTable.from_layers(game, layers[name]), boards=1500, seed=7, reference=5)
    assert report.ok, report.problems
    assert len(report.layers) == game.cells + 1 and report.checked > 15 * 1000
    assert all(layer.boards == 0 for layer in report.layers if layer.ply == game.cells)  # the full board: finished
    assert all(layer.reference == 5 for layer in report.layers if 0 < game.cells - layer.ply <= MAX_EMPTY)
    assert report.seconds > 0 and all(layer.wrong == 0 for layer in report.layers)


@pytest.fixture(scope="module")
def good_file(layers: dict[str, list[np.ndarray]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 2x9k4 table as a compressed file (format version 3)."""
    return write_compact(tmp_path_factory.mktemp("file") / "2x9k4.ttt", parse_game("2x9k4"), layers["2x9k4"])


def test_the_sample_of_a_good_compressed_file_finds_nothing(good_file: Path) -> None:
    table = open_compact(good_file)
    report = check_sample(table, boards=1000, seed=2, reference=0)
    assert report.ok, report.problems


def test_a_planted_wrong_score_in_a_layer_checked_whole_is_found_and_named(layers: dict[str, list[np.ndarray]]) -> None:
    game = parse_game("3x6k3")
    target = int(sample_layer(game, 3, 1, seed=0)[0])  # layer 3 has 636 canonical boards in play: sampled whole
    changed, new = _planted(game, layers["3x6k3"], target)
    report = check_sample(CompactTable.from_layers(game, changed), boards=1000, seed=11, reference=0)
    assert not report.ok
    named = [problem for problem in report.problems if f"(code {target})" in problem]
    assert len(named) == 1, report.problems
    assert named[0].startswith(f"layer 3: {render(game, target)} (code {target}) stores {new}, but its best child scores ")
    assert named[0].endswith(f", so it should be {_score(layers['3x6k3'], game, target)}")  # what the build gave it
    assert next(layer for layer in report.layers if layer.ply == 3).wrong == 1


def _score(layers: list[np.ndarray], game: Game, code: int) -> int:
    """The score the layers give a board."""
    index = layout(game)
    at = index.index_of_code(code)
    ply = index.layer_of(at)
    return int(layers[ply][at - index.layer_offsets[ply]])


@pytest.mark.parametrize(("name", "compressed"), [("2x9k4", True), ("3x6k3", False)])
def test_a_planted_wrong_score_in_a_big_layer_is_found_with_a_seed_that_samples_it(
    layers: dict[str, list[np.ndarray]], name: str, compressed: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The board is one the seed's sample of its layer holds. The table: a compressed file written from the changed layers
    (of a game whose checksum does not ship, as before a table is published: a shipped one refuses the file), or the layers in memory."""
    monkeypatch.delitem(checksums.EXPECTED_COMPACT_ROOTS, name, raising=False)
    game = parse_game(name)
    ply = 11
    assert layout(game).layer_sizes[ply] > 1 << 21  # drawn from, not listed whole
    target = int(sample_layer(game, ply, 400, seed=21)[123])
    changed, new = _planted(game, layers[name], target)
    table = open_compact(write_compact(tmp_path / f"{name}.ttt", game, changed)) if compressed else CompactTable.from_layers(game, changed)
    report = check_sample(table, boards=400, seed=21, reference=0)
    assert any(problem.startswith(f"layer {ply}: {render(game, target)} (code {target}) stores {new}, but") for problem in report.problems), report.problems
    missed = check_sample(table, boards=400, seed=22, reference=0)  # another seed: the board is not in its sample
    assert target not in sample_layer(game, ply, 400, seed=22)
    assert not any(f"(code {target})" in problem for problem in missed.problems)


def test_many_wrong_boards_in_a_layer_are_counted_and_the_first_listed(layers: dict[str, list[np.ndarray]]) -> None:
    game = parse_game("3x6k3")
    changed = layers["3x6k3"]
    for code in sample_layer(game, 4, 8, seed=0).tolist():
        changed, _ = _planted(game, changed, code)
    layer, problems = check_layer(CompactTable.from_layers(game, changed), 4, sample_layer(game, 4, 2000, seed=0), limit=3)
    assert layer.wrong == 8
    assert len(problems) == 4 and problems[-1] == "layer 4: 8 sampled boards of 2,000 disagree with their children (3 listed)"


def test_a_dense_table_is_sampled_over_every_board_in_play_not_only_canonical_ones() -> None:
    table = solver.table_for()  # 3x3k3: 5,478 reachable positions, 958 of them finished
    report = check_sample(table, boards=10_000, seed=0, reference=0)
    assert report.ok, report.problems
    assert report.checked == 5478 - 958


# -- the reference minimax ---------------------------------------------------------------------
def test_the_reference_minimax_agrees_with_every_reachable_tictactoe_position() -> None:
    table = solver.table_for()
    codes = table.reachable_codes()
    assert codes.size == 5478
    scores = table.lookup_codes(codes).score
    for code, score in zip(codes.tolist(), scores.tolist(), strict=True):
        assert negamax_score(table.game, code) == score, render(table.game, code)


def test_the_reference_minimax_agrees_with_3x6k3_on_sampled_positions_with_at_most_10_empty_cells(layers: dict[str, list[np.ndarray]]) -> None:
    game = parse_game("3x6k3")
    table = CompactTable.from_layers(game, layers["3x6k3"])
    for ply in range(game.cells - MAX_EMPTY, game.cells):
        codes = sample_layer(game, ply, 12, seed=ply)
        assert codes.size == 12
        scores = table.lookup_codes(codes).score
        for code, score in zip(codes.tolist(), scores.tolist(), strict=True):
            assert negamax_score(game, code) == score, f"layer {ply}: {render(game, code)}"


def test_the_reference_minimax_refuses_a_position_with_more_than_10_empty_cells() -> None:
    with pytest.raises(ValueError, match="11 empty cells; the reference minimax takes at most 10"):
        negamax_score(parse_game("3x6k3"), 1 + 2 * 3 + 1 * 9 + 2 * 27 + 1 * 81 + 2 * 243 + 1 * 729)


def test_a_planted_wrong_score_near_the_end_is_caught_by_the_reference_minimax(layers: dict[str, list[np.ndarray]]) -> None:
    game = parse_game("3x6k3")
    ply = game.cells - 9
    target = int(sample_layer(game, ply, 1, seed=3)[0])
    changed, new = _planted(game, layers["3x6k3"], target)
    layer, problems = check_layer(CompactTable.from_layers(game, changed), ply, np.array([target]), reference=1)
    assert layer.reference == 1 and layer.wrong == 1
    solved = negamax_score(game, target)
    assert f"layer {ply}: {render(game, target)} (code {target}) stores {new}, but the reference minimax gives {solved}" in problems


# -- the command line ------------------------------------------------------------------------------
def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.stdout, result.stderr


def test_solve_verify_sample_prints_a_line_per_layer_and_the_verdict(good_file: Path) -> None:
    path = good_file
    code, out, err = _run("verify", "--game", "2x9k4", "--table", str(path), "--sample", "300", "--seed", "4", "--reference", "2")
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 19 + 1
    assert lines[0].startswith("layer 18: 0 boards checked, ") and lines[1].startswith("layer 17: 300 boards checked, 2 against the reference minimax, ")
    assert lines[-2].startswith("layer  0: 1 board checked, ") and lines[-2].endswith(" s")
    assert lines[-1].startswith(f"{path}: sample OK (2x9k4, seed 4, ") and "not a proof" in lines[-1]


def test_solve_verify_sample_names_a_wrong_board_on_one_line_and_fails(
    layers: dict[str, list[np.ndarray]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(checksums.EXPECTED_COMPACT_ROOTS, "2x9k4", raising=False)  # else the shipped checksum refuses the file first
    game = parse_game("2x9k4")
    target = int(sample_layer(game, 5, 300, seed=4)[0])
    changed, new = _planted(game, layers["2x9k4"], target)
    path = write_compact(tmp_path / "2x9k4.ttt", game, changed)
    code, _, err = _run("verify", "--game", "2x9k4", "--table", str(path), "--sample", "300", "--seed", "4", "--reference", "0")
    assert code == 1
    named = [line for line in err.splitlines() if f"(code {target})" in line]
    assert len(named) == 1 and named[0].startswith(f"{path}: layer 5: {render(game, target)} (code {target}) stores {new}, but its best child scores ")
    assert err.splitlines()[-1].startswith(f"{path}: sample FAILED (2x9k4, seed 4, ")


def test_solve_verify_sample_refuses_a_negative_seed_and_a_zero_sample() -> None:
    assert _run("verify", "--game", "2x9k4", "--sample", "0")[0] == 2
    assert _run("verify", "--game", "2x9k4", "--sample", "10", "--seed", "-1")[0] == 2


# -- the 24- and 25-cell tables, when one is present -------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name", ["5x5k4", "4x6k4", "3x8k3"])
def test_a_sample_of_every_layer_of_a_built_24_or_25_cell_table_is_consistent_and_agrees_with_the_reference(name: str) -> None:
    """Runs on a table in the table directory (``$SOLVED_TICTACTOE_DIR``; the test session's own is empty unless it is set)."""
    game = parse_game(name)
    path = table_path(game)
    if not path.is_file():
        pytest.skip(f"no {name} table at {path}: build one with `solve build --game {name}` and run the slow tests with {ENV_VAR} set to its directory")
    table = open_file(path, game=game, prove_untrusted=False)
    report = check_sample(table, boards=2000, seed=14, reference=20)
    assert report.ok, "\n".join(report.problems)
    assert all(layer.boards > 0 for layer in report.layers if layer.ply < game.cells - 1)
    assert all(layer.reference > 0 for layer in report.layers if layer.boards and game.cells - layer.ply <= MAX_EMPTY)
