"""The table directory cannot be turned against its user: no file that is not a regular table file is
replaced or opened, temporary files are created safely and removed once their builder is dead (never
while it lives), and an unwritable directory or a full disk is one clear TableError, not a traceback.
"""

from __future__ import annotations

import collections
import errno
import os
import stat
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

import solver
import solver.storage.fsutil
import solver.storage.tablefile
import solver.store.locate
from solver import build_table, load_table
from solver.cli import main
from solver.storage.fsutil import remove_dead_temporaries, temp_name

ROOT = Path(solver.__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def small() -> solver.Table:
    return build_table(game="2x3")


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


# -- nothing but a regular file is replaced or opened ------------------------------------------------------


def test_build_output_refuses_a_fifo_and_leaves_it_in_place(tmp_path):
    fifo = tmp_path / "pipe.ttt"
    os.mkfifo(fifo)
    code, out = run("build", "--game", "2x3", "--output", str(fifo), "--quiet")
    assert code == 1 and "FIFO" in out and "not a regular file" in out and str(fifo) in out
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_build_output_refuses_a_character_device(tmp_path):
    code, out = run("build", "--game", "2x3", "--output", "/dev/null", "--quiet")
    assert code == 1 and "character device" in out
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_save_refuses_a_directory_and_a_symlink(tmp_path, small):
    (tmp_path / "dir.ttt").mkdir()
    with pytest.raises(solver.TableError, match="is a directory, not a regular file"):
        small.save(tmp_path / "dir.ttt")
    target = tmp_path / "elsewhere"
    target.write_bytes(b"precious")
    (tmp_path / "link.ttt").symlink_to(target)
    with pytest.raises(solver.TableError, match="symbolic link"):
        small.save(tmp_path / "link.ttt")
    assert target.read_bytes() == b"precious"


FIFO_OPENER = """
    import sys
    import solver
    try:
        solver.table_for("2x3", table_dir=sys.argv[1])
    except solver.TableError as error:
        print("refused:", error)
"""


def test_a_fifo_named_like_a_table_is_refused_without_hanging(tmp_path):
    directory = tmp_path / "tables"
    directory.mkdir()
    os.mkfifo(directory / "2x3k2.ttt")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(FIFO_OPENER), str(directory)], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert "refused:" in done.stdout and "FIFO" in done.stdout and "not a table file" in done.stdout


def test_a_symlink_in_the_table_dir_pointing_into_another_directory_is_refused(table_dir, tmp_path, small):
    table_dir.mkdir(parents=True)
    outside = small.save(tmp_path / "outside" / "2x3k2.ttt")
    (table_dir / "2x3k2.ttt").symlink_to(outside)
    with pytest.raises(solver.TableError, match="symbolic link"):
        solver.table_for("2x3")
    # the user may name such a link explicitly
    assert load_table(table_dir / "2x3k2.ttt").game.name == "2x3k2"


def test_a_symlink_that_stays_inside_the_table_dir_is_followed(table_dir, small):
    small.save(table_dir / "real-2x3k2.ttt")
    (table_dir / "2x3k2.ttt").symlink_to("real-2x3k2.ttt")
    assert solver.table_for("2x3").game.name == "2x3k2"


# -- temporary files -----------------------------------------------------------------------------------------


def test_the_temporary_file_is_never_a_planted_link_and_its_mode_is_set_through_the_descriptor(tmp_path, small, monkeypatch):
    """A symlink swapped in under the temporary name must not make another file world-readable."""
    secret = tmp_path / "secret"
    secret.write_bytes(b"root only")
    secret.chmod(0o600)
    planted = tmp_path / ".2x3k2.ttt.1.deadbeef.tmp"
    planted.symlink_to(secret)
    monkeypatch.setattr(solver.storage.fsutil, "temp_name", lambda path: planted)
    with pytest.raises(solver.TableError):
        small.save(tmp_path / "2x3k2.ttt")
    assert stat.S_IMODE(os.stat(secret).st_mode) == 0o600 and secret.read_bytes() == b"root only"
    monkeypatch.undo()
    path = small.save(tmp_path / "2x3k2.ttt")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644


def test_temp_names_carry_the_builders_pid():
    name = temp_name(Path("/x/4x4k4.ttt")).name
    assert name.startswith(f".4x4k4.ttt.{os.getpid()}.") and name.endswith(".tmp")


LIVE_BUILDER = """
    import fcntl, os, sys
    from pathlib import Path
    tmp = Path(sys.argv[1]) / f".3x4k3.ttt.{os.getpid()}.0123abcd.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, b"half a table")
    print(tmp, flush=True)
    sys.stdin.read()  # keeps building until told to stop
"""


