"""The table store (solver/store/locate.py): games that are not shipped are built once, on first use, into
the table directory and read from disk afterwards; concurrent builders, killed builders and
concurrent readers never see or leave a torn table.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import numpy as np
import platformdirs
import pytest
from click.testing import CliRunner

import solver
import solver.store.locate
import solver.store.make
from solver import build_table, load_table
from solver.cli import main
from solver.retrograde.dense import build_steps
from solver.rules.game import Game

ROOT = Path(solver.__file__).resolve().parent.parent  # the directory that holds the solver package


def forbid_building(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the table was rebuilt instead of being read from disk")

    monkeypatch.setattr(solver.store.make, "write_table_file", refuse)
    monkeypatch.setattr(solver.store.make, "build_arrays", refuse)
    monkeypatch.setattr(solver.store.make, "build_table", refuse)


def temp_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp") or p.name.startswith("."))


# -- built once, then read ----------------------------------------------------------------------------------


def test_a_game_that_is_not_shipped_is_built_on_first_use_then_read_from_disk(table_dir, monkeypatch):
    assert not table_dir.exists() or not any(table_dir.iterdir())
    first = solver.table_for("2x3")
    path = table_dir / "2x3k2.ttt"
    assert first.path == path and path.is_file()
    assert load_table(path, verify=True).verify() == []
    assert temp_files(table_dir) == []
    assert solver.table_for("2x3") is first, "a table is opened once per process"

    solver.forget()
    forbid_building(monkeypatch)
    again = solver.table_for("2x3k2")
    assert again is not first and again.path == path
    assert np.array_equal(again.score, first.score) and np.array_equal(again.best, first.best)
    assert solver.lookup([["X", None, None], [None, "O", None]], game="2x3").code == 1 + 2 * 3**4


def test_the_public_api_builds_through_the_cache(table_dir, monkeypatch):
    position = solver.lookup("X../.O.", game="2x3")
    assert (table_dir / "2x3k2.ttt").is_file()
    solver.forget()
    forbid_building(monkeypatch)
    assert solver.lookup("X../.O.", game="2x3").result == position.result


def test_table_dir_argument_overrides_the_environment(table_dir, tmp_path):
    other = tmp_path / "elsewhere"
    table = solver.table_for("2x3", table_dir=other)
    assert table.path == other / "2x3k2.ttt" and table.path.is_file()
    assert not (table_dir / "2x3k2.ttt").exists()
    assert solver.store.locate.table_dir(other) == other


def test_the_environment_variable_overrides_the_user_data_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("SOLVED_TICTACTOE_DIR", str(tmp_path / "env"))
    assert solver.store.locate.table_dir() == tmp_path / "env"
    monkeypatch.delenv("SOLVED_TICTACTOE_DIR")
    assert solver.store.locate.table_dir() == Path(platformdirs.user_data_dir("solved-tictactoe", appauthor=False))


# -- the default directory: the platform's data directory, and the old one still read ----------------------
linux_only = pytest.mark.skipif(sys.platform != "linux", reason="the XDG directories are Linux's (macOS had the same directory before)")


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A fresh home directory, no XDG variables and no SOLVED_TICTACTOE_DIR: the defaults apply."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "SOLVED_TICTACTOE_DIR"):
        monkeypatch.delenv(name, raising=False)
    solver.forget()
    yield home
    solver.forget()


@linux_only
def test_tables_go_into_the_xdg_data_directory_not_the_config_one(home, monkeypatch):
    assert solver.store.locate.table_dir() == home / ".local" / "share" / "solved-tictactoe"
    table = solver.table_for("2x2")
    assert table.path == home / ".local" / "share" / "solved-tictactoe" / "2x2k2.ttt" and table.path.is_file()
    assert not (home / ".config").exists()
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    assert solver.store.locate.table_dir() == home / "data" / "solved-tictactoe"


@linux_only
def test_tables_in_the_old_directory_are_used_and_the_move_explained_once(home, monkeypatch):
    old, new = home / ".config" / "solved-tictactoe", home / ".local" / "share" / "solved-tictactoe"
    old.mkdir(parents=True)
    for game in ("2x2", "2x3"):
        build_table(game=solver.parse_game(game)).save(old / f"{solver.parse_game(game).name}.ttt")
    forbid_building(monkeypatch)
    with pytest.warns(solver.errors.OldTableDirWarning) as caught:
        first = solver.table_for("2x2")
        second = solver.table_for("2x3")
    assert first.path == old / "2x2k2.ttt" and second.path == old / "2x3k2.ttt"
    assert len(caught) == 1, "explained once, not once per table"
    message = str(caught[0].message)
    move = f"mkdir -p {new} && mv {old}/*.ttt {new}/"
    assert str(old) in message and f"new tables go in {new}" in message and message.endswith(f"move them there with: {move}")

    subprocess.run(["sh", "-c", move], check=True)  # the command it gives works
    solver.forget()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert solver.table_for("2x3").path == new / "2x3k2.ttt"


@linux_only
def test_the_cli_says_it_in_one_warning_line_and_builds_new_tables_in_the_new_place(home):
    old, new = home / ".config" / "solved-tictactoe", home / ".local" / "share" / "solved-tictactoe"
    old.mkdir(parents=True)
    build_table(game=solver.parse_game("2x3")).save(old / "2x3k2.ttt")
    result = CliRunner().invoke(main, ["lookup", "--game", "2x3", "X../.O."])
    assert result.exit_code == 0, result.output
    warned = [line for line in result.stderr.splitlines() if line.startswith("solve: warning: ")]
    assert warned == [result.stderr.strip()] and f"using tables from {old}" in warned[0] and "mv " in warned[0]
    assert CliRunner().invoke(main, ["verify", "--game", "2x3"]).stdout.splitlines()[-1].startswith(f"{old / '2x3k2.ttt'}: OK")
    built = CliRunner().invoke(main, ["stats", "--game", "2x2", "-q"])
    assert built.exit_code == 0 and (new / "2x2k2.ttt").is_file() and not (old / "2x2k2.ttt").exists()


def test_an_old_directory_that_is_the_new_one_is_looked_in_once(home, monkeypatch):
    monkeypatch.setattr(solver.store.locate, "old_table_dir", solver.store.locate.default_table_dir)  # macOS: both are ~/Library/Application Support
    assert solver.store.locate.table_dirs() == (solver.store.locate.default_table_dir(),)
    monkeypatch.setenv("SOLVED_TICTACTOE_DIR", str(home / "mine"))
    assert solver.store.locate.table_dirs() == (home / "mine",)


def test_the_server_finds_tables_left_in_the_old_directory(home, monkeypatch):
    pytest.importorskip("starlette")
    from solver.web.app import discover_games

    old = home / "old"
    monkeypatch.setattr(solver.store.locate, "old_table_dir", lambda: old)
    old.mkdir()
    build_table(game=solver.parse_game("2x3")).save(old / "2x3k2.ttt")
    solver.table_for("2x2")  # built in the new directory
    assert [game.name for game in discover_games()] == ["2x2k2", "2x3k2"]


def test_tictactoe_is_read_from_the_shipped_table_without_writing(table_dir):
    table = solver.table_for()
    assert table.path == solver.store.locate.shipped_path(solver.Game())
    assert not table_dir.exists() or list(table_dir.iterdir()) == []


def test_the_shipped_table_wins_over_one_in_the_table_dir(table_dir):
    build_table().save(table_dir / "3x3k3.ttt")
    assert solver.table_for("3x3").path == solver.store.locate.shipped_path(solver.Game())


def test_build_false_refuses_a_missing_table(table_dir):
    with pytest.raises(solver.TableError) as caught:
        solver.table_for("2x3", build=False)
    path = table_dir / "2x3k2.ttt"
    assert str(path) in str(caught.value) and f"solve build --game 2x3k2 --output {path}" in str(caught.value)
    assert not path.exists()


def test_a_broken_cached_table_is_reported_not_silently_used(table_dir):
    path = build_table(game="2x3").save(table_dir / "2x3k2.ttt")
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(solver.TableError) as caught:
        solver.table_for("2x3")
    assert str(path) in str(caught.value) and f"solve build --game 2x3k2 --output {path}" in str(caught.value)


def test_temp_files_of_a_killed_build_do_not_matter_and_are_removed(table_dir):
    table_dir.mkdir(parents=True)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    (table_dir / f".2x3k2.ttt.{dead.stdout.strip()}.abc12345.tmp").write_bytes(b"SOLVTTT\n half a table")
    table = solver.table_for("2x3")
    assert table.path == table_dir / "2x3k2.ttt" and table.verify() == []
    assert temp_files(table_dir) == []


def test_a_game_past_16_cells_is_built_compact_on_first_use_with_progress_by_layer(table_dir):
    calls, steps = [], []

    @contextlib.contextmanager
    def on_build(game, path, work):
        calls.append((game.name, path, work))
        yield lambda units, layer: steps.append((units, layer))

    table = solver.table_for("1x17k3", on_build=on_build)
    path = table_dir / "1x17k3.ttt"
    assert type(table).__name__ == "CompactTable" and table.path == path
    assert [name for name, _, _ in calls] == ["1x17k3"] and calls[0][2] == sum(units for units, _ in steps) > 0
    assert [layer for _, layer in steps][0] == 17 and {layer for _, layer in steps} == set(range(18)), "the full board is solved first, every layer once"
    assert not (table_dir / "1x17k3.ttt.build").exists(), "the build directory goes once the table is written"
    assert solver.lookup(".X" + "." * 15, game="1x17k3").result == table.at(solver.encode(".X" + "." * 15, game="1x17k3")).result
    assert solver.store.locate.open_file(path).sha256 == table.sha256


def test_on_build_hook_is_entered_once_around_the_build(table_dir):
    calls, steps = [], []

    @contextlib.contextmanager
    def on_build(game, path, work):
        calls.append((game.name, path, path.exists(), work))
        yield steps.append
        calls.append("done")

    solver.table_for("2x2", on_build=on_build)
    solver.table_for("2x2", on_build=on_build)
    assert calls == [("2x2k2", table_dir / "2x2k2.ttt", False, build_steps(Game(2, 2, 2))), "done"]
    assert sum(steps) == build_steps(Game(2, 2, 2)) == 2 * (4 + 1), "one progress step per ply of each pass, empty board included"


# -- several processes --------------------------------------------------------------------------------------


def python(script: str, *args: str, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        **kwargs,
    )


BUILDER = """
    import sys, time
    from pathlib import Path
    import solver.store.locate
    game, directory, go = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    print("ready", flush=True)
    while not go.exists():
        time.sleep(0.001)
    table = solver.table_for(game, table_dir=directory)
    print(table.sha256, table.path, flush=True)
