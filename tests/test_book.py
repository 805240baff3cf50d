"""The opening book (solver/search/book.py, solver/store/book.py): derived right, stored safely, built resumably.

1. the shallow plies derived from the deepest equal the engine's own answers on every position (small boards),
   and Böck's ply-8 results (../shared/data/connect4, read there, skipped where absent) derive Connect Four's
   root: a first-player win on ply 41;
2. the book file: the same bytes every time, a flipped byte anywhere refused with a TableError naming the file
   and the command that rebuilds it, entries checked when it is opened;
3. the build: a killed build resumes to the same bytes as a fresh one, a damaged chunk is searched again, a
   build directory of another book is refused, and a build on a Dask LocalCluster gives the local bytes;
4. a book's entries re-derived by a second run (the engine without the book) on a sample, and a wrong entry found;
5. the engine answers the same with and without a book, on small boards and on Pons' test positions;
6. solve build/verify/fetch for Connect Four.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from range_server import serving

from solver.cli import main
from solver.errors import BuildError, InvalidBoardError, TableError
from solver.rules.game import parse_game
from solver.search import ArrayBook, Engine, code_of_key, positions
from solver.search.book import open_book, write_book
from solver.search.plies import derive_all
from solver.search.position import engine_game, from_moves, key_of
from solver.storage.trust import expected_root
from solver.store.book import build_book, chunk_name
from solver.store.bookproof import shipped_book_path, verify_book
from solver.store.mirror import fetch_table

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "connect4"
TABLE_BYTES = 16 << 20
SMALL = "4x5k4-gravity"


def engine_scores(game: str, keys: np.ndarray) -> np.ndarray:
    eng = Engine(game, table_bytes=TABLE_BYTES)
    g = engine_game(game)
    return np.array([eng.score(code_of_key(g, int(k))) for k in keys], dtype=np.int8)


def small_book(game: str, depth: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    levels = [keys for _, keys in positions(engine_game(game), depth)]
    return levels, derive_all(engine_game(game), levels, engine_scores(game, levels[-1]))


@pytest.fixture(scope="module")
def book_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 4x5k4-gravity book of depth 5, written once."""
    path = tmp_path_factory.mktemp("book") / f"{SMALL}.ttt"
    write_book(path, engine_game(SMALL), *small_book(SMALL, 5))
    return path


# -- 1. the derivation ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "depth"), [("4x5k4-gravity", 6), ("5x4k4-gravity", 5), ("4x4k3-gravity", 5)])
def test_the_shallow_plies_derived_from_the_deepest_equal_the_engine_on_every_position(game: str, depth: int) -> None:
    levels, derived = small_book(game, depth)
    for ply in range(depth):
        searched = engine_scores(game, levels[ply])
        assert (derived[ply] == searched).all(), f"{game} ply {ply}: {int((derived[ply] != searched).sum())} positions differ"


def _boeck_ply8(game_name: str, file: str) -> tuple[list[np.ndarray], np.ndarray]:
    path = DATA / "boeck_books" / file
    if not path.is_file():
        pytest.skip(f"Böck's ply-8 results {file} are not beside the checkout (../shared/data/connect4/boeck_books)")
    game = engine_game(game_name)
    levels = [keys for _, keys in positions(game, 8)]
    scores = np.zeros(levels[8].size, dtype=np.int8)
    for line in path.read_text().splitlines():
        if not line or line.startswith(("#", "moves")):
            continue
        moves, _board, _ply, result, plies, _score = line.split(",")
        try:
            where = from_moves(game, moves)
        except InvalidBoardError:  # a game that ended on ply 8: not a position of the book
            continue
        at = int(np.searchsorted(levels[8], key_of(game, where)))
        scores[at] = (100 - int(plies)) * (1 if result == "win" else -1)
    return levels, scores


