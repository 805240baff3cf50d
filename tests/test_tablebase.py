"""One Tablebase owns the sources of answers, the open tables and the memo; positions cost what they answer."""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import solver
import solver.store.locate
from solver.api import Tablebase, Want
from solver.cli import main
from solver.encoding.coderules import code_rules
from solver.retrograde.sweep import build_layers
from solver.rules.base import IN_PLAY
from solver.rules.game import Game, parse_game
from solver.store.make import build_table
from solver.tables import CompactTable, Table


class Engine:
    """A stand-in for a search engine: answers the games it is given (from tables built in memory), declines the rest."""

    def __init__(self, *names: str) -> None:
        self.games = {parse_game(name) for name in names}
        self.asked: list[str] = []

    @property
    def key(self) -> Hashable:
        return ("engine", tuple(sorted(game.name for game in self.games)))

    def table(self, game: Game, want: Want, tablebase: Tablebase) -> Table | None:
        self.asked.append(game.name)
        return build_table(game) if game in self.games else None


def test_a_source_asked_first_answers_a_game_no_table_holds_and_is_asked_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = Engine("2x2k2")
    tablebase = Tablebase(table_dir=tmp_path / "empty", sources=[engine])
    monkeypatch.setattr(solver.store.locate, "table_path", lambda *a, **k: pytest.fail("the local tables were asked for a game the engine answers"))
    first = tablebase.lookup("X./..", game="2x2k2")
    assert first.result == "loss" and tablebase.lookup(0, game="2x2k2").table is first.table
    assert tablebase.table("2x2k2") is first.table and engine.asked == ["2x2k2"]
    assert not (tmp_path / "empty").exists(), "nothing was built or written"


def test_a_source_that_declines_passes_the_game_to_the_local_tables(tmp_path: Path) -> None:
    engine = Engine("2x2k2")
    tablebase = Tablebase(table_dir=tmp_path, sources=[engine])
    assert tablebase.lookup("XX./OO./...").best_moves == ((0, 2),)  # tic-tac-toe: the shipped table
    assert engine.asked == ["3x3k3"]
    assert tablebase.table("3x3k3").path == solver.store.locate.shipped_path(parse_game("3x3k3"))


def test_add_source_puts_a_source_before_the_others_and_the_local_tables_stay_last(tmp_path: Path) -> None:
    tablebase = Tablebase(table_dir=tmp_path)
    first, second = Engine("2x2k2"), Engine("1x3k3")
    tablebase.add_source(second)
    tablebase.add_source(first)
    assert tablebase.sources[:2] == [first, second] and isinstance(tablebase.sources[-1], solver.LocalTables)


def test_clear_forgets_every_open_table_and_the_memo(tmp_path: Path) -> None:
    tablebase = Tablebase(table_dir=tmp_path)
    before = tablebase.lookup(0, game="2x2k2").table
    assert tablebase.lookup(0, game="2x2k2").table is before
    tablebase.clear()
    assert tablebase.lookup(0, game="2x2k2").table is not before


def test_solver_forget_clears_the_default_tablebase(table_dir: Path) -> None:
    tablebase = solver.default_tablebase()
    solver.lookup(0, game="2x2k2")
    opened = tablebase.opened
    assert "2x2k2" in opened and tablebase._open
    solver.forget()
    assert not opened and not tablebase._open  # the same view, emptied: solver.lookup's hot path reads it


def test_two_tablebases_keep_their_tables_apart(tmp_path: Path) -> None:
    one, two = Tablebase(table_dir=tmp_path / "one"), Tablebase(table_dir=tmp_path / "two")
    assert one.table("2x2k2") is not two.table("2x2k2")
    assert (tmp_path / "one" / "2x2k2.ttt").exists() and (tmp_path / "two" / "2x2k2.ttt").exists()


def test_get_table_builds_nothing_and_returns_the_default(tmp_path: Path) -> None:
    tablebase = Tablebase(table_dir=tmp_path)
    assert tablebase.get_table("2x2k2", "none") == "none" and not (tmp_path / "2x2k2.ttt").exists()
    assert tablebase.get_table("7x7x7", "bad game") == "bad game"


def test_the_cli_answers_from_the_tablebase_it_is_given(tmp_path: Path) -> None:
    engine = Engine("2x2k2")
    result = CliRunner().invoke(main, ["lookup", "--game", "2x2k2", "--table-dir", str(tmp_path), "X./.."], obj=Tablebase(sources=[engine]))
    assert result.exit_code == 0, result.output
    assert engine.asked == [] and (tmp_path / "2x2k2.ttt").exists()  # --table-dir names the local tables: the engine is not asked
    result = CliRunner().invoke(main, ["lookup", "--game", "2x2k2", "X./.."], obj=Tablebase(table_dir=tmp_path / "unused", sources=[engine]))
    assert result.exit_code == 0, result.output
    assert engine.asked == ["2x2k2"] and not (tmp_path / "unused").exists()


