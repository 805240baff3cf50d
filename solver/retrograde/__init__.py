"""The build kernels: computing tables, nothing else (no table class, no file format).

=========================  ==========================================================
:mod:`solver.retrograde.dense`    the retrograde build of a dense table, in memory (games of
                             up to 16 cells): every code's score, pieces and best moves
:mod:`solver.retrograde.layered`  the layer-by-layer build of a compact table in a build
                             directory, in chunks run by local worker processes; a
                             killed build resumes
:mod:`solver.retrograde.cluster`  the same sweep with its chunks run on a Dask cluster
=========================  ==========================================================

:mod:`solver.store.make` turns their results into tables and files. Nothing is imported
here, so ``import solver.retrograde.dense`` does not pull in the layered build.
"""