def test_boecks_ply_8_results_derive_connect4s_root_a_first_player_win_on_ply_41() -> None:
    levels, ply8 = _boeck_ply8("connect4", "c4_w7_h6_ply8_dte.csv")
    derived = derive_all(engine_game("connect4"), levels, ply8)
    assert int(derived[0][0]) == 100 - 41
    first = {c: int(derived[1][np.searchsorted(levels[1], key_of(engine_game("connect4"), from_moves(engine_game("connect4"), str(c))))]) for c in (1, 2, 3, 4)}
    # for O, to move after X's first piece: the centre loses for O in 40 plies, column 3 draws, columns 1 and 2 win (Allis)
    assert first == {4: -(100 - 40), 3: 0, 1: first[1], 2: first[2]} and first[1] > 0 and first[2] > 0, first


def test_boecks_5x5_ply_8_results_derive_every_shallower_position_as_the_engine_solves_it() -> None:
    levels, ply8 = _boeck_ply8("5x5k4-gravity", "c4_w5_h5_ply8_dte.csv")
    derived = derive_all(engine_game("5x5k4-gravity"), levels, ply8)
    rng = random.Random(5)
    for ply in range(8):
        picked = sorted(rng.sample(range(levels[ply].size), min(40, levels[ply].size)))
        searched = engine_scores("5x5k4-gravity", levels[ply][picked])
        assert (derived[ply][picked] == searched).all(), f"ply {ply}"


def test_a_book_with_a_missing_child_is_refused_by_the_derivation() -> None:
    game = engine_game(SMALL)
    levels = [keys for _, keys in positions(game, 2)]
    with pytest.raises(ValueError, match="a child the next ply lacks"):
        derive_all(game, [levels[0], levels[1][:-1]], np.zeros(levels[1].size - 1, dtype=np.int8))


# -- 2. the book file -----------------------------------------------------------------------------------------------


def test_a_book_file_is_the_same_bytes_every_time_and_reads_back_its_entries(book_file: Path, tmp_path: Path) -> None:
    again = write_book(tmp_path / "again.ttt", engine_game(SMALL), *small_book(SMALL, 5))
    assert again.read_bytes() == book_file.read_bytes()
    book = open_book(book_file, SMALL)
    levels, scores = small_book(SMALL, 5)
    assert book.depth == 5 and book.plies == tuple(level.size for level in levels)
    for level, values in zip(levels, scores, strict=True):
        assert [book.probe(int(k)) for k in level[:20]] == values[:20].tolist()


@pytest.mark.parametrize("where", ["header", "keys", "scores", "digests", "end"])
def test_a_flipped_byte_anywhere_in_a_book_raises_a_table_error_naming_the_file_and_the_rebuild_command(book_file: Path, tmp_path: Path, where: str) -> None:
    data = bytearray(book_file.read_bytes())
    header = open_book(book_file)
    from solver.contents.opening import fits
    from solver.storage.tablefile import read_header

    found = read_header(book_file, fits)
    at = {
        "header": 40,
        "keys": found.spec("keys").offset + 3 * 8 + 2,
        "scores": found.spec("scores").offset + 7,
        "digests": found.digests_offset + 5,
        "end": len(data) - 1,
    }[where]
    data[at] ^= 0x10
    damaged = tmp_path / f"{SMALL}.ttt"
    damaged.write_bytes(bytes(data))
    with pytest.raises(TableError) as error:
        open_book(damaged)
    assert str(damaged) in str(error.value) and f"solve build --game {SMALL}" in str(error.value)
    assert header.checksum != ""


def test_a_book_whose_bytes_hash_right_but_whose_entries_are_impossible_is_refused(tmp_path: Path) -> None:
    levels, scores = small_book(SMALL, 3)
    scores[3] = scores[3].copy()
    scores[3][0] = 99 - 30  # a win in 30 plies on a board of 20 cells
    path = write_book(tmp_path / "bad.ttt", engine_game(SMALL), levels, scores)
    with pytest.raises(TableError, match=r"which no position with 3 pieces can have.*solve build --game"):
        open_book(path)


# -- 3. the build ---------------------------------------------------------------------------------------------------


