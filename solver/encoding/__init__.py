"""Boards as numbers: text and arrays to base-3 codes, moves, symmetries, the per-layer index."""
