"""The build kernels: computing tables, nothing else (no table class, no file format).

=========================================  =================================================================
:mod:`solver.retrograde.dense`             the retrograde build of a dense table, in memory (games of up
                                           to 16 cells): every code's score, pieces and best moves
:mod:`solver.retrograde.sweep`             the layered build of a compact table: layer by layer, backward,
                                           in a build directory; its journal and resume; the local workers
:mod:`solver.retrograde.chunks`            the chunks of a layer (the units of work) and the work of a layer
:mod:`solver.retrograde.kernel`            solving one chunk from the next layer's scores
:mod:`solver.retrograde.chunkrules`        the chunk's half-boards given to the game's rule (solver.retrograde.halves), the answer spread to the boards
:mod:`solver.retrograde.builddir`          the build directory: its files and the manifest of finished layers
:mod:`solver.retrograde.reachfile`         a gravity layer's bits of the boards reached, compressed a chunk a frame
:mod:`solver.retrograde.sparse`            a gravity layer kept a byte a board reached, and read dense again
:mod:`solver.retrograde.spool`             a worker's task: solve chunks and spool them compressed
:mod:`solver.retrograde.plan`              the layers left, and the disk and memory a build needs
:mod:`solver.retrograde.proof`             the proof of a table: every board against its stored children
:mod:`solver.retrograde.sealing`           finished layers sealed into a table's compressed blocks
:mod:`solver.retrograde.cluster`           the same sweep with its chunks run on a Dask cluster
:mod:`solver.retrograde.minimax`           a plain recursive negamax: the reference a sampled check compares with
=========================================  =================================================================

:mod:`solver.store.make` turns their results into tables and files. Nothing is imported
here, so ``import solver.retrograde.dense`` does not pull in the layered build.
"""