def test_a_built_book_holds_the_engines_scores_and_its_figures(tmp_path: Path) -> None:
    figures = build_book(SMALL, tmp_path / "b.ttt", depth=5, jobs=1, chunk=32, table_bytes=TABLE_BYTES)
    assert (tmp_path / "b.ttt").read_bytes() == _reference_book_bytes(tmp_path)
    assert figures.depth == 5 and figures.searched == positions_at(SMALL, 5) and figures.chunks == -(-figures.searched // 32)
    assert not (tmp_path / "b.ttt.build").exists() and (tmp_path / "b.ttt.figures.json").is_file()


def positions_at(game: str, ply: int) -> int:
    return [keys.size for _, keys in positions(engine_game(game), ply)][-1]


def _reference_book_bytes(tmp_path: Path) -> bytes:
    return write_book(tmp_path / "reference.ttt", engine_game(SMALL), *small_book(SMALL, 5)).read_bytes()


def test_a_killed_book_build_resumes_to_the_same_bytes_as_a_fresh_one(tmp_path: Path) -> None:
    path = tmp_path / "killed.ttt"
    build = path.with_name(path.name + ".build")
    code = f"from solver.store.book import build_book; build_book({SMALL!r}, {str(path)!r}, depth=5, jobs=1, chunk=4, table_bytes={TABLE_BYTES})"
    worker = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    try:
        deadline = time.monotonic() + 600
        while len(list(build.glob("chunk-*.bin"))) < 5 and time.monotonic() < deadline and worker.poll() is None:
            time.sleep(0.05)
        os.killpg(worker.pid, signal.SIGKILL)
    finally:
        worker.wait()
    done = len(list(build.glob("chunk-*.bin")))
    assert 5 <= done < -(-positions_at(SMALL, 5) // 4), "the build was killed half way"
    (build / chunk_name(1)).write_bytes((build / chunk_name(1)).read_bytes()[:-3] + b"xyz")  # and one chunk damaged
    said: list[str] = []
    build_book(SMALL, path, depth=5, jobs=1, chunk=4, table_bytes=TABLE_BYTES, notify=said.append)
    assert any("Resuming" in line for line in said) and any("damaged" in line for line in said)
    assert path.read_bytes() == _reference_book_bytes(tmp_path)


def test_a_build_directory_of_another_book_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "b.ttt"
    build = path.with_name(path.name + ".build")
    build.mkdir(mode=0o700)
    (build / "plan.json").write_text('{"game": "5x5k4-gravity", "depth": 9}')
    with pytest.raises(BuildError, match="holds the build of another book"):
        build_book(SMALL, path, depth=5, jobs=1, table_bytes=TABLE_BYTES)


@pytest.fixture(scope="module")
def client() -> Iterator[object]:
    distributed = pytest.importorskip("distributed", reason="the cluster build needs the [cluster] extra (Dask distributed)")
    with distributed.LocalCluster(n_workers=1, processes=False, threads_per_worker=2, dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as connected:
            yield connected


def test_a_book_built_on_a_dask_local_cluster_is_the_local_books_bytes(client: object, tmp_path: Path) -> None:
    figures = build_book(SMALL, tmp_path / "cluster.ttt", depth=5, scheduler=client, chunk=16, table_bytes=TABLE_BYTES)
    assert (tmp_path / "cluster.ttt").read_bytes() == _reference_book_bytes(tmp_path)
    assert figures.chunks == -(-positions_at(SMALL, 5) // 16)


# -- 4. re-derived by a second run ----------------------------------------------------------------------------------


def test_a_books_entries_are_re_derived_by_the_engine_without_the_book(book_file: Path) -> None:
    checked = verify_book(book_file, SMALL, sample=40, seed=3, table_bytes=TABLE_BYTES)
    assert checked.problems == () and checked.searched == 40 and checked.derived == sum(open_book(book_file).plies[:-1])


def test_verify_finds_a_wrong_deepest_entry_by_search_and_a_wrong_shallow_one_by_derivation(tmp_path: Path) -> None:
    game = engine_game(SMALL)
    levels, scores = small_book(SMALL, 4)
    deep = [s.copy() for s in scores]
    deep[4][7] = 0 if deep[4][7] != 0 else 91  # a score a position of 4 pieces can have (a win in 9 plies)
    deep = derive_all(game, levels, deep[4])  # consistent with its children: only a search finds it
    found = verify_book(write_book(tmp_path / "deep.ttt", game, levels, deep), SMALL, sample=None, table_bytes=TABLE_BYTES)
    assert any(f"key {int(levels[4][7]):#x}" in problem and "the engine finds" in problem for problem in found.problems)
    shallow = [s.copy() for s in scores]
    shallow[2][3] = _plausible_other(int(shallow[2][3]))
    found = verify_book(write_book(tmp_path / "shallow.ttt", game, levels, shallow), SMALL, sample=1, table_bytes=TABLE_BYTES)
    assert any("ply 2" in problem and "its children give" in problem for problem in found.problems)


def _plausible_other(score: int) -> int:
    """Another score a position can have (the winner moves last: a win in an odd number of plies, a loss in an even one)."""
    return -(score - 1) if score > 0 else (1 - score if score < 0 else 95)


# -- 5. the engine with and without a book --------------------------------------------------------------------------


def test_the_engine_answers_every_position_the_same_with_and_without_the_book(book_file: Path) -> None:
    book = open_book(book_file, SMALL)
    plain, booked = Engine(SMALL, table_bytes=TABLE_BYTES), Engine(SMALL, table_bytes=TABLE_BYTES, book=book)
    game = engine_game(SMALL)
    rng = random.Random(7)
    for _, keys in positions(game, 8):
        for key in rng.sample(keys.tolist(), min(6, keys.size)):
            code = code_of_key(game, key)
            a, b = plain.solve(code), booked.solve(code)
            assert (a.score, a.moves) == (b.score, b.moves), code
    assert booked.solve(0).score == book.probe(int(positions(game, 0).__next__()[1][0]))


def test_the_engine_answers_a_position_the_book_holds_from_the_book_without_searching() -> None:
    """The root is read before any search: the empty board of Connect Four (minutes of search) answered at once."""
    game = engine_game("connect4")
    levels = [keys for _, keys in positions(game, 1)]
    keys = np.sort(np.concatenate(levels))
    scores = np.where(keys == levels[0][0], 59, 0).astype(np.int8)
    booked = Engine(game, table_bytes=TABLE_BYTES, book=ArrayBook(game, 1, keys, scores))
    assert booked.score(moves="") == 59
    assert booked.score(moves="4") == 0  # what the book says (this one is made up: the engine trusts its book)


def _pons(name: str, count: int) -> list[tuple[str, int]]:
    path = DATA / "pons_tests" / name
    if not path.is_file():
        pytest.skip(f"Pons' test set {name} is not beside the checkout (../shared/data/connect4/pons_tests)")
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    return [(moves, int(score)) for moves, score in random.Random(name).sample(rows, count)]


def test_the_engine_with_a_book_gives_pons_test_positions_the_same_exact_answers() -> None:
    """A book of the positions' children and grandchildren (scores by the engine without a book): the search
    reads them inside the tree, and every answer stays Pons' and the plain engine's."""
    game = engine_game("connect4")
    cases = _pons("Test_L3_R1", 6) + _pons("Test_L2_R1", 4)
    plain = Engine(game, table_bytes=TABLE_BYTES)
    entries: dict[int, int] = {}
    for moves, _ in cases:
        for a in range(1, 8):
            for b in ("", *map(str, range(1, 8))):
                try:
                    where = from_moves(game, moves + str(a) + b)
                except ValueError:
                    continue
                entries[key_of(game, where)] = plain.score(moves=moves + str(a) + b)
    keys = np.array(sorted(entries), dtype=np.uint64)
    book = ArrayBook(game, max(len(m) for m, _ in cases) + 2, keys, np.array([entries[int(k)] for k in keys], dtype=np.int8))
    booked = Engine(game, table_bytes=TABLE_BYTES, book=book)
    for moves, score in cases:
        with_book, without = booked.solve(moves=moves), Engine(game, table_bytes=TABLE_BYTES).solve(moves=moves)
        assert (with_book.score, with_book.moves) == (without.score, without.moves), moves
        assert with_book.score == _byte(score, len(moves)), moves


def _byte(pons: int, pieces: int) -> int:
    from solver.search import score_byte

    return score_byte(pons, pieces, 42)


def test_a_built_connect4_book_answers_pons_begin_positions_as_pons_does() -> None:
    """With the real book (``$SOLVED_TICTACTOE_BOOK``, else the one the package ships): Pons' 'Begin-Easy' positions
    and Böck's ply-8 results derived up to the book's deepest ply agree with it."""
    where = os.environ.get("SOLVED_TICTACTOE_BOOK") or shipped_book_path(engine_game("connect4"))
    assert where is not None, "the package ships no Connect Four book"
    book = open_book(where, "connect4")
    levels, ply8 = _boeck_ply8("connect4", "c4_w7_h6_ply8_dte.csv")
    derived = derive_all(engine_game("connect4"), levels, ply8)
    assert all((book.arrays()[1][np.searchsorted(book.arrays()[0], level)] == derived[ply]).all() for ply, level in enumerate(levels[: book.depth + 1]))
    booked = Engine("connect4", book=book)
    for moves, score in _pons("Test_L1_R1", 20):
        assert booked.score(moves=moves) == _byte(score, len(moves)), moves


# -- 6. the command line --------------------------------------------------------------------------------------------


def test_solve_build_connect4_shows_the_books_estimate_and_is_not_started_unasked(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["build", "--game", "connect4", "--table-dir", str(tmp_path)])
    assert result.exit_code != 0
    assert "opening book takes about" in result.output and "--yes" in result.output
    assert list(tmp_path.iterdir()) == []


def test_solve_verify_connect4_refuses_a_damaged_book_in_one_line(tmp_path: Path) -> None:
    game = engine_game("connect4")
    levels = [keys for _, keys in positions(game, 2)]
    path = write_book(tmp_path / "6x7k4-gravity.ttt", game, levels, [np.zeros(level.size, dtype=np.int8) for level in levels])
    data = bytearray(path.read_bytes())
    data[-40] ^= 1
    path.write_bytes(bytes(data))
    result = CliRunner().invoke(main, ["verify", "--game", "connect4", "--table", str(path)])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert str(path) in result.output and "solve build --game 6x7k4-gravity" in result.output


def test_solve_fetch_connect4_installs_a_book_from_a_mirror_checking_every_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from solver.storage.checksums import EXPECTED_BOOK_ROOTS

    monkeypatch.delitem(EXPECTED_BOOK_ROOTS, "6x7k4-gravity", raising=False)  # a made-up book: the shipped one's checksum is not its own
    game = engine_game("connect4")
    levels = [keys for _, keys in positions(game, 3)]
    source = write_book(tmp_path / "source.ttt", game, levels, [np.zeros(level.size, dtype=np.int8) for level in levels])
    checksum = open_book(source).checksum
    with serving({"6x7k4-gravity.ttt": source.read_bytes()}) as server:
        fetched = fetch_table(game, url=server.url, table_dir=tmp_path / "tables", checksum=checksum)
        assert fetched.installed and open_book(fetched.path, "connect4").checksum == checksum
        server.faults.flip = 200
        with pytest.raises(TableError):
            fetch_table(game, url=server.url, table_dir=tmp_path / "other", checksum=checksum)
    assert not (tmp_path / "other" / "6x7k4-gravity.ttt").exists()
    assert parse_game("connect4") == game


class _FirstMoves:
    """Stands in for the engine on Connect Four's ply 1 (minutes of search each): the scores Böck's ply-8 results
    derive (test_boecks_ply_8_results_derive_connect4s_root_a_first_player_win_on_ply_41), by the column played."""

    SCORES = {1: 61, 2: 59, 3: 0, 4: -60}

    def score(self, where: object) -> int:
        game = engine_game("connect4")
        for column, value in self.SCORES.items():
            if key_of(game, where) == key_of(game, from_moves(game, str(column))):
                return value
        raise AssertionError(where)


def test_solve_build_connect4_writes_the_book_from_its_chunks_and_its_root_is_a_win_on_ply_41(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import solver.store.book as builder

    monkeypatch.setattr(builder, "_engine", lambda game, table_bytes, depth: _FirstMoves())
    result = CliRunner().invoke(main, ["build", "--game", "connect4", "--depth", "1", "--jobs", "1", "--yes", "--table-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "Wrote" in result.output and "depth 1, 5 positions (4 searched)" in result.output
    book = open_book(tmp_path / "6x7k4-gravity.ttt", "connect4")
    assert Engine("connect4", table_bytes=TABLE_BYTES, book=book).score(moves="") == 100 - 41
    assert not (tmp_path / "6x7k4-gravity.ttt.build").exists()


def test_a_build_searches_with_the_shipped_book_only_when_it_is_one_ply_shallower() -> None:
    # the deepest ply's positions are searched from their parents' scores (negamax.book_floor); a book as deep as the
    # build would answer the very positions it is to search, so no other depth is ever used
    from solver.store.book import floor_book

    game = parse_game("connect4")
    shipped = open_book(shipped_book_path(game), "connect4")  # type: ignore[arg-type]
    found = floor_book(game, shipped.depth + 1)
    assert found is not None and found.depth == shipped.depth and found.checksum == shipped.checksum
    assert floor_book(game, shipped.depth) is None and floor_book(game, shipped.depth + 2) is None
    assert floor_book(parse_game(BOOKED), 4) is None  # no book ships for it


# -- 7. a book in a table directory: the search source, solve build and solve verify ------------------------------------

BOOKED = "5x8k3-gravity"
"""A gravity game past 39 cells (no table: its codes pass int64), so answered by the engine and a book as Connect Four is
(a first-player win in 9 plies: its book of depth 3 is built in seconds, through the same code as Connect Four's)."""


@pytest.fixture(scope="module")
def booked_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A table directory holding the 5x8k3-gravity book of depth 3, built as ``solve build --depth 3 --jobs 1`` builds it
    (:func:`build_book`; test_solve_build_of_a_book_that_is_there... rebuilds it with ``solve build --force``: the same bytes)."""
    directory = tmp_path_factory.mktemp("booked")
    build_book(BOOKED, directory / f"{BOOKED}.ttt", depth=3, jobs=1)
    return directory


def _copy(directory: Path, into: Path) -> Path:
    into.mkdir()
    (into / f"{BOOKED}.ttt").write_bytes((directory / f"{BOOKED}.ttt").read_bytes())
    return into / f"{BOOKED}.ttt"


def test_the_search_source_reads_the_book_of_its_table_directory_and_answers_as_without_it(booked_dir: Path, tmp_path: Path) -> None:
    from solver.store.tablebase import Tablebase

    booked = Tablebase().table(BOOKED, table_dir=booked_dir)
    plain = Tablebase().table(BOOKED, table_dir=tmp_path)
    assert booked.has_book and not plain.has_book  # type: ignore[attr-defined]
    game = engine_game(BOOKED)
    for _, keys in positions(game, 4):
        for key in keys.tolist():
            code = code_of_key(game, key)
            a, b = booked.at(code), plain.at(code)
            assert (a.score, a.plies, a.best_mask, a.move_scores) == (b.score, b.plies, b.best_mask, b.move_scores), code
    with_book, without = booked.engine.solve(0), plain.engine.solve(0)  # type: ignore[attr-defined]
    assert with_book.score == without.score and with_book.nodes < without.nodes, (with_book.nodes, without.nodes)


def test_a_damaged_book_in_a_table_directory_is_refused_naming_the_file_and_the_rebuild_command(booked_dir: Path, tmp_path: Path) -> None:
    from solver.store.tablebase import Tablebase

    path = _copy(booked_dir, tmp_path / "damaged")
    data = bytearray(path.read_bytes())
    data[-30] ^= 4
    path.write_bytes(bytes(data))
    with pytest.raises(TableError) as error:
        Tablebase().table(BOOKED, table_dir=path.parent)
    assert str(path) in str(error.value) and f"solve build --game {BOOKED}" in str(error.value)
    result = CliRunner().invoke(main, ["lookup", "--game", BOOKED, "--table-dir", str(path.parent), "0"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith("solve: error:") and str(path) in line and f"solve build --game {BOOKED}" in line


def test_solve_build_of_a_book_that_is_there_and_checks_builds_nothing_and_says_so_in_one_line(booked_dir: Path, tmp_path: Path) -> None:
    path = _copy(booked_dir, tmp_path / "again")
    before = path.read_bytes()
    os.utime(path, (1_000_000_000, 1_000_000_000))
    for depth in ([], ["--depth", "3"]):
        result = CliRunner().invoke(main, ["build", "--game", BOOKED, *depth, "--jobs", "1", "--table-dir", str(path.parent)])
        assert result.exit_code == 0, result.output
        (line,) = result.stdout.splitlines()
        assert line.startswith(f"{path}: the {BOOKED} book (depth 3) is there already") and "nothing built (--force builds it again)" in line
        assert result.stderr == "" and path.stat().st_mtime == 1_000_000_000 and not path.with_name(path.name + ".figures.json").exists()
    result = CliRunner().invoke(main, ["build", "--game", BOOKED, "--depth", "3", "--jobs", "1", "--force", "--table-dir", str(path.parent)])
    assert result.exit_code == 0 and "Wrote" in result.stderr and path.stat().st_mtime != 1_000_000_000 and path.read_bytes() == before


def test_solve_build_rebuilds_a_book_that_does_not_verify_or_has_another_depth(booked_dir: Path, tmp_path: Path) -> None:
    path = _copy(booked_dir, tmp_path / "broken")
    before = path.read_bytes()
    path.write_bytes(before[:-1] + bytes([before[-1] ^ 1]))
    result = CliRunner().invoke(main, ["build", "--game", BOOKED, "--depth", "3", "--jobs", "1", "--table-dir", str(path.parent)])
    assert result.exit_code == 0 and "does not verify" in result.stderr and "building it again" in result.stderr
    assert path.read_bytes() == before
    result = CliRunner().invoke(main, ["build", "--game", BOOKED, "--depth", "2", "--jobs", "1", "--table-dir", str(path.parent)])
    assert result.exit_code == 0 and "holds the 5x8k3-gravity book to depth 3; building the one to depth 2" in result.stderr
    assert open_book(path, BOOKED).depth == 2


def test_solve_verify_of_a_book_first_says_what_it_checks_and_how_long_it_should_take(booked_dir: Path) -> None:
    path = booked_dir / f"{BOOKED}.ttt"
    plies = open_book(path, BOOKED).plies
    result = CliRunner().invoke(main, ["verify", "--game", BOOKED, "--table-dir", str(booked_dir), "--sample", "5"])
    assert result.exit_code == 0, result.output
    (opening,) = result.stderr.splitlines()
    assert opening.startswith(f"Verifying {path} ({BOOKED} book, depth 3, {sum(plies):,} positions): every block, every entry of plies 0 to 2")
    assert f"and 5 of the {plies[3]:,} entries of ply 3 searched again; about " in opening and opening.endswith(" on 1 core")
    lines = result.stdout.splitlines()
    assert len(lines) == 6 and all(" in the book, " in line for line in lines[:5]) and lines[-1].startswith(f"{path}: OK (")
    quiet = CliRunner().invoke(main, ["verify", "--game", BOOKED, "--table-dir", str(booked_dir), "--sample", "5", "--quiet"])
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_only_a_book_whose_checksum_does_not_ship_has_its_entries_checked_one_by_one(book_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the shipped book's bytes are checked against its checksum, which pins the entries proved when it was built
    import solver.search.book

    checked: list[int] = []

    def counted(game: Any, keys: np.ndarray, scores: np.ndarray, plies: Any) -> str | None:
        checked.append(keys.size)
        return None

    monkeypatch.setattr(solver.search.book, "entries_problem", counted)
    shipped = open_book(shipped_book_path(parse_game("connect4")), "connect4")  # type: ignore[arg-type]
    assert checked == [] and shipped.checksum == expected_root(parse_game("connect4"), "book")
    built = open_book(book_file, SMALL)
    assert checked == [sum(built.plies)]
