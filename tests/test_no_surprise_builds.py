"""No look-up, command or request starts a long or large build unasked; ``solve build``
asks before a build of more than ten minutes, prints a line a minute off a terminal, and says how to resume
after Ctrl-C.

A build estimated to take more than a minute or a GiB of disk (solver.store.estimate) is asked
about on a terminal, refused elsewhere with the estimate and the ``solve build`` command,
and refused by the Python API unless ``build=True``; a refused build leaves nothing behind.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

import solver
import solver.cli
import solver.cli.build
import solver.cli.options
import solver.cli.progress
import solver.errors
import solver.store.estimate
import solver.store.locate
import solver.store.tablebase
from solver.errors import BuildNeedsConsent, TableError
from solver.rules.game import parse_game
from solver.store.estimate import CONSENT_DISK_BYTES, CONSENT_SECONDS, BuildEstimate, estimate, format_duration

BIG = "5x5k5"
"""160 GiB of disk (the layers, raw while they are solved) and hours of work: must be refused at once, never started."""


def _on_a_terminal(monkeypatch: pytest.MonkeyPatch, answer: Callable[[], bool] = lambda: True) -> None:
    """The CLI takes itself to be on a terminal (``answer``), where a person can answer its questions: the first-use
    build's (:mod:`solver.cli.options`) and ``solve build``'s (:mod:`solver.cli.build`)."""
    for module in (solver.cli.options, solver.cli.build):
        monkeypatch.setattr(module, "interactive", answer)


def _entries(directory: Path) -> list[str]:
    return sorted(os.listdir(directory)) if directory.exists() else []


# -- the estimate ---------------------------------------------------------------------------------------


def test_the_estimate_of_5x5k5_is_over_twenty_minutes_and_one_raw_layer_and_spools_of_disk_and_needs_consent(tmp_path):
    cost = estimate(parse_game(BIG), tmp_path / f"{BIG}.ttt", jobs=2)  # 5x5k4, its twin, builds in 20 min on 2 quiet cores
    # the largest raw layer (24.5 GiB), a spool and the sealed layers; at most 3.5 GiB for two workers
    assert cost.seconds > 20 * CONSENT_SECONDS and 30 * 2**30 < cost.disk_bytes < 40 * 2**30 and 2**30 < cost.memory_bytes < 4 * 2**30
    assert cost.needs_consent
    text = cost.describe()
    assert " min " in text and "GiB of disk" in text and "GiB of memory" in text and "on 2 cores" in text
    assert _entries(tmp_path) == []  # estimating creates nothing


def test_small_builds_need_no_consent_and_4x6k4_does(tmp_path):
    assert not estimate(parse_game("4x4k4"), tmp_path / "4x4k4.ttt").needs_consent
    assert not estimate(parse_game("2x9k4"), tmp_path / "2x9k4.ttt", jobs=2).needs_consent
    big = estimate(parse_game("4x6k4"), tmp_path / "4x6k4.ttt", jobs=2)
    assert big.disk_bytes > CONSENT_DISK_BYTES and big.seconds > CONSENT_SECONDS and big.needs_consent


def test_the_time_estimate_follows_the_measured_throughput(tmp_path, monkeypatch):
    game = parse_game("2x9k4")
    slow = estimate(game, tmp_path / "x.ttt", jobs=1)
    assert estimate(game, tmp_path / "x.ttt", jobs=2).seconds == pytest.approx(slow.seconds / 2)
    monkeypatch.setattr(solver.store.estimate, "WORK_PER_SECOND_PER_CORE", solver.store.estimate.WORK_PER_SECOND_PER_CORE / 100)
    slower = estimate(game, tmp_path / "x.ttt", jobs=1)
    assert slower.seconds == pytest.approx(100 * slow.seconds)
    assert slower.seconds > CONSENT_SECONDS and slower.needs_consent


@pytest.mark.parametrize(("seconds", "text"), [(5, "5 s"), (600, "10 min"), (3 * 3600 + 14 * 60, "3 h 14 min"), (5 * 86400, "5 days")])
def test_durations_read_as_people_say_them(seconds, text):
    assert format_duration(seconds) == text


# -- the Python API ----------------------------------------------------------------------------------------


def test_the_api_raises_before_a_build_that_needs_consent_and_leaves_nothing(table_dir):
    started = time.perf_counter()
    with pytest.raises(BuildNeedsConsent) as caught:
        solver.lookup(0, game=BIG)
    assert time.perf_counter() - started < 10  # refused at once, not after a disk check of a started build
    message = str(caught.value)
    assert f"solve build --game {BIG}" in message and "GiB of disk" in message and "\n" not in message
    assert isinstance(caught.value, TableError) and isinstance(caught.value.estimate, BuildEstimate)
    assert _entries(table_dir) == []
    with pytest.raises(BuildNeedsConsent):
        solver.table_for(BIG)


def test_the_api_builds_a_small_table_without_being_asked(table_dir):
    assert solver.lookup(0, game="3x4k3").result == "win"
    assert (table_dir / "3x4k3.ttt").is_file()


def test_build_true_is_consent(table_dir, monkeypatch):
    """``build=True`` builds a table whose build needs consent (made to need it by a slow throughput)."""
    monkeypatch.setattr(solver.store.estimate, "DENSE_CODES_PER_SECOND", 1.0)
    with pytest.raises(BuildNeedsConsent):
        solver.table_for("3x4k3")
    assert _entries(table_dir) == []
    assert solver.table_for("3x4k3", build=True).lookup(0).result == "win"


def test_build_false_never_builds(table_dir):
    with pytest.raises(TableError, match="no such table file"):
        solver.table_for("3x4k3", build=False)
    assert _entries(table_dir) == []


def test_a_consent_callback_sees_the_estimate_and_decides(table_dir, monkeypatch):
    monkeypatch.setattr(solver.store.estimate, "DENSE_CODES_PER_SECOND", 1.0)
    asked: list[BuildEstimate] = []

    def no(cost: BuildEstimate) -> bool:
        asked.append(cost)
        return False

    with pytest.raises(BuildNeedsConsent):
        solver.store.tablebase.table_for(parse_game("3x4k3"), consent=no)
    assert asked and asked[0].game.name == "3x4k3" and asked[0].seconds > CONSENT_SECONDS
    assert _entries(table_dir) == []
    assert solver.store.tablebase.table_for(parse_game("3x4k3"), consent=lambda cost: True).lookup(0).result == "win"


def test_a_build_refused_for_want_of_disk_leaves_no_build_directory(tmp_path, monkeypatch):
    """The disk check of a compact build runs after its directory is made: the directory goes again."""
    import shutil
    from collections import namedtuple

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(1 << 40, 1 << 40, 1000))
    with pytest.raises(solver.SolverError, match="GiB of disk"):
        solver.store.locate.build_and_open(parse_game("1x17k3"), tmp_path / "1x17k3.ttt", jobs=1)
    assert _entries(tmp_path) == []


# -- the command line -----------------------------------------------------------------------------------------


def test_solve_lookup_refuses_a_big_build_off_a_terminal_with_one_line(table_dir):
    started = time.perf_counter()
    result = CliRunner().invoke(solver.cli.main, ["lookup", "0", "--game", BIG])
    assert time.perf_counter() - started < 10
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("solve: error: "), result.stderr
    assert f"solve build --game {BIG}" in lines[0] and "GiB of disk" in lines[0] and "GiB of memory" in lines[0]
    assert "Traceback" not in result.output
    assert _entries(table_dir) == []


def test_solve_lookup_on_a_terminal_shows_the_estimate_and_a_no_builds_nothing(table_dir, monkeypatch):
    _on_a_terminal(monkeypatch)
    result = CliRunner().invoke(solver.cli.main, ["lookup", "0", "--game", BIG], input="n\n")
    assert result.exit_code == 1
    assert f"The {BIG} table is not built yet; building it takes about" in result.stderr
    assert "GiB of disk" in result.stderr and "Build it now? [y/N]" in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"solve: the {BIG} table was not built (you answered no); build it later with: solve build --game {BIG} --output "), last
    assert last.endswith(" --yes") and "error" not in last, "a no is not an error, and the command given is one that runs off a terminal too"
    assert _entries(table_dir) == []


def test_solve_lookup_on_a_terminal_builds_after_a_yes(table_dir, monkeypatch):
    _on_a_terminal(monkeypatch)
    monkeypatch.setattr(solver.store.estimate, "DENSE_CODES_PER_SECOND", 1.0)  # 3x4k3 now "needs" consent
    result = CliRunner().invoke(solver.cli.main, ["lookup", "0", "--game", "3x4k3"], input="y\n")
    assert result.exit_code == 0, result.output
    assert "Build it now? [y/N]" in result.stderr and "win" in result.stdout
    assert (table_dir / "3x4k3.ttt").is_file()


def test_a_terminal_is_not_asked_about_a_quick_build(table_dir, monkeypatch):
    _on_a_terminal(monkeypatch)
    result = CliRunner().invoke(solver.cli.main, ["lookup", "0", "--game", "3x4k3"])
    assert result.exit_code == 0, result.output
    assert "Build it now?" not in result.stderr


def test_solve_serve_refuses_a_big_game_before_listening(table_dir, monkeypatch):
    pytest.importorskip("starlette")
    import solver.web

    monkeypatch.setattr(solver.web, "serve", lambda *args, **kwargs: pytest.fail("the server started"))
    result = CliRunner().invoke(solver.cli.main, ["serve", "--port", "0", "--game", BIG])
    assert result.exit_code == 1
    assert f"solve build --game {BIG}" in result.stderr and "Traceback" not in result.output
    assert _entries(table_dir) == []


def test_solve_build_of_a_short_build_is_consent(tmp_path, monkeypatch):
    """A build of more than a minute but at most ten is not asked about by ``solve build`` (asked for by name)."""
    monkeypatch.setattr(solver.store.estimate, "DENSE_CODES_PER_SECOND", parse_game("3x4k3").codes / 300)  # five minutes
    assert estimate(parse_game("3x4k3"), tmp_path / "t.ttt").needs_consent
    result = CliRunner().invoke(solver.cli.main, ["build", "--game", "3x4k3", "--output", str(tmp_path / "t.ttt"), "-q"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "t.ttt").is_file()


# -- solve build of a long build ---------------------------------------------------------


def test_solve_build_of_a_long_build_off_a_terminal_is_refused_with_the_estimate_and_the_yes_option(tmp_path):
    started = time.perf_counter()
    result = CliRunner().invoke(solver.cli.main, ["build", "--game", "5x5k4", "--output", str(tmp_path / "t.ttt")])
    assert time.perf_counter() - started < 10
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("solve: error: building the 5x5k4 table takes about "), result.stderr
    cost = estimate(parse_game("5x5k4"), tmp_path / "t.ttt")
    assert cost.is_long and cost.describe() in lines[0], "the line shows the estimate: time on this machine's cores, disk, memory"
    assert "--yes" in lines[0]
    assert _entries(tmp_path) == []


def test_solve_build_on_a_terminal_shows_the_estimate_and_a_no_builds_nothing(tmp_path, monkeypatch):
    _on_a_terminal(monkeypatch)
    result = CliRunner().invoke(solver.cli.main, ["build", "--game", BIG, "--output", str(tmp_path / "t.ttt")], input="n\n")
    assert result.exit_code == 1
    assert f"Building the {BIG} table takes about " in result.stderr and "GiB of memory. Build it now? [y/N]" in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last == f"solve: the {BIG} table was not built (you answered no); nothing was written: build it later with the same command and --yes", last
    assert _entries(tmp_path) == []


def test_solve_build_on_a_terminal_builds_a_long_build_after_a_yes(tmp_path, monkeypatch):
    _on_a_terminal(monkeypatch)
    monkeypatch.setattr(solver.store.estimate, "DENSE_CODES_PER_SECOND", 1.0)  # 3x4k3 now "takes" six days
    result = CliRunner().invoke(solver.cli.main, ["build", "--game", "3x4k3", "--output", str(tmp_path / "t.ttt"), "-q"], input="y\n")
    assert result.exit_code == 0, result.output
    assert "Building the 3x4k3 table takes about 6 days" in result.stderr and (tmp_path / "t.ttt").is_file()


def test_solve_build_with_yes_starts_a_long_build_without_asking(tmp_path, monkeypatch):
    _on_a_terminal(monkeypatch, lambda: pytest.fail("asked with --yes"))
    monkeypatch.setattr(solver.store.estimate, "DENSE_CODES_PER_SECOND", 1.0)
    result = CliRunner().invoke(solver.cli.main, ["build", "--game", "3x4k3", "--output", str(tmp_path / "t.ttt"), "-q", "--yes"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "t.ttt").is_file()


def test_solve_build_asks_about_the_layers_left_when_it_resumes(tmp_path, monkeypatch):
    """A half-done build is asked about as the rest of it: the estimate counts only the layers left."""
    game, path = parse_game("1x17k3"), tmp_path / "t.ttt"
    monkeypatch.setattr(solver.store.estimate, "WORK_PER_SECOND_PER_CORE", 1.0)
    _interrupted_build(game, path, monkeypatch, at_layer=9)
    _on_a_terminal(monkeypatch)
    result = CliRunner().invoke(solver.cli.main, ["build", "--game", game.name, "--output", str(path), "-j", "1"], input="n\n")
    assert result.exit_code == 1
    left = estimate(game, path, jobs=1)
    assert left.seconds < estimate(game, tmp_path / "fresh.ttt", jobs=1).seconds
    assert f"Finishing the 1x17k3 build begun in {path}.build takes {left.describe()}" in result.stderr


def _interrupted_build(game, path, monkeypatch, *, at_layer):
    """``solve build`` stopped by a Ctrl-C when it reaches ``at_layer`` (the progress callback raises it)."""

    def interrupt(self, units, layer=None):
        if layer == at_layer:
            raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(solver.cli.progress._ProgressLines, "__call__", interrupt)
        return CliRunner().invoke(solver.cli.main, ["build", "--game", game.name, "--output", str(path), "-j", "1", "--yes"])


def test_ctrl_c_during_a_build_says_it_resumes_and_the_same_command_resumes(tmp_path, monkeypatch):
    game, path = parse_game("1x17k3"), tmp_path / "t.ttt"
    stopped = _interrupted_build(game, path, monkeypatch, at_layer=9)
    assert stopped.exit_code == 130, stopped.output
    assert "Aborted!" not in stopped.output and "Traceback" not in stopped.output
    last = stopped.stderr.strip().splitlines()[-1]
    kept = f"the layers it finished are kept in {path}.build: run the same command again to resume from there"
    assert last == f"solve: the 1x17k3 build was interrupted (Ctrl-C); {kept}"
    assert not path.exists() and list((tmp_path / "t.ttt.build").glob("layer-17*")), "the finished layers are kept"
    again = CliRunner().invoke(solver.cli.main, ["build", "--game", game.name, "--output", str(path), "-j", "1", "--yes"])
    assert again.exit_code == 0, again.output
    assert f"resuming the 1x17k3 build in {path}.build: layers 17 to 10 are done" in again.stderr, again.stderr
    assert solver.store.locate.open_file(path).verify() == []


def test_ctrl_c_during_a_dense_build_says_nothing_was_written(tmp_path, monkeypatch):
    def interrupt(self, units, layer=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(solver.cli.progress._ProgressLines, "__call__", interrupt)
    result = CliRunner().invoke(solver.cli.main, ["build", "--game", "3x4k3", "--output", str(tmp_path / "t.ttt")])
    assert result.exit_code == 130 and "Aborted!" not in result.output
    assert "solve: the 3x4k3 build was interrupted (Ctrl-C); nothing was written" in result.stderr
    assert _entries(tmp_path) == []


@pytest.mark.slow
def test_a_real_sigint_stops_a_compact_build_within_seconds_with_the_resume_line(tmp_path):
    """SIGINT to the build's process (as Ctrl-C sends), with its pool of workers: exit 130 and the one line."""
    import signal
    import subprocess
    import sys

    command = [sys.executable, "-m", "solver.cli", "build", "--game", "4x5k4", "--output", str(tmp_path / "t.ttt"), "-j", "2"]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(Path(solver.__file__).parents[1])})
    time.sleep(5)
    process.send_signal(signal.SIGINT)
    try:
        _, stderr = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130, stderr
    assert stderr.strip().splitlines()[-1].startswith("solve: the 4x5k4 build was interrupted (Ctrl-C); the layers it finished are kept in "), stderr
    assert "Traceback" not in stderr


