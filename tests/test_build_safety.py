"""A compact build's directory is the builder's alone.

* a link planted in the build directory (a partial layer, a layer not yet started, a journal)
  is refused, never followed: the file it points to is unchanged and the build stops with one line;
* the directory is created 0700 and refused when another user owns it or others may write it;
* two builders of one game: the second waits for the first and then uses its table;
* the pool workers of a build killed with SIGKILL die with it (a pipe reader sees EOF);
* a table that fails its checks never replaces the one already there;
* a damaged journal or manifest, or a malformed scheduler address: one line, never a traceback.

Most tests build 3x4k3 through the compact path (a stand-in that builds in a fraction of a
second: ``kind_for`` is patched so 12 cells take the layered build); the CLI tests use the
same stand-in, and the slow set repeats the two-builder test with 2x9k4, a real compact game.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from forgery import forge_finished_layer
from procfs import gone

import solver.cli
import solver.cli.build
import solver.cli.options
import solver.retrograde.chunks
import solver.retrograde.sweep
import solver.storage.fsutil
import solver.storage.tablefile
import solver.storage.trust
import solver.store.locate
import solver.store.make
from solver.cli import main
from solver.errors import BuildError, TableError
from solver.retrograde.builddir import BuildDir
from solver.retrograde.chunks import ChunkDone
from solver.retrograde.sweep import build_layers
from solver.rules.game import parse_game
from solver.store.locate import open_file
from solver.store.make import build_compact

GAME = "3x4k3"
"""The stand-in: 12 cells, built layer by layer in well under a second."""
ROOT = Path(__file__).resolve().parent.parent
SMALL_CHUNKS = 2000
"""Boards per chunk in these tests: the big layers of 3x4k3 get 5 to 18 chunks each."""


@pytest.fixture
def compact_stand_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """3x4k3 takes the compact path (the layered build, a build directory), in small chunks."""
    monkeypatch.setattr(solver.store.make, "kind_for", lambda game: "compact")
    monkeypatch.setattr(solver.cli.build, "kind_for", lambda game: "compact")
    monkeypatch.setattr(solver.cli.options, "kind_for", lambda game: "compact")
    monkeypatch.setattr(solver.retrograde.chunks, "CHUNK_BOARDS", SMALL_CHUNKS)
    solver.forget()


def run(*args: str) -> tuple[int, str]:
    """Run ``solve`` in this process: exit code and standard error (no traceback allowed anywhere)."""
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.stderr


def one_error_line(stderr: str) -> str:
    """The single ``solve: error:`` line of a refused command (and nothing else on stderr but progress)."""
    errors = [line for line in stderr.splitlines() if line.startswith("solve: error:")]
    assert len(errors) == 1, stderr
    return errors[0]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def stop_in_layer(ply: int, after: int = 2):
    """A progress callback that interrupts the build after ``after`` chunks of layer ``ply`` (as a kill would)."""
    seen: list[int] = []

    def progress(done: ChunkDone) -> None:
        seen.append(done.ply)
        if seen.count(ply) == after:
            raise KeyboardInterrupt

    return progress


def killed_build(directory: Path, ply: int) -> BuildDir:
    """A build of the stand-in interrupted in layer ``ply``: finished layers above it, a partial layer and its journal."""
    game = parse_game(GAME)
    with pytest.raises(KeyboardInterrupt):
        build_layers(game, directory, jobs=1, progress=stop_in_layer(ply))
    build = BuildDir(directory, game)
    assert build.partial_path(ply).is_file() and build.journal_path(ply).is_file()
    return build


@pytest.fixture
def victim(tmp_path: Path) -> Iterator[Path]:
    """A file outside the build directory that a planted link points to: it must never change."""
    path = tmp_path / "victim.txt"
    path.write_bytes(b"precious data, not a layer\n" * 2000)
    before = digest(path)
    yield path
    assert digest(path) == before, "a file outside the build directory was written"
    assert path.stat().st_size == 54000, "a file outside the build directory was truncated"


# -- 1. links planted in the build directory --------------------------------------------------
@pytest.mark.parametrize("planted", ["partial of the layer being solved", "journal of the layer being solved"])
def test_a_link_planted_in_a_killed_build_is_refused_on_resume_and_its_target_is_untouched(
    planted: str, compact_stand_in: None, tmp_path: Path, victim: Path
) -> None:
    tables = tmp_path / "tables"
    build = killed_build(tables / f"{GAME}.ttt.build", 8)
    name = build.partial_path(8) if planted.startswith("partial") else build.journal_path(8)
    name.unlink()
    name.symlink_to(victim)
    code, err = run("build", "--game", GAME, "--table-dir", str(tables), "--jobs", "1")
    line = one_error_line(err)
    assert code == 1 and f"{name}: is a symbolic link" in line, line
    assert not (tables / f"{GAME}.ttt").exists()


@pytest.mark.parametrize("name", ["layer-08.i8.partial", "layer-05.i8.partial", "layer-08.journal", "layer-05.journal", "manifest.json"])
def test_a_link_planted_while_the_build_runs_is_refused_when_reached_and_its_target_is_untouched(
    name: str, compact_stand_in: None, tmp_path: Path, victim: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tables = tmp_path / "tables"
    directory = tables / f"{GAME}.ttt.build"
    real = solver.retrograde.spool.run_chunks

    def plants_a_link_during_layer_9(directory_: str, game: str, ply: int, *args: object, **kwargs: object) -> object:
        link = directory / name
        if ply == 9 and not link.is_symlink():
            link.unlink(missing_ok=True)  # the manifest is there already: replaced by a link
            link.symlink_to(victim)  # after the directory was checked: only O_NOFOLLOW stands in the way
        return real(directory_, game, ply, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(solver.retrograde.sweep, "run_chunks", plants_a_link_during_layer_9)
    code, err = run("build", "--game", GAME, "--table-dir", str(tables), "--jobs", "1")
    line = one_error_line(err)
    assert code == 1 and f"{directory / name}: is a symbolic link; refusing to follow it" in line, line
    assert not (tables / f"{GAME}.ttt").exists()


def test_a_link_planted_as_a_finished_layer_is_refused_on_resume(tmp_path: Path, victim: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solver.retrograde.chunks, "CHUNK_BOARDS", SMALL_CHUNKS)
    build = killed_build(tmp_path / "build", 8)
    build.layer_path(11).unlink()
    build.layer_path(11).symlink_to(victim)
    with pytest.raises(TableError, match=r"layer-11.i8: is a symbolic link"):
        build_layers(parse_game(GAME), tmp_path / "build", jobs=1)


def test_a_link_planted_before_the_build_starts_is_refused_before_anything_is_written(compact_stand_in: None, tmp_path: Path, victim: Path) -> None:
    directory = tmp_path / "tables" / f"{GAME}.ttt.build"
    directory.mkdir(parents=True, mode=0o700)
    (directory / "layer-05.i8.partial").symlink_to(victim)
    code, err = run("build", "--game", GAME, "--table-dir", str(tmp_path / "tables"))
    line = one_error_line(err)
    assert code == 1 and "layer-05.i8.partial: is a symbolic link" in line, line
    assert sorted(p.name for p in directory.iterdir()) == ["layer-05.i8.partial"], "nothing was written before the refusal"


def test_a_hard_link_planted_as_a_partial_layer_is_not_written_through(tmp_path: Path, victim: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solver.retrograde.chunks, "CHUNK_BOARDS", SMALL_CHUNKS)
    build = killed_build(tmp_path / "build", 8)
    build.partial_path(8).unlink()
    os.link(victim, build.partial_path(8))
    with pytest.raises(TableError, match=r"layer-08.i8.partial: has 2 hard links"):
        build_layers(parse_game(GAME), tmp_path / "build", jobs=1)


# -- 1. the directory itself -------------------------------------------------------------------
def test_the_build_directory_is_created_private_and_tightened_when_found_readable_by_others(tmp_path: Path) -> None:
    game = parse_game(GAME)
    with pytest.raises(KeyboardInterrupt):
        build_layers(game, tmp_path / "new", jobs=1, progress=stop_in_layer(10, after=1))
    assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) & 0o077 == 0 for p in (tmp_path / "new").iterdir() if not p.name.startswith("manifest"))
    old = tmp_path / "old"
    old.mkdir(mode=0o755)
    old.chmod(0o755)  # made by an earlier version under a 022 umask: nobody else could write in it
    build_layers(game, old, jobs=1)
    assert stat.S_IMODE(old.stat().st_mode) == 0o700


def test_a_build_directory_owned_by_another_user_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "build").mkdir(mode=0o700)
    monkeypatch.setattr(solver.storage.fsutil, "_my_uid", lambda: os.geteuid() + 1)  # as if another user had made it
    with pytest.raises(TableError, match=r"build: owned by user \d+, not by you \(user \d+\); refusing to build"):
        build_layers(parse_game(GAME), tmp_path / "build", jobs=1)
    assert list((tmp_path / "build").iterdir()) == []


def test_a_build_directory_others_may_write_is_refused(tmp_path: Path) -> None:
    (tmp_path / "build").mkdir()
    (tmp_path / "build").chmod(0o777)
    with pytest.raises(TableError, match=r"writable by other users \(mode 0777\); refusing to build in it"):
        build_layers(parse_game(GAME), tmp_path / "build", jobs=1)
    assert list((tmp_path / "build").iterdir()) == []


def test_a_build_directory_that_is_a_link_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (tmp_path / "build").symlink_to(elsewhere)
    with pytest.raises(TableError, match=r"build: is a symbolic link, not a directory"):
        build_layers(parse_game(GAME), tmp_path / "build", jobs=1)
    assert list(elsewhere.iterdir()) == []


# -- 2. two builders of one game ---------------------------------------------------------------
STAND_IN = """
import sys, time
import solver.store.make, solver.cli, solver.lifetime, solver.retrograde.chunks, solver.retrograde.spool
{extra}
solver.store.make.kind_for = solver.cli.build.kind_for = solver.cli.options.kind_for = lambda game: "compact"
solver.retrograde.chunks.CHUNK_BOARDS = {chunks}
pause = float(sys.argv[1])
real = solver.retrograde.spool.solve_chunk
def slow_solve_chunk(*args, **kwargs):
    time.sleep(pause)
    return real(*args, **kwargs)
