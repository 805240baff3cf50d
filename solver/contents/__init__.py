"""What a table's layers hold, above the bytes: which boards a compact table stores, the counts of results per layer,
and which scores a layer can hold at all.

The layer between the tables and the build (:mod:`solver.tables`, :mod:`solver.retrograde`), which both read,
and the bytes on disk (:mod:`solver.storage`, which knows none of this):

- :mod:`solver.contents.stored`: the boards a compact table stores (canonical, in play), layer by layer, and what
  its file's ``meta`` records of the layout (:func:`~solver.contents.stored.compact_meta`)
- :mod:`solver.contents.histograms`: the counts of wins, losses and draws (by plies) of a layer or a table
- :mod:`solver.contents.plausible`: which bytes a layer can hold (a damaged block holds others)
"""
