"""Solved-game tables, answering only: the interface and its two kinds.

==========================  =====================================================
:mod:`solver.tables.base`   :class:`Table`, the interface both kinds implement
:mod:`solver.tables.scores` :class:`Scores`, the one answer of a batch look-up
:mod:`solver.tables.dense`  :class:`DenseTable`: 4 bytes per code, up to 16 cells
:mod:`solver.tables.compact`  :class:`CompactTable`: a score byte per legal-count
                            board, up to 25 cells
==========================  =====================================================

Nothing here builds a table (:mod:`solver.store.make`) or decides where one lives
(:mod:`solver.store.locate`); :func:`from_file` gives the table of an open file of either kind.
"""

from __future__ import annotations

from ..storage.tablefile import TableFile
from .base import Kind, Prover, Table
from .compact import CompactTable
from .dense import DenseTable
from .scores import Scores

__all__ = ["CompactTable", "DenseTable", "Kind", "Prover", "Scores", "Table", "from_file"]


def from_file(opened: TableFile, *, verify: bool | None = None, prove: Prover | None = None) -> Table:
    """The table of an open table file, of the kind its header says.

    :param verify: for a dense table, as :meth:`DenseTable.from_file`'s (compact tables
        are verified span by span on first use).
    :param prove: what the table's :meth:`Table.verify` calls (:func:`solver.store.make.prove`).
    :raises TableError: if the file's layout does not fit its kind.
    """
    if opened.header.kind == "dense":
        return DenseTable.from_file(opened, verify=verify, prove=prove)
    return CompactTable.from_file(opened, prove=prove)