solver.retrograde.spool.solve_chunk = slow_solve_chunk
sys.argv[1:2] = []
solver.cli.main(sys.argv[1:], prog_name="solve")
"""


def solve_process(pause: float, *args: str, chunks: int = SMALL_CHUNKS, **popen: object) -> subprocess.Popen[str]:
    """``solve ARGS`` in a new process, every chunk of the stand-in's compact build slowed by ``pause`` seconds."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-c", STAND_IN.format(chunks=chunks, extra=""), str(pause), *args], text=True, env=env, cwd=ROOT, **popen
    )


def wait_for(condition, seconds: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.mark.parametrize("second", ["build", "lookup"])
def test_a_second_builder_of_the_same_game_waits_for_the_first_and_uses_its_table(second: str, tmp_path: Path) -> None:
    tables = tmp_path / "tables"
    first = solve_process(0.05, "build", "--game", GAME, "--table-dir", str(tables), "--jobs", "1", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: (tables / f"{GAME}.ttt.build" / "layer-12.i8").exists(), 60, "the first build to start")
        args = ["build", "--game", GAME] if second == "build" else ["lookup", "X.../.O../....", "--game", GAME]
        late = solve_process(0, *args, "--table-dir", str(tables), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = late.communicate(timeout=120)
        _, first_err = first.communicate(timeout=120)
    finally:
        first.kill()
    assert first.returncode == 0, first_err
    assert late.returncode == 0, err
    assert "waiting for it to finish" in err, err
    assert "solving" not in err, f"the second process built the table again: {err}"
    if second == "build":
        assert "was written by the build this one waited for; using it" in err, err
    else:
        assert "Best moves (row,col): (2,0)" in out, out
    assert (tables / f"{GAME}.ttt").is_file()
    assert not [p.name for p in tables.iterdir() if p.name.endswith((".build", ".tmp"))], "no build directory is left behind"


@pytest.mark.slow
def test_two_builds_of_2x9k4_at_once_give_one_table_and_leave_no_build_directory(tmp_path: Path) -> None:
    tables = tmp_path / "tables"
    args = ("build", "--game", "2x9k4", "--table-dir", str(tables), "--jobs", "1")
    first = subprocess.Popen(
        [sys.executable, "-c", "from solver.cli import main; main()", *args],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for(lambda: (tables / "2x9k4.ttt.build" / "lock").exists(), 60, "the first build to start")
    code, err = run(*args[:-2])
    _, first_err = first.communicate(timeout=600)
    assert first.returncode == 0 and code == 0, (first_err, err)
    assert not [p.name for p in tables.iterdir() if p.name.endswith((".build", ".tmp"))], "no build directory is left behind"
    assert open_file(tables / "2x9k4.ttt").lookup("........./.........", game="2x9k4").result in ("win", "draw", "loss")


def test_a_refused_build_leaves_no_build_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil
    from collections import namedtuple

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10**9, 10**9 - 1000, 1000))
    with pytest.raises(BuildError, match="needs"):
        build_compact(parse_game(GAME), tmp_path / f"{GAME}.ttt", jobs=1)
    assert list(tmp_path.iterdir()) == []


# -- 3. workers die with the build -------------------------------------------------------------
def _children(pid: int) -> set[int]:
    try:
        return {int(n) for n in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}
    except OSError:
        return set()


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc to find the workers")
@pytest.mark.parametrize("how", ["parent-death signal", "parent check alone"])
def test_the_workers_of_a_build_killed_with_sigkill_die_and_release_its_output(how: str, tmp_path: Path) -> None:
    no_prctl = "import types\ndef no_libc(*args, **kwargs):\n    raise OSError('no prctl here')\nsolver.lifetime.ctypes = types.SimpleNamespace(CDLL=no_libc)"
    script = STAND_IN.format(chunks=500, extra="" if how == "parent-death signal" else no_prctl)  # without: the polling thread alone
    build = subprocess.Popen(
        [sys.executable, "-c", script, "0.2", "build", "--game", GAME, "--table-dir", str(tmp_path), "--jobs", "2"],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: len(_children(build.pid)) >= 2 and (tmp_path / f"{GAME}.ttt.build" / "layer-12.i8").exists(), 60, "the build's workers to start")
        workers = _children(build.pid)
        os.kill(build.pid, signal.SIGKILL)
        build.wait(10)
        finished = threading.Event()
        threading.Thread(target=lambda: (build.stdout.read(), finished.set()), daemon=True).start()  # type: ignore[union-attr]
        assert finished.wait(10), "the build's standard output is still held open 10 s after SIGKILL"
        wait_for(lambda: all(gone(pid) for pid in workers), 10, f"workers {sorted(workers)} to end")
    finally:
        for pid in _children(build.pid) | {build.pid}:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


# -- 4. a table replaces the old one only after its checks -------------------------------------
def test_a_resumed_build_that_fails_the_shipped_checksum_leaves_the_good_table_in_place(
    compact_stand_in: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tables = tmp_path / "tables"
    code, err = run("build", "--game", GAME, "--table-dir", str(tables), "--jobs", "1")
    assert code == 0, err
    good = tables / f"{GAME}.ttt"
    root = open_file(good).file.header.root
    monkeypatch.setattr(solver.storage.trust, "expected_root", lambda game, kind="dense": root)  # as if it shipped
    before, inode = digest(good), good.stat().st_ino
    build = killed_build(tables / f"{GAME}.ttt.build", 6)
    forge_finished_layer(build, 10)
    code, err = run("build", "--game", GAME, "--table-dir", str(tables), "--jobs", "1", "--force")  # the good table there is built again
    line = one_error_line(err)
    assert code == 1 and f"not the expected {root}" in line and f"{good} was left as it was" in line, line
    assert "it resumed layers 12 to 6 from" in line and "delete" in line, line
    assert digest(good) == before and good.stat().st_ino == inode, "the good table was replaced"
    assert not [p for p in tables.iterdir() if p.name.endswith(".tmp")], "the refused file was not removed"


def test_a_resumed_build_of_a_game_without_a_shipped_checksum_is_checked_layer_by_layer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solver.retrograde.chunks, "CHUNK_BOARDS", SMALL_CHUNKS)
    monkeypatch.setattr(solver.storage.trust, "expected_root", lambda game, kind="dense": None)  # nothing ships
    output = tmp_path / f"{GAME}.ttt"
    output.write_bytes(b"the table already there")
    build = killed_build(tmp_path / "build", 6)
    forge_finished_layer(build, 9)
    with pytest.raises(TableError, match=r"table just built is wrong \(layer 9: 1 board disagrees with its children"):
        build_compact(parse_game(GAME), output, build_dir=build.path, jobs=1)
    assert output.read_bytes() == b"the table already there"


def test_a_dense_table_that_fails_its_checksum_is_never_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "3x3k3.ttt"
    there = solver.store.locate.shipped_path(parse_game("3x3k3")).read_bytes()  # the table already there
    path.write_bytes(there)
    monkeypatch.setattr(solver.storage.trust, "expected_root", lambda game, kind="dense": "0" * 64)
    with pytest.raises(TableError, match=r"has checksum [0-9a-f]{64}, not the expected 0{64}; it was not written"):
        solver.store.make.write_table_file(parse_game("3x3k3"), path)
    assert path.read_bytes() == there
    assert sorted(p.name for p in tmp_path.iterdir()) == ["3x3k3.ttt"]


# -- 12. damaged journals and manifests, a malformed scheduler: one line -------------------------
@pytest.mark.parametrize(
    "journal",
    [os.urandom(3000), b"1" * 5000 + b" 5\n", "0 \u00b2\n\u00b2\u00b3 12\n".encode(), b"\xff\xfe\n12 \n 3\n-1 4\n"],
    ids=["random bytes", "a 5000-digit field", "superscript digits", "mixed garbage"],
)
def test_a_damaged_journal_is_skipped_line_by_line_and_the_build_ends_with_the_right_bytes(journal: bytes, compact_stand_in: None, tmp_path: Path) -> None:
    fresh = tmp_path / "fresh"
    code, err = run("build", "--game", GAME, "--table-dir", str(fresh), "--jobs", "1")
    assert code == 0, err
    tables = tmp_path / "tables"
    build = killed_build(tables / f"{GAME}.ttt.build", 8)
    kept = build.journal_path(8).read_bytes()
    build.journal_path(8).write_bytes(journal + b"\n" + kept)  # damage first, the real lines after
    code, err = run("build", "--game", GAME, "--table-dir", str(tables), "--jobs", "1")
    assert code == 0, err
    assert re.search(r"layer 8: [1-9][0-9]* of its [0-9]+ chunks were finished before .*; [1-9][0-9]* unreadable journal lines? (was|were) skipped", err), err
    assert (tables / f"{GAME}.ttt").read_bytes() == (fresh / f"{GAME}.ttt").read_bytes()


@pytest.mark.parametrize(
    ("manifest", "said"),
    [
        ("[1, 2]", "holds a JSON list, expected an object"),
        ('{"game": "3x4k3", "scheme": "split-half-mixed-radix", "scheme_version": 1, "layers": "x"}', "\"layers\" is 'x'"),
        ('{"game": "3x4k3", "scheme": "split-half-mixed-radix", "scheme_version": 1, "layers": {"\u00b2": {}}}', "names layer '\u00b2'"),
        ('{"game": "3x4k3", "scheme": "split-half-mixed-radix", "scheme_version": 1, "layers": {"12": [1]}}', "layer 12 is recorded as [1]"),
        ('{"game": "3x4k3", "scheme": "split-half-mixed-radix", "scheme_version": 1, "layers": {"' + "9" * 5000 + '": 1}}', "names layer"),
        ("\u00b2" * 10, "unreadable"),
        ('{"game": ' + "[" * 100000 + "]" * 100000 + "}", "unreadable"),
        ('{"game": "' + "x" * 5000 + '"}', "holds a build of 'xxxx"),
    ],
    ids=["a list", "layers a string", "a superscript layer", "an entry a list", "a 5000-digit layer", "not JSON", "deep", "a long game"],
)
def test_a_damaged_manifest_is_refused_in_one_line(manifest: str, said: str, compact_stand_in: None, tmp_path: Path) -> None:
    directory = tmp_path / "tables" / f"{GAME}.ttt.build"
    directory.mkdir(parents=True, mode=0o700)
    (directory / "manifest.json").write_text(manifest)
    code, err = run("build", "--game", GAME, "--table-dir", str(tmp_path / "tables"))
    line = one_error_line(err)
    assert code == 1 and said in line, line
    assert len(line) < 400, line


def test_a_malformed_scheduler_address_is_refused_in_one_line_before_anything_is_built(tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="the cluster extra (dask[distributed]) is not installed")
    code, err = run("build", "--game", "2x9k4", "--table-dir", str(tmp_path / "tables"), "--scheduler", "notaurl:::")
    line = one_error_line(err)
    assert code == 1 and "invalid Dask scheduler address 'notaurl:::'" in line, line
    assert not (tmp_path / "tables" / "2x9k4.ttt.build").exists()


# -- 6. the trust registry cannot be turned against its user --------------------------------------------------
# 3x4k3 through the compact path stands in for 3x6k4: no compact checksum ships for it.


def warnings_of(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("solve: warning:")]


def test_a_build_beside_a_registry_that_is_a_directory_writes_its_table_warns_once_and_leaves_nothing_behind(compact_stand_in: None, tmp_path: Path) -> None:
    """The table is written and kept, the build exits 0 with one warning, and no build directory is left."""
    (tmp_path / "trusted.json").mkdir()
    code, err = run("build", "-q", "--game", GAME, "--output", str(tmp_path / f"{GAME}.ttt"))
    assert code == 0, err
    (warning,) = warnings_of(err)
    assert f"{tmp_path / 'trusted.json'}: is a directory" in warning and "not recorded as trusted" in warning, warning
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{GAME}.ttt", "trusted.json"]
    solver.forget()  # as a new process
    code, err = run("lookup", "0", "--game", GAME, "--table-dir", str(tmp_path))
    assert code == 0 and len(warnings_of(err)) == 1 and "is a directory" in err and "error" not in err, err


def test_a_registry_that_is_a_directory_is_ignored_with_one_warning_and_the_table_proved(tmp_path: Path) -> None:
    from solver.errors import RegistryWarning

    path = build_compact(parse_game(GAME), tmp_path / f"{GAME}.ttt", jobs=1)
    (tmp_path / "trusted.json").unlink()
    (tmp_path / "trusted.json").mkdir()
    solver.forget()
    proofs: list[object] = []
    real = solver.store.make.prove
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(solver.store.make, "prove", lambda table: proofs.append(table) or real(table))
        with pytest.warns(RegistryWarning, match="is a directory") as said:
            assert open_file(path).lookup(0).result in ("win", "draw", "loss")
            assert open_file(path).lookup(0).result in ("win", "draw", "loss")
    assert len(said) == 1 and len(proofs) == 2
    assert (tmp_path / "trusted.json").is_dir()


def test_a_build_whose_table_could_not_be_recorded_and_takes_long_to_prove_is_refused_before_anything_is_written(
    compact_stand_in: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import solver.store.estimate

    monkeypatch.setattr(solver.store.estimate, "WORK_PER_SECOND_PER_CORE", 1.0)
    monkeypatch.setattr(solver.store.estimate, "PROOF_WORK_PER_SECOND", 1.0)  # the proof it would need, too
    (tmp_path / "trusted.json").mkdir()
    code, err = run("build", "-q", "--game", GAME, "--output", str(tmp_path / f"{GAME}.ttt"))
    assert code == 1
    line = one_error_line(err)
    assert f"{tmp_path / 'trusted.json'}: is a directory" in line and "nothing was built" in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trusted.json"], "no table and no build directory"


def test_a_registry_planted_by_another_user_in_a_shared_directory_does_not_fail_the_build(
    compact_stand_in: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a sticky directory the victim cannot replace another user's trusted.json: the build says so once and writes its
    table, and the planted registry is left as it was. The victim is posed here: the registry is owned by another user than "you"."""
    import solver.storage.trust

    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    planted = shared / "trusted.json"
    planted.write_text(json.dumps({"version": 1, "tables": []}))
    planted.chmod(0o644)
    me = planted.stat().st_uid + 4242
    monkeypatch.setattr(solver.storage.trust, "_uid", lambda: me)
    code, err = run("build", "-q", "--game", GAME, "--output", str(shared / f"{GAME}.ttt"))
    assert code == 0, err
    (warning,) = warnings_of(err)
    assert f"owned by user {planted.stat().st_uid}" in warning and "shared directory" in warning, warning
    assert sorted(p.name for p in shared.iterdir()) == [f"{GAME}.ttt", "trusted.json"]
    assert json.loads(planted.read_text()) == {"version": 1, "tables": []}


def test_recording_in_a_registry_that_cannot_be_written_warns_and_never_raises(tmp_path: Path) -> None:
    from solver.storage import trust

    (tmp_path / "trusted.json").mkdir()
    trust.forget_warnings()
    with pytest.warns(solver.errors.RegistryWarning, match="is a directory"):
        assert trust.record(tmp_path, GAME, "compact", "0" * 64) is False
    assert not trust.is_trusted(tmp_path, GAME, "compact", "0" * 64)


# -- 7. a disk that fills up says where, what was needed and what is free --------------------------------------


def test_a_disk_that_fills_up_mid_build_names_the_path_what_was_needed_and_what_is_free_and_the_build_resumes(
    compact_stand_in: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not only "No space left on device": the build directory, the disk the layers left need, the space free; then it resumes."""
    import errno

    import solver.retrograde.spool

    real = os.pwrite
    calls = []

    def fills_up(fd: int, data: bytes, offset: int) -> int:
        calls.append(offset)
        if len(calls) > 20:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data, offset)

    output = tmp_path / f"{GAME}.ttt"
    with monkeypatch.context() as patch:
        patch.setattr(solver.retrograde.spool.os, "pwrite", fills_up)
        code, err = run("build", "-q", "--game", GAME, "--jobs", "1", "--output", str(output))
    assert code == 1
    line = one_error_line(err)
    build_dir = tmp_path / f"{GAME}.ttt.build"
    assert f"{build_dir}: the disk filled up while building the {GAME} table (No space left on device)" in line, line
    assert re.search(r"it needs about [0-9.]+ (bytes|KiB|MiB) \([0-9,]+ bytes\), and .* has [0-9.]+ [KMGT]?i?B(ytes)? free", line), line
    assert "run the same command again: it resumes" in line and build_dir.is_dir() and not output.exists()
    solver.forget()
    code, err = run("build", "-q", "--game", GAME, "--jobs", "1", "--output", str(output))
    assert code == 0, err
    fresh = build_compact(parse_game(GAME), tmp_path / "fresh" / f"{GAME}.ttt", jobs=1)
    assert output.read_bytes() == fresh.read_bytes()


def test_a_disk_that_fills_up_while_the_table_is_written_names_the_path_what_was_needed_and_what_is_free(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    def no_room(*args: object) -> bytes:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(solver.storage.tablefile, "head_bytes", no_room)
    output = tmp_path / "3x3k3.ttt"
    code, err = run("build", "-q", "--output", str(output))
    assert code == 1
    line = one_error_line(err)
    assert f"{output}: the disk filled up while writing it (No space left on device): it needs about " in line, line
    assert f"and {tmp_path} has " in line and " free; free space there and write it again" in line, line
    assert list(tmp_path.iterdir()) == [], "no temporary file is left"
