"""One score decoder (solver.rules.score.decode, and decode_many for arrays): every place that turns a
stored score into a result and plies (Position, its moves, the batch answers, Scores.plies) agrees
with it, and it agrees with the score table of the module docstring."""

from __future__ import annotations

import numpy as np
import pytest

import solver
from solver.rules.score import RESULTS, UNREACHABLE, WIN, decode, decode_many


@pytest.mark.parametrize(
    "score, empty, expected",
    [(99, 8, ("win", 1)), (97, 6, ("win", 3)), (0, 5, ("draw", 5)), (0, 0, ("draw", 0)), (-96, 6, ("loss", 4)), (-WIN, 4, ("loss", 0))],
)
def test_decode_reads_the_documented_score_table(score, empty, expected):
    assert decode(score, empty) == expected


def test_decode_many_is_decode_of_every_score_and_empty_count():
    scores = np.arange(-WIN, WIN + 1, dtype=np.int8).repeat(17)
    empty = np.tile(np.arange(17), 2 * WIN + 1)
    sign, plies = decode_many(scores, empty)
    assert sign.dtype == plies.dtype == np.int8 and sign.shape == plies.shape == scores.shape
    expected = [decode(int(s), int(e)) for s, e in zip(scores, empty, strict=True)]
    assert [(RESULTS[s], p) for s, p in zip(sign.tolist(), plies.tolist(), strict=True)] == expected


def test_decode_many_takes_one_empty_count_for_every_score():
    sign, plies = decode_many(np.array([[97, 0], [-96, UNREACHABLE]], dtype=np.int8), 7)
    assert sign[:, 0].tolist() == [1, -1] and plies.tolist()[0] == [3, 7] and plies[1, 0] == 4


def test_every_position_and_move_reads_its_score_with_the_one_decoder():
    table = solver.table_for("3x3k3")
    codes = table.reachable_codes()
    found = table.lookup_codes(codes)
    assert np.array_equal(found.plies, decode_many(found.score, 9 - found.pieces.astype(np.int16))[1])
    for code in codes[::7].tolist():
        position = table.at(code)
        empty = 9 - position.pieces
        assert (position.result, position.plies) == decode(position.score, empty), position.board
        for move, data in zip(position.moves, position.to_dict()["moves"], strict=True):
            assert (move.result, move.plies) == (data["result"], data["plies"]) == decode(move.score, empty)
