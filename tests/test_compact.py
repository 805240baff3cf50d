"""Compact tables (solver/encoding/index.py, solver/retrograde/, solver/tables/compact.py): the layered build
gives the dense table's answers code by code, builds are deterministic and resumable, and the
3x6k3 table (slow set) is checked against independent counts, the reference minimax and the
parent/child rule."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from reference import board_of, reference

from solver import build_table
from solver.encoding.board import rule_violation
from solver.encoding.layouts import layout
from solver.errors import BuildError, TableError
from solver.retrograde.builddir import BuildDir
from solver.retrograde.chunks import ChunkDone
from solver.retrograde.plan import plan_build
from solver.retrograde.proof import check_layers
from solver.retrograde.sweep import build_layers
from solver.rules.game import Game, parse_game
from solver.rules.score import UNREACHABLE
from solver.store.locate import open_compact
from solver.store.make import prove, write_compact
from solver.tables import CompactTable

# Every shape of up to 12 cells (rows <= cols) with a few k each: 1 to 12 cells, k = 1 to 4.
SMALL = sorted({f"{r}x{c}k{k}" for r in range(1, 4) for c in range(r, 13) if r * c <= 12 for k in (1, 2, 3, 4, min(r, c), c) if k <= c})
MISERE_SMALL = ["3x3k3-misere", "3x4k3-misere", "2x6k3-misere", "2x5k2-misere", "1x7k3-misere", "3x3k2-misere", "1x1k1-misere"]
"""Misère play (a line loses) through the layered build: it must equal the dense build, which the reference checks."""


def _compact(name: str, directory: Path, jobs: int = 1) -> CompactTable:
    return CompactTable.from_layers(parse_game(name), build_layers(parse_game(name), directory, jobs=jobs).layers(), prove=prove)


@pytest.mark.parametrize("name", SMALL + MISERE_SMALL)
def test_compact_build_equals_the_dense_table_code_by_code(name: str, tmp_path: Path) -> None:
    game = parse_game(name)
    compact = _compact(name, tmp_path)
    dense = build_table(game=game)
    index = layout(game)
    codes = index.codes(0, index.size)[0]
    stored = np.asarray(compact.scores)
    assert np.array_equal(stored, dense.score[codes]), f"{name}: a score differs from the dense table"
    outside = np.ones(game.codes, dtype=bool)
    outside[codes] = False
    assert (dense.score[outside] == UNREACHABLE).all(), f"{name}: the dense table reaches a board with illegal counts"
    reachable = dense.reachable_codes()
    mine, theirs = compact.lookup_codes(reachable), dense.lookup_codes(reachable)
    for field in ("score", "pieces", "value", "plies"):
        assert np.array_equal(getattr(mine, field), getattr(theirs, field)), f"{name}: {field} differs"
    assert np.array_equal(mine.best, theirs.best.astype(np.uint32)), f"{name}: best moves differ"


def test_a_game_of_more_than_32_lines_builds_like_the_dense_table(tmp_path: Path) -> None:
    # 3x5k2 has 38 lines: the build's line sets take two words, and a board's lines can
    # sit in both (the shared-cell rule must look at every word).
    game = parse_game("3x5k2")
    assert len(game.rules.line_masks) > 32
    compact = _compact(game.name, tmp_path)
    codes = layout(game).codes(0, layout(game).size)[0]
    assert np.array_equal(np.asarray(compact.scores), build_table(game=game).score[codes])


def test_positions_answer_like_the_dense_tables_positions(tmp_path: Path) -> None:
    compact = _compact("3x4k3", tmp_path)
    dense = build_table(game="3x4k3")
    rng = np.random.default_rng(3)
    for code in rng.choice(dense.reachable_codes(), 400).tolist():
        a, b = compact.at(code), dense.at(code)
        got = (a.score, a.pieces, a.best_mask, a.to_move, a.winner, a.value, a.result, a.plies, a.moves, a.best_moves)
        want = (b.score, b.pieces, b.best_mask, b.to_move, b.winner, b.value, b.result, b.plies, b.moves, b.best_moves)
        assert got == want, a.board
    assert compact.best_move("XX../O.O./....", game="3x4k3") == dense.best_move("XX../O.O./....", game="3x4k3")


@pytest.mark.parametrize("name", ["3x4k3", "3x4k3-misere"])
def test_stats_count_like_the_dense_table_and_per_layer(name: str, tmp_path: Path) -> None:
    compact = _compact(name, tmp_path)
    mine, theirs = compact.stats(), build_table(game=name).stats()
    for key in ("positions", "x_wins", "draws", "o_wins", "side_to_move", "terminal", "unique_positions", "start"):
        assert mine[key] == theirs[key], key
    assert sum(layer["positions"] for layer in mine["layers"]) == mine["positions"]
    assert mine["games"] is None and "games" in mine["omitted"]


@pytest.mark.slow
def test_4x4k4_compact_table_equals_the_dense_one_and_its_empty_board_is_a_draw(tmp_path: Path) -> None:
    compact = _compact("4x4k4", tmp_path, jobs=2)
    dense = build_table(game="4x4k4")
    index = layout(compact.game)
    assert np.array_equal(np.asarray(compact.scores), dense.score[index.codes(0, index.size)[0]])
    start = compact.at(0)
    assert (start.value, start.result, start.plies) == (0, "draw", 16)  # published: tests/golden.py


def test_unreachable_and_malformed_codes_are_refused_with_the_reason(tmp_path: Path) -> None:
    compact = _compact("3x3k3", tmp_path)
    with pytest.raises(ValueError, match="impossible piece counts"):
        compact.lookup("XX./.../...")
    with pytest.raises(ValueError, match="kept playing|moved after"):
        compact.lookup("XXX/OO./..O")
    with pytest.raises(ValueError, match="out of range"):
        compact.lookup_codes([0, 3**9])
    with pytest.raises(ValueError, match=r"codes\[1\]"):
        compact.lookup_codes([0, 2])
    assert compact.lookup_codes([0, 2], check=False).score.tolist() == [0, UNREACHABLE]
    assert compact.get("XX./.../...", "refused") == "refused"


def test_builds_are_byte_identical_whatever_the_number_of_jobs(tmp_path: Path) -> None:
    one = build_layers(parse_game("3x4k3"), tmp_path / "one", jobs=1)
    two = build_layers(parse_game("3x4k3"), tmp_path / "two", jobs=2)
    assert one.sha256 == two.sha256
    assert all(one.layer_path(p).read_bytes() == two.layer_path(p).read_bytes() for p in range(13))


def test_an_interrupted_build_resumes_below_the_last_finished_layer(tmp_path: Path) -> None:
    directory = tmp_path / "build"

    def stop_in_layer_5(done: ChunkDone) -> None:
        if done.ply == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_layers(parse_game("3x4k3"), directory, jobs=1, progress=stop_in_layer_5)
    assert sorted(BuildDir(directory, parse_game("3x4k3")).finished()) == list(range(6, 13))
    said: list[str] = []
    resumed = build_layers(parse_game("3x4k3"), directory, jobs=1, notify=said.append)
    assert resumed.resumed_below == 6 and resumed.solved == (5, 4, 3, 2, 1, 0)
    assert said and "layers 12 to 6 are done" in said[0], said
    assert not list(directory.glob("*.partial")) and not list(directory.glob("*.journal"))
    fresh = build_layers(parse_game("3x4k3"), tmp_path / "fresh", jobs=1)
    assert resumed.sha256 == fresh.sha256


def test_a_damaged_finished_layer_is_solved_again_with_everything_below_it(tmp_path: Path) -> None:
    first = build_layers(parse_game("3x3k3"), tmp_path, jobs=1)
    path = first.layer_path(6)
    data = bytearray(path.read_bytes())
    data[10] ^= 1
    path.write_bytes(bytes(data))
    again = build_layers(parse_game("3x3k3"), tmp_path, jobs=1)
    assert again.solved == (6, 5, 4, 3, 2, 1, 0)
    assert again.sha256 == first.sha256


def test_a_build_directory_of_another_game_is_refused(tmp_path: Path) -> None:
    build_layers(parse_game("2x2k2"), tmp_path, jobs=1)
    with pytest.raises(BuildError, match="holds a build of 2x2k2"):
        build_layers(parse_game("3x3k3"), tmp_path, jobs=1)


def test_a_build_that_cannot_fit_is_refused_before_it_starts_with_the_figures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    import solver.retrograde.plan

    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(solver.retrograde.plan.shutil, "disk_usage", lambda _: usage._replace(free=1000))
    with pytest.raises(BuildError, match=r"needs 0\.00 GiB of disk .* only 0\.00 GiB is free"):
        build_layers(parse_game("3x3k3"), tmp_path, jobs=1)
    monkeypatch.setattr(solver.retrograde.plan.shutil, "disk_usage", lambda _: usage)
    monkeypatch.setattr(solver.retrograde.plan, "_available_memory", lambda: 10)
    with pytest.raises(BuildError, match="GiB of memory"):
        build_layers(parse_game("4x5k4"), tmp_path / "big", jobs=2)
    assert not list((tmp_path / "big").glob("layer-*")), "a refused build wrote a layer"
    plan = plan_build(parse_game("4x5k4"), tmp_path / "big", jobs=2)
    assert plan.disk_bytes == 741_365_049 and plan.todo[0] == 20


def test_the_memory_estimate_grows_with_every_worker(tmp_path: Path) -> None:
    from solver.retrograde.chunks import CHUNK_BOARDS
    from solver.retrograde.plan import WORKING_BYTES_PER_BOARD, worker_bytes

    game = parse_game("4x5k4")
    one, four = (plan_build(game, tmp_path, jobs=jobs).memory_bytes for jobs in (1, 4))
    assert four - one == 3 * worker_bytes(game), (one, four)
    assert worker_bytes(game) > CHUNK_BOARDS * WORKING_BYTES_PER_BOARD, "the worker's tables are not counted"


def test_a_retiring_build_needs_one_raw_layer_of_disk_and_spools_not_all(tmp_path: Path) -> None:
    """5x5k4: every layer raw is 151 GiB; retiring and spooling, the peak is the largest layer (layer 16, 22 GiB)
    with a spool and the retired layers, below the 45 GiB target and the 49 GiB of two raw layers."""
    from solver.retrograde.plan import RETIRED_AT_MOST, SPOOLED_AT_MOST

    game = parse_game("5x5k4")
    sizes = layout(game).layer_sizes
    every, retiring = (plan_build(game, tmp_path, jobs=2, retiring=flag).disk_bytes for flag in (False, True))
    assert every == sum(sizes)
    largest = max(sizes)
    assert largest < retiring <= largest + largest // SPOOLED_AT_MOST + sum(sizes) // RETIRED_AT_MOST
    assert retiring < 45 * 2**30 < sizes[16] + sizes[17]


def test_a_resumed_retiring_build_counts_both_raw_layers_of_the_layer_it_resumes(tmp_path: Path) -> None:
    """A layer holding chunks of an earlier run is decoded while its child is still raw (to check it against it)."""
    from solver.retrograde.plan import _retiring_peak

    sizes = layout(parse_game("5x5k4")).layer_sizes
    fresh, resumed = (_retiring_peak(sizes, 16, resumed=flag) for flag in (False, True))
    assert resumed - fresh >= sizes[17] // 2


def test_a_build_that_fits_with_one_worker_is_refused_with_two(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--jobs reaches the memory check: the estimate the sweep checks is the one for its workers."""
    import solver.retrograde.plan

    game = parse_game("3x3k3")
    one, two = (plan_build(game, tmp_path / "plan", jobs=jobs).memory_bytes for jobs in (1, 2))
    monkeypatch.setattr(solver.retrograde.plan, "_available_memory", lambda: (one + two) // 2)
    with pytest.raises(BuildError, match="GiB of memory.*use fewer --jobs"):
        build_layers(game, tmp_path / "two", jobs=2)
    assert build_layers(game, tmp_path / "one", jobs=1).solved[-1] == 0


def test_a_damaged_byte_in_the_last_compressed_block_is_refused_when_that_block_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each compressed block is checked (CRC, then the SHA-256 of its decoded bytes) the first time it is read."""
    import solver.storage.tablefile

    monkeypatch.setattr(solver.storage.trust, "expected_root", lambda game, kind="dense": None)
    game = parse_game("3x4k3")
    path = write_compact(tmp_path / "3x4k3.ttt", game, build_layers(game, tmp_path / "build", jobs=1).layers())
    header = _header(path)
    (spec,) = header["arrays"]
    encoding = spec["encoding"]
    blocks = -(-encoding["size"] // encoding["block_bytes"])
    assert blocks >= 3
    data = bytearray(path.read_bytes())
    data[spec["offset"] + encoding["data_bytes"] - 3] ^= 0x40  # inside the last compressed block
    path.write_bytes(bytes(data))
    damaged = open_compact(path)
    assert damaged.at(0).result == "win"  # block 0 is whole
    with pytest.raises(TableError, match=f"block {blocks - 1} .*does not match its CRC.*rebuild it with"):
        damaged.verify_blocks()
    with pytest.raises(TableError, match="does not match its CRC"):
        damaged.lookup_codes(damaged.layout.codes(0, damaged.layout.size)[0], check=False)


def test_the_consistency_pass_finds_a_score_that_does_not_follow_from_the_children(tmp_path: Path) -> None:
    compact = _compact("3x3k3", tmp_path)
    assert compact.verify() == []
    broken = np.array(compact.scores)
    index = compact.layout.index_of_code(13222)  # X.O/.X./..O, a draw
    broken[index] = 97
    problems = CompactTable(parse_game("3x3k3"), broken, prove=prove).verify()
    assert problems and "X.O/.X./..O" in problems[0] and "stored 97, expected 0" in problems[0], problems


def test_a_compact_table_file_round_trips_and_refuses_damaged_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import solver.storage.tablefile

    # The package ships the expected checksums of the dense tables of games up to 16 cells;
    # this compact 3x4k3 file is not one of them.
    monkeypatch.setattr(solver.storage.trust, "expected_root", lambda game, kind="dense": None)
    built = build_layers(parse_game("3x4k3"), tmp_path / "build", jobs=1)
    path = write_compact(tmp_path / "3x4k3.ttt", parse_game("3x4k3"), built.layers())
    table = open_compact(path, game=parse_game("3x4k3"))
    for ply, layer in enumerate(built.layers()):
        assert np.array_equal(table.layer(ply), layer)
    assert table.lookup("X.../.O../....", game="3x4k3").result == "win"
    spec = [s for s in _header(path)["arrays"] if s["name"] == "scores"][0]
    data = bytearray(path.read_bytes())
    data[spec["offset"] + 10] ^= 0x40  # inside compressed block 0
    path.write_bytes(bytes(data))
    damaged = open_compact(path)
    with pytest.raises(TableError, match="block 0 .*does not match its CRC"):
        damaged.lookup_codes(damaged.layout.codes(0, 2000)[0], check=False)


def _header(path: Path) -> dict:
    raw = path.read_bytes()
    length = int.from_bytes(raw[8:12], "little")
    return json.loads(raw[12 : 12 + length])


# -- 3x6k3: the first game past the dense limit ------------------------------------------
@pytest.fixture(scope="module")
def table_3x6k3(tmp_path_factory: pytest.TempPathFactory) -> CompactTable:
    directory = tmp_path_factory.mktemp("3x6k3")
    built = build_layers(parse_game("3x6k3"), directory, jobs=2)
    return CompactTable.from_layers(parse_game("3x6k3"), built.layers())


def _forward_reachable_counts(game: Game) -> list[int]:
    """Reachable boards per layer by a forward search from the empty board (no closed-form rule):
    the children of every unfinished reached board are marked in the next layer."""
    index = layout(game)
    lines = [sum(1 << cell for cell in line) for line in reference(game.name).lines]
    reached = np.zeros(1, dtype=bool)
    reached[0] = True
    counts = [1]
    for ply in range(game.cells):
        codes, x, o = index.codes(index.layer_offsets[ply], index.layer_offsets[ply + 1])
        mover = x if ply % 2 else o
        over = np.zeros(codes.size, dtype=bool)
        for line in lines:
            over |= (mover & line) == line
        parents = codes[reached & ~over]
        occupied = (x | o)[reached & ~over]
        following = np.zeros(index.layer_sizes[ply + 1], dtype=bool)
        for cell in range(game.cells):
            free = (occupied >> cell) & 1 == 0
            children = parents[free] + (1 if ply % 2 == 0 else 2) * 3**cell
            following[index.index_of(children) - index.layer_offsets[ply + 1]] = True
        reached = following
        counts.append(int(reached.sum()))
    return counts


@pytest.mark.slow
def test_3x6k3_reachable_counts_per_layer_match_a_forward_search(table_3x6k3: CompactTable) -> None:
    stats = table_3x6k3.stats()
    assert [layer["positions"] for layer in stats["layers"]] == _forward_reachable_counts(parse_game("3x6k3"))


@pytest.mark.slow
def test_3x6k3_empty_board_is_a_first_player_win(table_3x6k3: CompactTable) -> None:
    # 3x4k3 is a win for X (checked against the reference minimax in test_tables_match_minimax);
    # X can play that strategy inside any 3x4 part of 3x6 (an extra stone never hurts in an
    # m,n,k game), so 3x6k3 is a win for X too. Wikipedia, "m,n,k-game": k = 3 is a
    # first-player win on every board of at least 3x4.
    start = table_3x6k3.at(0)
    assert (start.value, start.result) == (1, "win")
    assert build_table(game="3x4k3").at(0).value == 1


@pytest.mark.slow
def test_3x6k3_sampled_positions_with_10_or_more_pieces_match_recursive_minimax(table_3x6k3: CompactTable) -> None:
    _sampled_positions_match_recursive_minimax(table_3x6k3)


@pytest.mark.slow
def test_3x6k3_misere_sampled_positions_match_recursive_minimax_and_it_reaches_what_normal_play_reaches(tmp_path: Path) -> None:
    """Misère 3x6k3 built by the layered build: sampled positions against the independent misère minimax,
    and the reachable boards of every layer exactly normal play's (the game still ends at the first line)."""
    table = _compact("3x6k3-misere", tmp_path)
    _sampled_positions_match_recursive_minimax(table)
    layers = [layer["positions"] for layer in table.stats()["layers"]]
    assert layers == _forward_reachable_counts(parse_game("3x6k3"))


def _sampled_positions_match_recursive_minimax(table: CompactTable) -> None:
    """Positions with 10 or more pieces, 25 a layer, each solved again by the reference minimax."""
    game = table.game
    index = layout(game)
    rng = np.random.default_rng(18)
    ref = reference(game.name)
    picked = 0
    for ply in range(10, 19):
        start = index.layer_offsets[ply]
        candidates = start + rng.integers(0, index.layer_sizes[ply], 400)
        codes = np.array([index.code_of_index(i) for i in candidates.tolist()])
        scores = table.lookup_codes(codes, check=False)
        for code in codes[scores.score != UNREACHABLE][:25].tolist():
            board = board_of(code, game.cells)
            position = table.at(code)
            want = ref.solve(board)
            assert ({1: "win", 0: "draw", -1: "loss"}[want.result], want.plies) == (position.result, position.plies), position.board
            assert set(position.best_cells) == set(want.best), position.board
            picked += 1
    assert picked >= 150


@pytest.mark.slow
def test_3x6k3_every_position_follows_from_its_children_and_the_rules(table_3x6k3: CompactTable) -> None:
    assert check_layers(parse_game("3x6k3"), table_3x6k3.layer) == []
    # and the stored reachability is the rule of solver.encoding.board, on random boards of every layer
    index = layout(parse_game("3x6k3"))
    rng = np.random.default_rng(6)
    for i in rng.integers(0, index.size, 3000).tolist():
        code = index.code_of_index(i)
        assert (table_3x6k3.score_of(code) != UNREACHABLE) == (rule_violation(parse_game("3x6k3"), code) is None)


def test_a_large_batch_of_every_code_reads_like_the_dense_table(tmp_path: Path) -> None:
    # 3**12 codes: split over two threads, with illegal piece counts and unreachable boards among them
    compact = _compact("3x4k3", tmp_path)
    every = np.arange(3**12, dtype=np.int64)
    assert np.array_equal(compact.lookup_codes(every, check=False).score, build_table(game="3x4k3").score)
    with pytest.raises(ValueError, match=r"codes\[531441\] = 531441 is out of range"):
        compact.lookup_codes(np.arange(3**12 + 1), check=False)


def test_build_compact_writes_a_table_file_and_removes_its_layers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import solver.storage.tablefile
    from solver.store.make import build_compact

    monkeypatch.setattr(solver.storage.trust, "expected_root", lambda game, kind="dense": None)  # shipped roots are the dense tables'
    done: list[ChunkDone] = []
    path = build_compact(parse_game("3x3k3"), tmp_path / "3x3k3.ttt", jobs=1, progress=done.append)
    assert path.is_file() and not (tmp_path / "3x3k3.ttt.build").exists()
    assert sum(chunk.boards for chunk in done) == layout(parse_game("3x3k3")).size
    assert sum(chunk.work for chunk in done) == plan_build(parse_game("3x3k3"), tmp_path / "none").work
    assert open_compact(path).lookup("X.O/.X./..O").plies == 5


def test_a_killed_layer_keeps_its_finished_chunks_and_redoes_a_damaged_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import solver.retrograde.chunks

    monkeypatch.setattr(solver.retrograde.chunks, "CHUNK_BOARDS", 500)  # many small chunks
    game = parse_game("3x4k3")
    seen = []

    def stop_midway_in_layer_6(done: ChunkDone) -> None:
        seen.append(done.ply)
        if seen.count(6) == 20:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_layers(game, tmp_path / "build", jobs=1, progress=stop_midway_in_layer_6)
    build = BuildDir(tmp_path / "build", game)
    lines = build.journal_path(6).read_text().splitlines()
    assert len(lines) >= 19
    first = int(lines[0].split()[0])
    with build.partial_path(6).open("r+b") as handle:  # a chunk whose bytes did not reach the disk
        handle.seek(first)
        byte = handle.read(1)[0]
        handle.seek(first)
        handle.write(bytes([byte ^ 0x55]))
    said: list[str] = []
    resumed = build_layers(game, tmp_path / "build", jobs=1, notify=said.append)
    assert any(f"layer 6: {len(lines) - 1} of its" in line for line in said), said
    assert resumed.sha256 == build_layers(game, tmp_path / "fresh", jobs=1).sha256


@pytest.mark.slow
def test_5x5k4_last_two_layers_match_the_reference_on_sampled_boards() -> None:
    # 25 cells: a 13-cell high half, masks up to bit 24. The full layer is solved whole, then
    # chunks of layer 24 from it; sampled boards are re-solved by the reference minimax.
    from solver.retrograde.chunks import chunks
    from solver.retrograde.kernel import solve_chunk

    game = parse_game("5x5k4")
    index = layout(game)
    full = np.concatenate([solve_chunk(game, chunk, None) for chunk in chunks(game, 25)])
    ref = reference("5x5k4")
    rng = np.random.default_rng(25)
    checked = {24: 0, 25: 0}
    for ply, scores in ((25, full), (24, None)):
        if scores is None:
            picked = [chunks(game, 24)[i] for i in (0, 5, -1)]
            scores = np.concatenate([solve_chunk(game, chunk, full) for chunk in picked])
            local = np.concatenate([np.arange(chunk.start, chunk.stop) for chunk in picked])
        else:
            local = np.arange(scores.size)
        for i in rng.integers(0, local.size, 800).tolist():
            code = index.code_of_index(index.layer_offsets[ply] + int(local[i]))
            board = board_of(code, 25)
            stored = int(scores[i])
            if not ref.is_reachable(board):
                assert stored == UNREACHABLE, code
                continue
            want = ref.solve(board)
            expected = 0 if want.result == 0 else (100 - want.plies) * want.result
            assert stored == expected, (board, stored, want)
            checked[ply] += 1
    assert min(checked.values()) >= 50, checked
