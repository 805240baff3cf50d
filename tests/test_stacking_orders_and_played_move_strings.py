"""A board's stacking order found greedily first, and a move string played on the engine's bitboards: the same
answers as the exhaustive search of the plain reference (tests/reference.py) and as the move string's code.

The package's :func:`solver.rules.gravity.stacking_order` tries a greedy order before its depth-first search;
the greedy order must never decide: wherever the reference finds no order, the package finds none, and every
order it returns stacks the board. :meth:`solver.store.searched.SearchTable.at_moves` plays a move string on the
engine's bitboards (no order looked for): its position must be the one the rules read from the string, and a
string the bitboards refuse must be refused (or answered) as the rules do.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from reference import O, X, line_masks, stacking_order

import solver
from solver.encoding.drops import move_string_code
from solver.errors import InvalidBoardError
from solver.rules import gravity


def _boards(rows: int, cols: int, count: int, seed: int) -> list[tuple[int, ...]]:
    """Random stacked boards (no floating piece; any colours), a cell a digit 0 empty, 1 X, 2 O, row 0 the top."""
    rng = random.Random(seed)
    boards = []
    for _ in range(count):
        board = [0] * (rows * cols)
        for col in range(cols):
            for height in range(rng.randint(0, rows)):
                board[(rows - 1 - height) * cols + col] = rng.choice((X, O))
        boards.append(tuple(board))
    return boards


def _stacks_the_board(order: list[int], board: tuple[int, ...], rows: int, cols: int) -> bool:
    """Whether ``order`` (cells) drops each piece of ``board`` once, X first and in turn, each on top of its column."""
    heights = [0] * cols
    for placed, cell in enumerate(order):
        row, col = divmod(cell, cols)
        if board[cell] != (X if placed % 2 == 0 else O) or row != rows - 1 - heights[col]:
            return False
        heights[col] += 1
    return sorted(order) == [cell for cell, digit in enumerate(board) if digit]


@pytest.mark.parametrize(("rows", "cols"), [(2, 3), (3, 3), (4, 4), (6, 7)])
def test_the_package_finds_a_stacking_order_exactly_where_the_reference_does(rows: int, cols: int) -> None:
    found = missing = 0
    for board in _boards(rows, cols, 3000, seed=rows * 10 + cols):
        if board.count(X) - board.count(O) not in (0, 1):
            continue
        x = sum(1 << cell for cell, digit in enumerate(board) if digit == X)
        o = sum(1 << cell for cell, digit in enumerate(board) if digit == O)
        order = gravity.stacking_order(rows, cols, x, o)
        assert (order is None) == (stacking_order(board, rows, cols) is None), board
        if order is None:
            missing += 1
        else:
            found += 1
            assert _stacks_the_board(order, board, rows, cols), (board, order)
    assert found and missing  # both answers were met


def test_every_small_board_is_judged_as_the_reference_judges_it() -> None:
    rows, cols = 3, 3
    for board in itertools.product((0, X, O), repeat=rows * cols):
        if any(board[cell] and not board[cell + cols] for cell in range(rows * cols - cols)):
            continue  # a floating piece: not a stacking question
        if board.count(X) - board.count(O) not in (0, 1):
            continue
        x = sum(1 << cell for cell, digit in enumerate(board) if digit == X)
        o = sum(1 << cell for cell, digit in enumerate(board) if digit == O)
        assert (gravity.stacking_order(rows, cols, x, o) is None) == (stacking_order(board, rows, cols) is None), board


LINES = line_masks(6, 7, 4)
"""Connect Four's lines as cell masks (the reference's; cell ``row * 7 + col``, row 0 the top)."""


def _random_move_strings(count: int, seed: int) -> list[str]:
    """Move strings of Connect Four played by random legal moves, some ending the game on their last move, some
    with a move after the end."""
    rng = random.Random(seed)
    strings = []
    for _ in range(count):
        heights, moves, mine = [0] * 7, "", [0, 0]
        for ply in range(rng.randint(0, 41)):
            col = rng.choice([c for c in range(7) if heights[c] < 6])
            mine[ply % 2] |= 1 << ((5 - heights[col]) * 7 + col)
            heights[col] += 1
            moves += str(col + 1)
            if any(line & mine[ply % 2] == line for line in LINES):
                if rng.random() < 0.5:
                    moves += str(rng.choice([c for c in range(7) if heights[c] < 6]) + 1)
                break
        strings.append(moves)
    return strings


def test_a_played_move_string_is_the_position_its_code_is() -> None:
    table = solver.table_for("connect4").bounded(budget=30)
    answered = refused = 0
    for moves in _random_move_strings(80, seed=7):
        try:
            code = move_string_code(moves, table.game)
        except InvalidBoardError as error:  # a move after the end: refused by the bitboards' path too, in the same words
            with pytest.raises(InvalidBoardError) as played:
                table.at_moves(moves)
            assert str(played.value) == str(error)
            refused += 1
            continue
        if len(moves) < 20:  # kept short: the search of an early position takes seconds without the book's depth
            continue
        played, read = table.at_moves(moves), table.at(code)
        assert (played.code, played.score, played.best_mask, played.move_scores) == (read.code, read.score, read.best_mask, read.move_scores)
        answered += 1
    assert answered >= 10 and refused >= 5


@pytest.mark.parametrize("moves", ["4444444", "44x", "0", " 4453 ", "", "1212121"])
def test_a_move_string_the_bitboards_refuse_is_read_by_the_rules(moves: str) -> None:
    table = solver.table_for("connect4")
    try:
        code = move_string_code(moves, table.game)
    except InvalidBoardError as error:
        with pytest.raises(InvalidBoardError) as found:
            solver.lookup(moves=moves, game="connect4")
        assert str(found.value) == str(error)
        return
    assert solver.lookup(moves=moves, game="connect4").code == code


@pytest.mark.parametrize("name", ["connect4", "4x5k4-gravity", "3x3k3-gravity", "10x3k3-gravity", "9x6k4-gravity", "7x8k4-gravity"])
def test_the_engines_code_of_a_played_move_string_is_the_rules_code(name: str) -> None:
    from solver.rules.game import parse_game
    from solver.search.position import from_moves

    game = parse_game(name)
    rng = random.Random(name)
    checked = 0
    for _ in range(300):
        heights, moves = [0] * game.cols, ""
        for _ in range(rng.randint(0, game.cells - 1)):
            col = rng.choice([c for c in range(game.cols) if heights[c] < game.rows])
            heights[col] += 1
            moves += str(col + 1)
        try:
            played = from_moves(game, moves)
        except InvalidBoardError:
            continue  # the game ended on the way: the rules' reading is tested above
        assert played.code == move_string_code(moves, game), moves
        checked += 1
    assert checked >= 30


@pytest.mark.parametrize(("moves", "game", "said"), [("4444444", "5x6k4-gravity", "column 4 is full"), ("44", "5x5k4", "has no gravity")])
def test_a_move_string_that_cannot_be_played_is_refused_before_a_table_is_opened(moves: str, game: str, said: str) -> None:
    from solver.store.tablebase import Tablebase

    tablebase = Tablebase(table_dir=None)
    with pytest.raises(InvalidBoardError, match=said):
        tablebase.lookup_moves(moves, game=game)  # not BuildNeedsConsent: neither game's table is at hand
    assert dict(tablebase.opened) == {}


@pytest.mark.parametrize("name", ["connect4", "3x3k3-gravity", "3x4k3-gravity"])
def test_any_text_is_played_by_the_compiled_call_as_the_rules_read_it(name: str) -> None:
    """``from_moves`` plays a plain move string in one compiled call (``solver.search.bitboard.play_string``) and reads
    anything else move by move. Whatever the text (other characters, full columns, lines, full boards): a position it
    gives is the one the same columns give played one by one, with the rules' code; what the rules refuse it refuses
    (naming the move where they name one), and what else it refuses the rules call a finished game."""
    from solver.encoding.coderules import code_rules
    from solver.rules.base import DRAWN, LINE
    from solver.rules.game import parse_game
    from solver.search.position import from_moves

    game = parse_game(name)
    rng = random.Random(name)
    alphabet = "".join(str(col) for col in range(1, game.cols + 1)) * 6 + "0 8x\u0663"
    played = refused = finished = 0
    for _ in range(1500):
        moves = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, game.cells + 2)))
        try:
            code = move_string_code(moves, game)
        except InvalidBoardError as error:
            with pytest.raises(InvalidBoardError, match="^move ") if str(error).startswith("move ") else pytest.raises(InvalidBoardError):
                from_moves(game, moves)  # naming a move where the rules name one (the engine words a line its own way)
            refused += 1
            continue
        try:
            where = from_moves(game, moves)
        except InvalidBoardError:
            assert code_rules(game).judge(code)[0] in (LINE, DRAWN), moves  # the board is finished: nothing to search
            finished += 1
            continue
        assert where.code == code, moves
        assert where == from_moves(game, [int(char) for char in moves.strip()]), moves  # a list is played move by move
        played += 1
    assert played >= 50 and refused >= 300 and finished >= 1


def test_a_score_asked_by_move_string_is_the_score_of_its_board_however_its_search_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    """``Engine.score(moves=...)`` plays and searches a plain string in one compiled call; a search the short try does
    not end goes on in the worker threads from what it found (here with a short try of 30 positions), and a position
    within the book's depth is read the general way. Each gives the score of the same board given as a board."""
    from solver.search import engine as engine_module
    from solver.search.engine import Engine
    from solver.search.position import from_moves

    rng = random.Random(11)
    strings = []
    while len(strings) < 40:
        game = solver.table_for("connect4").game
        heights, moves = [0] * 7, ""
        for _ in range(rng.randint(14, 34)):
            col = rng.choice([c for c in range(7) if heights[c] < 6])
            heights[col] += 1
            moves += str(col + 1)
        try:
            strings.append((moves, from_moves(game, moves).code))
        except InvalidBoardError:
            continue  # the game ended on the way
    boards, strung, searched = [], [], 0
    for moves, code in strings:  # each on a fresh engine of one thread: the same search, the same positions visited
        by_board, by_string = (Engine("connect4", table_bytes=1 << 22, threads=1) for _ in range(2))
        boards.append(by_board.score(code))
        strung.append(by_string.score(moves=moves))
        assert by_string.nodes == by_board.nodes, moves
        searched += by_board.nodes > 0  # none for a position the side to move wins at once
    assert strung == boards and searched >= 8
    monkeypatch.setattr(engine_module, "SHORT", np.int64(30))
    short = Engine("connect4", table_bytes=1 << 22)
    assert [short.score(moves=moves) for moves, _ in strings] == boards


