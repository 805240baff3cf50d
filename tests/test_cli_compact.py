"""The `solve` command on games past 16 cells: build (all cores, resumable, or on a Dask cluster), lookup,
stats per layer, verify and analyze, through the same commands as every other game.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import solver
import solver.contents.opening
import solver.grading.grader
import solver.store.locate
from solver.cli import main

GAME = "2x9k4"  # 18 cells: a compact table, built in about a second


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("tables")
    code, _, err = run("build", "--game", GAME, "--jobs", "2", "--table-dir", str(directory))
    assert code == 0, err
    assert f"Wrote {directory / (GAME + '.ttt')}" in err
    (directory.parent / "build-stderr.txt").write_text(err)
    return directory


def test_build_writes_a_compact_table_and_no_build_directory_is_left(built: Path) -> None:
    assert sorted(p.name for p in built.iterdir()) == [f"{GAME}.ttt"]
    assert solver.store.locate.open_file(built / f"{GAME}.ttt").file.header.kind == "compact"


def test_build_says_the_tables_positions_as_a_scan_counts_them_and_its_rate_a_second_a_core(built: Path) -> None:
    """The last line gives the positions the build kept in the file's counts and the rate over the build's wall time
    on its 2 cores; the positions are checked against a scan of every layer's stored bytes (not the kept counts)."""
    import re

    from solver.contents.histograms import LayerCounts

    last = (built.parent / "build-stderr.txt").read_text().splitlines()[-1]
    found = re.fullmatch(r"Wrote .* \(([\d,]+) bytes\) in ([\d.]+) s: ([\d,]+) positions, ([\d.]+)( [kMG])? a second a core \(2 cores\)", last)
    assert found, last
    table = solver.store.locate.open_file(built / f"{GAME}.ttt")
    scanned = sum(LayerCounts.from_histograms(table.game, ply, h).every.positions for ply, h in enumerate(table.histograms(from_meta=False)))
    assert int(found[3].replace(",", "")) == scanned > 0
    scale = {None: 1, " k": 1e3, " M": 1e6, " G": 1e9}[found[5]]
    assert float(found[4]) * scale == pytest.approx(scanned / float(found[2]) / 2, rel=0.05)


def test_lookup_json_on_a_compact_table_agrees_with_the_api(built: Path) -> None:
    code, out, err = run("lookup", "X......../.O.......", "--game", GAME, "--table-dir", str(built), "--json")
    assert code == 0, err
    answer = json.loads(out)
    table = solver.store.locate.open_file(built / f"{GAME}.ttt")
    position = table.lookup("X......../.O.......")
    assert (answer["result"], answer["plies"], answer["value"]) == (position.result, position.plies, position.value)
    assert [tuple(m) for m in answer["best_moves"]] == list(position.best_moves) and position.best_moves


def test_stats_counts_every_layer_up_to_symmetry_and_says_what_it_did_not_count(built: Path) -> None:
    code, out, _ = run("stats", "--game", GAME, "--table-dir", str(built), "--json")
    counts = json.loads(out)
    assert sum(layer["positions"] for layer in counts["layers"]) == counts["positions"]
    assert sum(layer["unique"]["positions"] for layer in counts["layers"]) == counts["unique_positions"] > counts["positions"] // 4
    assert counts["games"] is None and list(counts["omitted"]) == ["games"]
    code, out, err = run("stats", "--game", GAME, "--table-dir", str(built))
    assert code == 0, err
    assert f"up to symmetry          {counts['unique_positions']:,}\n" in out
    last = counts["layers"][-1]
    assert "layer 18" in out and f"up to symmetry {last['unique']['positions']:,}: " in out
    assert "complete games          not counted:" in out


def test_verify_proves_a_compact_table_and_finds_a_flipped_byte(built: Path, tmp_path: Path) -> None:
    code, out, err = run("verify", "--game", GAME, "--table-dir", str(built))
    assert code == 0 and "OK" in out, err
    broken = tmp_path / f"{GAME}.ttt"
    data = bytearray((built / f"{GAME}.ttt").read_bytes())
    offset = solver.contents.opening.open_table(built / f"{GAME}.ttt").header.spec("scores").offset
    data[offset + 1000] ^= 0x10  # inside a compressed block
    broken.write_bytes(bytes(data))
    code, _, err = run("verify", "--table", str(broken))
    assert code == 1 and "does not match its CRC: the file is damaged" in err


def test_analyze_on_a_compact_table(built: Path) -> None:
    code, out, err = run("analyze", "0,0", "1,1", "0,1", "--game", GAME, "--table-dir", str(built))
    assert code == 0, err
    assert "player  moves  best" in out


def test_jobs_and_scheduler_are_refused_for_a_dense_game(tmp_path: Path) -> None:
    code, _, err = run("build", "--game", "3x4", "--jobs", "2", "--output", str(tmp_path / "t.ttt"))
    assert code == 2 and "more than 16 cells" in err
    assert not (tmp_path / "t.ttt").exists()


def test_an_interrupted_build_resumes_and_says_so(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import solver.retrograde.spool
    import solver.retrograde.sweep

    real = solver.retrograde.spool.run_chunks
    calls = {"n": 0}

    def dies_midway(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 8:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(solver.retrograde.sweep, "run_chunks", dies_midway)
    output = tmp_path / f"{GAME}.ttt"
    result = CliRunner().invoke(main, ["build", "--game", GAME, "--jobs", "1", "--output", str(output)])
    assert result.exit_code != 0 and not output.exists()
    monkeypatch.undo()
    code, _, err = run("build", "--game", GAME, "--jobs", "1", "--output", str(output))
    assert code == 0, err
    assert "chunks were finished before" in err or "resuming the 2x9k4 build" in err, err
    assert output.read_bytes() == (built / output.name).read_bytes(), "a resumed build gives the same bytes"


def test_build_on_a_dask_cluster_from_the_command_line_gives_the_same_bytes(built: Path, tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed", reason="the cluster extra (dask[distributed]) is not installed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        output = tmp_path / f"{GAME}.ttt"
        code, _, err = run("build", "--game", GAME, "--scheduler", cluster.scheduler_address, "--output", str(output))
    assert code == 0, err
    assert output.read_bytes() == (built / f"{GAME}.ttt").read_bytes()


def test_grading_on_a_compact_table_samples_positions_and_judges_them_like_the_table(built: Path) -> None:
    players = Path(__file__).resolve().parent / "players" / "simple_players.py"
    code, out, err = run(
        "grade",
        f"{players}:first_empty",
        "--support",
        str(players.parent / "perfect.py"),
        "--game",
        GAME,
        "--table-dir",
        str(built),
        "--sample",
        "300",
        "--json",
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["positions"] == 300
    table = solver.store.locate.open_file(built / f"{GAME}.ttt")
    positions = solver.grading.grader.positions_to_grade(table=table, sample=300)
    assert len({p.code for p in positions}) == 300 and all(not p.is_over for p in positions)
    first_empty_is_best = sum(1 for p in positions if p.moves[0].best)
    assert report["optimal"] == first_empty_is_best
    assert positions == solver.grading.grader.positions_to_grade(table=table, sample=300), "the same sample every run"


def test_a_game_past_16_cells_is_graded_on_a_default_sample(built: Path) -> None:
    table = solver.store.locate.open_file(built / f"{GAME}.ttt")
    positions = solver.grading.grader.positions_to_grade(table=table, side="O", sample=None)
    assert len(positions) == solver.grading.grader.DEFAULT_SAMPLE
    assert {p.to_move for p in positions} == {"O"}
