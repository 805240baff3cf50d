"""The rules of the games: what a board's status is, which moves there are, what a finished board scores.

``game.rules`` (:class:`~solver.rules.base.Rules`) is the one place that knows how a game is played:

- :mod:`solver.rules.game`: a game's shape, line length and rule, and its name (``3x3k3``, ``4x4-misere``)
- :mod:`solver.rules.base`: the rule interface and the statuses of a board
- :mod:`solver.rules.mnk`: the m,n,k rule (a line of ``k`` wins), scalar and vectorised
- :mod:`solver.rules.misere`: misère play (a line of ``k`` loses)
- :mod:`solver.rules.catalog`: which rule a name suffix means
- :mod:`solver.rules.score`: a position's outcome and distance in one signed byte
- :mod:`solver.rules.bitboard`: codes cut into digit fields, as the rules and symmetries read them
"""
