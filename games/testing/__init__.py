"""Test and simulation support that ships with the app (never imported by the site itself).

- ``games.testing.factories``: users and tables (N seated players, optionally started);
- ``games.testing.driver``: random legal moves, chosen from what a player can see.

They live in the app, not under tests/, so that ``manage.py simulate_tables`` and the
benchmarks in scripts/ use the very same code as the test suite.
"""
