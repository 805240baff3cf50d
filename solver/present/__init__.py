"""Presentation: the words and pictures of positions and analyses (text, SVG, notebook HTML)."""
