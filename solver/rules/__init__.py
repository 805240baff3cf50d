"""The rules of the games: what a board's status is, which moves there are, what a finished board scores.

``game.rules`` (:class:`~solver.rules.base.Rules`) is the one place that knows how a game is played,
composed of a grid, a move rule and a scoring (no class per combination):

- :mod:`solver.rules.game`: a game's shape, line length and rule, and its name (``3x3k3``, ``4x4-misere``)
- :mod:`solver.rules.catalog`: which parts a name suffix means, composed into the game's rule
- :mod:`solver.rules.base`: the composed rule, the statuses of a board, scalar and vectorised
- :mod:`solver.rules.parts`: what a move rule and a scoring answer (and the shape they read)
- :mod:`solver.rules.grid`: the grid: cells, the directions its lines of ``k`` run in, symmetries (a *board* is a
  position's pieces, :mod:`solver.encoding.board`)
- move rules: :mod:`solver.rules.placement` (any empty cell), :mod:`solver.rules.gravity` (a piece drops)
- scorings: :mod:`solver.rules.normal` (a line wins), :mod:`solver.rules.misere` (a line loses),
  :mod:`solver.rules.armageddon` (a line wins, a draw is O's win)
- :mod:`solver.rules.score`: a position's outcome and distance in one signed byte
- :mod:`solver.rules.widegravity`: gravity past 32 cells (6x6's 36, Connect Four's 42), a board as two masks

The rules read boards as bit words and know no base-3 code: a code becomes a word in
:mod:`solver.encoding.coderules`, which asks the rule of a code (``code_rules(game).judge(code)``).
"""
