"""The adapters' and the API's bad inputs (issue 42 point 6): a PettingZoo agent that is no agent's name, a budget
that is no number of seconds, moves that are no move string, digits that are not ASCII, a transposition table past
the machine, and a player answering an int of 5,000 digits: each gives the package's one-line error, or the report
says what the player returned, instead of an error from inside Python, numpy or the operating system.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import solver
from solver.errors import InvalidArgumentError, InvalidBoardError, InvalidValueError, SolverError

TABLE_BYTES = 1 << 20


def test_pettingzoo_connect_four_refuses_an_agent_that_is_no_agents_name() -> None:
    from solver import interop

    observation = np.zeros((6, 7, 2), dtype=np.int8)
    observation[5, 3, 1] = 1  # player_0 (X) played the centre; player_1 observes: plane 1 holds the opponent's piece
    for agent in ("X", "O", "player_2", 0, np.array(["player_0"])):
        with pytest.raises(InvalidBoardError, match="unknown agent .*'player_0' .* and 'player_1'"):
            interop.pettingzoo_connect_four_best_actions(observation, agent=agent)  # type: ignore[arg-type]
    assert interop.board_from_pettingzoo_connect_four(observation, agent="player_1") == interop.board_from_pettingzoo_connect_four(observation)


@pytest.mark.parametrize("moves", [4453, [4, 4, 5, 3], b"4453", ("4", "4")])
def test_lookup_refuses_moves_that_are_not_a_move_string_with_the_packages_error(moves: object) -> None:
    with pytest.raises(InvalidBoardError, match="a move string is text such as '4453'"):
        solver.lookup(moves=moves, game="connect4")  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def engine():  # type: ignore[no-untyped-def]
    from solver.search import Engine

    return Engine("connect4", table_bytes=TABLE_BYTES, threads=1)


@pytest.mark.parametrize("moves", ["²", "٤٤٥٣", "４４５３", "४४५३", "𝟒𝟒𝟓𝟑", "44 53"])
def test_the_engine_reads_a_move_string_as_lookup_does_and_refuses_digits_that_are_not_ascii(engine, moves: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidBoardError, match="a move is a column from 1 to 7") as refused:
        engine.solve(moves=moves)
    with pytest.raises(InvalidBoardError) as looked_up:
        solver.lookup(moves=moves, game="connect4")
    assert str(refused.value) == str(looked_up.value), "the engine and solver.lookup read move strings differently"
    assert engine.solve(moves="4453").best == solver.lookup(moves="4453", game="connect4").best_columns


@pytest.mark.parametrize("moves", [4453, b"4453", 4.5])
def test_the_engine_refuses_moves_that_are_neither_text_nor_a_list(engine, moves: object) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidBoardError, match="moves must be a move string"):
        engine.solve(moves=moves)


BAD_BUDGETS = [("x", InvalidArgumentError), ("5", InvalidArgumentError), (True, InvalidArgumentError), (math.nan, InvalidValueError), (-1, InvalidValueError)]


@pytest.mark.parametrize(("budget", "error"), BAD_BUDGETS)
def test_a_budget_that_is_no_number_of_seconds_is_refused_before_a_search_starts(engine, budget: object, error: type[SolverError]) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error, match="budget must be a number of seconds"):
        engine.solve(moves="4453", budget=budget)
    with pytest.raises(error, match="budget must be a number of seconds"):
        engine.score(moves="4453", budget=budget)
    with pytest.raises(error, match="budget must be a number of seconds"):
        solver.lookup(moves="4453", game="connect4", budget=budget)  # type: ignore[arg-type]


def test_openspiel_connect_four_refuses_a_budget_that_is_text() -> None:
    from solver import interop

    with pytest.raises(InvalidArgumentError, match="budget must be a number of seconds .* not str 'x'"):
        interop.openspiel_connect_four_best_actions(".......\n" * 5 + "...x...\n", budget="x")  # type: ignore[arg-type]


def test_an_engine_refuses_a_table_larger_than_the_machine_before_asking_for_it() -> None:
    from solver.search import Engine

    with pytest.raises(InvalidValueError, match=r"table_bytes=4611686018427387904 .* more than this machine's"):
        Engine("connect4", table_bytes=2**62)
    with pytest.raises(InvalidArgumentError, match="table_bytes must be a number of bytes"):
        Engine("connect4", table_bytes=1.5e9)  # type: ignore[arg-type]


def test_a_player_answering_an_int_of_5000_digits_is_reported_as_what_it_returned(tmp_path: Path) -> None:
    player = tmp_path / "huge.py"
    player.write_text("def play(board):\n    return 10**5000\n")
    report = solver.grade(f"{player}:play", sample=3)
    assert not report.crashes, f"the player's process was said to crash: {report.crashes}"
    assert len(report.illegal) == report.positions == 3
    assert all(failure.answer == "<an int of about 5,001 digits>" for failure in report.illegal), report.illegal
    assert "<an int of about 5,001 digits>" in str(report)


def test_invalid_value_error_is_in_the_package_namespace_as_a_value_error() -> None:
    assert "InvalidValueError" in solver.__all__
    assert solver.InvalidValueError is InvalidValueError
    assert issubclass(solver.InvalidValueError, ValueError) and issubclass(solver.InvalidValueError, solver.SolverError)