def test_ctrl_c_at_a_terminal_stops_a_build_and_its_workers_with_one_line_and_no_traceback(tmp_path):
    """Ctrl-C at a terminal reaches the whole foreground process group, the pool's workers too: they must leave it
    to the build, which says how to resume (before, 2 tries in 6 printed workers' KeyboardInterrupt tracebacks, and
    one hung). A few tries, each stopped once the build has written its first layer."""
    import signal
    import subprocess
    import sys

    environment = {**os.environ, "PYTHONPATH": str(Path(solver.__file__).parents[1])}
    for attempt in range(4):
        output = tmp_path / f"try{attempt}" / "t.ttt"
        output.parent.mkdir()
        command = [sys.executable, "-m", "solver.cli", "build", "--game", "2x9k4", "--output", str(output), "-j", "2", "-q"]
        process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=environment, start_new_session=True)
        try:
            begun = time.monotonic()
            while not list(output.parent.glob("t.ttt.build/layer-*")) and process.poll() is None and time.monotonic() - begun < 120:
                time.sleep(0.02)
            time.sleep(0.1 * attempt)  # at different moments of the layers
            os.killpg(process.pid, signal.SIGINT)  # what a terminal does: the build and its workers
            _, stderr = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
        if process.returncode == 0:
            continue  # finished before the signal came: nothing to see on this try
        assert process.returncode == 130, stderr
        kept = f"the layers it finished are kept in {output}.build: run the same command again to resume from there"
        assert stderr.strip().splitlines() == [f"solve: the 2x9k4 build was interrupted (Ctrl-C); {kept}"], stderr


