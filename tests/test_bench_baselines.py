"""scripts/bench_baselines.py: the C++ baselines' timing drivers read, run and compared with the engine's times.

The drivers (scripts/baselines/*.cpp) are built against Pons' and Steininger's sources outside the repository, so
these tests read output captured from them and run a stand-in driver (a shell script) for the process handling.
"""

from __future__ import annotations

import argparse
import stat
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
sys.path.insert(0, str(SCRIPTS))
try:
    from bench_baselines import Baseline, BaselineError, Solved, compare_empty, compare_set, parse_output, parse_sets
finally:
    sys.path.remove(str(SCRIPTS))

PONS_OUTPUT = "4 168 40700 35072\n8 44 8392 8293\n-1 1243 292715 292725\n-11 8 1803 1783\n-2 337 58667 58667\n"
"""pons_times on the first five positions of Pons' Middle-Easy set (Test_L2_R1), as it printed them."""

C4_OUTPUT = "4 54 133208 183282\n8 17 132357 132257\n-1 128 114751 114730\n-11 2 48662 53890\n-2 144 135782 135862\n"
"""c4_times on the same five positions (its nodes are every thread's)."""

MIDDLE_EASY = [
    ("5554224333234511764415115", 4),
    ("52753311433677442422121", 8),
    ("1233722555341451114725221333", -1),
    ("271713432331713132", -11),
    ("6672375354252731116762237724", -2),
]