"""


def start_together(processes: list[subprocess.Popen], go: Path) -> None:
    """Wait until every process is ready, then let them all go at once."""
    for process in processes:
        assert process.stdout.readline().strip() == "ready", process.stderr.read()
    go.touch()


def test_concurrent_builders_end_with_one_correct_table(tmp_path):
    directory, go = tmp_path / "tables", tmp_path / "go"
    builders = [python(BUILDER, "3x4", str(directory), str(go)) for _ in range(3)]
    start_together(builders, go)
    results = []
    for builder in builders:
        out, err = builder.communicate(timeout=60)
        assert builder.returncode == 0, err
        results.append(out.split())
    path = directory / "3x4k3.ttt"
    expected = build_table(game="3x4")
    assert {sha for sha, _ in results} == {expected.sha256}
    assert {Path(p) for _, p in results} == {path}
    assert sorted(p.name for p in directory.iterdir()) == ["3x4k3.ttt"], "no temp file is left behind"
    assert path.read_bytes() == expected.save(tmp_path / "fresh.ttt").read_bytes()
    assert load_table(path, verify=True).verify() == []


KILLED_BUILDER = """
    import sys
    import solver.store.locate
    solver.table_for("4x4k3", table_dir=sys.argv[1])
"""


def _check_after_kill(directory: Path) -> str:
    final = directory / "4x4k3.ttt"
    left = sorted(p.name for p in directory.iterdir()) if directory.exists() else []
    assert set(left) <= {"4x4k3.ttt"} | {p for p in left if p.startswith(".4x4k3.ttt.") and p.endswith(".tmp")}, left
    if final.exists():
        table = load_table(final, game="4x4k3", verify=True)  # a whole, checksummed table
        assert table.at(0).value == 1, "4x4, three in a row, is a win for X"
        outcome = "valid table"
    else:
        outcome = "no table"
    # the killed writer's temporary file goes at the next build (or solve verify)
    solver.store.locate.build_and_open(solver.parse_game("2x2"), directory / "2x2k2.ttt")
    assert sorted(p.name for p in directory.iterdir()) == sorted({"2x2k2.ttt", *(["4x4k3.ttt"] if final.exists() else [])})
    return outcome


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.3, 0.55, 0.8])
def test_a_build_killed_at_any_time_leaves_no_torn_table(tmp_path, delay):
    directory = tmp_path / "tables"
    builder = python(KILLED_BUILDER, str(directory))
    time.sleep(delay)
    builder.send_signal(signal.SIGKILL)
    builder.wait(timeout=30)
    _check_after_kill(directory)


@pytest.mark.slow
@pytest.mark.parametrize("written", [0, 1 << 20, 64 << 20])
def test_a_build_killed_while_writing_leaves_no_torn_table(tmp_path, written):
    """Kill the builder while its temporary file holds ``written`` bytes or more: mid-write."""
    directory = tmp_path / "tables"
    builder = python(KILLED_BUILDER, str(directory))
    deadline = time.monotonic() + 60
    killed = False
    while builder.poll() is None and time.monotonic() < deadline:
        temps = list(directory.glob(".4x4k3.ttt.*.tmp")) if directory.exists() else []
        try:
            if temps and temps[0].stat().st_size >= written:
                builder.send_signal(signal.SIGKILL)
                killed = True
                break
        except FileNotFoundError:
            pass
        time.sleep(0.0005)
    builder.wait(timeout=30)
    if not killed:
        pytest.skip(f"the builder finished before its temp file reached {written} bytes ({builder.stderr.read()[-300:]})")
    assert _check_after_kill(directory) in {"no table", "valid table"}


READER = """
    import hashlib, json, sys, time
    from pathlib import Path
    import numpy as np
    import solver.store.locate
    directory, go = sys.argv[1], Path(sys.argv[2])
    print("ready", flush=True)
    while not go.exists():
        time.sleep(0.001)
    table = solver.table_for("3x4", table_dir=directory, build=False)
    codes = table.reachable_codes()
    scores = table.lookup_codes(codes)
    digest = hashlib.sha256()
    for array in (codes, scores.value, scores.plies, scores.best):
        digest.update(np.ascontiguousarray(array).tobytes())
    sample = [table.at(int(code)) for code in codes[::97]]
    answers = [[p.code, p.value, p.result, p.plies, list(p.best_cells)] for p in sample]
    print(json.dumps({"digest": digest.hexdigest(), "answers": answers}), flush=True)
"""


def test_concurrent_readers_all_get_the_in_process_answers(tmp_path):
    directory, go = tmp_path / "tables", tmp_path / "go"
    solver.table_for("3x4", table_dir=directory)
    table = load_table(directory / "3x4k3.ttt")
    codes = table.reachable_codes()
    scores = table.lookup_codes(codes)
    digest = hashlib.sha256()
    for array in (codes, scores.value, scores.plies, scores.best):
        digest.update(np.ascontiguousarray(array).tobytes())
    answers = [[p.code, p.value, p.result, p.plies, list(p.best_cells)] for p in (table.at(int(c)) for c in codes[::97])]
    expected = {"digest": digest.hexdigest(), "answers": answers}

    readers = [python(READER, str(directory), str(go)) for _ in range(4)]
    start_together(readers, go)
    for reader in readers:
        out, err = reader.communicate(timeout=60)
        assert reader.returncode == 0, err
        assert json.loads(out) == expected
    solver.forget()