# -- progress off a terminal --------------------------------------------------------------------------------


def test_off_a_terminal_a_build_prints_a_progress_line_every_minute(capsys):
    now = [1000.0]
    lines = solver.cli.progress._ProgressLines(parse_game("5x5k4"), 1_000_000_000, clock=lambda: now[0])
    lines(100_000_000, 25)
    now[0] += 59
    lines(100_000_000, 24)
    assert capsys.readouterr().err == "", "no line before a minute has passed"
    now[0] += 1
    lines(50_000_000, 24)
    assert capsys.readouterr().err == "solving 5x5k4: layer 24/25, 25.0% done, 4.17 M boards/s, about 3 min left\n"
    now[0] += 30
    lines(250_000_000, 23)
    assert capsys.readouterr().err == ""
    now[0] += 30
    lines(0, None)
    assert capsys.readouterr().err == "solving 5x5k4: layer 23/25, 50.0% done, 4.17 M boards/s, about 2 min left\n"


def test_solve_build_off_a_terminal_prints_lines_not_a_bar(tmp_path, monkeypatch):
    short = CliRunner().invoke(solver.cli.main, ["build", "--game", "3x4k3", "--output", str(tmp_path / "s.ttt")]).stderr.splitlines()
    assert len(short) == 2 and short[0].startswith(f"Building the 3x4k3 table into {tmp_path / 's.ttt'}: about "), "a build of seconds prints no progress"
    assert short[1].startswith("Wrote "), short
    monkeypatch.setattr(solver.cli.progress, "PROGRESS_LINE_SECONDS", 0.0)  # a line at every chunk
    result = CliRunner().invoke(solver.cli.main, ["build", "--game", "1x17k3", "--output", str(tmp_path / "t.ttt"), "-j", "1"])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    progress = [line for line in lines if line.startswith("solving 1x17k3: layer ")]
    assert len(progress) >= 18 and progress[0].startswith("solving 1x17k3: layer 17/17, "), lines
    assert all(" boards/s" in line and "% done" in line and line.endswith(" left") for line in progress), progress
    assert progress[-1].startswith("solving 1x17k3: layer 0/17, 100.0% done, ")
    assert lines[-1].startswith(f"Wrote {tmp_path / 't.ttt'} (")


