"""The grader's hint for a function that also takes whose turn it is (issue 42 point 7): when ``--turn max`` and
``--turn symbol`` keep as many results on the first positions, the tie is tried on more positions, and a tie that
is left is said, naming both, never settled by the order in which the options were tried."""

from __future__ import annotations

from pathlib import Path

import pytest

import solver
from solver.errors import PlayerError

GREEDY = Path(__file__).parent / "players" / "connect4_greedy.py"
"""``play(board, player)`` with ``player`` 'X' or 'O', as docs/grading.md's Connect Four students write it."""


def test_a_turn_hint_tie_on_the_first_positions_is_tried_on_more_and_names_the_option_that_keeps_more() -> None:
    """On the first 5 positions both ways keep 5 of 5 (True and False read as 'not X' lose nothing there); on 20, only the symbol keeps all."""
    with pytest.raises(PlayerError) as refused:
        solver.grade(f"{GREEDY}:play", game="connect4", sample=20, sandbox="none")
    message = str(refused.value)
    assert "grade it with --turn symbol (tried on 20 of them: 20 of 20 results kept)" in message, message
    assert "--turn max" not in message


def test_a_turn_hint_tie_that_more_positions_do_not_break_names_both_options(tmp_path: Path) -> None:
    player = tmp_path / "either.py"
    player.write_text("def play(board, me):\n    cells = [c for row in board for c in row]\n    return cells.index(None)\n")
    with pytest.raises(PlayerError) as refused:
        solver.grade(f"{player}:play", sample=30, sandbox="none")
    message = str(refused.value)
    assert "grade it with --turn max or with --turn symbol: each kept" in message, message
    assert "choose by how play reads its second argument" in message
