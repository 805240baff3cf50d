"""The rules of the games: what a board's status is, which moves there are, what a finished board scores."""
