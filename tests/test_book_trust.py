"""The book is a table of the Tablebase (solver/store/bookproof.py, Tablebase.book): it ships, it is opened through the
Tablebase under the trust policy of tables, and a forged one is refused.

1. the package ships Connect Four's book: a Tablebase with an empty table directory answers the empty board from it,
   every entry equal to Böck's ply-8 results derived up (../shared/data/connect4, read there; skipped where absent);
2. a score byte changed to another score a position can have is refused by the block checks (no plausibility check
   could catch it);
3. a book of a depth whose checksum does not ship is proved before it is believed: a forged one (a deepest entry
   changed, the shallower plies derived again from it) is refused, an honest one is proved once and recorded; one
   whose proof takes too long is refused naming ``solve verify``;
4. a header is bounded by what its arrays hold, and a score no position can have is refused when the book is opened;
5. ``verify`` searches a sample drawn afresh each run (a forger cannot know which entries to spare), and says its seed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solver.contents.opening import fits
from solver.errors import TableError
from solver.search import Engine, positions
from solver.search.book import open_book, write_book
from solver.search.plies import derive_all
from solver.search.position import engine_game
from solver.storage.checksums import EARLIER_BOOK_ROOTS, EXPECTED_BOOK_ROOTS
from solver.storage.tablefile import read_header, write_table
from solver.store.bookproof import open_trusted_book, shipped_book_path, verify_book
from solver.store.tablebase import Tablebase

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "connect4"
SMALL = "4x5k4-gravity"
TABLE_BYTES = 16 << 20


def _plausible_other(score: int) -> int:
    """Another score a position can have (the winner moves last: a win in an odd number of plies, a loss in an even one)."""
    return -(score - 1) if score > 0 else (1 - score if score < 0 else 95)


def _small_book(depth: int, name: str = SMALL) -> tuple[list[np.ndarray], list[np.ndarray]]:
    game = engine_game(name)
    levels = [keys for _, keys in positions(game, depth)]
    engine = Engine(name, table_bytes=TABLE_BYTES)
    from solver.search import position_of_key

    deepest = np.array([engine.score(position_of_key(game, int(key))) for key in levels[-1]], dtype=np.int8)
    return levels, derive_all(game, levels, deepest)


# -- 1. the shipped book --------------------------------------------------------------------------------------------


def test_the_package_ships_connect4s_book_and_a_tablebase_with_no_table_directory_answers_the_empty_board_from_it(tmp_path: Path) -> None:
    shipped = shipped_book_path(engine_game("connect4"))
    assert shipped is not None and shipped.is_file()
    with Tablebase(table_dir=tmp_path) as tablebase:
        book = tablebase.book("connect4", table_dir=tmp_path)
        assert book is not None and book.path == shipped and book.depth == EXPECTED_BOOK_ROOTS["6x7k4-gravity"][0]
        root = tablebase.table("connect4", table_dir=tmp_path).lookup("/".join(["......."] * 6))
    assert (root.result, root.plies, root.best_columns) == ("win", 41, (3,))
    assert sorted(move.result for move in root.moves) == ["draw", "draw", "loss", "loss", "loss", "loss", "win"]


def test_every_entry_of_the_shipped_book_equals_boecks_ply_8_results_derived_up() -> None:
    path = DATA / "boeck_books" / "c4_w7_h6_ply8_dte.csv"
    if not path.is_file():
        pytest.skip("Böck's ply-8 results are not beside the checkout (../shared/data/connect4/boeck_books)")
    from test_book import _boeck_ply8

    levels, ply8 = _boeck_ply8("connect4", path.name)
    derived = derive_all(engine_game("connect4"), levels, ply8)
    shipped = shipped_book_path(engine_game("connect4"))
    assert shipped is not None
    book = open_book(shipped, "connect4")
    keys, scores = book.arrays()
    for ply, level in enumerate(levels[: book.depth + 1]):
        at = np.searchsorted(keys, level)
        assert (keys[at] == level).all(), f"ply {ply}: the shipped book lacks positions"
        wrong = np.flatnonzero(scores[at] != derived[ply])
        assert wrong.size == 0, f"ply {ply}: {wrong.size} entries differ from Böck's, the first key {int(level[wrong[0]]):#x}"


# -- 2. a plausible score changed -----------------------------------------------------------------------------------


def test_a_score_byte_changed_to_another_plausible_score_is_refused_by_the_block_checks(tmp_path: Path) -> None:
    shipped = shipped_book_path(engine_game("connect4"))
    assert shipped is not None
    data = bytearray(shipped.read_bytes())
    spec = read_header(shipped, fits).spec("scores")
    at = spec.offset + 1000
    data[at] = _plausible_other(int(np.int8(np.uint8(data[at])))) & 0xFF
    copy = tmp_path / "6x7k4-gravity.ttt"
    copy.write_bytes(bytes(data))
    with pytest.raises(TableError) as error:
        Tablebase(table_dir=tmp_path).book("connect4", table_dir=tmp_path)
    assert str(copy) in str(error.value) and "solve build --game 6x7k4-gravity" in str(error.value)


# -- 3. books of a depth with no shipped checksum -------------------------------------------------------------------


def test_a_forged_book_consistent_with_its_own_children_is_refused_and_an_honest_one_is_proved_once(tmp_path: Path) -> None:
    game = engine_game(SMALL)
    levels, honest = _small_book(4)
    forged_deepest = honest[4].copy()
    forged_deepest[7] = _plausible_other(int(forged_deepest[7]))
    forged = derive_all(game, levels, forged_deepest)
    (tmp_path / "forged").mkdir()
    write_book(tmp_path / "forged" / f"{SMALL}.ttt", game, levels, forged)
    with pytest.raises(TableError, match="it is wrong: .*the engine finds"):
        open_trusted_book(tmp_path / "forged" / f"{SMALL}.ttt", game)
    (tmp_path / "honest").mkdir()
    path = write_book(tmp_path / "honest" / f"{SMALL}.ttt", game, levels, honest)
    assert open_trusted_book(path, game).depth == 4
    assert (tmp_path / "honest" / "trusted.json").is_file(), "the proved book was not recorded"


def test_a_connect4_book_of_another_depth_whose_proof_takes_too_long_is_refused_naming_solve_verify(tmp_path: Path) -> None:
    game = engine_game("connect4")
    levels = [keys for _, keys in positions(game, 3)]
    draws = derive_all(game, levels, np.zeros(levels[-1].size, dtype=np.int8))  # plausible entries, unproved
    write_book(tmp_path / "6x7k4-gravity.ttt", game, levels, draws)
    with pytest.raises(TableError, match=r"no checksum ships for a 6x7k4-gravity book of depth 3.*solve verify --game 6x7k4-gravity --table"):
        Tablebase(table_dir=tmp_path).book("connect4", table_dir=tmp_path)


def test_a_book_that_shipped_before_is_believed_by_its_checksum_and_a_copy_with_another_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a user who fetched or built the book an earlier version shipped keeps it when a deeper one ships (EARLIER_BOOK_ROOTS)
    game = engine_game("connect4")
    levels = [keys for _, keys in positions(game, 3)]
    draws = derive_all(game, levels, np.zeros(levels[-1].size, dtype=np.int8))  # plausible entries: no proof would pass them
    path = write_book(tmp_path / "6x7k4-gravity.ttt", game, levels, draws)
    root = open_book(path).checksum
    monkeypatch.setitem(EARLIER_BOOK_ROOTS, "6x7k4-gravity", ((3, root),))
    book = Tablebase(table_dir=tmp_path).book("connect4", table_dir=tmp_path)
    assert book is not None and book.depth == 3 and book.path == path, "believed by its checksum, with no proof"
    monkeypatch.setitem(EARLIER_BOOK_ROOTS, "6x7k4-gravity", ((3, "0" * 64),))
    with pytest.raises(TableError, match=f"checksum {root} is not the expected 0{{64}}"):
        Tablebase(table_dir=tmp_path).book("connect4", table_dir=tmp_path)


# -- 4. headers and scores refused when opened ----------------------------------------------------------------------


def _rewrite(path: Path, meta: dict[str, object], out: Path) -> Path:
    book = open_book(path)
    keys, scores = book.arrays()
    return write_table(out, kind="book", game=book.game, arrays={"keys": keys, "scores": scores}, meta=meta)


def test_a_header_claiming_plies_its_arrays_do_not_hold_is_refused_at_once(tmp_path: Path) -> None:
    game = engine_game(SMALL)
    levels, scores = _small_book(3)
    path = write_book(tmp_path / "b.ttt", game, levels, scores)
    plies = [level.size for level in levels]
    deeper = _rewrite(path, {"depth": 15, "plies": [*plies, *([0] * 12)]}, tmp_path / "deeper.ttt")
    with pytest.raises(TableError, match="a book holds positions of every ply up to its depth"):
        open_book(deeper)
    more = _rewrite(path, {"depth": 4, "plies": [*plies, 10**9]}, tmp_path / "more.ttt")
    with pytest.raises(TableError, match="positions counted by ply must be one number|its arrays hold"):
        open_book(more)


def test_a_win_in_an_even_number_of_plies_is_a_score_no_position_can_have_and_is_refused(tmp_path: Path) -> None:
    game = engine_game(SMALL)
    levels, scores = _small_book(3)
    scores[3] = scores[3].copy()
    scores[3][0] = 100 - 4  # a win for the side to move ending on the opponent's move
    with pytest.raises(TableError, match="which no position with 3 pieces can have"):
        open_book(write_book(tmp_path / "even.ttt", game, levels, scores))


# -- 5. verify's sample ---------------------------------------------------------------------------------------------


def test_verify_searches_a_sample_drawn_afresh_each_run_and_says_its_seed(tmp_path: Path) -> None:
    game = engine_game(SMALL)
    levels, scores = _small_book(3)
    path = write_book(tmp_path / "b.ttt", game, levels, scores)
    seeds = {verify_book(path, SMALL, sample=2, table_bytes=TABLE_BYTES).seed for _ in range(3)}
    assert None not in seeds and len(seeds) == 3
    repeated = verify_book(path, SMALL, sample=2, seed=7, table_bytes=TABLE_BYTES)
    assert repeated.seed == 7 and repeated.problems == () and not repeated.whole
    assert verify_book(path, SMALL, sample=None, table_bytes=TABLE_BYTES).whole


def test_solve_verify_of_an_unproved_book_says_its_seed_and_then_the_book_is_believed(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from solver.cli import main

    booked = "5x8k3-gravity"  # past 39 cells: answered by search and a book, as Connect Four is
    game = engine_game(booked)
    levels, scores = _small_book(3, booked)
    path = write_book(tmp_path / f"{booked}.ttt", game, levels, scores)
    seeds = set()
    for _ in range(2):
        result = CliRunner().invoke(main, ["verify", "--game", booked, "--table", str(path), "--sample", "2", "-q"])
        assert result.exit_code == 0, result.output
        assert "(a sample: --seed " in result.stdout and "believed from now on" in result.stdout, result.stdout
        seeds.add(result.stdout.split("--seed ")[1].split(" ")[0])
    assert len(seeds) == 2, "two runs searched the same sample"
    from solver.storage import trust

    assert trust.is_trusted(tmp_path, game.name, "book", open_book(path).checksum)
