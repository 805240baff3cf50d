"""Notebook pictures: the adapter that lets Jupyter draw positions and analysed games.

Jupyter asks an object for ``_repr_svg_`` and ``_repr_html_``. The tables' results
(:class:`~solver.tables.position.Position`, :class:`~solver.tables.analysis.GameAnalysis`,
:class:`~solver.tables.summary.TableStats`)
answer with whatever picture is registered in :data:`solver.tables.position.PICTURES`;
this module registers the pictures of :mod:`solver.present.svg` there when the package is
imported, so the tables never import the presentation layer above them.

>>> import solver
>>> solver.lookup("XO./.X./...")._repr_svg_().startswith("<svg")
True
"""

from __future__ import annotations

from ..tables.position import PICTURES
from .analysis import analysis_text
from .charts import stats_html
from .svg import analysis_html, position_html, position_svg


def register() -> None:
    """Register the SVG and HTML pictures (done once when :mod:`solver` is imported; calling it again changes nothing)."""
    PICTURES.update(
        {"position svg": position_svg, "position html": position_html, "analysis html": analysis_html, "stats html": stats_html, "analysis text": analysis_text}
    )


register()
