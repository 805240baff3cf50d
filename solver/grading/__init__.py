"""Grading a player: the grader, the answer key, the player's process and its sandbox."""
