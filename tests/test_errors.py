"""The words of an error, shared by the front ends: errors.one_line (``solve`` and the HTTP API)
and errors.short (a player's answer in a grading report)."""

from __future__ import annotations

import copy

import pytest

from solver.errors import InvalidBoardError, SearchTimeout, one_line, short


def test_one_line_joins_lines_and_keeps_every_other_space():
    error = InvalidBoardError("board string 'X  O' has 4 cells,\n   expected 9\r\n\n for 3x3k3")
    assert one_line(error) == "board string 'X  O' has 4 cells, expected 9 for 3x3k3"
    assert one_line("already one line") == "already one line"


def test_the_cli_and_the_http_api_show_an_error_with_the_same_function():
    import solver.cli
    import solver.web.app

    assert solver.cli.group.one_line is one_line
    assert solver.web.app.one_line is one_line


def test_short_is_the_repr_on_one_line_cut_to_the_limit():
    assert short([1, 2]) == "[1, 2]"
    assert short("a\n  b") == "'a\\n b'"  # runs of spaces become one, even inside a string's repr
    assert short({"k": "v\n"}) == "{'k': 'v\\n'}"
    text = short(list(range(100)), limit=20)
    assert text == "[0, 1, 2, 3, 4, 5..." and len(text) == 20


class _Multiline:
    def __repr__(self) -> str:
        return "first\n   second"


class _Broken:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


@pytest.mark.parametrize("value, shown", [(_Multiline(), "first second"), (_Broken(), "<_Broken>")])
def test_short_survives_a_repr_that_spans_lines_or_raises(value, shown):
    assert short(value) == shown


def test_a_search_timeout_keeps_what_stopped_apart_from_the_python_advice() -> None:
    """The command line and the server give time their own way: they print ``what`` and their own advice, never the
    message's text cut at a phrase (a copy, as a process pool makes one, keeps both and adds no second advice)."""
    error = SearchTimeout("the search of X stopped at its budget of 2 s after 2.1 s", seconds=2.1, nodes=7)
    assert str(error) == f"the search of X stopped at its budget of 2 s after 2.1 s: {SearchTimeout.ADVICE}"
    assert error.what == "the search of X stopped at its budget of 2 s after 2.1 s" and SearchTimeout.ADVICE not in error.what
    copied = copy.deepcopy(error)
    assert (str(copied), copied.what, copied.seconds, copied.nodes) == (str(error), error.what, 2.1, 7)
