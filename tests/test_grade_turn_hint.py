"""The grader's hint for a function that also takes whose turn it is (issue 42 point 7): when ``--turn max`` and
``--turn symbol`` keep as many results on the first positions, the tie is tried on more positions, and a tie that
is left is said, naming both, never settled by the order in which the options were tried."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import solver
from solver.errors import PlayerError
from solver.grading.grader import MORE_TRIAL, TRIAL

PLAYERS = Path(__file__).parent / "players"


def test_a_turn_hint_tie_on_the_first_positions_is_tried_on_more_and_names_the_option_that_keeps_more() -> None:
    """A player that plays perfectly on its first 10 calls (the 5 trial positions of each option), then as 'X' only when
    ``me == 'X'``: both options keep 5 of 5, so the tie is tried on 40 positions, where True and False lose X's results."""
    spec = importlib.util.spec_from_file_location("perfect", PLAYERS / "perfect.py")
    assert spec is not None and spec.loader is not None
    perfect = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(perfect)
    calls = 0

    def play(board: list[list[str | None]], me: object) -> tuple[int, int]:
        nonlocal calls
        calls += 1
        cells = [cell for row in board for cell in row]
        mover = "X" if cells.count("X") == cells.count("O") else "O"
        side = mover if calls <= 2 * TRIAL else ("X" if me == "X" else "O")
        return perfect.best_move(board) if side == mover else divmod(cells.index(None), 3)

    with pytest.raises(PlayerError) as refused:
        solver.grade(play, sample=60)
    message = str(refused.value)
    assert f"grade it with --turn symbol (tried on {MORE_TRIAL} of them: {MORE_TRIAL} of {MORE_TRIAL} results kept)" in message, message
    assert "--turn max" not in message


def test_a_turn_hint_tie_that_more_positions_do_not_break_names_both_options(tmp_path: Path) -> None:
    player = tmp_path / "either.py"
    player.write_text("def play(board, me):\n    cells = [c for row in board for c in row]\n    return cells.index(None)\n")
    with pytest.raises(PlayerError) as refused:
        solver.grade(f"{player}:play", sample=30, sandbox="none")
    message = str(refused.value)
    assert "grade it with --turn max or with --turn symbol: each kept" in message, message
    assert "choose by how play reads its second argument" in message
