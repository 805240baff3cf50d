"""Notebook pictures: the adapter that lets Jupyter draw positions and analysed games.

Jupyter asks an object for ``_repr_svg_`` and ``_repr_html_``. The tables' results
(:class:`~solver.tables.position.Position`, :class:`~solver.tables.analysis.GameAnalysis`,
:class:`~solver.tables.summary.TableStats`)
answer with whatever picture is registered in :data:`solver.tables.position.PICTURES`;
this module registers the pictures of :mod:`solver.present.svg` there when the package is
imported, so the tables never import the presentation layer above them. What it registers imports the
pictures' modules when a picture is first drawn, so that importing :mod:`solver` loads none of them.

>>> import solver
>>> solver.lookup("XO./.X./...")._repr_svg_().startswith("<svg")
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..tables.position import PICTURES

if TYPE_CHECKING:
    from ..tables.analysis import GameAnalysis
    from ..tables.position import Position
    from ..tables.summary import TableStats


# Each picture imports its module when first drawn (the SVG, charts and words of solver.present): registering
# them at import costs nothing then, and a process that draws no picture loads none of those modules.


def _position_svg(position: Position) -> str:
    """:func:`solver.present.svg.position_svg`."""
    from .svg import position_svg

    return position_svg(position)


def _position_html(position: Position) -> str:
    """:func:`solver.present.svg.position_html`."""
    from .svg import position_html

    return position_html(position)


def _analysis_html(analysis: GameAnalysis) -> str:
    """:func:`solver.present.svg.analysis_html`."""
    from .svg import analysis_html

    return analysis_html(analysis)


def _stats_html(stats: TableStats) -> str:
    """:func:`solver.present.charts.stats_html`."""
    from .charts import stats_html

    return stats_html(stats)


def _analysis_text(analysis: GameAnalysis) -> str:
    """:func:`solver.present.analysis.analysis_text`."""
    from .analysis import analysis_text

    return analysis_text(analysis)


def register() -> None:
    """Register the SVG and HTML pictures (done once when :mod:`solver` is imported; calling it again changes nothing)."""
    pictures: dict[str, Any] = {
        "position svg": _position_svg,
        "position html": _position_html,
        "analysis html": _analysis_html,
        "stats html": _stats_html,
        "analysis text": _analysis_text,
    }
    PICTURES.update(pictures)


register()
