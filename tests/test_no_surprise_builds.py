"""No look-up, command or request starts a long or large build unasked (issue 14, item 4).

A build estimated to take more than a minute or a GiB of disk (solver.store.estimate) is asked
about on a terminal, refused elsewhere with the estimate and the ``solve build`` command,
and refused by the Python API unless ``build=True``; a refused build leaves nothing behind.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import solver
import solver.cli
import solver.store.estimate
import solver.store.locate
from solver.errors import BuildNeedsConsent, TableError
from solver.rules.game import parse_game
from solver.store.estimate import CONSENT_DISK_BYTES, CONSENT_SECONDS, BuildEstimate, estimate, format_duration

BIG = "5x5k5"
"""160 GiB of disk (the layers, raw while they are solved) and hours of work: must be refused at once, never started."""


def _entries(directory: Path) -> list[str]:
    return sorted(os.listdir(directory)) if directory.exists() else []


# -- the estimate ---------------------------------------------------------------------------------------


def test_the_estimate_of_5x5k5_is_most_of_an_hour_and_one_raw_layer_and_spools_of_disk_and_needs_consent(tmp_path):
    cost = estimate(parse_game(BIG), tmp_path / f"{BIG}.ttt", jobs=2)
    # the largest raw layer (24.5 GiB), a spool and the sealed layers; at most 3.5 GiB for two workers
    assert cost.seconds > 30 * CONSENT_SECONDS and 30 * 2**30 < cost.disk_bytes < 40 * 2**30 and 2**30 < cost.memory_bytes < 4 * 2**30
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
        solver.store.locate.table_for(parse_game("3x4k3"), consent=no)
    assert asked and asked[0].game.name == "3x4k3" and asked[0].seconds > CONSENT_SECONDS
    assert _entries(table_dir) == []
    assert solver.store.locate.table_for(parse_game("3x4k3"), consent=lambda cost: True).lookup(0).result == "win"


def test_a_build_refused_for_want_of_disk_leaves_no_build_directory(tmp_path, monkeypatch):
    """The disk check of a compact build runs after its directory is made: the directory goes again."""
    import shutil
    from collections import namedtuple

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(1 << 40, 1 << 40, 1000))
    with pytest.raises(solver.SolverError, match="GiB of disk"):
        solver.store.locate.build_file(parse_game("1x17k3"), tmp_path / "1x17k3.ttt", jobs=1)
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
    monkeypatch.setattr(solver.cli, "_interactive", lambda: True)
    result = CliRunner().invoke(solver.cli.main, ["lookup", "0", "--game", BIG], input="n\n")
    assert result.exit_code == 1
    assert f"The {BIG} table is not built yet; building it takes about" in result.stderr
    assert "GiB of disk" in result.stderr and "Build it now? [y/N]" in result.stderr
    assert "not started without consent" in result.stderr
    assert _entries(table_dir) == []


def test_solve_lookup_on_a_terminal_builds_after_a_yes(table_dir, monkeypatch):
    monkeypatch.setattr(solver.cli, "_interactive", lambda: True)
    monkeypatch.setattr(solver.store.estimate, "DENSE_CODES_PER_SECOND", 1.0)  # 3x4k3 now "needs" consent
    result = CliRunner().invoke(solver.cli.main, ["lookup", "0", "--game", "3x4k3"], input="y\n")
    assert result.exit_code == 0, result.output
    assert "Build it now? [y/N]" in result.stderr and "win" in result.stdout
    assert (table_dir / "3x4k3.ttt").is_file()


def test_a_terminal_is_not_asked_about_a_quick_build(table_dir, monkeypatch):
    monkeypatch.setattr(solver.cli, "_interactive", lambda: True)
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


def test_solve_build_is_consent(tmp_path, monkeypatch):
    monkeypatch.setattr(solver.store.estimate, "DENSE_CODES_PER_SECOND", 1.0)
    result = CliRunner().invoke(solver.cli.main, ["build", "--game", "3x4k3", "--output", str(tmp_path / "t.ttt"), "-q"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "t.ttt").is_file()