# -- positions cost what they answer ------------------------------------------------------------------


@pytest.fixture(scope="module", params=["3x4k4", "3x4k4-misere", "3x3k3"])
def compact_and_dense(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[CompactTable, Table]:
    """A small game's compact table (from the layered build) beside its dense one (an independent build)."""
    game = parse_game(request.param)
    layers = build_layers(game, tmp_path_factory.mktemp(request.param) / "build", jobs=1).layers()
    return CompactTable.from_layers(game, layers), build_table(game)


class Reads:
    """Counts the stored bytes a compact table of plain layers reads (every read goes through its ``_read``)."""

    def __init__(self, table: CompactTable, monkeypatch: pytest.MonkeyPatch) -> None:
        assert table.complete, "a table of plain layers: no block cache between the reads and the count"
        self.count = 0
        read = table._read

        def counted(index: int) -> int:
            self.count += 1
            return read(index)

        monkeypatch.setattr(table, "_read", counted)


def _in_play(table: CompactTable) -> list[int]:
    codes = table.layout.codes_at(np.arange(table.layout.size))
    return [int(code) for code in codes[code_rules(table.game).statuses(codes) == IN_PLAY] if table.score_of(int(code)) != -128]


def test_is_over_and_to_move_read_nothing_after_the_look_up(compact_and_dense: tuple[CompactTable, Table], monkeypatch: pytest.MonkeyPatch) -> None:
    compact, dense = compact_and_dense
    codes = _in_play(compact)[::7]
    positions = [compact.at(code) for code in codes]
    reads = Reads(compact, monkeypatch)
    for position in positions:
        assert position.is_over is dense.at(position.code).is_over and position.to_move == dense.at(position.code).to_move
    assert reads.count == 0, f"is_over and to_move read {reads.count} stored bytes"


def test_best_move_is_one_look_up_and_agrees_with_the_dense_table(compact_and_dense: tuple[CompactTable, Table], monkeypatch: pytest.MonkeyPatch) -> None:
    compact, dense = compact_and_dense
    codes = _in_play(compact)
    looked_up = 0
    at = compact.at

    def counted_at(code: int) -> object:
        nonlocal looked_up
        looked_up += 1
        return at(code)

    monkeypatch.setattr(compact, "at", counted_at)
    for code in codes:
        assert compact.best_move(code) == dense.best_move(code), compact.at(code)
    assert looked_up == len(codes), "a best move looked its position up twice"
    finished = next(int(code) for code in compact.layout.codes_at(np.arange(compact.layout.size)) if code_rules(compact.game).status_of(int(code)) != IN_PLAY)
    with pytest.raises(solver.InvalidBoardError, match="the game is over"):
        _ = at(finished).best_move


def test_best_moves_and_moves_share_one_read_of_the_children(compact_and_dense: tuple[CompactTable, Table], monkeypatch: pytest.MonkeyPatch) -> None:
    compact, dense = compact_and_dense
    reads = Reads(compact, monkeypatch)
    for code in _in_play(compact)[::5]:
        position = compact.at(code)
        before = reads.count
        best, moves, data = position.best_moves, position.moves, position.to_dict()
        first = reads.count - before
        assert (position.best_moves, position.moves, position.to_dict()) == (best, moves, data)
        assert reads.count - before == first, "the children were read again"
        assert first <= len(moves), f"{first} bytes read for {len(moves)} moves"
        want = dense.at(code)
        assert best == want.best_moves and [(m.cell, m.score) for m in moves] == [(m.cell, m.score) for m in want.moves], position


def test_solver_best_move_looks_the_position_up_once(table_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = solver.table_for("3x3k3")
    calls = 0
    at = table.at

    def counted(code: int) -> object:
        nonlocal calls
        calls += 1
        return at(code)

    monkeypatch.setattr(table, "at", counted)
    assert solver.best_move("XX./OO./...") == (0, 2) and calls == 1


def test_the_old_name_believe_still_trusts_or_proves_and_says_it_is_deprecated(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Table] = []
    monkeypatch.setattr(solver.store.locate, "trust_or_prove", seen.append)
    table = build_table(parse_game("2x3"))
    with pytest.warns(DeprecationWarning, match="trust_or_prove"):
        Tablebase().believe(table)
    assert seen == [table]