# -- a build that is done, and the line every build starts with ----------------------------------------


def test_solve_build_of_a_table_that_is_there_and_verifies_says_so_in_one_line_and_builds_nothing(tmp_path):
    path = tmp_path / "3x4k3.ttt"
    assert CliRunner().invoke(solver.cli.main, ["build", "--game", "3x4k3", "--output", str(path), "-q"]).exit_code == 0
    before = path.stat().st_mtime_ns
    result = CliRunner().invoke(solver.cli.main, ["build", "--game", "3x4k3", "--output", str(path)])
    assert result.exit_code == 0, result.output
    sha = solver.store.locate.open_file(path).sha256
    assert result.stdout == f"{path}: the 3x4k3 table is there already and every block checks (sha256 {sha}); nothing built (--force builds it again)\n"
    assert result.stderr == "" and path.stat().st_mtime_ns == before, "nothing built, nothing written"
    forced = CliRunner().invoke(solver.cli.main, ["build", "--game", "3x4k3", "--output", str(path), "--force"])
    assert forced.exit_code == 0, forced.output
    assert forced.stderr.splitlines()[-1].startswith(f"Wrote {path} (") and path.stat().st_mtime_ns != before, "--force builds it again"


def test_solve_build_of_a_damaged_table_says_so_and_builds_it_again(tmp_path):
    path = tmp_path / "3x4k3.ttt"
    assert CliRunner().invoke(solver.cli.main, ["build", "--game", "3x4k3", "--output", str(path), "-q"]).exit_code == 0
    data = bytearray(path.read_bytes())
    data[-100] ^= 0xFF  # a byte of the last block
    path.write_bytes(bytes(data))
    result = CliRunner().invoke(solver.cli.main, ["build", "--game", "3x4k3", "--output", str(path)])
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith(f"{path} does not verify ("), result.stderr
    assert "; building it again\n" in result.stderr and result.stderr.splitlines()[-1].startswith(f"Wrote {path} (")
    assert solver.store.locate.open_file(path).file.problems() == []


