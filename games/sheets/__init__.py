"""The score sheet for games played with real cards (seed 001, issue 47).

models (rows) -> forms (parsing) -> actions (one locked transaction per save, scores
from games.rules) -> views (thin) and live (a per-sheet channel group, consumers).
"""
