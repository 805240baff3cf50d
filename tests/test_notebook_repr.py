"""Positions, analysed games, a table's counts and a grade report draw themselves in Jupyter
(solver/present/svg.py and charts.py): checked by parsing what they render."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import asdict
from html.parser import HTMLParser
from pathlib import Path

import pytest

import solver
from solver.present import charts, svg

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


# -- charts ---------------------------------------------------------------------------------------------
def _svgs(html: str) -> list[ET.Element]:
    """Every ``<svg>`` element of an HTML fragment, parsed as XML."""
    return [ET.fromstring(markup) for markup in re.findall(r"<svg .*?</svg>", html, flags=re.S)]


def _bars(root: ET.Element, kind: str) -> list[dict[str, str]]:
    return [dict(rect.attrib) for rect in root.iter(f"{SVG}rect") if f"data-{kind}" in rect.attrib]


def _assert_self_contained(markup: str) -> None:
    lowered = markup.lower()
    assert "<script" not in lowered and "<style" not in lowered and " id=" not in lowered and "on" + "click" not in lowered
    assert re.findall(r"https?://[^\"' ]+", markup) == ["http://www.w3.org/2000/svg"] * markup.count("<svg ")
    for root in _svgs(markup):
        assert all("style" not in element.attrib for element in root.iter()), "attributes only: a page's CSP refuses style attributes"


def test_counts_by_ply_are_the_positions_with_that_many_pieces_by_result() -> None:
    """Counted again position by position: every reachable 3x3 board looked up, by pieces and result."""
    table = solver.table_for("3x3k3")
    expected: dict[int, dict[str, int]] = {}
    for code in table.reachable_codes().tolist():
        position = table.at(code)
        ply = sum(piece is not None for piece in position.cells)
        row = expected.setdefault(ply, dict.fromkeys(("positions", "wins", "draws", "losses", "finished"), 0))
        row["positions"] += 1
        row[{"win": "wins", "draw": "draws", "loss": "losses"}[position.result]] += 1
        row["finished"] += position.is_over
    counted = table.ply_counts()
    assert [asdict(counts) for counts in counted] == [expected[ply] for ply in range(10)]
    assert counted == table.stats().by_ply(), "the cheap count and the full stats agree"
    assert [counts.positions for counts in counted] == [1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78]


@pytest.mark.parametrize("game", ["3x3k3", "2x4k2", "3x4k3"])
def test_the_stats_chart_draws_each_plys_shares_of_x_wins_draws_and_o_wins(game: str, table_dir: object) -> None:
    stats = solver.table_for(game).stats()
    html = stats._repr_html_()
    assert html is not None
    _assert_self_contained(html)
    (root,) = _svgs(html)
    assert root.attrib["aria-label"].startswith(f"{game}: ")
    bars = _bars(root, "outcome")
    layers = stats["layers"]
    for layer in layers:
        ply, mover_wins = layer["ply"], layer["ply"] % 2 == 0
        expected = {
            "x_wins": layer["wins"] if mover_wins else layer["losses"],
            "draws": layer["draws"],
            "o_wins": layer["losses"] if mover_wins else layer["wins"],
        }
        drawn = {bar["data-outcome"]: bar for bar in bars if int(bar["data-ply"]) == ply}
        if not layer["positions"]:  # every game is over before this ply (2x4k2: from ply 6 on)
            assert drawn == {}
            continue
        assert {key: int(drawn[key]["data-count"]) if key in drawn else 0 for key in expected} == expected, ply
        shares = [bar for key, bar in drawn.items() if key != "positions"]
        for bar in shares:  # each bar as tall as its share of the ply's positions
            assert int(bar["data-of"]) == layer["positions"]
            assert float(bar["height"]) == pytest.approx(charts.PLOT_HEIGHT * int(bar["data-count"]) / layer["positions"], abs=0.01)
        assert sum(float(bar["height"]) for bar in shares) == pytest.approx(charts.PLOT_HEIGHT, abs=0.05), "the shares fill the bar"
        tops = sorted(shares, key=lambda bar: float(bar["y"]))
        assert [bar["data-outcome"] for bar in tops] == [key for key in ("x_wins", "draws", "o_wins") if key in drawn], "X's wins on top"
        most = max(other["positions"] for other in layers)
        assert float(drawn["positions"]["height"]) == pytest.approx(charts.POSITIONS_HEIGHT * layer["positions"] / most, abs=0.01)
    assert "reachable positions" in html and f"{stats['positions']:,}" in html, "the totals solve stats prints"


def test_solve_stats_svg_writes_the_chart_and_still_prints_the_text(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from solver.cli import main

    chart = tmp_path / "outcomes.svg"
    result = CliRunner().invoke(main, ["stats", "--svg", str(chart)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("game                    3x3k3\n") and "  layer 9" in result.stdout
    written = chart.read_text()
    _assert_self_contained(written)
    assert written == charts.outcomes_svg(solver.table_for("3x3k3").ply_counts(), game="3x3k3")
    for missing in (tmp_path / "missing" / "outcomes.svg", chart / "outcomes.svg"):  # no such directory; a file, not a directory
        refused = CliRunner().invoke(main, ["stats", "--svg", str(missing)])
        reason = f"{missing.parent} is not a directory this user can write to"
        assert refused.exit_code == 1 and refused.stderr == f"solve: error: cannot write the chart to {missing}: {reason}\n"
    assert not (tmp_path / "missing").exists()


# -- a grade report --------------------------------------------------------------------------------------
SIMPLE = Path(__file__).parent / "players" / "simple_players.py"


@pytest.fixture(scope="module")
def first_empty_report() -> solver.GradeReport:
    """A player with every kind of answer but errors: best moves, slower ones, mistakes and blunders."""
    return solver.grade(solver.load_player(f"{SIMPLE}:first_empty"), side="both")


def _ply(position: solver.Position) -> int:
    return sum(piece is not None for piece in position.cells)


def test_str_of_a_grade_report_is_the_text_solve_grade_prints(first_empty_report: solver.GradeReport) -> None:
    from click.testing import CliRunner

    from solver.cli import main

    result = CliRunner().invoke(main, ["grade", f"{SIMPLE}:first_empty", "--support", str(SIMPLE.parent / "perfect.py"), "--sandbox", "none"])
    assert result.exit_code == 0, result.output
    text = str(first_empty_report)
    assert text.startswith(f"Graded first_empty on {first_empty_report.positions:,} positions of 3x3k3 (X and O to move).\n")
    assert text.replace("Graded first_empty ", f"Graded {SIMPLE}:first_empty ", 1) + "\n" == result.stdout
    assert repr(first_empty_report).startswith("<GradeReport 3x3k3, X and O to move: ")  # the one-line repr stays


def test_faults_by_ply_count_each_plys_graded_positions_and_answers_that_were_not_best(first_empty_report: solver.GradeReport) -> None:
    report = first_empty_report
    rows = report.faults_by_ply()
    graded = Counter(_ply(solver.lookup(code)) for code, _ in report.answers) + Counter(_ply(failure.position) for failure in report.errors)
    assert {row.ply: row.graded for row in rows} == dict(graded) and sum(graded.values()) == report.positions
    for row in rows:
        lost = [item.verdict for item in report.lost if _ply(item.position) == row.ply]
        assert (row.mistakes, row.blunders) == (lost.count("mistake"), lost.count("blunder")), row
        assert row.slower == sum(_ply(item.position) == row.ply for item in report.slower), row
        assert row.errors == 0
    assert sum(row.mistakes for row in rows) == report.mistakes > 0 and sum(row.blunders for row in rows) == report.blunders > 0

    errors = solver.grade(solver.load_player(f"{SIMPLE}:raises_on_full_corners"), side="X").faults_by_ply()
    assert sum(row.errors for row in errors) > 0 and all(row.errors == 0 for row in errors if row.ply < 4), "four corners need four pieces"


def test_a_grade_reports_html_shows_the_counts_the_faults_chart_and_the_boards_the_cli_shows(first_empty_report: solver.GradeReport) -> None:
    report = first_empty_report
    html = report._repr_html_()
    _assert_self_contained(html)
    assert f"Graded first_empty on {report.positions:,} positions" in html and "threw the result away" in html
    chart, *boards = _svgs(html)
    rows = {row.ply: row for row in report.faults_by_ply()}
    scale = charts.fault_scale(list(rows.values()))
    drawn = _bars(chart, "kind")
    assert {(int(bar["data-ply"]), bar["data-kind"]): int(bar["data-count"]) for bar in drawn} == {
        (ply, kind): getattr(row, kind) for ply, row in rows.items() for kind in ("slower", "mistakes", "blunders", "errors") if getattr(row, kind)
    }
    for bar in drawn:  # each as tall as its share of the ply's graded positions, on the chart's scale
        share = int(bar["data-count"]) / rows[int(bar["data-ply"])].graded
        assert int(bar["data-of"]) == rows[int(bar["data-ply"])].graded
        assert float(bar["height"]) == pytest.approx(charts.PLOT_HEIGHT * share / scale, abs=0.01)
    shown = [*report.lost[:20], *report.slower[:20]]  # the CLI's default --limit, in its order
    assert len(boards) == len(shown)
    for item, board in zip(shown, boards, strict=True):
        assert board.attrib["aria-label"].startswith(f"3x3k3 board {item.position.board}: ")
        ringed = [group for group in board.iter(f"{SVG}g") if any(rect.attrib.get("stroke") == "#000" for rect in group.iter(f"{SVG}rect"))]
        assert [int(group.attrib["data-cell"]) for group in ringed] == [item.move.cell], "the move played is ringed"
    captions = re.findall(r"<figcaption[^>]*>(.*?)</figcaption>", html)
    from solver.present.report import graded_line

    assert captions == [graded_line(item).replace(">", "&gt;") for item in shown]
    assert f"... and {len(report.lost) - 20:,} more" in html


# -- a game's value along its plies ---------------------------------------------------------------------------
@pytest.mark.parametrize("moves", [[0, 1, 3, 4, 5, 7], [4, 1, 0], [4, 0, 8, 2, 6, 3, 5, 7, 1]])
def test_an_analysis_charts_the_value_for_x_after_each_ply(moves: list[int]) -> None:
    analysis = solver.analyze(moves)
    html = analysis._repr_html_()
    _assert_self_contained(html)
    chart = next(root for root in _svgs(html) if root.attrib["aria-label"].startswith("3x3k3: the value for X"))
    points = list(chart.iter(f"{SVG}circle"))
    positions = [analysis.plies[0].before] + [ply.after for ply in analysis.plies]
    assert [int(point.attrib["data-ply"]) for point in points] == list(range(len(moves) + 1))
    assert [int(point.attrib["data-value"]) for point in points] == [position.value for position in positions]
    assert [point.attrib.get("data-verdict") for point in points] == [None] + [ply.verdict for ply in analysis.plies]
    for point, position in zip(points, positions, strict=True):
        assert float(point.attrib["cy"]) == pytest.approx(charts.value_y(position.value), abs=0.01), "X wins on top, O wins at the bottom"
        assert point.attrib["fill"] == (charts.START_FILL if "data-verdict" not in point.attrib else svg.VERDICT_COLOURS[point.attrib["data-verdict"]])
    (line,) = chart.iter(f"{SVG}polyline")
    assert line.attrib["points"] == " ".join(f"{point.attrib['cx']},{point.attrib['cy']}" for point in points), "joined in ply order"
    xs = [float(point.attrib["cx"]) for point in points]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)


def test_the_value_points_say_the_move_and_what_best_play_gives_in_words() -> None:
    texts = [point.text for point in svg.value_points(solver.analyze([0, 1, 3, 4, 5, 7]))]
    assert texts[0] == "start: a draw with best play, 9 plies to the end"
    assert texts[2] == "ply 2, O at 0,1 (mistake): X wins with best play, 5 plies to the end"
    assert texts[5] == "ply 5, X at 1,2 (blunder): O wins with best play, 1 ply to the end"
    assert texts[6] == "ply 6, O at 2,1 (best): game over: O has won"
    assert "<circle" not in solver.analyze([])._repr_html_(), "no moves, no chart"
