"""Boards past 32 cells judged many at once (``(boards, 2)`` words) as the rule judges them one at a time.

A table of 33 to 39 cells (6x6k4-gravity, 5x7k4-gravity) answers its batches through
:class:`solver.rules.widegravity.WideRules`' many-board methods, its codes' words
(:meth:`solver.encoding.coderules.CodeRules.words`), its symmetries and its children
(:func:`solver.tables.children.plan`). No table of that size fits a test, so each is held here to the
one-board answers of the same rule, and to plain Python over the cells, on seeded boards: games played
at random, columns filled with random colours (the shape gravity allows, any colours: lines for both,
the wrong turn, lines with no common cell) and random masks (floating pieces). Cells 32 to 38 are where
a 32-bit mask would drop them.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from solver.encoding.coderules import code_rules
from solver.encoding.layouts import layout
from solver.encoding.symmetry import symmetries
from solver.errors import GameTooLargeError
from solver.rules.base import IN_PLAY
from solver.rules.game import Game, parse_game
from solver.tables.children import plan

WIDE = ("6x6k4-gravity", "5x7k4-gravity", "3x13k4-gravity")
"""Boards of 36, 35 and 39 cells: the last the largest whose codes fit int64."""


def played(game: Game, rng: random.Random) -> tuple[int, int]:
    """X's and O's cells after a game played at random for a random number of moves (stopping where it ends)."""
    rules, x, o = game.rules, 0, 0
    for ply in range(rng.randrange(game.cells + 1)):
        moves = rules.moves(x, o)
        if not moves or rules.judge_word(rules.join(x, o))[0] != IN_PLAY:
            break
        cell = rng.choice([c for c in range(game.cells) if moves >> c & 1])
        if ply % 2 == 0:
            x |= 1 << cell
        else:
            o |= 1 << cell
    return x, o


def stacked(game: Game, rng: random.Random) -> tuple[int, int]:
    """Columns filled from the bottom to random heights, each piece X or O at random (counts not balanced)."""
    x = o = 0
    for col in range(game.cols):
        for row in range(game.rows - 1, game.rows - 1 - rng.randrange(game.rows + 1), -1):
            if rng.random() < 0.5:
                x |= 1 << game.cell(row, col)
            else:
                o |= 1 << game.cell(row, col)
    return x, o


def scattered(game: Game, rng: random.Random) -> tuple[int, int]:
    """Random disjoint masks: mostly floating pieces."""
    x = rng.getrandbits(game.cells)
    return x, rng.getrandbits(game.cells) & ~x


def boards(game: Game, count: int, seed: int = 0) -> tuple[list[int], list[int]]:
    """``count`` boards of every kind above, as X's and O's cell masks."""
    rng, xs, os = random.Random(seed), [], []
    for n in range(count):
        x, o = (played, stacked, scattered)[n % 3](game, rng)
        xs.append(x)
        os.append(o)
    return xs, os


def code_of(x: int, o: int, cells: int) -> int:
    """The base-3 code of a board (digit ``cell``: 1 X, 2 O), in plain Python."""
    return sum((1 if x >> cell & 1 else 2 if o >> cell & 1 else 0) * 3**cell for cell in range(cells))


@pytest.mark.parametrize("name", WIDE)
def test_many_wide_boards_get_the_status_and_pieces_the_rule_gives_each(name: str) -> None:
    game = parse_game(name)
    rules = game.rules
    xs, os = boards(game, 1500)
    status, pieces = rules.classify_words(rules.join_many(np.array(xs), np.array(os)))
    one = [rules.judge_word(rules.join(x, o)) for x, o in zip(xs, os, strict=True)]
    assert status.tolist() == [s for s, _ in one]
    assert [p for p, s in zip(pieces.tolist(), status.tolist(), strict=True) if s != 3] == [p for s, p in one if s != 3]
    assert rules.statuses_of_words(rules.join_many(np.array(xs), np.array(os))).tolist() == status.tolist()
    assert len(set(status.tolist())) >= 3, "in play, lines and invalid boards all met"
    assert any(x >> 32 or o >> 32 for x, o in zip(xs, os, strict=True)), "cells past 32 are used"


@pytest.mark.parametrize("name", WIDE)
def test_many_wide_boards_get_the_moves_and_winning_cells_of_each(name: str) -> None:
    game = parse_game(name)
    rules = game.rules
    xs, os = boards(game, 900, seed=1)
    x, o = np.array(xs), np.array(os)
    empty = rules.moves_many(x | o)
    assert empty.tolist() == [rules.moves(a, b) for a, b in zip(xs, os, strict=True)]
    winning = rules.winning_cells_many(x, empty)
    assert winning.dtype == np.uint64
    assert winning.tolist() == [rules.winning_cells(a, rules.moves(a, b)) for a, b in zip(xs, os, strict=True)]
    assert any(w >> 32 for w in winning.tolist()), "a winning cell past 32 is kept"


@pytest.mark.parametrize("name", WIDE)
def test_many_wide_codes_give_the_words_and_statuses_of_each(name: str) -> None:
    game = parse_game(name)
    coded, rules = code_rules(game), game.rules
    xs, os = boards(game, 600, seed=2)
    codes = np.array([code_of(x, o, game.cells) for x, o in zip(xs, os, strict=True)], dtype=np.int64)
    words = coded.words(codes)
    assert words.shape == (codes.size, 2)
    assert words[:, 0].tolist() == xs and words[:, 1].tolist() == os
    assert [coded.word_of(int(c)) for c in codes] == [rules.join(x, o) for x, o in zip(xs, os, strict=True)]
    assert coded.classify(codes)[0].tolist() == [coded.status_of(int(c)) for c in codes]


def test_codes_past_39_cells_are_refused_in_batches() -> None:
    with pytest.raises(GameTooLargeError, match="40 cells: its codes pass int64"):
        code_rules(parse_game("4x10k4-gravity")).words(np.zeros(1, dtype=np.int64))


def test_a_wide_boards_canonical_codes_and_masks_in_batches_are_each_boards() -> None:
    game = parse_game("6x6k4-gravity")
    sym = symmetries(game)
    xs, os = boards(game, 600, seed=3)
    codes = np.array([code_of(x, o, game.cells) for x, o in zip(xs, os, strict=True)], dtype=np.int64)
    assert sym.canonical_codes(codes).tolist() == [sym.canonical_code_of(int(c)) for c in codes]
    which = np.arange(len(xs)) % sym.count
    moved = sym.masks_to_caller(np.array(xs), which)
    assert moved.tolist() == [sym.mask_to_caller(x, int(s)) for x, s in zip(xs, which, strict=True)]
    assert any(m >> 32 for m in moved.tolist())


def test_a_wide_boards_children_in_batches_are_each_boards() -> None:
    """:func:`plan`'s settled masks are the rule's of each board, and the children it reads are each board's
    children at their canonical boards' indices (the moves past cell 31 included)."""
    game = parse_game("6x6k4-gravity")
    rules, coded, sym, index = game.rules, code_rules(game), symmetries(game), layout(game)
    xs, os = boards(game, 900, seed=4)
    kept = [(x, o) for x, o in zip(xs, os, strict=True) if rules.judge_word(rules.join(x, o))[0] == IN_PLAY]
    codes = np.array([code_of(x, o, game.cells) for x, o in kept], dtype=np.int64)
    pieces = np.array([(x | o).bit_count() for x, o in kept], dtype=np.uint8)
    masks, children = plan(game, codes, pieces)
    for row, (x, o) in enumerate(kept):
        mover = x if pieces[row] % 2 == 0 else o
        empty = rules.moves(x, o)
        assert int(masks[row]) == rules.settled_moves(rules.winning_cells(mover, empty), empty, int(pieces[row]))
    read = 0
    for found in children:
        grid = found.places.reshape(-1)
        cells, rows = np.divmod(grid, found.rows.size)
        for child, cell, at in zip(found.index.tolist(), cells.tolist(), rows.tolist(), strict=True):
            row = int(found.rows[at])
            piece = 1 if pieces[row] % 2 == 0 else 2
            code = int(codes[row]) + piece * 3**cell
            assert child == int(index.index_of(np.array([sym.canonical_code_of(code)]))[0])
            assert coded.word_of(code) != coded.word_of(int(codes[row]))
            read += 1
    assert read > 500 and any(int(found.places.max()) // found.rows.size >= 32 for found in children)


def test_a_36_cell_compact_table_answers_a_batch_as_one_board_at_a_time(tmp_path) -> None:
    """The whole batch look-up of a table of 36 cells (scores, pieces and best moves: the rules, the codes' words,
    the canonical boards, the index and the children in batches) against :meth:`CompactTable.lookup` one board at a
    time. The table is a sparse file of the 6x6 layout's 600.5 G bytes, mapped, holding seeded scores where the
    boards looked up and their children are read (zeros, draws, elsewhere): no build, a few MB of pages."""
    from solver.tables import CompactTable

    game = parse_game("6x6k4-gravity")
    rules, coded, sym, index = game.rules, code_rules(game), symmetries(game), layout(game)
    path = tmp_path / "6x6.scores"
    with open(path, "wb") as out:
        out.truncate(index.size)
    scores = np.memmap(path, dtype=np.int8, mode="r+", shape=(index.size,))
    rng = random.Random(5)
    picked = [played(game, rng) for _ in range(400)]
    codes = [code_of(x, o, game.cells) for x, o in picked]
    for code in codes:  # a finished board holds its status' score, as a build writes it
        status, pieces = coded.judge(code)
        piece = 1 if pieces % 2 == 0 else 2
        x, o = rules.split(coded.word_of(code))
        children = [code + piece * 3**cell for cell in range(game.cells) if rules.moves(x, o) >> cell & 1] if status == IN_PLAY else []
        for written in (code, *children):
            status = coded.status_of(written)
            value = rules.status_scores[status] if status else rng.choice([-97, -60, 0, 55, 96])
            scores[index.index_of_code(sym.canonical_code_of(written))] = value
    table = CompactTable(game, scores)
    batch = table.lookup_codes(np.array(codes, dtype=np.int64))
    alone = [table.lookup(code) for code in codes]
    assert batch.score.tolist() == [p.score for p in alone]
    assert batch.pieces.tolist() == [p.pieces for p in alone]
    assert batch.best.tolist() == [p.best_mask for p in alone]
    assert len({p.score for p in alone}) >= 4 and any(p.best_mask >> 32 for p in alone), "scores vary; best moves past cell 31 met"
    # the HTTP API's batch answers (its moves sorted by score, then cell) = each position's own answer
    from solver.web.batch import answers, position_dict

    assert [json.loads(text) for text in answers(table, np.array(codes, dtype=np.int64))] == [json.loads(json.dumps(position_dict(p))) for p in alone]


def test_boards_up_to_39_cells_have_tables_and_past_them_a_book(tmp_path) -> None:
    """6x6 and 5x7 are table games: no book is looked for, and a ``<game>.ttt`` in a table directory is opened as their
    table (with none, the engine answers without a book); Connect Four and 5x8k3 (40 cells) keep the engine and a book."""
    from solver.store.book import book_game
    from solver.store.searched import _table_at_hand

    assert not book_game(parse_game("6x6k4-gravity")) and not book_game(parse_game("5x7k4-gravity"))
    assert book_game(parse_game("connect4")) and book_game(parse_game("5x8k3-gravity"))
    six = parse_game("6x6k4-gravity")
    assert not _table_at_hand(six, [tmp_path]), "no file: its build takes hours, so the engine answers"
    (tmp_path / "6x6k4-gravity.ttt").write_bytes(b"")
    assert _table_at_hand(six, [tmp_path]), "a file there: the table, as for any game"
    (tmp_path / "6x7k4-gravity.ttt").write_bytes(b"")
    assert not _table_at_hand(parse_game("connect4"), [tmp_path]), "Connect Four's file is its book"