def _driver(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "driver.sh"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _collect() -> tuple[list[tuple[str, float, str, str, bool | None]], object]:
    rows: list[tuple[str, float, str, str, bool | None]] = []

    def report(name: str, value: float, unit: str, target: str = "", ok: bool | None = None) -> None:
        rows.append((name, value, unit, target, ok))

    return rows, report


def test_a_drivers_lines_give_score_nodes_and_seconds() -> None:
    pons = parse_output(PONS_OUTPUT)
    assert [each.score for each in pons] == [score for _, score in MIDDLE_EASY]
    assert pons[0] == Solved(score=4, nodes=168, cpu=40700e-9, wall=35072e-9)
    c4 = parse_output(C4_OUTPUT)
    assert [each.nodes for each in c4] == [54, 17, 128, 2, 144] and c4[3].cpu == pytest.approx(48.662e-6)


@pytest.mark.parametrize("line", ["4 168 40700", "4 168 40700 35072 9", "four 168 40700 35072", 'Line 1: Invalid move 3 "445"'])
def test_a_line_that_is_not_four_integers_is_refused_naming_it(line: str) -> None:
    with pytest.raises(BaselineError, match="not a 'score nodes cpu_ns wall_ns' line"):
        parse_output(f"1 2 3 4\n{line}\n")


def test_sets_are_chosen_by_name_without_case_each_with_its_sample() -> None:
    names = ["End-Easy", "Middle-Easy", "Begin-Easy"]
    assert parse_sets("end-easy, Begin-Easy:50", names) == {"End-Easy": None, "Begin-Easy": 50}
    with pytest.raises(argparse.ArgumentTypeError, match="unknown set 'Begin-Hardest'"):
        parse_sets("Begin-Hardest", names)
    with pytest.raises(argparse.ArgumentTypeError, match="from 1 to 1000"):
        parse_sets("End-Easy:0", names)
    with pytest.raises(argparse.ArgumentTypeError, match="at least one"):
        parse_sets(" , ", names)


def test_a_driver_runs_in_an_empty_directory_with_one_line_a_position(tmp_path: Path) -> None:
    """No opening book can be beside it (Pons' solver reads 7x6.book from its working directory)."""
    driver = _driver(tmp_path, 'echo "files beside it: $(ls -A | wc -l)" >&2\nwhile read -r moves; do echo "${#moves} 1 1000 2000"; done')
    run = Baseline("Pons", driver).run(["4455", "", "1234567"], timeout=30)
    assert [each.score for each in run.solved] == [4, 0, 7] and run.finished
    assert run.settings == "files beside it: 0"


def test_a_driver_named_by_a_relative_path_is_found_from_the_current_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pons").mkdir()
    _driver(tmp_path / "pons", 'read -r moves; echo "18 2 1000 1000"')
    monkeypatch.chdir(tmp_path)
    assert Baseline("Pons", Path("pons/driver.sh")).run(["4455"], timeout=30).solved[0].score == 18


def test_a_driver_past_its_deadline_keeps_the_positions_it_solved(tmp_path: Path) -> None:
    driver = _driver(tmp_path, 'read -r moves; echo "1 1 1 1"; exec sleep 30')
    run = Baseline("c4", driver).run(["4455", "4456"], timeout=1)
    assert len(run.solved) == 1 and not run.finished


def test_a_failing_driver_raises_with_its_message(tmp_path: Path) -> None:
    driver = _driver(tmp_path, 'echo "line 1: not a position" >&2; exit 2')
    with pytest.raises(BaselineError, match="status 2: line 1: not a position"):
        Baseline("Pons", driver).run(["4444444"], timeout=30)


def test_a_set_compares_the_engine_with_each_baseline_and_flags_a_wrong_score(tmp_path: Path) -> None:
    pons = _driver(tmp_path, f"cat >/dev/null; printf '{PONS_OUTPUT}'")
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    c4 = _driver(wrong, f"cat >/dev/null; printf '{C4_OUTPUT.replace('-11 2', '11 2')}'")
    rows, report = _collect()
    engine = [20e-6, 10e-6, 300e-6, 2e-6, 60e-6]
    compare_set(report, "Middle-Easy", [Baseline("Pons", pons), Baseline("c4", c4)], MIDDLE_EASY, engine, pons_target=1.5)  # type: ignore[arg-type]
    named = {name: (value, target, ok) for name, value, _, target, ok in rows}
    pons_mean = (40700 + 8392 + 292715 + 1803 + 58667) / 5 * 1e-6
    assert named["C4 Middle-Easy: Pons' C++ solver (no book), mean (5 positions, CPU)"][0] == pytest.approx(pons_mean)
    assert named["C4 Middle-Easy: Pons' C++ solver (no book), slowest"][0] == pytest.approx(0.292715)
    ratio, target, ok = named["C4 Middle-Easy: the engine's search / Pons' (means)"]
    assert ratio == pytest.approx(sum(engine) / 5 / (pons_mean * 1e-3)) and target == "<= 1.5" and ok is True
    assert named["C4 Middle-Easy: Steininger's c4, WRONG scores"] == (1, "0", False)
    assert named["C4 Middle-Easy: the engine's search / c4's (means)"][2] is None, "the issue bounds the ratio to Pons' solver only"
    assert not any("Pons" in name and "WRONG" in name for name in named)


def test_a_driver_that_fails_on_a_set_is_said_and_the_others_still_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    failing = _driver(tmp_path, 'echo "line 1: not a position" >&2; exit 2')
    other = tmp_path / "other"
    other.mkdir()
    c4 = _driver(other, f"cat >/dev/null; printf '{C4_OUTPUT}'")
    rows, report = _collect()
    compare_set(report, "Middle-Easy", [Baseline("Pons", failing), Baseline("c4", c4)], MIDDLE_EASY, [1e-5] * 5, pons_target=1.5)  # type: ignore[arg-type]
    out = capsys.readouterr().out
    assert "Pons' C++ solver (no book): failed:" in out and "status 2: line 1: not a position" in out
    assert [name for name, *_ in rows if "Pons" in name] == []
    assert any(name.startswith("C4 Middle-Easy: Steininger's c4, mean") for name, *_ in rows)


def test_the_empty_board_is_c4s_alone_with_its_nodes_and_the_ratio_bounded(tmp_path: Path) -> None:
    c4 = _driver(tmp_path, 'read -r moves; echo "1 114000000 58600000000 31000000000"')
    rows, report = _collect()
    compare_empty(report, [Baseline("Pons", tmp_path / "never-run"), Baseline("c4", c4)], 117.2, target=1, every_cpu=146.5)  # type: ignore[arg-type]
    named = {name: (value, target, ok) for name, value, _, target, ok in rows}
    assert named["C4 empty board: Steininger's c4 (CPU, every thread)"][0] == pytest.approx(58.6)
    assert named["C4 empty board: Steininger's c4, nodes"][0] == 114000000
    assert named["C4 empty board: c4's score (first player wins on ply 41: 1)"] == (1, "1", True)
    assert named["C4 empty board: the engine / c4 (CPU)"] == (pytest.approx(2.0), "<= 1", False)
    assert named["C4 empty board: the engine on every core / c4 (CPU)"][0] == pytest.approx(2.5)
    assert not any("Pons" in name for name in named), "Pons' solver takes hours on the empty board without its book"


def test_with_several_runs_a_baseline_is_run_each_time_and_its_fastest_run_kept(tmp_path: Path) -> None:
    """A driver that is slower on its first run than on its second: the figures are the second run's."""
    counter = tmp_path / "runs"
    slow = PONS_OUTPUT.replace("40700", "99940700")
    driver = _driver(tmp_path, f"cat >/dev/null; echo x >> {counter}\nif [ $(wc -l < {counter}) -eq 1 ]; then printf '{slow}'; else printf '{PONS_OUTPUT}'; fi")
    rows, report = _collect()
    compare_set(report, "Middle-Easy", [Baseline("Pons", driver)], MIDDLE_EASY, [1e-5] * 5, pons_target=1.5, runs=2)  # type: ignore[arg-type]
    named = {name: value for name, value, *_ in rows}
    assert counter.read_text().count("x") == 2
    assert named["C4 Middle-Easy: Pons' C++ solver (no book), mean (5 positions, best of 2 runs, CPU)"] == pytest.approx(
        (40700 + 8392 + 292715 + 1803 + 58667) / 5 * 1e-6
    )


def test_a_session_answers_positions_in_turns_from_one_running_driver(tmp_path: Path) -> None:
    """The engine and a driver take turns chunk by chunk: one process keeps its table, asked again and again."""
    driver = _driver(tmp_path, 'echo "settings line" >&2\necho $$ > pid\nwhile read -r moves; do echo "${#moves} 1 1000 2000"; done')
    with Baseline("Pons", driver).session() as session:
        first = session.solve(["4455", ""], timeout=30)
        second = session.solve(["1234567"] * 150, timeout=30)
    assert [each.score for each in first] == [4, 0] and {each.score for each in second} == {7}
    run = session.result(152)
    assert len(run.solved) == 152 and run.finished and run.settings == "settings line"


def test_a_session_whose_driver_stops_answering_or_dies_raises_naming_it(tmp_path: Path) -> None:
    silent = _driver(tmp_path, "read -r moves; exec sleep 30")
    with Baseline("c4", silent).session() as session, pytest.raises(BaselineError, match="no answer for '4455' in 1 s"):
        session.solve(["4455"], timeout=1)
    other = tmp_path / "other"
    other.mkdir()
    dying = _driver(other, 'read -r moves; echo "line 1: not a position" >&2; exit 2')
    with Baseline("Pons", dying).session() as session, pytest.raises(BaselineError, match="status 2: line 1: not a position"):
        session.solve(["4455"], timeout=30)


def test_where_the_bound_is_the_time_a_user_waits_each_baselines_mean_wall_time_is_given_too(tmp_path: Path) -> None:
    c4 = _driver(tmp_path, f"cat >/dev/null; printf '{C4_OUTPUT}'")
    rows, report = _collect()
    compare_set(report, "Begin-Medium", [Baseline("c4", c4)], MIDDLE_EASY, [1e-5] * 5, pons_target=None, wall=True)  # type: ignore[arg-type]
    named = {name: value for name, value, *_ in rows}
    assert named["C4 Begin-Medium: Steininger's c4, mean wall"] == pytest.approx((183282 + 132257 + 114730 + 53890 + 135862) / 5 * 1e-6)
    rows.clear()
    compare_set(report, "Middle-Easy", [Baseline("c4", c4)], MIDDLE_EASY, [1e-5] * 5, pons_target=1.5)  # type: ignore[arg-type]
    assert not any("wall" in name for name, *_ in rows)