def test_cleanup_never_touches_a_running_builders_file_and_removes_a_dead_ones(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    live = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(LIVE_BUILDER), str(tmp_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        live_tmp = Path(live.stdout.readline().strip())
        assert remove_dead_temporaries(tmp_path) == []
        code, _ = run("build", "--game", "2x2", "--output", str(tmp_path / "2x2k2.ttt"), "--quiet")
        assert code == 0
        code, _ = run("verify", "--table", str(tmp_path / "2x2k2.ttt"))
        assert code == 0
        assert live_tmp.exists(), "a running builder's temporary file was deleted"
    finally:
        live.kill()
        live.wait(timeout=30)
    assert live_tmp.exists()
    code, _ = run("verify", "--table", str(tmp_path / "2x2k2.ttt"))
    assert code == 0 and not live_tmp.exists(), "solve verify removes a dead builder's temporary file"


def test_a_temp_file_whose_pid_lives_but_is_unlocked_is_kept(tmp_path):
    """A PID that is alive (here: this process) may be a builder between creating and locking its file."""
    mine = tmp_path / f".2x2k2.ttt.{os.getpid()}.0badc0de.tmp"
    mine.write_bytes(b"x")
    assert remove_dead_temporaries(tmp_path) == [] and mine.exists()


# -- an unwritable directory, a full disk -------------------------------------------------------------------------


def test_an_environment_variable_naming_a_file_builds_in_memory_with_one_warning(tmp_path, monkeypatch):
    not_a_dir = tmp_path / "tables.txt"
    not_a_dir.write_text("oops")
    monkeypatch.setenv("SOLVED_TICTACTOE_DIR", str(not_a_dir))
    solver.forget()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert solver.lookup("X../.O.", game="2x3").result in {"win", "draw", "loss"}
            solver.lookup("X../...", game="2x3")
        assert len(caught) == 1 and issubclass(caught[0].category, solver.errors.TableWarning)
        text = str(caught[0].message)
        assert str(not_a_dir) in text and "choose another table directory" in text and ".tmp" not in text
        assert not_a_dir.read_text() == "oops"
    finally:
        solver.forget()


def test_the_cli_says_so_in_one_warning_line_and_still_answers(tmp_path, monkeypatch):
    not_a_dir = tmp_path / "tables.txt"
    not_a_dir.write_text("oops")
    monkeypatch.setenv("SOLVED_TICTACTOE_DIR", str(not_a_dir))
    solver.forget()
    try:
        result = CliRunner().invoke(main, ["lookup", "X../.O.", "--game", "2x3", "--quiet"])
    finally:
        solver.forget()
    assert result.exit_code == 0, result.output
    warning_lines = [line for line in result.output.splitlines() if line.startswith("solve: warning:")]
    assert len(warning_lines) == 1 and str(not_a_dir) in warning_lines[0]


def test_a_read_only_directory_is_one_table_error_naming_it(tmp_path, small, monkeypatch):
    """As root, chmod does not stop writes; the refusal the kernel gives a user is simulated."""
    real_open = os.open

    def read_only(path, flags, *args):
        if flags & os.O_CREAT:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(solver.storage.fsutil.os, "open", read_only)
    with pytest.raises(solver.TableError) as caught:
        small.save(tmp_path / "2x3k2.ttt")
    message = str(caught.value)
    assert f"cannot write tables into {tmp_path}" in message and "Permission denied" in message and ".tmp" not in message


def test_a_full_disk_is_refused_before_writing_with_the_space_needed(tmp_path, small, monkeypatch):
    usage = collections.namedtuple("usage", "total used free")
    monkeypatch.setattr(solver.storage.fsutil.shutil, "disk_usage", lambda path: usage(10**9, 10**9 - 1000, 1000))
    with pytest.raises(solver.TableError) as caught:
        small.save(tmp_path / "2x3k2.ttt")
    message = str(caught.value)
    assert str(tmp_path / "2x3k2.ttt") in message and "not enough disk space" in message and "1000 bytes free" in message
    assert list(tmp_path.iterdir()) == []


# -- a symbolic link loop named like a table ---------------------------------------


def test_a_symlink_loop_named_like_a_table_is_one_line_for_lookup(table_dir):
    table_dir.mkdir(parents=True)
    (table_dir / "3x4k3.ttt").symlink_to("3x4k3.ttt")
    with pytest.raises(solver.TableError, match="3x4k3.ttt: is a symbolic link; refusing to follow it; rebuild it with"):
        solver.lookup(0, game="3x4k3")
    result = CliRunner().invoke(main, ["lookup", "0", "--game", "3x4k3"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1 and "refusing to follow it" in result.stderr


def test_a_symlink_loop_named_like_a_table_is_skipped_by_serve_with_one_warning(table_dir, monkeypatch):
    pytest.importorskip("starlette")
    import solver.web

    table_dir.mkdir(parents=True)
    (table_dir / "3x4k3.ttt").symlink_to("3x4k3.ttt")
    served = []
    monkeypatch.setattr(solver.web, "serve", lambda tables, **kwargs: served.extend(t.game.name for t in tables))
    result = CliRunner().invoke(main, ["serve", "--port", "0"])
    assert result.exit_code == 0, result.output
    assert served == ["3x3k3"] and "Traceback" not in result.output
    assert "solve: warning: not serving 3x4k3:" in result.stderr and "refusing to follow it" in result.stderr
    result = CliRunner().invoke(main, ["serve", "--port", "0", "--game", "3x4k3"])
    assert result.exit_code == 1 and "refusing to follow it" in result.stderr and "Traceback" not in result.output
