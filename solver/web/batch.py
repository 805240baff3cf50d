"""What the API answers for a position (:func:`position_dict`), and the batch endpoint's answers, vectorised: the same JSON for many codes at once.

One position's answer is ``json.dumps(position_dict(position))`` (what the single look-up
serves): :meth:`Position.to_dict` with ``best_first=True``, and under gravity
(:attr:`MoveRule.writes_columns <solver.rules.parts.MoveRule.writes_columns>`) the moves the rule allows only (the
landing cell of each column that is not full) and ``best_columns``, the best moves as
columns. Made that way, 100,000 distinct 4x4 positions take seconds of
Python; here the table is read for all of them at once (:meth:`Table.lookup_codes` on
the codes and on every child), the moves are ordered with one sort, and each answer is
put together from pre-made pieces of text. The result is the same bytes:
``tests/test_web_api.py`` compares the two on every 3x3 position and thousands of
others, so the two cannot drift apart unnoticed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from typing import Any

import numpy as np

from ..api import OUTCOMES, RESULTS, WIN, Game, Outcome, Position, Table
from ..api import decode_score as decode
from ..api import decode_scores as decode_many
from ..errors import InvalidBoardError, SearchTimeout, one_line

BEST_TEXTS_CACHED = 4096
"""Best-move texts kept (one per distinct best-move mask, ~100 bytes each): a game past
16 cells has up to 2**cells masks, so the cache is bounded (least recently used out)."""


def position_dict(position: Position) -> dict[str, Any]:
    """What ``GET /api/v1/{game}?board=B`` answers: :meth:`Position.to_dict` with ``best_first=True``,
    and under gravity only the moves the rule allows and, after ``best_cells``, ``best_columns``
    (the best moves as columns, in column order: under gravity a move is a column).

    >>> import solver
    >>> answer = position_dict(solver.lookup(".../.../X..", game="3x3k3-gravity"))
    >>> answer["best_cells"], answer["best_columns"], [move["cell"] for move in answer["moves"]]
    ([8], [2], [8, 3, 7])
    """
    data = position.to_dict(best_first=True)
    game = position.game
    if not game.rules.move.writes_columns:
        return data
    x = sum(1 << cell for cell, piece in enumerate(position.cells) if piece == "X")
    o = sum(1 << cell for cell, piece in enumerate(position.cells) if piece == "O")
    playable = game.rules.moves(x, o)
    out: dict[str, Any] = {}
    for key, value in data.items():
        out[key] = [move for move in value if playable >> move["cell"] & 1] if key == "moves" else value
        if key == "best_cells":
            out["best_columns"] = sorted({cell % game.cols for cell in value})
    return out


@cache
def _move_texts(game: Game) -> tuple[np.ndarray, np.ndarray]:
    """The JSON of every possible move: ``[mover, cell, score + 128, best]`` for wins and losses,
    ``[mover, cell, empty cells, best]`` for draws (mover 0 is X)."""
    decided = np.empty((2, game.cells, 256, 2), dtype=object)
    drawn = np.empty((2, game.cells, game.cells + 1, 2), dtype=object)
    for mover, sign in ((0, 1), (1, -1)):
        for cell in range(game.cells):
            row, col = game.coords(cell)
            for best, flag in ((0, "false"), (1, "true")):
                start = f'{{"cell": {cell}, "row": {row}, "col": {col}, "value": '
                for score in range(-WIN, WIN + 1):
                    if score:
                        result, plies = decode(score, 0)
                        value = sign if score > 0 else -sign
                        decided[mover, cell, score + 128, best] = f'{start}{value}, "result": "{result}", "plies": {plies}, "best": {flag}}}'
                for empty in range(game.cells + 1):
                    drawn[mover, cell, empty, best] = f'{start}0, "result": "draw", "plies": {empty}, "best": {flag}}}'
    return decided, drawn


@cache
def _cell_texts(game: Game) -> tuple[str, ...]:
    """``[row, col]`` of every cell, as JSON."""
    return tuple(f"[{cell // game.cols}, {cell % game.cols}]" for cell in range(game.cells))


@lru_cache(maxsize=BEST_TEXTS_CACHED)
def _best_texts(game: Game, mask: int) -> str:
    """``"best_moves": [...], "best_cells": [...]`` of a best-move mask (its set bits only are visited),
    and ``"best_columns": [...]`` under gravity."""
    cells = []
    while mask:
        low = mask & -mask
        cells.append(low.bit_length() - 1)
        mask ^= low
    moves = _cell_texts(game)
    text = f'"best_moves": [{", ".join([moves[cell] for cell in cells])}], "best_cells": [{", ".join(map(str, cells))}]'
    if game.rules.move.writes_columns:
        text += f', "best_columns": [{", ".join(map(str, sorted({cell % game.cols for cell in cells})))}]'
    return text


def answers(table: Table, codes: np.ndarray) -> list[bytes]:
    """``json.dumps(position_dict(table.at(code))).encode()`` for each code (all reachable)."""
    game = table.game
    codes = np.asarray(codes, dtype=np.int64)
    if codes.size == 0:
        return []
    found = table.lookup_codes(codes, check=False)
    score = found.score.astype(np.int64)
    pieces = found.pieces.astype(np.int64)
    best = found.best.astype(np.int64)
    digits = codes[:, None] // 3 ** np.arange(game.cells, dtype=np.int64) % 3
    x_next = pieces % 2 == 0
    moves = _move_lists(table, codes, digits, pieces, best)
    boards = _board_texts(game, digits)
    state = _state_texts(game.rules.outcomes_of_scores(score, pieces), x_next)
    sign, decoded = decode_many(score, game.cells - pieces)
    value = np.where(x_next, sign, -sign).tolist()
    plies = decoded.tolist()
    results = sign.tolist()  # on a finished board too: for the player who would move next (solver.tables.position)
    head = f'{{"game": "{game.name}", "code": '
    best_texts: dict[int, str] = {}
    out = []
    for index, (code, s, mask, result) in enumerate(zip(codes.tolist(), score.tolist(), best.tolist(), results, strict=True)):
        result_text = f'"result": "{RESULTS[result]}", '
        best_text = best_texts.get(mask)
        if best_text is None:
            best_text = best_texts[mask] = _best_texts(game, mask)
        out.append(
            f'{head}{code}, "code_str": "{code}", "board": "{boards[index]}", {state[index]}, "value": {value[index]}, '
            f'{result_text}"plies": {plies[index]}, "score": {s}, {best_text}, "moves": [{moves[index]}]}}'.encode()
        )
    return out


def _move_lists(table: Table, codes: np.ndarray, digits: np.ndarray, pieces: np.ndarray, best: np.ndarray) -> list[str]:
    """Each position's moves as the inside of its JSON ``"moves"`` list: every cell the rule lets the side
    to move play (every empty cell; under gravity the landing cell of each column), best first.

    A move's score for the mover comes from its child's score (one :meth:`Table.lookup_codes`
    over every child); the moves are ordered with one sort.
    """
    game = table.game
    powers = 3 ** np.arange(game.cells, dtype=np.int64)
    x_next = pieces % 2 == 0
    empty = game.cells - pieces
    cells = np.arange(game.cells, dtype=np.int64)
    occupied = ((digits != 0).astype(np.int64) << cells).sum(axis=1)
    playable = (np.asarray(game.rules.moves_many(occupied), dtype=np.int64)[:, None] >> cells) & 1
    open_ = (playable != 0) & (best != 0)[:, None]
    piece = np.where(x_next, 1, 2)
    children = np.where(open_, codes[:, None] + piece[:, None] * powers, 0)
    child = table.lookup_codes(children, check=False).score.astype(np.int64)
    move_score = np.sign(child) - child
    order = np.argsort(np.where(open_, -move_score, 1000) * 64 + cells, axis=1)  # cells < 64: ties in score kept in cell order
    decided, drawn = _move_texts(game)
    mover = np.where(x_next, 0, 1)[:, None]
    is_best = (best[:, None] >> cells) & 1
    texts = np.where(
        move_score != 0,
        decided[mover, cells, np.clip(move_score + 128, 0, 255), is_best],
        drawn[mover, cells, empty[:, None], is_best],
    )
    ordered = np.take_along_axis(texts, order, axis=1).tolist()
    counts = open_.sum(axis=1).tolist()
    return [", ".join(row[:count]) for row, count in zip(ordered, counts, strict=True)]


def _board_texts(game: Game, digits: np.ndarray) -> list[str]:
    """Each position's board string, ``"XO./.X./..."``, made as one block of bytes."""
    cells = np.arange(game.cells, dtype=np.int64)
    width = game.cells + game.rows - 1
    chars = np.full((len(digits), width), ord("/"), dtype=np.uint8)
    chars[:, cells + cells // game.cols] = np.frombuffer(b".XO", dtype=np.uint8)[digits]
    text = chars.tobytes().decode("ascii")
    return [text[index * width : (index + 1) * width] for index in range(len(digits))]


def _state_texts(outcome: np.ndarray, x_next: np.ndarray) -> list[str]:
    """Each position's ``"over"`` field and then ``"to_move"`` (play goes on) or ``"winner"`` (it is over), as the
    rule says of its score and pieces (``outcome``: places in :data:`solver.rules.base.OUTCOMES`,
    :meth:`solver.rules.base.Rules.outcomes_of_scores`)."""
    to_move = np.where(x_next, '"over": false, "to_move": "X"', '"over": false, "to_move": "O"')
    texts = np.array([""] * len(OUTCOMES), dtype=object)
    texts[OUTCOMES.index(Outcome.X_WON)] = '"over": true, "winner": "X"'
    texts[OUTCOMES.index(Outcome.O_WON)] = '"over": true, "winner": "O"'
    texts[OUTCOMES.index(Outcome.DRAWN)] = '"over": true, "winner": null'
    state: list[str] = np.where(outcome == OUTCOMES.index(Outcome.IN_PLAY), to_move, texts[outcome]).tolist()
    return state


def searched_answers(answer: Callable[[int], bytes], items: Sequence[int | bytes], budget: float) -> bytes:
    """``{"results": [...]}`` of a batch of a game answered by search: each code's answer (``answer(code)``, the single
    look-up's bytes), searched in order within the request's budget (the caller's
    :func:`~solver.store.searched.searches_by`); an item already an error stays one, a board no game reaches is one,
    and once a search stops at the budget it and every later board not answered yet say so (nothing is searched past it).
    """
    late = json.dumps({"error": f"not answered within the request's budget of {budget:g} s: ask for fewer boards, or this one alone"}).encode()
    results: list[bytes] = []
    stopped = False
    for item in items:
        if isinstance(item, bytes):
            results.append(item)
            continue
        if stopped:
            results.append(late)
            continue
        try:
            results.append(answer(item))
        except SearchTimeout:
            stopped = True
            results.append(late)
        except InvalidBoardError as error:
            results.append(json.dumps({"error": one_line(error)}).encode())
    return b'{"results": [' + b", ".join(results) + b"]}"