def test_solve_build_of_a_gravity_game_starts_with_a_line_giving_its_estimate(tmp_path, monkeypatch):
    """The first line comes before any work (here the build itself is stood in for: 4x7k4-gravity takes minutes)."""
    path = tmp_path / "g.ttt"

    def stand_in(*args, **kwargs):
        raise solver.errors.SolverError("stood in for the build")

    monkeypatch.setattr(solver.api.Tablebase, "build", stand_in)
    result = CliRunner().invoke(solver.cli.main, ["build", "--game", "4x7k4-gravity", "--output", str(path), "-j", "2"])
    cost = estimate(parse_game("4x7k4-gravity"), path, jobs=2)
    assert not cost.is_long, "asked about otherwise"
    assert result.stderr.splitlines()[0] == f"Building the 4x7k4-gravity table into {path}: {cost.describe()}", result.stderr


def test_a_first_use_build_says_how_long_it_takes_and_where_the_table_goes(table_dir):
    result = CliRunner().invoke(solver.cli.main, ["stats", "--game", "3x4k3"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == f"Building the 3x4k3 table (first use, about 1 s on 1 core); it will be kept in {table_dir / '3x4k3.ttt'}"


def test_a_first_use_build_promises_no_directory_it_cannot_make(tmp_path):
    """Before, ``it will be kept in /proc/nonexist/3x4k3.ttt`` and then ``cannot create``."""
    result = CliRunner().invoke(solver.cli.main, ["stats", "--game", "3x4k3", "--table-dir", "/proc/nonexist"])
    assert result.exit_code == 0, result.output
    assert "it will be kept in" not in result.stderr and "/proc/nonexist/3x4k3.ttt" not in result.stderr, result.stderr
    assert result.stderr.splitlines()[0] == "Building the 3x4k3 table (first use, about 1 s on 1 core); it is kept in memory (see below)"
    assert "cannot create the table directory /proc/nonexist" in result.stderr


def test_off_a_terminal_the_command_given_for_a_long_build_has_yes(table_dir):
    """``solve stats --game 5x5k4`` off a terminal: the command it gives runs off a terminal too (before, it lacked --yes and was refused again)."""
    result = CliRunner().invoke(solver.cli.main, ["stats", "--game", "5x5k4"])
    assert result.exit_code == 1
    command = result.stderr.strip().rpartition("build it with: ")[2]
    assert command == f"solve build --game 5x5k4 --output {table_dir / '5x5k4.ttt'} --yes", result.stderr
    build = CliRunner().invoke(solver.cli.main, command.split()[1:-1])  # the same without --yes is refused off a terminal
    assert build.exit_code == 1 and "--yes" in build.stderr and _entries(table_dir) == []
