"""Computer players at the table (issue 48): what a seat sees, the moves that fall due,
and the thread that makes them.

The decisions are games.rules.computer's (pure, seeded); this package feeds them a
seat's view built from the game (``seat_views``), finds from the database the moves
the computer owes (``moves``, with games.play.turns) and makes them through the same
actions as people, in a background thread of each server process (``runner``).
"""
