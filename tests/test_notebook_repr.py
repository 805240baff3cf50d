"""Positions and analysed games draw themselves in Jupyter (solver/present/svg.py): checked by parsing what they render."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

import solver
from solver.present import svg

SVG = "{http://www.w3.org/2000/svg}"
BOARDS = [
    ("XO./.X./...", None),
    (".../.../...", None),
    ("XX./OO./...", None),
    ("XOX/OXO/X..", None),
    ("XOX/XOO/OXX", None),
    ("X.O./..../....", "3x4k3"),
    ("XO../O..X", "2x4k2"),
    ("X.O/.X./..O/...", "4x3k3"),
]


def _cells(position: solver.Position) -> dict[int, ET.Element]:
    root = ET.fromstring(position._repr_svg_())
    assert root.tag == f"{SVG}svg"
    return {int(group.attrib["data-cell"]): group for group in root.iter(f"{SVG}g") if "data-cell" in group.attrib}


def _texts(group: ET.Element) -> list[str]:
    return [text.text or "" for text in group.iter(f"{SVG}text")]


def _expected_name(position: solver.Position, move: solver.Move) -> str:
    verb = {"win": "wins", "draw": "draws", "loss": "loses"}[move.result]
    plies = "" if move.result == "draw" else f" in {move.plies} {'ply' if move.plies == 1 else 'plies'}"
    best = ", best move" if move.best else ""
    return f"row {move.row}, column {move.col}: {position.to_move} {verb}{plies}{best}"


@pytest.mark.parametrize(("board", "game"), BOARDS)
def test_every_cell_of_the_svg_shows_its_piece_or_the_outcome_lookup_gives(board: str, game: str | None, table_dir: object) -> None:
    position = solver.lookup(board, game=game)
    cells = _cells(position)
    assert sorted(cells) == list(range(position.game.cells))
    moves = {move.cell: move for move in position.moves}
    for cell, group in cells.items():
        row, col = position.game.coords(cell)
        if cell in moves:
            move = moves[cell]
            assert move.label in _texts(group), f"cell {cell} of {board}"
            assert group.attrib["aria-label"] == _expected_name(position, move)
            outlined = any(rect.attrib.get("stroke") == svg.BEST_STROKE for rect in group.iter(f"{SVG}rect"))
            assert outlined == move.best and ("★" in _texts(group)) == move.best, f"cell {cell} of {board}"
            fill = next(group.iter(f"{SVG}rect")).attrib["fill"]
            assert fill == svg.COLOURS[move.result][0]
        else:
            piece = position.cells[cell]
            assert _texts(group) == ([piece] if piece else []), f"cell {cell} of {board}"
            assert group.attrib["aria-label"] == f"row {row}, column {col}: {piece or 'empty'}"


def test_every_3x3_position_renders_one_label_per_empty_cell_matching_its_move() -> None:
    table = solver.table_for("3x3k3")
    for code in table.reachable_codes().tolist():
        position = table.at(code)
        cells = _cells(position)
        labels = {cell: _texts(group)[-1] for cell, group in cells.items() if position.cells[cell] is None and position.moves}
        assert labels == {move.cell: move.label for move in position.moves}, position.board


def test_the_picture_is_self_contained_no_script_no_style_element_no_id_no_network() -> None:
    for board, game in BOARDS[:4]:
        for markup in (solver.lookup(board, game=game)._repr_svg_(), solver.lookup(board, game=game)._repr_html_()):
            lowered = markup.lower()
            assert "<script" not in lowered and "<style" not in lowered and " id=" not in lowered
            assert "on" + "click" not in lowered and "javascript:" not in lowered
            assert re.findall(r"https?://[^\"' ]+", markup) == ["http://www.w3.org/2000/svg"]


def test_the_html_repr_holds_the_svg_and_says_the_result_in_words() -> None:
    position = solver.lookup("XO./.X./...")
    html = position._repr_html_()
    assert position._repr_svg_() in html
    assert "O to move: a loss in 4 plies with best play (value for X: +1)" in html
    assert "best (row,col): (2,2)" in html and "code 88 (3x3k3)" in html
    assert "Game over: X has won" in solver.lookup("XXX/OO./...")._repr_html_()
    assert "Game over: a draw" in solver.lookup("XOX/XOO/OXX")._repr_html_()


def test_plain_repr_is_the_board_and_the_result_in_one_line() -> None:
    """What a Python prompt (and a notebook's text/plain) shows, beside the pictures."""
    position = solver.lookup("XO./.X./...")
    assert repr(position) == "<Position 3x3k3 XO./.X./... O to move: loss in 4 plies (value for X: +1)>"
    assert repr(solver.analyze([4])) == "<GameAnalysis 3x3k3 [4] X: 1 best; now .../.X./... O to move: draw, 8 plies to the end (value for X: 0)>"


class _Rows(HTMLParser):
    """The text of each ``<tr data-ply>`` of the analysis table."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[int, list[str]] = {}
        self._ply: int | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            ply = dict(attrs).get("data-ply")
            self._ply = int(ply) if ply else None
            if self._ply is not None:
                self.rows[self._ply] = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "tr":
            self._ply = None

    def handle_data(self, data: str) -> None:
        if self._ply is not None and data.strip():
            self.rows[self._ply].append(data.strip())


def test_an_analysed_game_renders_a_row_per_ply_with_its_verdict_and_the_final_board() -> None:
    analysis = solver.analyze([0, 1, 3, 4, 5, 7])  # the README's game: best, mistake, best, ok, blunder, best
    html = analysis._repr_html_()
    parser = _Rows()
    parser.feed(html)
    assert sorted(parser.rows) == [1, 2, 3, 4, 5, 6]
    assert [row[-1] for row in parser.rows.values()] == [ply.verdict for ply in analysis.plies]
    assert parser.rows[2] == ["2", "O", "0,1 (1)", "1,1", "D", "L6", "mistake"]
    assert f"3x3k3 board {analysis.final.board}: Game over" in html  # the final board's picture
    assert "Game over: O has won" in html
    assert "X: 3 moves; best 2, ok 0, mistakes 0, blunders 1" in html
    assert "<script" not in html.lower()


def test_jupyter_picks_the_html_repr_when_ipython_is_installed() -> None:
    formatters = pytest.importorskip("IPython.core.formatters", reason="IPython is not installed (optional)")
    html = formatters.HTMLFormatter()(solver.lookup(88))
    assert html is not None and 'data-cell="8"' in html


@pytest.mark.parametrize("board", ["XO./.X./...", "XXX/OO./...", "XOX/XOO/OXX"])
def test_pieces_are_drawn_in_the_page_colours_x_blue_and_o_red(board: str) -> None:
    position = solver.lookup(board)
    page_css = (Path(svg.__file__).parents[1] / "web" / "static" / "style.css").read_text()
    for player, colour in svg.PIECE_COLOURS.items():
        assert f"--{player.lower()}: {colour};" in page_css, "the page and the notebook picture use one colour per piece"
    for cell, group in _cells(position).items():
        piece = position.cells[cell]
        if piece:
            (text,) = group.iter(f"{SVG}text")
            assert text.text == piece and text.attrib["fill"] == svg.PIECE_COLOURS[piece], f"cell {cell} of {board}"
    assert svg.PIECE_COLOURS == {"X": "#0d47a1", "O": "#bf360c"}


def test_a_finished_board_has_no_move_legend_and_a_board_in_play_has_one() -> None:
    legend = "loss in <i>n</i> plies for the mover"
    assert legend in solver.lookup("XO./.X./...")._repr_html_()
    for board in ("XXX/OO./...", "XOX/XOO/OXX"):  # X won; a draw on a full board
        html = solver.lookup(board)._repr_html_()
        assert legend not in html and "★" not in html and "best (row,col)" not in html, board
