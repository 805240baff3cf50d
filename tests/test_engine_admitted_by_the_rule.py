"""The search engine plays a game only when every part of its rule is one it was written for, with the grid's lines.

Every combination of the catalogue (grid x move rule x scoring) is built on small boards: the engine either refuses
the game, naming the part it does not play, or agrees with the game's table on a sample of positions in play. A grid
the engine was not written for (lines in rows and columns only, made here as a scratch part of the catalogue) is
refused; admitted on purpose, it is searched with the grid's own lines and agrees with its table, so the lines the
engine plays are the grid's and no copy of its own.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import ClassVar

import pytest

import solver
from solver.errors import InvalidGameError
from solver.rules import catalog
from solver.rules.catalog import RULES, Parts
from solver.rules.game import parse_game
from solver.rules.gravity import Drop
from solver.rules.grid import Grid
from solver.rules.normal import Normal
from solver.search import Engine
from solver.search import games as engine_games
from solver.search import position as engine_position
from solver.search.bitboard import G_DIRS

SHAPES = ("3x4k3", "4x3k3")
"""Small boards, one wider than high and one higher than wide: every table is built in memory in a moment."""
SAMPLE = 25
"""Positions in play compared per game."""


def _sample(name: str) -> Iterator[tuple[int, int]]:
    """``(code, score)`` of a seeded sample of the positions in play of a game's table."""
    table = solver.build_table(game=parse_game(name))
    codes = [code for code in table.reachable_codes().tolist() if not table.at(code).is_over]
    for code in random.Random(name).sample(codes, min(SAMPLE, len(codes))):
        yield code, table.at(code).score


def _refused_or_agrees(name: str) -> str:
    """``"refused"`` if the engine refuses the game (naming a part of its rule), else ``"agrees"`` after comparing the sample."""
    try:
        engine = Engine(name, threads=1, table_bytes=1 << 20)
    except InvalidGameError as refused:
        assert f"the engine does not play {parse_game(name).name}: its " in str(refused), str(refused)
        return "refused"
    for code, score in _sample(name):
        found = engine.score(code)
        assert found == score, f"{name} {solver.render(code, game=name)}: the engine says {found}, the table {score}"
    return "agrees"


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("suffix", sorted(RULES))
def test_the_engine_refuses_every_combination_of_the_catalogue_or_agrees_with_its_table(shape: str, suffix: str) -> None:
    name = f"{shape}-{suffix}" if suffix else shape
    answered = _refused_or_agrees(name)
    parts = RULES[suffix]
    assert (answered == "agrees") == (parts == Parts(Grid, Drop, Normal)), f"{name}: {answered}"


class OrthGrid(Grid):
    """A scratch grid: lines in rows and columns only, no diagonals (the reviewer's ``orth`` variant)."""

    name = "orth"
    title = "orthogonal lines"
    directions: ClassVar[tuple[tuple[int, int], ...]] = ((0, 1), (1, 0))


@pytest.fixture
def orth(monkeypatch: pytest.MonkeyPatch) -> str:
    """The orth grid under gravity in normal play, added to the catalogue for this test: the game's name."""
    monkeypatch.setitem(catalog.GRIDS, "orth", OrthGrid)
    monkeypatch.setitem(RULES, "orth-gravity", Parts(OrthGrid, Drop, Normal))
    return "4x4k3-orth-gravity"


def test_the_engine_refuses_a_grid_it_was_not_written_for_naming_it(orth: str) -> None:
    assert parse_game(orth).rules.lines and len(parse_game(orth).rules.lines) == 16  # 8 in rows, 8 in columns: no diagonal
    with pytest.raises(InvalidGameError, match="its grid is orthogonal lines, and the engine was written for the usual grid"):
        Engine(orth, threads=1)


def test_the_engine_takes_its_lines_from_the_grid_and_so_answers_an_admitted_grid_right(orth: str, monkeypatch: pytest.MonkeyPatch) -> None:
    grids, moves, scorings = engine_games.ENGINE_PARTS
    monkeypatch.setattr(engine_games, "ENGINE_PARTS", (grids | {OrthGrid}, moves, scorings))
    assert int(engine_position.geometry_of(parse_game(orth))[G_DIRS]) == 0b0011  # vertical and horizontal only
    assert int(engine_position.geometry_of(parse_game("4x4k3-gravity"))[G_DIRS]) == 0b1111
    assert _refused_or_agrees(orth) == "agrees"
