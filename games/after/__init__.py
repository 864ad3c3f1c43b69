"""After the game: the game record and its audit, replay, history, statistics, rematch,
and their views."""
