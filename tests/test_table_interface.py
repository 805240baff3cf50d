"""One table interface (solver/tables/base.py) for both kinds, and the game name parsed once per public call
(solver/api.py): what the layers promise, shown on both kinds of table."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import solver
import solver.rules.game
from solver.retrograde.sweep import build_layers
from solver.rules.game import Game, parse_game
from solver.store.make import prove
from solver.tables import CompactTable, DenseTable, Scores, Table


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> tuple[Table, Table]:
    """The 3x4k3 table of each kind."""
    game = parse_game("3x4k3")
    layers = build_layers(game, tmp_path_factory.mktemp("3x4k3"), jobs=1).layers()
    return solver.build_table(game="3x4k3"), CompactTable.from_layers(game, layers, prove=prove)


def test_both_kinds_are_tables_and_say_what_they_can_do(both):
    dense, compact = both
    assert isinstance(dense, DenseTable) and isinstance(compact, CompactTable)
    assert all(isinstance(table, solver.Table) for table in both)
    assert (dense.kind, dense.lists_positions, dense.stores_best_moves) == ("dense", True, True)
    assert (compact.kind, compact.lists_positions, compact.stores_best_moves) == ("compact", False, False)


def test_both_kinds_answer_a_batch_with_the_same_type_and_the_same_figures(both):
    dense, compact = both
    codes = dense.reachable_codes()[::37]
    answers = [table.lookup_codes(codes) for table in both]
    assert all(type(answer) is Scores for answer in answers)
    for name in ("score", "ply", "best", "value", "plies", "reachable"):
        assert np.array_equal(getattr(answers[0], name), getattr(answers[1], name)), name


def test_both_kinds_give_the_best_mask_of_a_code_and_the_position_reads_it(both):
    dense, compact = both
    for code in dense.reachable_codes()[::211].tolist():
        mask = dense.best_mask_of(code)
        assert compact.best_mask_of(code) == mask, solver.encoding.board.render(dense.game, code)
        assert dense.at(code).best_mask == compact.at(code).best_mask == mask
        assert compact.at(code) == dense.at(code)


def test_a_bad_code_is_refused_in_the_same_words_by_both_kinds(both):
    messages = []
    for table in both:
        with pytest.raises(solver.InvalidBoardError) as caught:
            table.lookup_codes([0, 3**12])
        messages.append(str(caught.value))
    assert messages[0] == messages[1] == "codes[1] = 531441 is out of range for 3x4k3: expected 0 to 531440"


def test_verify_proves_both_kinds_through_the_builders_prover(both):
    assert [table.verify() for table in both] == [[], []]
    bare = CompactTable(parse_game("3x4k3"), np.asarray(both[1].scores))
    with pytest.raises(solver.TableError, match="without a prover"):
        bare.verify()


# -- the game name is parsed once per public call ----------------------------------------------------------------


@pytest.fixture
def name_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every game name parsed from here on: ``parse_game`` wrapped in every solver module that holds it."""
    original = solver.rules.game.parse_game
    parsed: list[str] = []

    def counting(spec: str | Game | None) -> Game:
        if isinstance(spec, str):
            parsed.append(spec)
        return original(spec)

    holders = [module for name, module in sys.modules.items() if name == "solver" or name.startswith("solver.")]
    for module in holders:
        if getattr(module, "parse_game", None) is original:
            monkeypatch.setattr(module, "parse_game", counting)
    assert len([m for m in holders if getattr(m, "parse_game", None) is counting]) >= 5, "parse_game was not wrapped"
    return parsed


CALLS: dict[str, Callable[[], object]] = {
    "lookup": lambda: solver.lookup("X.../..../....", game="3x4k3"),
    "best_move": lambda: solver.best_move("X.../..../....", game="3x4k3"),
    "lookup_codes": lambda: solver.lookup_codes([0, 1, 3**11], game="3x4k3"),
    "analyze": lambda: solver.analyze([5, 0, 6], game="3x4k3"),
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_first_public_call_with_a_game_name_parses_it_once(table_dir: Path, name_parses: list[str], call: str) -> None:
    solver.forget()  # a fresh state: no table open, no memo
    CALLS[call]()
    assert name_parses == ["3x4k3"], f"solver.{call}(game='3x4k3') parsed {name_parses}"
    name_parses.clear()
    CALLS[call]()
    assert name_parses == [], f"a second solver.{call} parsed {name_parses}: the table is remembered by its name"