@pytest.mark.parametrize("moves", ["12", "4453", "1"])
def test_a_move_string_of_a_board_of_ten_columns_is_refused_as_the_rules_refuse_it(moves: str) -> None:
    """One digit a column: a board of more than nine columns writes its moves as a list, never as a string, even one
    whose digits are all columns of it (the compiled call must not play it)."""
    from solver.rules.game import parse_game
    from solver.search.position import from_moves

    game = parse_game("4x10k4-gravity")
    with pytest.raises(InvalidBoardError, match="10 columns"):
        move_string_code(moves, game)
    with pytest.raises(InvalidBoardError, match="10 columns"):
        from_moves(game, moves)
    assert from_moves(game, [int(char) for char in moves]).pieces == len(moves)  # as a list of numbers: played


def test_ctrl_c_during_a_move_strings_short_search_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C seen as the compiled call of ``Engine.score(moves=...)`` returns raises ``SearchInterrupted`` naming the
    moves (as the general way's short search does), and the engine then answers right."""
    from solver.errors import SearchInterrupted
    from solver.search.engine import Engine

    eng = Engine("connect4", table_bytes=1 << 22, threads=1)
    searched = eng._solve_string  # the compiled call, without numba's dispatch

    def interrupted(*args: object) -> object:
        searched(*args)
        raise KeyboardInterrupt

    monkeypatch.setattr(eng, "_solve_string", interrupted)
    with pytest.raises(SearchInterrupted, match=r"after '44455554221' \(6x7k4-gravity\) stopped at Ctrl-C after \d+ positions"):
        eng.score(moves="44455554221")
    monkeypatch.undo()
    assert eng.score(moves="44455554221") == -98


def test_the_score_bytes_of_the_kernels_are_those_of_python_for_every_score_and_piece_count() -> None:
    from solver.search.negamax import _score_byte, score_byte

    for cells in (42, 20, 30):
        for pieces in range(cells):
            for score in range(-(cells // 2) - 1, cells // 2 + 2):
                assert _score_byte(score, pieces, cells) == score_byte(score, pieces, cells), (score, pieces, cells)


@pytest.mark.parametrize("name", ["connect4", "5x4k4-gravity", "4x6k3-gravity"])
def test_every_move_valued_by_the_compiled_call_is_as_the_general_way_values_it(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``Engine.move_scores`` takes the compiled call's answer (cells in order, score bytes) when its short try values
    every move; with a short try of 1 position most searches go on in the worker threads and the answer is made
    from each column's score in Python. Both give each move's cell and byte alike, on boards of 4 to 6 rows."""
    from solver.search import engine as engine_module
    from solver.search.engine import Engine
    from solver.search.position import from_moves

    rng = random.Random(23)
    game = Engine(name, table_bytes=1 << 20, threads=1).game
    wheres = []
    while len(wheres) < 30:
        heights, moves = [0] * game.cols, []
        for _ in range(rng.randint(game.cells // 3, game.cells - 4)):
            col = rng.choice([c for c in range(game.cols) if heights[c] < game.rows])
            heights[col] += 1
            moves.append(col + 1)
        try:
            wheres.append(from_moves(game, moves))
        except InvalidBoardError:
            continue  # the game ended on the way
    compiled = [Engine(name, table_bytes=1 << 20, threads=1).move_scores(where) for where in wheres]
    monkeypatch.setattr(engine_module, "SHORT", np.int64(1))
    general, handed = [], 0
    for where in wheres:
        engine = Engine(name, table_bytes=1 << 20, threads=1)
        general.append(engine.move_scores(where))
        handed += engine.nodes > 1
    assert compiled == general and handed >= 5
    for (score, moves), where in zip(compiled, wheres, strict=True):
        assert [cell for cell, _ in moves] == sorted(cell for cell, _ in moves) and score == max(byte for _, byte in moves)
        assert {cell % game.cols for cell, _ in moves} == {c for c in range(game.cols) if where.mask >> (c * (game.rows + 1) + game.rows - 1) & 1 == 0}


def _strings_of_games_that_go_on(name: str, count: int, seed: int) -> list[str]:
    """Move strings of random legal moves of at least a third of the board, the game still going on after each."""
    from solver.rules.game import parse_game
    from solver.search.position import from_moves

    game, rng, strings = parse_game(name), random.Random(seed), []
    while len(strings) < count:
        heights, moves = [0] * game.cols, ""
        for _ in range(rng.randint(game.cells // 3, game.cells - 4)):
            col = rng.choice([c for c in range(game.cols) if heights[c] < game.rows])
            heights[col] += 1
            moves += str(col + 1)
        try:
            from_moves(game, moves)
        except InvalidBoardError:
            continue  # the game ended on the way
        strings.append(moves)
    return strings


def _search_table(name: str) -> solver.Table:
    """A search table of its own (an empty transposition table, no answer kept, no book)."""
    from solver.search.engine import Engine
    from solver.store.searched import SearchTable

    return SearchTable(Engine(name, table_bytes=1 << 22, threads=1))


@pytest.mark.parametrize("name", ["connect4", "5x4k4-gravity", "7x8k4-gravity"])
def test_a_move_string_looked_up_is_answered_by_one_compiled_call_as_its_board_is(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A look-up of a move string with no bounds plays, checks and values every move in one compiled call
    (``Engine.string_answer``, ``short_answer_string``). Its position is the one the rules read from the string, and
    its answer (score, best moves, every move's score) is that of the same board looked up by code the general way
    (each on a table of its own). With a short try of 3 positions the call leaves most moves to the general way, which
    answers alike."""
    from solver.search import engine as engine_module
    from solver.search.position import from_moves

    strings = _strings_of_games_that_go_on(name, 25, seed=31)
    fast, general = _search_table(name), _search_table(name)
    for moves in strings:
        played = fast.at_moves(moves)
        read = general.at(move_string_code(moves, played.game))
        assert (played.code, played.pieces, played.score, played.best_mask, played.move_scores) == (
            read.code,
            read.pieces,
            read.score,
            read.best_mask,
            read.move_scores,
        ), moves
        assert played.best_mask == sum(1 << cell for cell, byte in played.move_scores if byte == played.score), moves
    engine = _search_table(name).engine  # type: ignore[attr-defined]
    for moves in strings[:5]:
        found, where = engine.string_answer(moves), from_moves(engine.game, moves)
        assert found is not None and (found.code, found.pieces) == (where.code, where.pieces), moves
    monkeypatch.setattr(engine_module, "SHORT", np.int64(1))
    short, left = _search_table(name), 0
    for moves in strings:
        tried = short.engine.string_answer(moves)  # type: ignore[attr-defined]
        if tried.answer is None:
            left += 1
            assert tried.tried[0] == from_moves(short.game, moves), moves
        played, read = _search_table(name).at_moves(moves), general.at(move_string_code(moves, general.game))
        assert (played.code, played.score, played.best_mask, played.move_scores) == (read.code, read.score, read.best_mask, read.move_scores), moves
    assert left >= 5


def test_a_look_up_keeps_an_answer_only_when_finding_it_again_would_cost_a_search() -> None:
    """An answer the compiled call finds in fewer than ``KEEP_NODES`` positions is not kept (a second look-up finds it
    again, the same), one that took more is kept (a second look-up reads it); either way the answer is the same."""
    from solver.store.searched import KEEP_NODES

    table = _search_table("connect4")
    engine = table.engine  # type: ignore[attr-defined]
    kinds = set()
    for moves in _strings_of_games_that_go_on("connect4", 40, seed=5):
        found = engine.string_answer(moves)
        if found is None or found.answer is None:
            continue
        fresh = _search_table("connect4")
        played = fresh.at_moves(moves)
        kept = fresh._shared.recall(played.code)  # type: ignore[attr-defined]
        long = fresh.engine.nodes >= KEEP_NODES  # type: ignore[attr-defined]
        assert (kept is not None) == long, (moves, fresh.engine.nodes)  # type: ignore[attr-defined]
        kinds.add(long)
        again = fresh.at_moves(moves)
        answered = (found.answer.score, found.answer.best_mask, found.answer.scored)
        assert (again.score, again.best_mask, again.move_scores) == (played.score, played.best_mask, played.move_scores) == answered, moves
    assert kinds == {True, False}


@pytest.mark.parametrize("moves", ["4444444", "44x", "0", " 4453", "\u0663", "1212121", "12121214"])
def test_a_move_string_the_compiled_call_does_not_play_plainly_is_left_to_the_rules(moves: str) -> None:
    """A full column, a character that is not a column, a line on the board, a finished game: ``string_answer`` gives
    None (nothing searched), and the look-up reads the string by the rules, refusing it in their words or answering
    the finished board."""
    table = _search_table("connect4")
    assert table.engine.string_answer(moves) is None  # type: ignore[attr-defined]
    try:
        code = move_string_code(moves, table.game)
    except InvalidBoardError as error:
        with pytest.raises(InvalidBoardError) as found:
            table.at_moves(moves)
        assert str(found.value) == str(error)
        return
    assert table.at_moves(moves).code == code


def test_ctrl_c_during_a_looked_up_move_strings_compiled_call_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C seen as the compiled call of a look-up by move string returns raises ``SearchInterrupted`` naming the
    moves, keeps no answer, and the table then answers right."""
    from solver.errors import SearchInterrupted

    table = _search_table("connect4")
    engine = table.engine  # type: ignore[attr-defined]
    searched = engine._answer_string  # the compiled call, without numba's dispatch

    def interrupted(*args: object) -> object:
        searched(*args)
        raise KeyboardInterrupt

    monkeypatch.setattr(engine, "_answer_string", interrupted)
    engine._lanes.clear()  # a lane binds the compiled call when it is made
    with pytest.raises(SearchInterrupted, match=r"after '44455554221' \(6x7k4-gravity\) stopped at Ctrl-C after \d+ positions"):
        table.at_moves("44455554221")
    monkeypatch.undo()
    engine._lanes.clear()
    assert table.at_moves("44455554221").score == -98
