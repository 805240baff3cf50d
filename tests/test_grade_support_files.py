"""A grader's support files (``solve grade ... --support FILE``) reach no further than the file named (issue 42 point 5):
a regular file, opened without following a link, named without ``..``, never a name Python's start-up reads.
Each refusal is one line before the player starts, naming the file and what to give instead."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

import solver
from solver.cli import main
from solver.errors import PlayerError
from solver.grading.sandbox import copy_without_links, player_files

PLAYER = "from helper import choose\n\ndef play(board):\n    return choose(board)\n"
HELPER = "def choose(board):\n    return next(i for i, c in enumerate(c for row in board for c in row) if c is None)\n"
SECRET = "the grader's own private words\n"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A student's folder with a player that imports ``helper``, and a private file of the grader's outside it."""
    student = tmp_path / "class" / "alice"
    student.mkdir(parents=True)
    (student / "play.py").write_text(PLAYER)
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    secret.chmod(0o600)
    return student


def refused(player: Path, support: str | Path) -> str:
    with pytest.raises(PlayerError) as error:
        solver.grade(f"{player}:play", support=[support], sample=2, sandbox="none")
    return str(error.value)


def test_a_support_file_that_is_a_link_to_a_file_outside_is_refused_and_never_read(folder: Path) -> None:
    (folder / "helper.py").symlink_to(folder.parents[1] / "secret.txt")
    message = refused(folder / "play.py", folder / "helper.py")
    assert "a symbolic link" in message and "give the file itself" in message
    assert SECRET.strip() not in message
    result = CliRunner().invoke(main, ["grade", f"{folder / 'play.py'}:play", "--support", str(folder / "helper.py"), "--sandbox", "none"])
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "symbolic link" in result.stderr and SECRET.strip() not in result.output


def test_a_support_file_reached_through_a_linked_folder_inside_the_players_folder_is_refused(folder: Path) -> None:
    (folder / "lib").symlink_to(folder.parents[1])  # the student's link to a folder of the grader's
    (folder.parents[1] / "helper.py").write_text(HELPER)
    assert "reached through a symbolic link" in refused(folder / "play.py", folder / "lib" / "helper.py")


def test_a_support_path_with_dot_dot_is_refused(folder: Path) -> None:
    (folder.parent / "helper.py").write_text(HELPER)
    message = refused(folder / "play.py", f"{folder}/../helper.py")
    assert "a path with '..' is refused" in message


@pytest.mark.parametrize("name", ["sitecustomize.py", "usercustomize.py", "evil.pth", "sitecustomize.pyc", "pyvenv.cfg"])
def test_a_support_file_named_as_pythons_start_up_reads_is_refused(folder: Path, name: str) -> None:
    (folder / name).write_text("import os\n")
    assert f"Python runs a file named {name} at start-up" in refused(folder / "play.py", folder / name)


def test_a_support_file_that_is_no_regular_file_is_refused(folder: Path) -> None:
    os.mkfifo(folder / "helper.py")  # opening a pipe would wait for a writer: the type is read without blocking
    assert "not a regular file" in refused(folder / "play.py", folder / "helper.py")


def test_a_regular_support_file_in_the_players_folder_or_named_by_the_teacher_is_given(folder: Path) -> None:
    (folder / "helper.py").write_text(HELPER)
    report = solver.grade(f"{folder / 'play.py'}:play", support=[folder / "helper.py"], sample=2, sandbox="none")
    assert report.positions == 2 and not (report.exceptions or report.crashes)
    course = folder.parents[1] / "course"
    course.mkdir()
    (course / "helper.py").write_text(HELPER)
    assert [name for _, name in player_files(folder / "play.py", [course / "helper.py"])] == ["play.py", "helper.py"]


def test_a_support_file_that_became_a_link_after_its_check_is_not_copied(folder: Path, tmp_path: Path) -> None:
    link = folder / "helper.py"
    link.symlink_to(folder.parents[1] / "secret.txt")
    with pytest.raises(PlayerError, match="symbolic link"):
        copy_without_links(link, tmp_path / "copy.py")
    assert not (tmp_path / "copy.py").exists()
